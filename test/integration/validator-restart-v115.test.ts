/**
 * A v1.15 restart as the validator probe sees it. Until the P-Chain is bootstrapped the uptime
 * calculator is locked (snow/uptime/locked_calculator.go, errStillBootstrapping), so
 * network/network.go NodeUptime fails reading the node's own start time and info.uptime answers
 * "couldn't get node uptime: error while fetching local validator start time still bootstrapping"
 * (api/info/service.go). Peers connect and ping meanwhile, so the first answer lands anywhere on
 * the climb back (network/peer/peer.go, a Ping every 22.5 s). Played by src/sim/validator.ts.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pLimit from 'p-limit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HttpClient } from '../../src/transport/client.js';
import { validatorReport } from '../../src/model/validator.js';
import { validatorPanel } from '../../src/status/validator.js';
import type { ProbeContext } from '../../src/probes/types.js';
import { probeValidator, validatorChanges, type ValidatorMemory } from '../../src/probes/validator.js';
import type { SimServer } from '../../src/sim/server.js';
import { sample, scrape, startDaemon, startSim, waitFor, type RunningDaemon } from '../helpers/harness.js';

/**
 * One simulated healthy validator `v` and the validator probe polling it in process, with one
 * memory across polls (registered as the calling describe's set-up and tear-down).
 */
function probingOneValidator(): { sim: () => SimServer; poll: () => ReturnType<typeof probeValidator> } {
  let sim: SimServer;
  let ctx: Pick<ProbeContext, 'http' | 'limit'>;
  const memory: ValidatorMemory = {};
  beforeAll(async () => {
    sim = await startSim([{ name: 'v', scenario: 'healthy' }]);
    ctx = { http: new HttpClient({ maxResponseBytes: 4 * 1024 * 1024 }), limit: pLimit(4) };
  });
  afterAll(async () => {
    await ctx.http.close();
    await sim.close();
  });
  return {
    sim: () => sim,
    poll: () => probeValidator({ name: 'v', baseUrl: sim.nodeUrl('v'), headers: {}, timeoutMs: 5000, tls: { insecureSkipVerify: false }, secrets: [] }, { intervalMs: 1000, subnets: [] }, ctx, memory),
  };
}

describe('the validator probe through a v1.15 restart', () => {
  const { sim, poll } = probingOneValidator();

  it('"still bootstrapping" is not yet, not a failed call; the first answer mid-climb is held as a restart', { timeout: 60_000 }, async () => {
    const before = validatorReport(await poll())!;
    expect(before.uptime?.rewardingStakeRatio).toBeGreaterThan(0.99);
    const node = sim().nodes.get('v')!;
    // 10 s of snapshot, the first 8 of them bootstrapping: at the first answer 60 % of the peers' Pings are in
    node.restartNode({ snapshotMs: 10_000, bootstrapMs: 8_000 });
    const during = await poll();
    const bootstrapping = validatorReport(during)!;
    expect(node.economics.inRestartBootstrap()).toBe(true);
    expect(bootstrapping).toMatchObject({ uptimeBootstrapping: true });
    expect(bootstrapping.uptime).toBeUndefined();
    // its P-Chain lists are of a past height meanwhile (info.isBootstrapped): not yet, not an answer nor a failure
    expect(bootstrapping.pChainBootstrapping).toBe(true);
    expect(bootstrapping.problems.map((p) => p.reason)).toEqual(['bootstrapping']);
    expect(during.ok).toBe(true);
    expect(validatorChanges(before, bootstrapping).filter((c) => c.level === 'warn')).toEqual([]);
    // the page and /api/v1/targets/<name> say "not yet", not a failure
    expect(validatorPanel([during], undefined, undefined)).toMatchObject({ uptimeBootstrapping: true, problems: [{ call: 'platform.getCurrentValidators', reason: 'bootstrapping' }] });

    let first: ReturnType<typeof validatorReport>;
    await waitFor('the first answer after bootstrapping', async () => {
      first = validatorReport(await poll());
      return first?.uptime !== undefined;
    }, 20_000);
    // mid-climb: well above the node's own share of the stake, below where it settles
    expect(first!.uptime!.rewardingStakeRatio).toBeGreaterThan(0.1);
    expect(first!.uptime!.rewardingStakeRatio).toBeLessThan(0.99);
    expect(first!.uptimeSettling).toBeDefined();
    expect(first!.uptimeBootstrapping).toBeUndefined();
    // the climb ends: figures back, nothing held
    await waitFor('settled', async () => {
      const r = validatorReport(await poll())!;
      return r.uptime !== undefined && r.uptime.rewardingStakeRatio > 0.99 && r.uptimeSettling === undefined;
    }, 30_000);
  });
});

