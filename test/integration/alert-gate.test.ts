/**
 * One gate for every send of every receiver (#14.1) and visible flap holds (#14.2), against a real
 * Alertmanager: a flap-held alert never reaches it, not even through the periodic re-send, while a
 * third node's alerts do (proof the pipe works) and the webhook stays quiet too. A silenced node
 * reaches Alertmanager only muted, under the silence avahealth mirrored there (#34.3), and never
 * the webhook.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SimServer } from '../../src/sim/server.js';
import { startCapture, toldAlerts } from '../helpers/capture.js';
import { closedPort, get, sample, scrape, setScenario, startDaemon, startSim, waitFor, type RunningDaemon } from '../helpers/harness.js';
import { requireTool } from '../helpers/tools.js';

const alertmanagerBin = requireTool('prometheus-alertmanager', 'the gate test against a real Alertmanager', ['prometheus-alertmanager', 'alertmanager']);

type AmAlert = { labels: Record<string, string>; fingerprint: string; endsAt: string; status: { state: string; silencedBy: string[] } };

describe.skipIf(!alertmanagerBin)('the notification gate, with a real Alertmanager', () => {
  let sim: SimServer;
  let capture: Awaited<ReturnType<typeof startCapture>>;
  let d: RunningDaemon;
  let alertmanager: ChildProcess;
  let amUrl: string;

  const amAlerts = async (): Promise<AmAlert[]> => JSON.parse((await get(`${amUrl}/api/v2/alerts`)).body) as AmAlert[];
  const delivered = async () => sample(await scrape(d.url), 'avahealth_notifications_total', { receiver: 'am' }) ?? 0;
  const hookLastStatus = (target: string) =>
    new Map(capture.told({ path: '/hook', target }).map((a) => [a.fingerprint, a.status] as const));
  const hookTargets = (from = 0) => toldAlerts(capture.on('/hook').slice(from)).map((a) => a.labels.target);

  beforeAll(async () => {
    const dir = mkdtempSync(join(tmpdir(), 'avahealth-alertmanager-'));
    writeFileSync(join(dir, 'alertmanager.yml'), 'route: {receiver: nobody}\nreceivers: [{name: nobody}]\n');
    const port = await closedPort();
    amUrl = `http://127.0.0.1:${port}`;
    alertmanager = spawn(alertmanagerBin!, [`--config.file=${join(dir, 'alertmanager.yml')}`, `--storage.path=${join(dir, 'data')}`, `--web.listen-address=127.0.0.1:${port}`, '--cluster.listen-address='], { stdio: 'ignore' });
    await waitFor('Alertmanager to be ready', async () => {
      try {
        return (await get(`${amUrl}/-/ready`)).status === 200;
      } catch {
        return false;
      }
    }, 20_000);

    sim = await startSim([
      { name: 'quiet', scenario: 'network-down' },
      { name: 'loud', scenario: 'network-down' },
      { name: 'flappy', scenario: 'healthy' },
    ]);
    capture = await startCapture(() => ({ status: 200 }));
    const node = (name: string) => `  - {name: ${name}, url: "${sim.nodeUrl(name)}", interval: 1s}\n`;
    d = await startDaemon(
      `nodes:\n${node('quiet')}${node('loud')}${node('flappy')}` +
        `alerts:\n  for_polls: 1\n  flap_threshold: 2\n  flap_window: 10m\n` +
        `  silences:\n    - {matchers: {target: quiet}, ends_at: "${new Date(Date.now() + 3600_000).toISOString()}", comment: swap}\n` +
        `  receivers:\n    - {name: am, alertmanager: {url: "${amUrl}", resend_interval: 1s}}\n    - {name: hook, webhook: {url: "${capture.url}/hook"}}\n`,
    );
  }, 60_000);

  afterAll(async () => {
    await d?.stop();
    await sim?.close();
    await capture?.close();
    alertmanager?.kill('SIGTERM');
  });

  it('a silenced node reaches Alertmanager only muted by the mirrored silence, and never the webhook, through firing and re-sends alike', { timeout: 60_000 }, async () => {
    await waitFor('loud to reach Alertmanager', async () => (await amAlerts()).some((a) => a.labels.target === 'loud'), 20_000);
    expect(d.daemon.alerts.list().filter((a) => a.target === 'quiet' && a.phase === 'firing').length).toBeGreaterThan(0);
    // several re-send rounds pass (each a delivery to am)
    const before = await delivered();
    await waitFor('three re-sends', async () => (await delivered()) >= before + 3, 20_000);
    const alerts = await amAlerts();
    expect(alerts.some((a) => a.labels.target === 'loud' && a.labels.alertname === 'AvalancheCheckFailing' && a.labels.check === 'network')).toBe(true);
    const quiet = await waitFor('quiet at Alertmanager, muted', async () => {
      const muted = (await amAlerts()).filter((a) => a.labels.target === 'quiet');
      return muted.length > 0 && muted.every((a) => a.status.state === 'suppressed' && a.status.silencedBy.length === 1) ? muted : undefined;
    }, 20_000);
    // the root cause only: its symptom (AvalancheNodeUnhealthy) is held back, silenced or not
    expect(quiet.map((a) => a.labels.alertname)).toContain('AvalancheCheckFailing');
    expect(quiet.map((a) => a.labels.alertname)).not.toContain('AvalancheNodeUnhealthy');
    expect(hookTargets()).toContain('loud');
    expect(hookTargets()).not.toContain('quiet');
  });

  it('a flap-held alert is not re-sent, says so (state flapping, log line, metric, status page), and the webhook hears nothing of it', { timeout: 60_000 }, async () => {
    const flappyFiring = () => d.daemon.alerts.list().some((a) => a.target === 'flappy' && a.phase === 'firing');
    // fire, resolve, fire: the third change within the window is one more than flap_threshold (2)
    await setScenario(sim, 'flappy', 'network-down');
    await waitFor('flappy to fire and be told', async () => flappyFiring() && (await amAlerts()).some((a) => a.labels.target === 'flappy'), 20_000);
    await setScenario(sim, 'flappy', 'healthy');
    await waitFor('flappy to resolve', () => !d.daemon.alerts.list().some((a) => a.target === 'flappy' && a.phase !== 'resolved'), 20_000);
    await waitFor('the resolve at Alertmanager', async () => !(await amAlerts()).some((a) => a.labels.target === 'flappy'), 20_000);
    // the webhook's outbox delivers on its own: its resolves may land after Alertmanager's
    await waitFor('the resolve at the webhook', () => {
      const last = [...hookLastStatus('flappy').values()];
      return last.length > 0 && last.every((s) => s === 'resolved');
    }, 20_000);
    const hookBefore = capture.on('/hook').length;
    await setScenario(sim, 'flappy', 'network-down');
    await waitFor('the flap hold', () => d.daemon.alerts.list().some((a) => a.target === 'flappy' && a.state === 'flapping'), 20_000);

    const before = await delivered();
    await waitFor('three re-sends during the hold', async () => (await delivered()) >= before + 3, 20_000);
    const alerts = await amAlerts();
    expect(alerts.filter((a) => a.labels.target === 'flappy')).toEqual([]);
    expect(alerts.some((a) => a.labels.target === 'loud')).toBe(true);
    expect(hookTargets(hookBefore)).not.toContain('flappy');

    // visible: the API, the metric, the status page and the log
    const listed = JSON.parse((await get(`${d.url}/api/v1/alerts`)).body) as { alerts: Array<{ target: string; alertname: string; state: string }> };
    const flappy = listed.alerts.filter((a) => a.target === 'flappy');
    // network-down fails C, P, X and network: four check alerts and the node's own, all held
    expect(flappy.map((a) => `${a.alertname} ${a.state}`)).toEqual(['AvalancheNodeUnhealthy flapping', ...Array(4).fill('AvalancheCheckFailing flapping')]);
    const metrics = await scrape(d.url);
    expect(sample(metrics, 'avahealth_alerts', { alertname: 'AvalancheNodeUnhealthy', severity: 'warning', state: 'flapping' })).toBe(1);
    expect(sample(metrics, 'avahealth_alerts', { alertname: 'AvalancheCheckFailing', severity: 'warning', state: 'flapping' })).toBe(4);
    expect(sample(metrics, 'avahealth_alerts', { alertname: 'AvalancheNodeUnhealthy', severity: 'warning', state: 'firing' })).toBe(2); // quiet (silenced, still firing) and loud
    const page = (await get(`${d.url}/`)).body;
    expect(page).toContain('badge flapping');
    const holds = d.logs().split('\n').filter((l) => l.includes('alert is flapping'));
    expect(holds.map((l) => JSON.parse(l) as { level: number; target: string; alertname: string }).map((l) => `${l.level} ${l.target} ${l.alertname}`)).toEqual(
      flappy.map((a) => `30 flappy ${a.alertname}`),
    );
  });
});
