/**
 * Silences made in avahealth reach Alertmanager (#34.3): daemon → a real Alertmanager → a webhook
 * behind it. A silence made through avahealth's API is mirrored to Alertmanager's v2 silences API,
 * and the daemon keeps sending the alerts it holds, so Alertmanager mutes them instead of taking
 * their silence for a resolve ("resolved" while the problem lasts, then "firing" again when the
 * silence is lifted). A restart finds the mirrored silence again instead of making a second one;
 * a reload mirrors a config silence and expires it when it leaves the config; removing the API
 * silence expires it there and tells nothing new; the real resolve still comes through.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SimServer } from '../../src/sim/server.js';
import { startCapture } from '../helpers/capture.js';
import { closedPort, get, setScenario, startDaemon, startSim, waitFor, writeConfig, type RunningDaemon } from '../helpers/harness.js';
import { requireTool } from '../helpers/tools.js';

const alertmanagerBin = requireTool('prometheus-alertmanager', 'the silence mirroring test against a real Alertmanager', ['prometheus-alertmanager', 'alertmanager']);

type AmAlert = { labels: Record<string, string>; endsAt: string; status: { state: string; silencedBy: string[] } };
type AmSilence = { id: string; comment: string; createdBy: string; endsAt: string; status: { state: string }; matchers: Array<{ name: string; value: string; isRegex: boolean }> };

describe.skipIf(!alertmanagerBin)('avahealth silences mirrored to a real Alertmanager', () => {
  let sim: SimServer;
  let hook: Awaited<ReturnType<typeof startCapture>>;
  let alertmanager: ChildProcess;
  let amUrl: string;
  let d: RunningDaemon;
  let configFile: string;
  let stateDir: string;

  const amAlerts = async () => (JSON.parse((await get(`${amUrl}/api/v2/alerts`)).body) as AmAlert[]).filter((a) => a.labels.target === 'n1');
  const ours = async () => (JSON.parse((await get(`${amUrl}/api/v2/silences`)).body) as AmSilence[]).filter((s) => s.comment.includes('(avahealth '));
  const active = async () => (await ours()).filter((s) => s.status.state === 'active');
  const told = (status: string) => hook.told({ path: '/hook', status, target: 'n1' });
  const reload = async () => {
    const res = await request(`${d.url}/-/reload`, { method: 'POST' });
    expect([res.statusCode, await res.body.text()]).toEqual([200, 'config reloaded\n']);
  };
  const yaml = (extra = '') => `
state_dir: ${stateDir}
nodes:
  - {name: n1, url: "${sim.nodeUrl('n1')}", interval: 1s}
alerts:
  for_polls: 1
${extra}  receivers:
    - {name: am, alertmanager: {url: "${amUrl}", resend_interval: 1s}}
`;

  beforeAll(async () => {
    hook = await startCapture(() => ({ status: 200 }));
    const dir = mkdtempSync(join(tmpdir(), 'avahealth-alertmanager-'));
    stateDir = join(dir, 'state');
    writeFileSync(
      join(dir, 'alertmanager.yml'),
      `route: {receiver: hook, group_by: [alertname, target], group_wait: 1s, group_interval: 1s, repeat_interval: 1h}
receivers: [{name: hook, webhook_configs: [{url: "${hook.url}/hook", send_resolved: true}]}]
`,
    );
    const port = await closedPort();
    amUrl = `http://127.0.0.1:${port}`;
    alertmanager = spawn(alertmanagerBin!, [`--config.file=${join(dir, 'alertmanager.yml')}`, `--storage.path=${join(dir, 'data')}`, `--web.listen-address=127.0.0.1:${port}`, '--cluster.listen-address='], { stdio: 'ignore' });
    await waitFor('Alertmanager to be ready', async () => (await get(`${amUrl}/-/ready`).catch(() => ({ status: 0 }))).status === 200, 20_000);
    sim = await startSim([{ name: 'n1', scenario: 'network-down' }]);
    configFile = writeConfig('');
    d = await startDaemon(yaml(), { file: configFile });
  }, 60_000);

  afterAll(async () => {
    await d?.stop();
    await sim?.close();
    await hook?.close();
    alertmanager?.kill('SIGTERM');
  });

  it('a silence made in avahealth mutes the alert at Alertmanager, and no "resolved" reaches the webhook while the problem lasts', { timeout: 90_000 }, async () => {
    const firing = (name: string) => told('firing').some((a) => a.labels.alertname === name);
    await waitFor('the webhook behind Alertmanager told n1 fires', () => firing('AvalancheCheckFailing'), 20_000);
    const res = await request(`${d.url}/api/v1/silences`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ matchers: { target: 'n1' }, endsAt: new Date(Date.now() + 3600_000).toISOString(), comment: 'disk swap', createdBy: 'ops' }),
    });
    const { id } = (await res.body.json()) as { id: string };
    expect(res.statusCode).toBe(200);

    const [silence] = await waitFor('the silence at Alertmanager', async () => ((await active()).length === 1 ? active() : undefined), 20_000);
    expect(silence).toMatchObject({ createdBy: 'ops', matchers: [{ name: 'target', value: 'n1', isRegex: false }] });
    expect(silence!.comment).toMatch(new RegExp(`^disk swap \\(avahealth \\S+ silence ${id} [0-9a-f]{12}\\)$`));
    const mutedAt = Date.now();
    // The alerts stay at Alertmanager, muted, and keep being renewed well past the endsAt they had
    // when the silence came (four resend intervals): without the daemon re-sending them,
    // Alertmanager would have resolved them and told the webhook.
    await waitFor(
      'the alerts muted at Alertmanager and renewed past their old end',
      async () => {
        const alerts = await amAlerts();
        return alerts.length > 0 && alerts.every((a) => a.status.state === 'suppressed' && a.status.silencedBy.includes(silence!.id) && Date.parse(a.endsAt) > mutedAt + 8_000);
      },
      30_000,
    );
    expect(told('resolved')).toEqual([]);
  });

  it('a restart finds the mirrored silence instead of making a second; a reload mirrors a config silence and expires it when it goes', { timeout: 90_000 }, async () => {
    const [before] = await active();
    await d.stop();
    d = await startDaemon(yaml(), { file: configFile });
    await waitFor('the restarted daemon to re-send the muted alerts', async () => {
      const alerts = await amAlerts();
      return alerts.length > 0 && alerts.every((a) => Date.parse(a.endsAt) > Date.now() + 3_000);
    }, 20_000);
    expect((await active()).map((s) => s.id)).toEqual([before!.id]);

    const endsAt = new Date(Date.now() + 7200_000).toISOString();
    writeFileSync(configFile, yaml(`  silences:\n    - {matchers: {check: "~C|P"}, ends_at: "${endsAt}", comment: chain upgrade}\n`));
    await reload();
    const fromConfig = await waitFor('the config silence at Alertmanager', async () => (await active()).find((s) => s.comment.startsWith('chain upgrade')), 20_000);
    expect(fromConfig.matchers).toEqual([{ name: 'check', value: 'C|P', isRegex: true, isEqual: true }]);
    expect(Date.parse(fromConfig.endsAt)).toBe(Date.parse(endsAt));

    writeFileSync(configFile, yaml());
    await reload();
    await waitFor('the config silence expired at Alertmanager', async () => (await ours()).find((s) => s.id === fromConfig.id)?.status.state === 'expired', 20_000);
    expect((await active()).map((s) => s.id)).toEqual([before!.id]);
    expect(told('resolved')).toEqual([]);
  });

  it('removing the silence expires it at Alertmanager and tells nothing new; the real resolve then comes through', { timeout: 90_000 }, async () => {
    const [silence] = await active();
    const firingBefore = told('firing').length;
    const listed = JSON.parse((await get(`${d.url}/api/v1/silences`)).body) as Array<{ id: string; source: string }>;
    const res = await request(`${d.url}/api/v1/silences/${listed.find((s) => s.source === 'api')!.id}`, { method: 'DELETE' });
    await res.body.dump();
    expect(res.statusCode).toBe(200);
    await waitFor('the silence expired at Alertmanager', async () => (await ours()).find((s) => s.id === silence!.id)?.status.state === 'expired', 20_000);
    await waitFor('the alerts active, unmuted, at Alertmanager', async () => {
      const alerts = await amAlerts();
      return alerts.length > 0 && alerts.every((a) => a.status.state === 'active');
    }, 20_000);
    // The webhook was told these fire before the silence: lifting it is not a new firing, nor a resolve.
    await setScenario(sim, 'n1', 'healthy');
    await waitFor('the real resolve at the webhook', () => told('resolved').some((a) => a.labels.alertname === 'AvalancheCheckFailing'), 30_000);
    const firings = told('firing').slice(firingBefore);
    expect(firings).toEqual([]);
  });
});
