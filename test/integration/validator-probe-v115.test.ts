import pLimit from 'p-limit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HttpClient, ProbeError } from '../../src/transport/client.js';
import { MAX_OWN_L1_VALIDATIONS, validationRenews, validatorReport, type ScheduleSource } from '../../src/model/validator.js';
import type { ProbeContext } from '../../src/probes/types.js';
import { EMPTY_NODE_ID, probeValidator, validatorChanges, type ValidatorMemory } from '../../src/probes/validator.js';
import { SIM_POPULAR_DELEGATORS, SIM_PRE_HELICON_VERSION } from '../../src/sim/validator.js';
import type { SimServer } from '../../src/sim/server.js';
import { setScenario, startSim } from '../helpers/harness.js';
import { reportFor } from '../../src/alerts/rules/validator-facts.js';
import { UNKNOWN, type ValidatorInput } from '../../src/alerts/rules/rule.js';

const DAY = 86_400;
/** The daemon's default max_response_size. */
const DEFAULT_CAP = 4 * 1024 * 1024;

/**
 * Issue 24, the probe side: simulated nodes playing AvalancheGo v1.14/v1.15 answers (shapes from
 * vms/platformvm/service.go, vms/platformvm/api/validator.go, api/info/service.go, upgrade/upgrade.go).
 */