/**
 * A resync: the node restarted from an empty database. Its validator set is loaded from the
 * P-Chain's own state and moves with each block accepted (vms/platformvm/state/state.go
 * initValidatorSets, writeCurrentStakers), so until the P-Chain is bootstrapped info.uptime says
 * "node is not a validator" (network/network.go NodeUptime: no own weight yet) and
 * getCurrentValidators answers a height before the validation. Its own info.isBootstrapped
 * (api/info/service.go, chains/manager.go IsBootstrapped) tells that these are not yet answers.
 */
describe('the validator probe through a resync', () => {
  const { sim, poll } = probingOneValidator();

  it('info.isBootstrapped as AvalancheGo answers it: by alias, an unknown chain and no chain are errors', () => {
    const economics = sim().nodes.get('v')!.economics;
    expect(economics.answer('/ext/info', 'info.isBootstrapped', { chain: 'X' })).toEqual({ result: { isBootstrapped: true } });
    expect(economics.answer('/ext/info', 'info.isBootstrapped', { chain: 'Q' })).toMatchObject({ error: { message: "there is no chain with alias/ID 'Q'" } });
    expect(economics.answer('/ext/info', 'info.isBootstrapped', {})).toMatchObject({ error: { message: "argument 'chain' not given" } });
  });

  it('"not a validator" while the P-Chain replays is not yet: no validation ends, nothing fails', { timeout: 60_000 }, async () => {
    const node = sim().nodes.get('v')!;
    const before = validatorReport(await poll())!;
    expect(before.primary?.endTime).toBe(Math.floor(node.validationEndsAt));
    node.restartNode({ resync: true, snapshotMs: 10_000, bootstrapMs: 8_000 });
    const during = await poll();
    const resyncing = validatorReport(during)!;
    expect(node.economics.bootstrapping()).toBe(true);
    // what the node answers meanwhile: the calls a probe would otherwise take at their word
    expect(node.economics.answer('/ext/info', 'info.uptime', {})).toMatchObject({ error: { message: 'node is not a validator' } });
    expect(node.economics.answer('/ext/bc/P', 'platform.getCurrentValidators', { nodeIDs: [node.nodeId] })).toEqual({ result: { validators: [] } });
    expect(node.economics.answer('/ext/info', 'info.isBootstrapped', { chain: 'P' })).toEqual({ result: { isBootstrapped: false } });

    expect(resyncing.notValidator).toBeUndefined();
    expect(resyncing).toMatchObject({ pChainBootstrapping: true, uptimeBootstrapping: true });
    expect(resyncing.primary).toBeUndefined();
    expect(resyncing.problems).toEqual([{ call: 'platform.getCurrentValidators', reason: 'bootstrapping', error: expect.stringContaining('info.isBootstrapped') }]);
    expect(during.ok).toBe(true);
    const changes = validatorChanges(before, resyncing);
    expect(changes.filter((c) => c.level === 'warn')).toEqual([]);
    expect(changes.map((c) => c.msg)).toEqual(["node's P-Chain is bootstrapping; its validations are read once it is"]);
    expect(validatorPanel([during], undefined, undefined)).toMatchObject({ pChainBootstrapping: true, notValidator: false });

    // bootstrapped: the validation is back, and the first figures are held as a restart's climb
    const answered = await waitFor('the P-Chain bootstrapped', async () => {
      const observation = await poll();
      return validatorReport(observation)?.uptime !== undefined ? observation : undefined;
    }, 20_000);
    const after = validatorReport(answered)!;
    expect(after.primary?.endTime).toBe(before.primary!.endTime);
    expect(after.pChainBootstrapping).toBeUndefined();
    expect(after.problems).toEqual([]);
    // held from this first answer on: the answer after none starts the climb
    expect(after.uptimeSettling).toEqual({ since: answered.at, ownStakeRatio: expect.any(Number) });
    expect(validatorChanges(resyncing, after).map((c) => c.msg)).toEqual(["node's P-Chain bootstrapped; its validations are read again"]);
  });
});

