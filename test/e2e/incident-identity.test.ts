/**
 * One incident keeps one identity for its life (issue 34, point 2), through the real daemon
 * (dist/cli.js) with a webhook receiver and a real Alertmanager: an upgrade deadline that recedes
 * (critical → warning, as when a later fact changes the picture) updates the open incident, same
 * fingerprint and startsAt, no resolve; and the critical copy Alertmanager holds under the old
 * labels ends at once, instead of lingering until its endsAt (four re-send intervals) and
 * inhibiting the warning meanwhile. The deadline comes from the node's `futureupgrade` check
 * (AvalancheGo health/upgrade check, node/node.go `futureupgrade`), simulated in src/sim/node.ts.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request } from 'undici';
import { parse, stringify } from 'yaml';
import { SimServer } from '../../src/sim/server.js';
import { startCapture, type ToldAlert } from '../helpers/capture.js';
import { ROOT, startCli, type LongRunning, stopCli } from '../helpers/cli.js';
import { closedPort, get, setScenario, waitFor } from '../helpers/harness.js';
import { requireTool } from '../helpers/tools.js';

const alertmanagerBin = requireTool('prometheus-alertmanager', 'the incident identity test against a real Alertmanager', ['prometheus-alertmanager', 'alertmanager']);
const HOUR = 3600;

type AmAlert = { labels: Record<string, string>; startsAt: string; endsAt: string };

describe.skipIf(!alertmanagerBin)('an incident whose severity changes, through the daemon to a real Alertmanager', () => {
  let sim: SimServer;
  let daemon: LongRunning;
  let alertmanager: ChildProcess;
  let hook: Awaited<ReturnType<typeof startCapture>>;
  let amUrl: string;

  beforeAll(async () => {
    const dir = mkdtempSync(join(tmpdir(), 'avahealth-identity-'));
    sim = new SimServer([{ name: 'v1', scenario: 'healthy', periodMs: 1000 }]);
    await sim.listen(0);
    hook = await startCapture(() => ({ status: 200 }));
    const amPort = await closedPort();
    amUrl = `http://127.0.0.1:${amPort}`;
    writeFileSync(join(dir, 'alertmanager.yml'), stringify({ route: { receiver: 'nowhere', group_wait: '1s' }, receivers: [{ name: 'nowhere' }] }));
    alertmanager = spawn(alertmanagerBin!, [`--config.file=${join(dir, 'alertmanager.yml')}`, `--storage.path=${join(dir, 'am')}`, `--web.listen-address=127.0.0.1:${amPort}`, '--cluster.listen-address='], { stdio: 'ignore' });
    await waitFor('Alertmanager to be ready', async () => (await get(`${amUrl}/-/ready`).catch(() => ({ status: 0 }))).status === 200, 60_000);
    writeFileSync(
      join(dir, 'avahealth.yaml'),
      `listen: 127.0.0.1:0
state_dir: ${join(dir, 'state')}
defaults: {interval: 1s, timeout: 1s, validator: false, endpoints: [health]}
nodes:
  - {name: v1, url: "${sim.nodeUrl('v1')}"}
alerts:
  for_polls: 1
  receivers:
    - {name: hook, webhook: {url: "${hook.url}/hook"}, matchers: {alertname: AvalancheNodeUpgradeRequired}}
    - {name: am, alertmanager: {url: "${amUrl}", resend_interval: 1m}}
`,
    );
    daemon = startCli(['run', '--config', join(dir, 'avahealth.yaml')]);
    await daemon.waitForOutput(/avahealth started/, 30_000);
  }, 120_000);

  afterAll(async () => {
    await stopCli(daemon);
    alertmanager?.kill('SIGTERM');
    await hook?.close();
    await sim?.close();
  });

  it('updates the incident in place and ends the critical copy at Alertmanager at once', async () => {
    const upgradeAlerts = async () => (JSON.parse((await get(`${amUrl}/api/v2/alerts`)).body) as AmAlert[]).filter((a) => a.labels.alertname === 'AvalancheNodeUpgradeRequired' && a.labels.target === 'v1');
    await setScenario(sim, 'v1', 'upgrade-required', { upgradeIn: 12 * HOUR });
    await waitFor('the critical upgrade alert at Alertmanager', async () => (await upgradeAlerts()).some((a) => a.labels.severity === 'critical'), 30_000).catch((err: Error) => {
      throw new Error(`${err.message}\n${daemon.output().slice(-3000)}`);
    });
    const [critical] = await upgradeAlerts();

    await setScenario(sim, 'v1', 'upgrade-required', { upgradeIn: 5 * 24 * HOUR }); // the deadline recedes: warning now
    // The critical copy's endsAt was four minutes ahead: gone within seconds means it was ended, not expired.
    const started = Date.now();
    await waitFor('only the warning copy at Alertmanager', async () => {
      const held = await upgradeAlerts();
      return held.length === 1 && held[0]!.labels.severity === 'warning';
    }, 30_000);
    expect(Date.now() - started).toBeLessThan(60_000);
    expect((await upgradeAlerts())[0]!.startsAt).toBe(critical!.startsAt);

    // The webhook heard one incident: fired critical, then updated to warning; never resolved, never re-fired.
    await waitFor('the webhook to hear the change', () => told().some((a) => a.labels.severity === 'warning'), 10_000);
    const alerts = told();
    expect(alerts.map((a) => `${a.status} ${a.labels.severity}`)).toEqual(['firing critical', 'firing warning']);
    expect(new Set(alerts.map((a) => a.fingerprint)).size).toBe(1);
    expect(new Set(alerts.map((a) => a.startsAt)).size).toBe(1);
  }, 120_000);

  const told = () => hook.told();
});

/**
 * Issue 43, point 3: one identity per incident at every receiver, Alertmanager included, through a
 * real Alertmanager with the shipped routes (critical to a pager, the rest and scope="network" to
 * chat). A validator's own problem, paged as scope="self", is neither resolved nor paged again when a
 * network-wide dip begins and ends (each node's info.uptime counts the stake it lost as 0 at once:
 * network/network.go NodeUptime); the dip is one notice of its own naming the validators; a validator
 * whose own node is cut off inside the dip (its network check fails: network/network.go HealthCheck)
 * is told as its own problem, not held back.
 */
