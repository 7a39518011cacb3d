import pLimit from 'p-limit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HttpClient } from '../../src/transport/client.js';
import type { ProbeContext } from '../../src/probes/types.js';
import { probeValidator, validatorChanges, type ValidatorMemory, type ValidatorSettings } from '../../src/probes/validator.js';
import { validatorReport } from '../../src/model/validator.js';
import type { SimServer } from '../../src/sim/server.js';
import { SIM_PRE_HELICON_VERSION } from '../../src/sim/validator.js';
import { closedPort, setScenario, startFixtureServer, startSim } from '../helpers/harness.js';

const DAY = 86_400;

describe('the validator probe against simulated nodes', () => {
  let sim: SimServer;
  let ctx: Pick<ProbeContext, 'http' | 'limit'>;
  const memories = new Map<string, ValidatorMemory>();

  beforeAll(async () => {
    sim = await startSim([
      { name: 'v', scenario: 'healthy' },
      { name: 'l1v', scenario: 'healthy', l1: true },
      { name: 'rpc', scenario: 'healthy', validator: false },
    ]);
    ctx = { http: new HttpClient({ maxResponseBytes: 1 << 20 }), limit: pLimit(8) };
  });
  afterAll(async () => {
    await ctx.http.close();
    await sim.close();
  });

  const target = (name: string, url = sim.nodeUrl(name)) => ({ name, baseUrl: url, headers: { authorization: 'Bearer s3cr3t-token' }, timeoutMs: 2000, tls: { insecureSkipVerify: false }, secrets: ['s3cr3t-token'] });
  const settings = (subnets: string[] = [], uptimeRequirement?: number): ValidatorSettings => ({ intervalMs: 60_000, subnets, ...(uptimeRequirement !== undefined ? { uptimeRequirement } : {}) });
  const memory = (name: string) => {
    if (!memories.has(name)) memories.set(name, {});
    return memories.get(name)!;
  };
  const poll = (name: string, subnets: string[] = [], override?: number) => probeValidator(target(name), settings(subnets, override), ctx, memory(name));

  it('a healthy Primary Network validator: uptime, version, Helicon (0.9), its period and budget; 6 calls first, 4 after', async () => {
    const node = sim.nodes.get('v')!;
    const calls = node.economics.calls;
    const first = await poll('v');
    expect(first).toMatchObject({ endpoint: 'validator', view: 'all', ok: true, nodeId: node.nodeId, httpStatus: 200 });
    const report = validatorReport(first)!;
    expect(report).toMatchObject({
      nodeId: node.nodeId,
      version: 'avalanchego/1.15.2',
      heliconTime: Date.UTC(2026, 8, 22, 15) / 1000,
      // network/network.go NodeUptime: the sim's peers' whole-percent Pings, as AvalancheGo counts them
      uptime: { rewardingStakeRatio: expect.closeTo(node.economics.uptimePercents().rewarding / 100, 4), weightedAverageRatio: expect.closeTo(node.economics.uptimePercents().weighted / 100, 4) },
      primary: { startTime: node.economics.validationStartsAt, endTime: Math.floor(node.validationEndsAt), potentialRewardNAvax: 117431493426 },
      l1: [],
      problems: [],
    });
    expect(report.notValidator).toBeUndefined();
    const period = Math.floor(node.validationEndsAt) - node.economics.validationStartsAt;
    expect(report.economics!.requirement).toBe(0.9);
    expect(report.economics!.downtimeAllowanceSeconds).toBeCloseTo(0.1 * period, 6);
    // 10 days in at the weighted figure: 0.1 × period − (1 − weighted) × 10 days.
    expect(report.economics!.downtimeBudgetRemainingSeconds).toBeCloseTo(0.1 * period - (1 - report.uptime!.weightedAverageRatio) * 10 * DAY, -2);
    expect(calls.splice(0)).toEqual(expect.arrayContaining(['info.getNodeID', 'info.uptime', 'info.getNodeVersion', 'info.upgrades', 'platform.getCurrentValidators']));
    await poll('v');
    expect(calls.splice(0).sort()).toEqual(['info.getNodeIP', 'info.getNodeVersion', 'info.uptime', 'platform.getCurrentValidators']);
  });

  it('an L1 validator: fee state and its validation per configured subnet; 6 calls per round', async () => {
    const node = sim.nodes.get('l1v')!;
    await poll('l1v', [node.l1SubnetId!]);
    node.economics.calls.splice(0);
    const observation = await poll('l1v', [node.l1SubnetId!]);
    expect(node.economics.calls.splice(0)).toHaveLength(6);
    expect(observation.ok).toBe(true);
    expect(validatorReport(observation)!.feeState?.priceNAvaxPerSecond).toBe(512);
    expect(validatorReport(observation)!.l1).toEqual([
      { subnetId: node.l1SubnetId, validationId: node.economics.l1ValidationId, nodeId: node.nodeId, weight: 20, startTime: node.economics.validationStartsAt, balanceNAvax: expect.any(Number) },
    ]);
    expect(validatorReport(observation)!.economics!.l1RunwaySeconds[0]! / DAY).toBeGreaterThan(190);
  });

  it('scenarios: reward at risk, L1 balance low and inactive, version behind (0.8 without heliconTime)', async () => {
    await setScenario(sim, 'v', 'reward-at-risk');
    expect(validatorReport(await poll('v'))!.uptime).toEqual({ rewardingStakeRatio: 0.725, weightedAverageRatio: 0.66 });

    const l1 = sim.nodes.get('l1v')!;
    await setScenario(sim, 'l1v', 'l1-balance-low');
    expect(validatorReport(await poll('l1v', [l1.l1SubnetId!]))!.economics!.l1RunwaySeconds[0]! / DAY).toBeCloseTo(2.3, 2);
    await setScenario(sim, 'l1v', 'l1-inactive');
    expect(validatorReport(await poll('l1v', [l1.l1SubnetId!]))!.l1[0]!.balanceNAvax).toBe(0);
    await setScenario(sim, 'l1v', 'healthy');

    await setScenario(sim, 'v', 'version-behind');
    const behind = validatorReport(await poll('v'))!;
    expect(behind).toMatchObject({ version: 'avalanchego/1.15.0', heliconTime: Date.UTC(2026, 8, 22, 15) / 1000 });
    expect(behind.economics!.requirement).toBe(0.9);
    // a build from before Helicon (given explicitly: past the activation no such node follows its chains)
    await setScenario(sim, 'v', 'healthy', { version: SIM_PRE_HELICON_VERSION });
    const preHelicon = validatorReport(await poll('v'))!;
    expect(preHelicon).toMatchObject({ version: 'avalanchego/1.14.2', heliconTime: null });
    expect(preHelicon.economics!.requirement).toBe(0.8);
    await setScenario(sim, 'v', 'healthy', { version: null });
    expect(validatorReport(await poll('v'))!).toMatchObject({ version: 'avalanchego/1.15.2', heliconTime: expect.any(Number) });
  });

  it('uptime_requirement is the base: 0.9 for a period started after Helicon whatever it says (ACP-267, options.go)', async () => {
    // the simulated period started ten days ago, after mainnet's Helicon (2026-09-22)
    expect(validatorReport(await poll('v', [], 0.8))!.economics).toMatchObject({ requirement: 0.9, requirementBasis: 'acp-267' });
    expect(validatorReport(await poll('v', [], 0.85))!.economics).toMatchObject({ requirement: 0.9, requirementBasis: 'acp-267' });
    // a node whose schedule has no Helicon: the base applies
    await setScenario(sim, 'v', 'healthy', { version: SIM_PRE_HELICON_VERSION });
    expect(validatorReport(await poll('v', [], 0.85))!.economics).toMatchObject({ requirement: 0.85, requirementBasis: 'configured-base' });
    await setScenario(sim, 'v', 'healthy', { version: null });
  });

  it('"node is not a validator" is an answer: a successful poll with no Primary Network part', async () => {
    const observation = await poll('rpc');
    expect(observation.ok).toBe(true);
    expect(validatorReport(observation)).toMatchObject({ notValidator: true, problems: [] });
    expect(validatorReport(observation)!.uptime).toBeUndefined();
    expect(validatorReport(observation)!.primary).toBeUndefined();
    expect(validatorReport(observation)!.economics).toEqual({ l1RunwaySeconds: [] });
  });

  it('a disabled info API (404) is its own state: not a success (#24.8), reported once as a change', async () => {
    const before = validatorReport(await poll('v'))!;
    expect(before.infoApiDisabled).toBe(false);
    await setScenario(sim, 'v', 'info-api-disabled');
    const observation = await poll('v');
    expect(observation).toMatchObject({ ok: false, reason: 'http_status', httpStatus: 404 });
    expect(observation.error).toContain('info.uptime: HTTP 404');
    expect(validatorReport(observation)!.infoApiDisabled).toBe(true);
    expect(validatorReport(observation)!.problems.map((p) => [p.call, p.reason])).toEqual([
      ['info.uptime', 'disabled'],
      ['info.getNodeVersion', 'disabled'],
    ]);
    // the P-Chain API still answers: the same validation period as before
    expect(before.primary!.endTime).toBeGreaterThan(before.primary!.startTime);
    expect(validatorReport(observation)!.primary).toEqual(before.primary);
    const changes = validatorChanges(before, validatorReport(observation)!);
    expect(changes.map((c) => [c.level, c.msg, c.fields.call])).toEqual([
      ['info', 'validator API disabled on the node; its part is skipped', 'info.uptime'],
      ['info', 'validator API disabled on the node; its part is skipped', 'info.getNodeVersion'],
    ]);
    expect(validatorChanges(validatorReport(observation)!, validatorReport(await poll('v'))!)).toEqual([]);
    await setScenario(sim, 'v', 'healthy');
  });

  it('bad shapes cost their part only, classified bad_shape with every failing call named', async () => {
    await setScenario(sim, 'l1v', 'validator-bad-shape');
    const l1 = sim.nodes.get('l1v')!;
    const observation = await poll('l1v', [l1.l1SubnetId!]);
    expect(observation).toMatchObject({ ok: false, reason: 'bad_shape' });
    expect(observation.error).toContain('info.uptime: rewardingStakePercentage "172.5000" is not a percentage');
    expect(observation.error).toContain('platform.getCurrentValidators: endTime nothing is not a time');
    expect(observation.error).toContain('platform.getValidatorFeeState: price nothing is not a fee price');
    const report = validatorReport(observation)!;
    expect(report.version).toBe('avalanchego/1.15.2');
    expect(report.l1).toHaveLength(1); // the subnet list itself was fine
    expect(report.uptime).toBeUndefined();
    expect(report.economics!.l1RunwaySeconds).toEqual([undefined]);
    await setScenario(sim, 'l1v', 'healthy');
  });

  it('a JSON-RPC error with a 200 status is rpc_error; transport failures keep their reason; secrets never show', async () => {
    const echo = await startFixtureServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        const { id } = JSON.parse(body) as { id: number };
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message: `denied for Bearer s3cr3t-token`, data: null }, id }));
      });
    });
    try {
      const observation = await probeValidator(target('echo', echo.url), settings(), ctx, {});
      expect(observation).toMatchObject({ ok: false, reason: 'rpc_error' });
      expect(observation.error).toContain('info.getNodeID: JSON-RPC error: denied for Bearer [REDACTED]');
      expect(JSON.stringify(observation)).not.toContain('s3cr3t-token');
    } finally {
      await echo.close();
    }
    const refused = await probeValidator(target('down', `http://127.0.0.1:${await closedPort()}`), settings(), ctx, {});
    expect(refused).toMatchObject({ ok: false, reason: 'connect' });
    expect(validatorReport(refused)!.problems.every((p) => p.reason === 'connect')).toBe(true);
  });
});