describe('a v1.15 restart across a restart of the daemon', () => {
  let sim: SimServer;
  const stateDir = mkdtempSync(join(tmpdir(), 'avahealth-v115-restart-'));
  const config = () => `
listen: 127.0.0.1:0
state_dir: ${stateDir}
nodes:
  - {name: v, url: "${sim.nodeUrl('v')}", interval: 1s, validator: {interval: 1s}}
`;

  beforeAll(async () => {
    sim = await startSim([{ name: 'v', scenario: 'healthy' }]);
  });
  afterAll(async () => {
    await sim.close();
  });

  const report = (d: RunningDaemon) => validatorReport(d.daemon.store.get('v')?.jobs.get('validator')?.endpoints[0]);

  it('the daemon that saw "still bootstrapping" hands the climb to the next one: its first answer is held as a restart', { timeout: 60_000 }, async () => {
    const node = sim.nodes.get('v')!;
    let d = await startDaemon(config());
    try {
      await waitFor('a settled reading', () => (report(d)?.uptime?.rewardingStakeRatio ?? 0) > 0.99, 20_000);
      node.restartNode({ snapshotMs: 16_000, bootstrapMs: 12_000 });
      await waitFor('"still bootstrapping" seen', () => report(d)?.uptimeBootstrapping === true, 20_000);
    } finally {
      await d.stop();
    }
    // The daemon is away until the node answers again, mid-climb.
    await waitFor('the node past its bootstrap', () => !node.economics.inRestartBootstrap(), 20_000);
    d = await startDaemon(config());
    try {
      const first = await waitFor('the first answer', () => (report(d)?.uptime ? report(d) : undefined), 20_000);
      // mid-climb: above the node's own share, below where it settles
      expect(first.uptime!.rewardingStakeRatio).toBeGreaterThan(0.1);
      expect(first.uptime!.rewardingStakeRatio).toBeLessThan(0.99);
      expect(first.uptimeSettling).toBeDefined();
    } finally {
      await d.stop();
    }
  });
});

/**
 * A daemon that never saw the node restart: a new shard owner after the shard count changed, or a
 * fresh state_dir. Its first answer lands mid-climb with no gap before it (the node was answering
 * long before this daemon asked), and nothing it saw says when the node started: it is held as a
 * climb all the same, never judged as the node's uptime (trust week of seed 6: a RewardAtRisk page
 * 4 s after a reshard, 23 s into a 32-s restart snapshot).
 */
describe('a restart the daemon never saw', () => {
  let sim: SimServer;
  const config = () => `
listen: 127.0.0.1:0
state_dir: ${mkdtempSync(join(tmpdir(), 'avahealth-unseen-restart-'))}
nodes:
  - {name: v, url: "${sim.nodeUrl('v')}", interval: 1s, validator: {interval: 1s, network: false}}
alerts: {for_polls: 1}
`;

  beforeAll(async () => {
    sim = await startSim([{ name: 'v', scenario: 'healthy' }]);
  });
  afterAll(async () => {
    await sim.close();
  });

  const report = (d: RunningDaemon) => validatorReport(d.daemon.store.get('v')?.jobs.get('validator')?.endpoints[0]);

  it('holds its first answer mid-climb as a restart, pages nothing, and lets go at the top', { timeout: 60_000 }, async () => {
    const node = sim.nodes.get('v')!;
    node.restartNode({ snapshotMs: 16_000, bootstrapMs: 12_000 });
    await waitFor('the node past its bootstrap', () => !node.economics.inRestartBootstrap(), 20_000);
    const d = await startDaemon(config());
    try {
      const first = await waitFor('the first answer', () => (report(d)?.uptime ? report(d) : undefined), 20_000);
      expect(first.uptime!.rewardingStakeRatio).toBeGreaterThan(0.1);
      expect(first.uptime!.rewardingStakeRatio).toBeLessThan(0.99);
      // verdicts wait; the figures are shown as read (nothing says they are a snapshot)
      expect(first.uptimeSettling).toMatchObject({ firstAnswer: true });
      expect(sample(await scrape(d.url), 'avahealth_validator_uptime_rewarding_stake_ratio', { target: 'v' })).toBeGreaterThan(0.1);
      await waitFor('settled at the top', () => (report(d)?.uptime?.rewardingStakeRatio ?? 0) > 0.99 && report(d)?.uptimeSettling === undefined, 30_000);
      const alerts = JSON.parse(await (await fetch(`${d.url}/api/v1/alerts`)).text()) as { alerts: Array<{ alertname: string }> };
      expect(alerts.alerts.map((a) => a.alertname)).not.toContain('AvalancheValidatorRewardAtRisk');
    } finally {
      await d.stop();
    }
  });
});
