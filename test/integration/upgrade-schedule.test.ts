/**
 * The network's upgrade schedule from the fleet's own nodes (issue #44). Each node's info.upgrades
 * is its build's upgrade.Config (api/info/service.go Upgrades, upgrade/upgrade.go): a release that
 * schedules an upgrade adds its activation time (upgrade/new_upgrade_checklist.md), a build left
 * behind has no field for it. Compared across the nodes of one network, RPC nodes included:
 *
 * - an upgrade another node knows and this build does not is AvalancheNodeUpgradeUnknown, weeks
 *   before AvalancheGo's own futureupgrade check (node/node.go) says anything;
 * - once its time has passed, the node missed it: AvalancheNodeUpgradeRequired (critical) from the
 *   node's own schedule, for a daemon that never saw the futureupgrade check name the deadline and
 *   has nothing remembered in state_dir (a new shard owner, a fresh daemon).
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pLimit from 'p-limit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EndpointObservation, TargetObservation } from '../../src/model/observation.js';
import { readSchedule } from '../../src/probes/schedule.js';
import { HttpClient } from '../../src/transport/client.js';
import type { SimServer } from '../../src/sim/server.js';
import { startCapture, toldAlerts } from '../helpers/capture.js';
import { sample, scrape, setScenario, startDaemon, startSim, waitFor, waitForRounds, type RunningDaemon } from '../helpers/harness.js';

const DAY = 86_400;

/** RPC nodes of the simulator polled every second (health only), paging a webhook at once. */
const fleetConfig = (stateDir: string, sim: SimServer, hookUrl: string, names: string[]) => `
listen: 127.0.0.1:0
state_dir: ${stateDir}
defaults: {interval: 1s, timeout: 1500ms, endpoints: [health], validator: false}
nodes:
${names.map((name) => `  - {name: ${name}, url: "${sim.nodeUrl(name)}"}`).join('\n')}
alerts:
  for_polls: 1
  resolve_polls: 1
  receivers:
    - {name: oncall, webhook: {url: "${hookUrl}/hook"}}
`;