describe('the validator probe: attribution, auto-renewal, large and hostile answers, the network schedule', () => {
  let sim: SimServer;
  let ctx: Pick<ProbeContext, 'http' | 'limit'>;
  const memories = new Map<string, ValidatorMemory>();

  beforeAll(async () => {
    sim = await startSim([
      { name: 'anon', scenario: 'node-id-unknown', l1: true },
      { name: 'renew', scenario: 'auto-renewing', validationEndsIn: 2 * DAY },
      { name: 'popular', scenario: 'popular-validator' },
      { name: 'hostile', scenario: 'healthy', l1: true },
      { name: 'new', scenario: 'healthy' },
      // a build from before Helicon, given explicitly (version-behind is a v1.15 build that knows it)
      { name: 'old', scenario: 'healthy', version: SIM_PRE_HELICON_VERSION },
      { name: 'down', scenario: 'reset', validationEndsIn: 2 * DAY },
    ]);
    ctx = { http: new HttpClient({ maxResponseBytes: DEFAULT_CAP }), limit: pLimit(8) };
  });
  afterAll(async () => {
    await ctx.http.close();
    await sim.close();
  });

  const target = (name: string) => ({ name, baseUrl: sim.nodeUrl(name), headers: {}, timeoutMs: 5000, tls: { insecureSkipVerify: false }, secrets: [] });
  const memory = (name: string) => {
    if (!memories.has(name)) memories.set(name, {});
    return memories.get(name)!;
  };
  const poll = (name: string, subnets: string[] = [], fleet?: () => Iterable<ScheduleSource>) => probeValidator(target(name), { intervalMs: 60_000, subnets }, ctx, memory(name), () => undefined, fleet);

  it('a node that does not answer before its NodeID is learnt: its validations are not known now, not none', async () => {
    // A new shard owner or a fresh start while the node is down: info.getNodeID fails with the rest.
    // Taken for "no validation" (NODE_ID_UNKNOWN), an open validator incident (its period ending)
    // resolved and paged again once the node answered (seeded trust week 4).
    const down = validatorReport(await poll('down'))!;
    expect(down.nodeIdUnknown).toBeUndefined();
    expect(down.primary).toBeUndefined();
    expect(down.problems).toContainEqual({ call: 'platform.getCurrentValidators', reason: 'connect', error: expect.stringContaining('not asked: the NodeID is not known yet') });
    // the validator rules hold their verdicts (reportFor: UNKNOWN), as for a call that failed
    const input: ValidatorInput = { observation: await poll('down') };
    expect(reportFor(input, (call) => call === 'platform.getCurrentValidators')).toBe(UNKNOWN);
    await setScenario(sim, 'down', 'healthy');
    const back = validatorReport(await poll('down'))!;
    expect(back.nodeId).toBe(sim.nodes.get('down')!.nodeId);
    expect(back.primary?.endTime).toBeDefined();
    expect(back.problems).toEqual([]);
  });

  it('#24.2 an unknown NodeID (info API off, node-id header stripped): nothing is asked by subnet, nothing attributed, the reason said once', async () => {
    const node = sim.nodes.get('anon')!;
    const first = await poll('anon', [node.l1SubnetId!]);
    // without nodeIDs the L1's answer would list every validator of the L1, another node's included
    expect(node.economics.calls).not.toContain('platform.getCurrentValidators');
    expect(validatorReport(first)).toMatchObject({ l1: [], infoApiDisabled: true, nodeIdUnknown: expect.stringContaining('NodeID unknown') });
    expect(validatorReport(first)!.nodeId).toBeUndefined();
    expect(first.nodeId).toBeUndefined();
    const second = await poll('anon', [node.l1SubnetId!]);
    const said = (before: ReturnType<typeof validatorReport>, after: ReturnType<typeof validatorReport>) => validatorChanges(before, after!).filter((c) => c.msg.includes('NodeID is unknown'));
    expect(said(undefined, validatorReport(first))).toHaveLength(1);
    expect(said(validatorReport(first), validatorReport(second))).toEqual([]);
    // learnt again (a configured node_id or the header): attributed by NodeID only
    await setScenario(sim, 'anon', 'healthy');
    const known = await poll('anon', [node.l1SubnetId!]);
    expect(validatorReport(known)!.l1.map((v) => v.nodeId)).toEqual([node.nodeId]);
    expect(node.economics.params.filter((_, i) => node.economics.calls[i] === 'platform.getCurrentValidators')).toContainEqual({ subnetID: node.l1SubnetId, nodeIDs: [node.nodeId] });
    expect(validatorChanges(validatorReport(second), validatorReport(known)!).map((c) => c.msg)).toContain('NodeID learnt; validations attributed again');
  });

  it('#24.3 20,000 delegators: asked beside the empty NodeID the answer carries no delegators array, so the series survive the 4 MiB cap', async () => {
    const node = sim.nodes.get('popular')!;
    // what asking with the NodeID alone gets (vms/platformvm/service.go: the delegators when numNodeIDs == 1)
    const alone = await ctx.http.request({ url: `${sim.nodeUrl('popular')}/ext/bc/P`, method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'platform.getCurrentValidators', params: { nodeIDs: [node.nodeId] } }), timeoutMs: 5000 }).catch((err: unknown) => err);
    expect(alone).toBeInstanceOf(ProbeError);
    expect((alone as ProbeError).reason).toBe('too_large');
    const observation = await poll('popular');
    expect(observation.ok).toBe(true);
    expect(validatorReport(observation)!.primary).toMatchObject({ delegatorCount: SIM_POPULAR_DELEGATORS, potentialRewardNAvax: 117431493426 });
    expect(validatorReport(observation)!.economics!.downtimeBudgetRemainingSeconds).toBeGreaterThan(0);
    const asked = node.economics.params.filter((_, i) => node.economics.calls[i] === 'platform.getCurrentValidators');
    expect(asked.at(-1)).toEqual({ nodeIDs: [node.nodeId, EMPTY_NODE_ID] });
  });

  it('#24.4 an auto-renewed validator (ACP-236): renews, next period, reward and budget per cycle; nextPeriod 0 exits', async () => {
    const node = sim.nodes.get('renew')!;
    const renewing = validatorReport(await poll('renew'))!;
    const cycle = Math.floor(node.validationEndsAt) - node.economics.validationStartsAt;
    // later v1.15 releases: nothing compounded yet (no cycle of it has ended in the simulator)
    expect(renewing.primary!.autoRenewal).toEqual({ nextPeriodSeconds: 14 * DAY, renews: true, autoCompoundRatio: 0.3, authorityAddresses: [expect.stringMatching(/^P-avax1/)], restakedValidationNAvax: 0, restakedDelegateeNAvax: 0 });
    expect(validationRenews(renewing.primary)).toBe(true);
    // the budget is the current cycle's: (1 − 0.9) × cycle − (1 − 0.992) × elapsed
    expect(renewing.economics!.downtimeAllowanceSeconds).toBeCloseTo(0.1 * cycle, 6);
    await setScenario(sim, 'renew', 'auto-renewing', { nextPeriodSeconds: 2 * DAY });
    expect(validatorReport(await poll('renew'))!.primary!.autoRenewal!.nextPeriodSeconds).toBe(2 * DAY);
    await setScenario(sim, 'renew', 'auto-renew-exiting');
    const exiting = validatorReport(await poll('renew'))!;
    expect(exiting.primary!.autoRenewal).toMatchObject({ nextPeriodSeconds: 0, renews: false });
    expect(validationRenews(exiting.primary)).toBe(false);
    await setScenario(sim, 'renew', 'healthy');
    const plain = validatorReport(await poll('renew'))!;
    expect(plain.primary!.autoRenewal).toBeUndefined();
    expect(validationRenews(plain.primary)).toBe(false);
  });

  it('#24.5 the network comes from info.getNetworkID (asked once); an older node follows the schedule of the newest node of its network', async () => {
    const [newer, older] = [sim.nodes.get('new')!, sim.nodes.get('old')!];
    const newReport = validatorReport(await poll('new'))!;
    expect(newReport).toMatchObject({ network: 'mainnet', version: 'avalanchego/1.15.2', heliconTime: Date.UTC(2026, 8, 22, 15) / 1000 });
    const fleet = (): ScheduleSource[] => [{ target: 'new', network: newReport.network!, version: newReport.version!, heliconTime: newReport.heliconTime! }];
    // alone, v1.14.2 reads Helicon unscheduled (9999-12-01): 0.8, a budget twice too large
    const alone = validatorReport(await poll('old'))!;
    expect(alone).toMatchObject({ network: 'mainnet', version: 'avalanchego/1.14.2', heliconTime: null });
    expect(alone.economics!.requirement).toBe(0.8);
    const withFleet = validatorReport(await poll('old', [], fleet))!;
    expect(withFleet.networkSchedule).toEqual({ heliconTime: newReport.heliconTime, from: 'new', version: 'avalanchego/1.15.2' });
    expect(withFleet.economics!.requirement).toBe(0.9);
    expect(withFleet.economics!.downtimeAllowanceSeconds).toBeCloseTo(alone.economics!.downtimeAllowanceSeconds! / 2, 3);
    expect(older.economics.calls.filter((c) => c === 'info.getNetworkID')).toHaveLength(1);
    // another network's schedule is not this node's
    await setScenario(sim, 'new', 'healthy', { networkId: 5 });
    memories.delete('new');
    const fuji = validatorReport(await poll('new'))!;
    expect(fuji.network).toBe('fuji');
    const other = validatorReport(await poll('old', [], () => [{ target: 'new', network: fuji.network!, version: fuji.version!, heliconTime: fuji.heliconTime! }]))!;
    expect(other.networkSchedule).toBeUndefined();
    expect(other.economics!.requirement).toBe(0.8);
    expect(newer.economics.calls).toContain('info.getNetworkID');
  });

  it('#24.5 a node whose info API is off (no version, no schedule, no network of its own) follows the newest node of its configured network', async () => {
    const newReport = validatorReport(await poll('new'))!;
    const fleet = (): ScheduleSource[] => [{ target: 'new', network: 'mainnet', version: 'avalanchego/1.15.2', heliconTime: newReport.heliconTime! }];
    await setScenario(sim, 'hostile', 'info-api-disabled');
    const node = sim.nodes.get('hostile')!;
    const locked = (network?: string) =>
      probeValidator({ ...target('hostile'), ...(network ? { network } : {}) }, { intervalMs: 60_000, subnets: [] }, ctx, {}, () => node.nodeId, fleet).then((o) => validatorReport(o)!);
    const configured = await locked('mainnet');
    expect(configured).toMatchObject({ infoApiDisabled: true, networkSchedule: { from: 'new' } });
    expect(configured.network).toBeUndefined();
    expect(configured.economics!.requirement).toBe(0.9);
    expect((await locked()).economics!.requirement).toBe(0.8);
    await setScenario(sim, 'hostile', 'healthy');
  });

  it('#24.8 a switched-off info API is a failed exchange of its own kind; an older node missing a method is not', async () => {
    await setScenario(sim, 'hostile', 'info-api-disabled');
    const off = await poll('hostile');
    expect(off).toMatchObject({ ok: false, reason: 'http_status', httpStatus: 404 });
    expect(validatorReport(off)!.infoApiDisabled).toBe(true);
    await setScenario(sim, 'hostile', 'healthy');
    const on = await poll('hostile');
    expect(on.ok).toBe(true);
    expect(validatorReport(on)!.infoApiDisabled).toBe(false);
  });

  it('#24.11 hostile shapes stay classified: 6,000-deep JSON, 5,000 own L1 validations (100 kept, the rest counted and logged once), uint64 above 2^53', async () => {
    const node = sim.nodes.get('hostile')!;
    await setScenario(sim, 'hostile', 'validator-deep-json');
    const deep = await poll('hostile');
    expect(deep).toMatchObject({ ok: false, reason: 'bad_shape' });
    expect(deep.error).toContain('info.uptime: JSON-RPC response nests deeper than 64 levels');
    // the other parts still answer: the series are current, not frozen
    expect(validatorReport(deep)!.primary).toBeDefined();

    await setScenario(sim, 'hostile', 'l1-many-validations');
    const many = await poll('hostile', [node.l1SubnetId!]);
    expect(many.ok).toBe(true);
    expect(validatorReport(many)!.l1).toHaveLength(MAX_OWN_L1_VALIDATIONS);
    expect(validatorReport(many)!.l1Dropped).toBe(5_000 - MAX_OWN_L1_VALIDATIONS);
    expect(validatorReport(many)!.economics!.l1RunwaySeconds).toHaveLength(MAX_OWN_L1_VALIDATIONS);
    const again = await poll('hostile', [node.l1SubnetId!]);
    const dropLines = (before: ReturnType<typeof validatorReport>, after: ReturnType<typeof validatorReport>) => validatorChanges(before, after!).filter((c) => c.msg.includes('more L1 validations'));
    expect(dropLines(validatorReport(deep), validatorReport(many))).toEqual([expect.objectContaining({ level: 'warn', fields: { kept: 100, dropped: 4_900 } })]);
    expect(dropLines(validatorReport(many), validatorReport(again))).toEqual([]);

    await setScenario(sim, 'hostile', 'validator-huge-numbers');
    const huge = await poll('hostile', [node.l1SubnetId!]);
    expect(huge).toMatchObject({ ok: false, reason: 'bad_shape' });
    expect(huge.error).toContain('potentialReward "100000000000000000000" is not a number');
    expect(huge.error).toContain('balance "100000000000000000000"');
    expect(validatorReport(huge)!.primary).toBeUndefined();
    expect(validatorReport(huge)!.l1).toEqual([]);
    await setScenario(sim, 'hostile', 'healthy');
  });
});