describe.skipIf(!alertmanagerBin)('a validator\'s own incident through a network-wide dip, at a real Alertmanager with the shipped routes', () => {
  let sim: SimServer;
  let daemon: LongRunning;
  let alertmanager: ChildProcess;
  let hook: Awaited<ReturnType<typeof startCapture>>;
  let amUrl: string;
  const names = ['v1', 'v2', 'v3', 'v4'];

  beforeAll(async () => {
    const dir = mkdtempSync(join(tmpdir(), 'avahealth-scope-'));
    sim = new SimServer(names.map((name) => ({ name, scenario: 'healthy' as const, periodMs: 2000 })));
    await sim.listen(0);
    hook = await startCapture(() => ({ status: 200 }));
    const amPort = await closedPort();
    amUrl = `http://127.0.0.1:${amPort}`;
    const shipped = parse(readFileSync(join(ROOT, 'deploy/alertmanager/alertmanager.yml'), 'utf8')) as { route: Record<string, unknown>; receivers: Array<{ name: string }> };
    Object.assign(shipped.route, { group_wait: '1s', group_interval: '1s' });
    shipped.receivers = shipped.receivers.map((r) => ({ name: r.name, webhook_configs: [{ url: `${hook.url}/${r.name}` }] }));
    writeFileSync(join(dir, 'alertmanager.yml'), stringify(shipped));
    alertmanager = spawn(alertmanagerBin!, [`--config.file=${join(dir, 'alertmanager.yml')}`, `--storage.path=${join(dir, 'am')}`, `--web.listen-address=127.0.0.1:${amPort}`, '--cluster.listen-address='], { stdio: 'ignore' });
    await waitFor('Alertmanager to be ready', async () => (await get(`${amUrl}/-/ready`).catch(() => ({ status: 0 }))).status === 200, 60_000);
    writeFileSync(
      join(dir, 'avahealth.yaml'),
      `listen: 127.0.0.1:0
state_dir: ${join(dir, 'state')}
defaults: {interval: 1s, timeout: 1s, endpoints: [health], validator: {interval: 1s, network: {interval: 2s, observers: 2}}}
nodes:
${names.map((n) => `  - {name: ${n}, url: "${sim.nodeUrl(n)}"}`).join('\n')}
alerts:
  for_polls: 1
  receivers:
    - {name: hook, webhook: {url: "${hook.url}/daemon"}}
    - {name: am, alertmanager: {url: "${amUrl}", resend_interval: 2s}}
`,
    );
    daemon = startCli(['run', '--config', join(dir, 'avahealth.yaml')]);
    await daemon.waitForOutput(/first poll round complete/, 30_000);
  }, 120_000);

  afterAll(async () => {
    await stopCli(daemon);
    alertmanager?.kill('SIGTERM');
    await hook?.close();
    await sim?.close();
  });

  const heard = (path: string) => hook.told({ path });
  const line = (a: ToldAlert) => `${a.status} ${a.labels.alertname} ${a.labels.target}${a.labels.scope ? ` ${a.labels.scope}` : ''}`;
  const dip = async (connectedPercent: number | null) => {
    const res = await request(`${sim.baseUrl}/sim/network`, { method: 'POST', body: JSON.stringify({ dip: connectedPercent === null ? null : { connectedPercent } }) });
    await res.body.dump();
  };

  it('stays one incident under one label set; the dip is one notice; a node cut off inside it pages on its own', async () => {
    const explain = (err: Error) => {
      throw new Error(`${err.message}\nchat ${JSON.stringify(heard('/chat').map(line))}\npager ${JSON.stringify(heard('/pager').map(line))}\ndaemon ${JSON.stringify(heard('/daemon').map(line))}\n${daemon.output().slice(-3000)}`);
    };
    // v1's own problem: little stake sees its uptime
    await setScenario(sim, 'v1', 'reward-at-risk', { rewardingStakePercent: 45 });
    const own = (a: ToldAlert) => a.labels.alertname === 'AvalancheValidatorRewardAtRisk' && a.labels.target === 'v1';
    await waitFor('v1 told at Alertmanager and the webhook, as its own problem', () => [...heard('/chat'), ...heard('/pager')].some(own) && heard('/daemon').some(own), 60_000).catch(explain);
    const first = heard('/daemon').find(own)!;
    expect(first.labels.scope).toBe('self');

    // the network dips: one notice of its own, naming the validators
    await dip(70);
    try {
      const notice = (a: ToldAlert) => a.labels.alertname === 'AvalancheNetworkDegraded' && a.status === 'firing';
      await waitFor('the network notice at chat and at the webhook', () => heard('/chat').some(notice) && heard('/daemon').some(notice), 60_000).catch(explain);
      expect(heard('/daemon').filter(notice).map((a) => a.annotations.summary)).toEqual([expect.stringMatching(/^mainnet: every validator looks down from the fleet: \d of your 4 validators affected \(/)]);
      expect(heard('/pager').filter((a) => a.labels.alertname === 'AvalancheNetworkDegraded')).toEqual([]);
      // a validator whose own node is cut off inside the dip: told as its own problem
      await setScenario(sim, 'v4', 'network-down');
      await waitFor('v4 told', () => heard('/daemon').some((a) => a.labels.target === 'v4' && a.status === 'firing'), 30_000).catch(explain);
      expect(heard('/daemon').filter((a) => a.labels.target === 'v4').every((a) => a.labels.scope !== 'network')).toBe(true);
      // v1's incident at Alertmanager: still under the labels it was told with
      const v1 = (JSON.parse((await get(`${amUrl}/api/v2/alerts`)).body) as AmAlert[]).filter((a) => a.labels.alertname === 'AvalancheValidatorRewardAtRisk' && a.labels.target === 'v1');
      expect(v1.length).toBeGreaterThan(0);
      expect(v1.every((a) => a.labels.scope === 'self' && a.startsAt === v1[0]!.startsAt)).toBe(true);
    } finally {
      await dip(null);
      await setScenario(sim, 'v4', 'healthy');
    }
    await waitFor('the notice ended', () => heard('/daemon').some((a) => a.labels.alertname === 'AvalancheNetworkDegraded' && a.status === 'resolved') && heard('/chat').some((a) => a.labels.alertname === 'AvalancheNetworkDegraded' && a.status === 'resolved'), 60_000).catch(explain);
    // v1 still has its own problem: then it is over
    await setScenario(sim, 'v1', 'healthy', { rewardingStakePercent: 100 });
    await waitFor('v1 resolved at the webhook', () => heard('/daemon').some((a) => own(a) && a.status === 'resolved'), 60_000).catch(explain);
    await waitFor('v1 resolved at Alertmanager', () => [...heard('/chat'), ...heard('/pager')].some((a) => own(a) && a.status === 'resolved'), 60_000).catch(explain);

    // One firing and one resolve of v1's incident at every receiver, one label set; no validator's network-wide copy told.
    const ofV1 = (path: string) => heard(path).filter(own).map((a) => `${a.status} ${a.labels.scope}`);
    expect(ofV1('/daemon').filter((s) => s.startsWith('resolved'))).toEqual(['resolved self']);
    expect(new Set(heard('/daemon').filter(own).map((a) => a.startsAt)).size).toBe(1);
    for (const path of ['/chat', '/pager']) {
      expect(ofV1(path).every((s) => s.endsWith(' self'))).toBe(true);
      expect(ofV1(path).filter((s) => s.startsWith('resolved')).length).toBeLessThanOrEqual(1);
    }
    expect([...ofV1('/chat'), ...ofV1('/pager')].filter((s) => s.startsWith('resolved'))).toHaveLength(1);
    const networkCopies = ['/daemon', '/chat', '/pager'].flatMap((p) => heard(p)).filter((a) => a.labels.scope === 'network' && a.labels.alertname !== 'AvalancheNetworkDegraded');
    expect(networkCopies.map(line)).toEqual([]);
  }, 300_000);
});