describe('upgrades scheduled that a build does not know', () => {
  let sim: SimServer;
  let hook: Awaited<ReturnType<typeof startCapture>>;
  let d: RunningDaemon | undefined;

  const config = (stateDir: string) => fleetConfig(stateDir, sim, hook.url, ['upgraded', 'behind']);

  beforeAll(async () => {
    // Two RPC nodes (no validator poll): 'behind' runs a build that does not know the upgrade a release scheduled in 20 days.
    sim = await startSim([
      { name: 'upgraded', scenario: 'healthy', validator: false, periodMs: 500 },
      { name: 'behind', scenario: 'upgrade-required', upgradeIn: 20 * DAY, validator: false, periodMs: 500 },
    ]);
    hook = await startCapture();
  }, 30_000);

  afterAll(async () => {
    await d?.stop();
    await sim?.close();
    await hook?.close();
  });

  const told = (alertname: string, status = 'firing') => hook.told({ path: '/hook', status, alertname });

  it('warns weeks ahead, for an RPC node, with the date and the node that knows it', async () => {
    d = await startDaemon(config(mkdtempSync(join(tmpdir(), 'avahealth-schedule-'))));
    const at = sim.nodes.get('behind')!.upgradeAt;
    const alert = await waitFor('UpgradeUnknown for behind', () => told('AvalancheNodeUpgradeUnknown').find((a) => a.labels.target === 'behind'), 20_000);
    expect(alert.labels.severity).toBe('warning');
    expect(alert.annotations.summary).toMatch(/^behind: upgrade AvalancheGo before \d{4}-\d\d-\d\d \d\d:\d\d UTC \(in (19|20)d.*\): the network schedules NextUpgrade then, and this node's build does not know it$/);
    expect(alert.annotations.description).toContain('upgraded, a node of the same network, schedules NextUpgrade (nextUpgradeTime)');
    expect(alert.annotations.description).toContain('has no field for it');
    const m = await scrape(d.url);
    expect(sample(m, 'avahealth_node_upgrade_unknown_timestamp_seconds', { target: 'behind' })).toBe(at);
    expect(sample(m, 'avahealth_node_upgrade_unknown_timestamp_seconds', { target: 'upgraded' })).toBeUndefined();
    // The futureupgrade check says nothing 20 days ahead, and avahealth's own rule from it waits for the last 7.
    expect(told('AvalancheNodeUpgradeRequired')).toEqual([]);
    expect(told('AvalancheNodeUpgradeUnknown').filter((a) => a.labels.target === 'upgraded')).toEqual([]);
    // While no schedule changes, a poll compares nothing anew: the same answer as the poll before (a poll a second, a fleet of thousands)
    const unknownNow = () => d!.daemon.store.get('behind')?.jobs.get('node')?.unknownUpgrades;
    await waitForRounds(d, 'behind', (d.daemon.store.get('behind')?.rounds ?? 0) + 2);
    const answer = unknownNow();
    await waitForRounds(d, 'behind', (d.daemon.store.get('behind')?.rounds ?? 0) + 3);
    expect(unknownNow()).toBe(answer);
    await d.stop();
    d = undefined;
  });

  it("derives a missed upgrade from the node's own schedule, with nothing remembered, and resolves once the build knows it", async () => {
    // The upgrade activated an hour ago: its upgraded peers dropped 'behind', whose futureupgrade check passes again.
    await setScenario(sim, 'behind', 'upgrade-required', { upgradeIn: -3600 });
    const before = hook.on('/hook').length;
    d = await startDaemon(config(mkdtempSync(join(tmpdir(), 'avahealth-schedule-'))));
    const fresh = () => toldAlerts(hook.on('/hook').slice(before));
    const missed = await waitFor('UpgradeRequired critical for behind', () => fresh().find((a) => a.labels.alertname === 'AvalancheNodeUpgradeRequired' && a.labels.target === 'behind' && a.status === 'firing'), 20_000);
    expect(missed.labels.severity).toBe('critical');
    expect(missed.annotations.summary).toMatch(/^behind: missed the network upgrade of \d{4}-\d\d-\d\d \d\d:\d\d UTC \(.+ ago\): upgrade AvalancheGo now/);
    expect(missed.annotations.description).toContain('The network (another node of the same network schedules it in its info.upgrades) switched to a network upgrade');
    const m = await scrape(d.url);
    expect(sample(m, 'avahealth_node_check_passing', { target: 'behind', check: 'futureupgrade' })).toBe(1);
    expect(sample(m, 'avahealth_node_upgrade_deadline_timestamp_seconds', { target: 'behind' })).toBe(sim.nodes.get('behind')!.upgradeAt);
    // One page for the problem: the missed upgrade holds back the warning about the same upgrade.
    await waitForRounds(d, 'behind', (d.daemon.store.get('behind')?.rounds ?? 0) + 2);
    expect(fresh().filter((a) => a.labels.alertname === 'AvalancheNodeUpgradeUnknown')).toEqual([]);

    // The operator installs the build that knows it: its info.upgrades lists the activation.
    await setScenario(sim, 'behind', 'healthy');
    await waitFor('UpgradeRequired resolved', () => fresh().find((a) => a.labels.alertname === 'AvalancheNodeUpgradeRequired' && a.status === 'resolved'), 20_000);
    expect(sample(await scrape(d.url), 'avahealth_node_upgrade_unknown_timestamp_seconds', { target: 'behind' })).toBeUndefined();
  });

  it("resolves for a build that knows the upgrade though its release forgot to move localUpgradeTime", async () => {
    // node/node.go's localUpgradeTime is a constant edited by hand each release (master once still had
    // Granite there with Helicon scheduled): the new build's futureupgrade check goes on naming the old
    // time, its info.upgrades lists the activation it now follows.
    await d?.stop();
    await setScenario(sim, 'behind', 'upgrade-required', { upgradeIn: -3600 });
    const deadline = sim.nodes.get('behind')!.upgradeAt;
    const before = hook.on('/hook').length;
    d = await startDaemon(config(mkdtempSync(join(tmpdir(), 'avahealth-schedule-'))));
    const fresh = () => toldAlerts(hook.on('/hook').slice(before));
    await waitFor('UpgradeRequired for behind', () => fresh().find((a) => a.labels.alertname === 'AvalancheNodeUpgradeRequired' && a.status === 'firing'), 20_000);
    await setScenario(sim, 'behind', 'healthy', { forgotLocalUpgradeTime: true });
    const futureupgrade = sim.nodes.get('behind')!.health(undefined).checks.futureupgrade!;
    expect(futureupgrade.error).toBeUndefined();
    expect(Date.parse((futureupgrade.message as { localUpgradeTime: string }).localUpgradeTime) / 1000).toBeLessThan(deadline);
    await waitFor('UpgradeRequired resolved', () => fresh().find((a) => a.labels.alertname === 'AvalancheNodeUpgradeRequired' && a.status === 'resolved'), 20_000);
    expect(sample(await scrape(d!.url), 'avahealth_node_upgrade_deadline_timestamp_seconds', { target: 'behind' })).toBeUndefined();
    // A build installed on leaving the scenario; no other node can forget what it never lacked.
    await expect(setScenario(sim, 'upgraded', 'healthy', { forgotLocalUpgradeTime: true })).rejects.toThrow(/^scenario switch failed: 400 forgotLocalUpgradeTime is the build installed on leaving upgrade-required/);
  });
});

/**
 * A node's schedule is read hourly (it changes only with a restart), so a reading can be older than
 * the news: another node, read after it, lists an upgrade this one's old reading lacks, though this
 * one may have been restarted on a build that knows it too without a poll going unanswered. The
 * node is read again before it is judged: no UpgradeUnknown from a stale reading (seed 2 of the
 * trust week: every node of the fleet warned at once when one upgraded node was read again).
 */
describe('a schedule read before the news', () => {
  let sim: SimServer;
  let hook: Awaited<ReturnType<typeof startCapture>>;
  let d: RunningDaemon | undefined;

  beforeAll(async () => {
    sim = await startSim([
      { name: 'one', scenario: 'healthy', validator: false, periodMs: 500 },
      { name: 'two', scenario: 'healthy', validator: false, periodMs: 500 },
    ]);
    hook = await startCapture();
  }, 30_000);

  afterAll(async () => {
    await d?.stop();
    await sim?.close();
    await hook?.close();
  });

  it('is read again before the node is judged', async () => {
    d = await startDaemon(fleetConfig(mkdtempSync(join(tmpdir(), 'avahealth-schedule-')), sim, hook.url, ['one', 'two']));
    const rounds = (target: string) => d!.daemon.store.get(target)?.rounds ?? 0;
    await waitForRounds(d, 'one', 2);
    await waitForRounds(d, 'two', 2);
    // A release schedules the next upgrade: the simulator's other builds (one's) know it from now on,
    // and this daemon's reading of one, an hour fresh, does not say so.
    await setScenario(sim, 'two', 'upgrade-required', { upgradeIn: 20 * DAY });
    // two goes down and comes back on the build that knows it: its schedule is read again (the newest in the fleet)
    await setScenario(sim, 'two', 'reset');
    const down = rounds('two');
    await waitFor('a poll of two that fails', () => d!.daemon.store.get('two')?.latest?.endpoints.every((e) => !e.ok) === true && rounds('two') > down, 20_000);
    await setScenario(sim, 'two', 'healthy');
    await waitFor("two's schedule read again with the upgrade", () => Object.keys(d!.daemon.store.get('two')?.jobs.get('node')?.schedule?.activations ?? {}).includes('nextUpgradeTime'), 20_000);
    await waitForRounds(d, 'one', rounds('one') + 3);
    const told = hook.told({ path: '/hook', alertname: 'AvalancheNodeUpgradeUnknown' });
    expect(told.map((a) => `${a.status} ${a.labels.target}`)).toEqual([]);
    expect(Object.keys(d.daemon.store.get('one')?.jobs.get('node')?.schedule?.activations ?? {})).toContain('nextUpgradeTime');
  });
});

describe('info.upgrades beside a poll a second: read again at most every 15 s but for a missed upgrade', () => {
  let sim: SimServer;
  const ctx = { http: new HttpClient({ maxResponseBytes: 1 << 20 }), limit: pLimit(8) };
  const T = 1_800_000_000;

  beforeAll(async () => {
    sim = await startSim([{ name: 'behind', scenario: 'upgrade-required', upgradeIn: 20 * DAY, validator: false }]);
  });
  afterAll(async () => {
    await ctx.http.close();
    await sim?.close();
  });

  const health = (ok: boolean): EndpointObservation => ({ endpoint: 'health', view: 'all', ok, at: 0, durationSeconds: 0, ...(ok ? { report: { healthy: true, checks: [] } } : { reason: 'connect', error: 'ECONNREFUSED' }) });
  /** Its last poll: answered or not, and behind the network's schedule by an upgrade at `upgradeAt`. */
  const last = (ok: boolean, upgradeAt?: number): TargetObservation => ({ target: 'behind', kind: 'node', at: 0, endpoints: [health(ok)], ...(upgradeAt !== undefined ? { unknownUpgrades: [{ key: 'nextUpgradeTime', at: upgradeAt, from: 'upgraded', own: 'absent' }] } : {}) });
  const reads = () => sim.nodes.get('behind')!.economics.calls.filter((m) => m === 'info.upgrades').length;

  it('behind by an upgrade to come: every 15 s, the same schedule object while the values stay', async () => {
    const target = { baseUrl: sim.nodeUrl('behind'), headers: {}, timeoutMs: 2000, tls: { insecureSkipVerify: false }, secrets: [], network: 'mainnet' as const };
    const before = reads();
    const first = await readSchedule(target, ctx, undefined, T);
    expect(first?.network).toBe('mainnet');
    const behind = last(true, T + 20 * DAY);
    for (let at = T + 1; at < T + 15; at++) expect(await readSchedule(target, ctx, behind, at)).toBe(first);
    expect(reads() - before).toBe(1);
    // read again: the same values, the same schedule (the fleet comparison has nothing to do)
    expect(await readSchedule(target, ctx, behind, T + 15)).toBe(first);
    expect(reads() - before).toBe(2);
    // not behind: hourly
    expect(await readSchedule(target, ctx, last(true), T + 40)).toBe(first);
    expect(reads() - before).toBe(2);
  });

  it('after a poll it did not answer: once 15 s passed, though the polls after it are answered; a missed upgrade: every poll', async () => {
    const target = { baseUrl: sim.nodeUrl('behind'), headers: {}, timeoutMs: 2000, tls: { insecureSkipVerify: false }, secrets: [], network: 'mainnet' as const };
    const before = reads();
    await readSchedule(target, ctx, undefined, T);
    await readSchedule(target, ctx, last(false), T + 1);
    await readSchedule(target, ctx, last(true), T + 2);
    expect(reads() - before).toBe(1);
    await readSchedule(target, ctx, last(true), T + 15);
    expect(reads() - before).toBe(2);
    await readSchedule(target, ctx, last(true), T + 30);
    expect(reads() - before).toBe(2);
    // past the activation its build lacks: each poll reads it, so that installing the build ends the missed upgrade and the warning at once
    for (let at = T + 31; at < T + 35; at++) await readSchedule(target, ctx, last(true, T - 3600), at);
    expect(reads() - before).toBe(6);
  });
});

/**
 * The futureupgrade check names the deadline while most connected stake advertises an upgrade the
 * build lacks (node/node.go); it stops naming it when the node runs a build that knows the upgrade.
 * A restart between two polls goes unseen, and the schedule read before it (at most every 15 s)
 * still lacks the upgrade: read again at once, else AvalancheNodeUpgradeUnknown, held back by the
 * upgrade deadline until then, pages as the deadline resolves (seeded trust weeks 6, 7 and 8).
 */
describe('a build that knows the upgrade, installed between two polls', () => {
  let sim: SimServer;
  let hook: Awaited<ReturnType<typeof startCapture>>;
  let d: RunningDaemon | undefined;

  beforeAll(async () => {
    sim = await startSim([
      { name: 'upgraded', scenario: 'healthy', validator: false, periodMs: 500 },
      { name: 'behind', scenario: 'upgrade-required', upgradeIn: 2 * DAY, validator: false, periodMs: 500 },
    ]);
    hook = await startCapture();
  }, 30_000);

  afterAll(async () => {
    await d?.stop();
    await sim?.close();
    await hook?.close();
  });

  it('ends the deadline without a warning about the same upgrade', async () => {
    d = await startDaemon(fleetConfig(mkdtempSync(join(tmpdir(), 'avahealth-schedule-')), sim, hook.url, ['upgraded', 'behind']));
    const alerts = () => hook.told({ path: '/hook', target: 'behind' });
    await waitFor('UpgradeRequired for behind', () => alerts().find((a) => a.labels.alertname === 'AvalancheNodeUpgradeRequired' && a.status === 'firing'), 20_000);
    await setScenario(sim, 'behind', 'healthy');
    await waitFor('UpgradeRequired resolved', () => alerts().find((a) => a.labels.alertname === 'AvalancheNodeUpgradeRequired' && a.status === 'resolved'), 20_000);
    await waitForRounds(d, 'behind', (d.daemon.store.get('behind')?.rounds ?? 0) + 3);
    expect(alerts().filter((a) => a.labels.alertname === 'AvalancheNodeUpgradeUnknown').map((a) => a.status)).toEqual([]);
    expect(Object.keys(d.daemon.store.get('behind')?.jobs.get('node')?.schedule?.activations ?? {})).toContain('nextUpgradeTime');
  });
});
