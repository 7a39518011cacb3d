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
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { SimServer } from '../../src/sim/server.js';
import { startCapture } from '../helpers/capture.js';
import { startCli, type LongRunning, stopCli } from '../helpers/cli.js';
import { closedPort, get, setScenario, waitFor } from '../helpers/harness.js';
import { requireTool } from '../helpers/tools.js';

const alertmanagerBin = requireTool('prometheus-alertmanager', 'the incident identity test against a real Alertmanager', ['prometheus-alertmanager', 'alertmanager']);
const HOUR = 3600;

type AmAlert = { labels: Record<string, string>; startsAt: string; endsAt: string };
type HookAlert = { status: string; fingerprint: string; startsAt: string; labels: Record<string, string> };

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

  const told = () => hook.requests.flatMap((r) => (r.json as { alerts: HookAlert[] }).alerts);
});
