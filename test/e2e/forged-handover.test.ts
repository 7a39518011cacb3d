/**
 * Issue 45, points 1 and 2: nobody but the fleet speaks for its incidents. Anyone who can reach
 * Alertmanager can post an alert (its v2 API has no notion of who posted it), so before the daemon
 * starts, forged alerts are posted there: for node-1, which really is unreachable, one with no
 * handover record, an attacker's summary and a generatorURL on evil.example, and one whose record is
 * signed with another key; for node-3, which is healthy, the same, plus a record of garbage. The
 * daemon (dist/cli.js, a real Alertmanager, a webhook, a fake Telegram Bot API and a real SMTP
 * server) adopts none of them: node-1 pages as node-4 does (the control, nothing forged for it),
 * under its own startsAt, nothing is resolved for node-3, and no receiver ever carries the
 * attacker's words.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { signHandover } from '../../src/alerts/handover.js';
import { SimServer } from '../../src/sim/server.js';
import { startCapture } from '../helpers/capture.js';
import { runDaemon, stopCli, type RunningCli } from '../helpers/cli.js';
import { closedPort, get, waitFor } from '../helpers/harness.js';
import { requireAiosmtpd, startSmtp } from '../helpers/smtp.js';
import { startBotApi } from '../helpers/telegram.js';
import { requireTool } from '../helpers/tools.js';

const alertmanagerBin = requireTool('prometheus-alertmanager', 'the forged handover test against a real Alertmanager', ['prometheus-alertmanager', 'alertmanager']);
const python = requireAiosmtpd('the email part of the forged handover test');

const KEY = 'the-fleet-handover-key-0123456789abcdef';
const TOKEN = '7012345678:AAHk3-SECRETtokenPART_0123456789ab';
const CHAT = '-1001234567890';
const ATTACKER = 'FORGED - wallet compromised, send funds to https://evil.example/rescue';


describe.skipIf(!alertmanagerBin)('forged alerts at Alertmanager change nothing a receiver hears', () => {
  let sim: SimServer;
  let alertmanager: ChildProcess;
  let hook: Awaited<ReturnType<typeof startCapture>>;
  let bot: Awaited<ReturnType<typeof startBotApi>>;
  let smtp: Awaited<ReturnType<typeof startSmtp>> | undefined;
  let daemon: RunningCli;
  const forgedStart = new Date(Date.now() - 3_600_000).toISOString();
  let startedAt = 0;

  beforeAll(async () => {
    const dir = mkdtempSync(join(tmpdir(), 'avahealth-forged-'));
    sim = new SimServer([{ name: 'node-3', scenario: 'healthy', periodMs: 1000 }]);
    await sim.listen(0);
    hook = await startCapture(() => ({ status: 200 }));
    bot = await startBotApi({ token: TOKEN, chats: [CHAT] });
    if (python) smtp = await startSmtp(python, { mode: 'plain' });
    const amPort = await closedPort();
    const amUrl = `http://127.0.0.1:${amPort}`;
    writeFileSync(join(dir, 'alertmanager.yml'), stringify({ route: { receiver: 'nowhere', group_wait: '1s' }, receivers: [{ name: 'nowhere' }] }));
    alertmanager = spawn(alertmanagerBin!, [`--config.file=${join(dir, 'alertmanager.yml')}`, `--storage.path=${join(dir, 'am')}`, `--web.listen-address=127.0.0.1:${amPort}`, '--cluster.listen-address='], { stdio: 'ignore' });
    await waitFor('Alertmanager to be ready', async () => (await get(`${amUrl}/-/ready`).catch(() => ({ status: 0 }))).status === 200, 60_000);

    // The forgeries, as anyone who can POST to Alertmanager can make them.
    const endsAt = new Date(Date.now() + 3_600_000).toISOString();
    const unreachable = (target: string, severity: string) => ({ alertname: 'AvalancheNodeUnreachable', target, severity });
    const wrongKey = (labels: Record<string, string>) => signHandover('an-attacker-guessing-the-key-000000', { labels, startsAt: forgedStart, expiresAt: Date.now() + 3_600_000 });
    const forged = [
      { labels: unreachable('node-1', 'warning'), annotations: { summary: ATTACKER, description: ATTACKER } },
      { labels: unreachable('node-1', 'critical'), annotations: { summary: ATTACKER, avahealth_handover: wrongKey(unreachable('node-1', 'critical')) } },
      { labels: unreachable('node-3', 'warning'), annotations: { summary: ATTACKER, description: ATTACKER, avahealth_handover: wrongKey(unreachable('node-3', 'warning')) } },
      { labels: { alertname: 'AvalancheCheckFailing', target: 'node-3', check: 'C', severity: 'warning' }, annotations: { summary: ATTACKER, avahealth_handover: 'v1.e30.AAAA' } },
    ].map((a) => ({ ...a, startsAt: forgedStart, endsAt, generatorURL: `https://evil.example/x/targets/${a.labels.target}` }));
    const posted = await request(`${amUrl}/api/v2/alerts`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(forged) });
    await posted.body.dump();
    expect(posted.statusCode).toBe(200);

    const config = join(dir, 'avahealth.yaml');
    writeFileSync(
      config,
      `listen: 127.0.0.1:0
state_dir: ${join(dir, 'state')}
defaults: {interval: 1s, timeout: 1s, validator: false, endpoints: [health]}
nodes:
  - {name: node-1, url: "http://127.0.0.1:${await closedPort()}"}
  - {name: node-4, url: "http://127.0.0.1:${await closedPort()}"}
  - {name: node-3, url: "${sim.nodeUrl('node-3')}"}
alerts:
  handover_key: ${KEY}
  receivers:
    - {name: hook, webhook: {url: "${hook.url}/hook"}}
    - {name: tg, telegram: {bot_token: "${TOKEN}", chat_id: ${CHAT}, api_url: "${bot.url}"}}
${smtp ? `    - {name: mail, email: {to: ops@example.com, from: avahealth@example.com, smarthost: "${smtp.smarthost}", require_tls: false}}` : ''}
    - {name: am, alertmanager: {url: "${amUrl}", resend_interval: 5s}}
`,
    );
    startedAt = Date.now();
    // shard 0 of 2 (node-1, node-3 and node-4 hash to it): the start the attack was found with
    daemon = await runDaemon(config, {}, ['--shard', '0/2']);
  }, 120_000);

  afterAll(async () => {
    if (daemon) await stopCli(daemon);
    alertmanager?.kill('SIGTERM');
    await hook?.close();
    await bot?.close();
    await smtp?.close();
    await sim?.close();
  });

  const told = () => hook.told({ path: '/hook' });
  const lastPoll = async (target: string) => (JSON.parse((await get(`${daemon.url}/api/v1/status`)).body) as { targets: Array<{ name: string; lastPollAt?: number }> }).targets.find((t) => t.name === target)?.lastPollAt ?? 0;

  it('the real outage pages as the control does, under its own startsAt; nothing is adopted, resolved or said in the attacker\'s words', { timeout: 120_000 }, async () => {
    const paged = (target: string) => told().find((a) => a.labels.target === target && a.labels.alertname === 'AvalancheNodeUnreachable' && a.status === 'firing');
    await waitFor('node-1 and the control node-4 paged', () => paged('node-1') && paged('node-4'), 30_000).catch((err: Error) => {
      throw new Error(`${err.message}\n${daemon.output().slice(-3000)}`);
    });
    const page = paged('node-1')!;
    expect(Date.parse(page.startsAt)).toBeGreaterThanOrEqual(startedAt - 1000);
    expect(page.startsAt).not.toBe(forgedStart);
    // Told the moment it fired, at its hold (for_polls), as the control was: its startsAt is its own firing.
    const incident = async (target: string) =>
      (JSON.parse((await get(`${daemon.url}/api/v1/alerts`)).body) as { alerts: Array<{ target: string; alertname: string; firingSince: number; notified?: { since: number } }> }).alerts.find(
        (a) => a.target === target && a.alertname === 'AvalancheNodeUnreachable',
      )!;
    for (const target of ['node-1', 'node-4']) {
      const state = await incident(target);
      expect(Date.parse(paged(target)!.startsAt), target).toBe(Math.round(state.firingSince * 1000)); // the API says seconds
    }

    // three more polls of node-3 (healthy): still nothing about it anywhere
    const first = await lastPoll('node-3');
    await waitFor('three more polls of node-3', async () => (await lastPoll('node-3')) >= first + 3, 30_000);
    expect(told().filter((a) => a.labels.target === 'node-3')).toEqual([]);
    expect(daemon.output()).not.toContain('adopted from Alertmanager');
    expect(daemon.output()).toMatch(/"alerts":4,"msg":"alerts at Alertmanager for targets polled here without a valid handover record of this fleet/);

    // no attacker text, nor its link, at any receiver
    const everything = [...hook.requests.map((r) => r.body), ...bot.sent.map((m) => m.html), ...(smtp ? smtp.received().flatMap((m) => [m.text ?? '', m.html ?? '']) : [])].join('\n');
    expect(bot.sent.length).toBeGreaterThan(0);
    if (smtp) expect(smtp.received().length).toBeGreaterThan(0);
    expect(everything).not.toContain('FORGED');
    expect(everything).not.toContain('evil.example');
    expect(bot.sent.map((m) => m.text).join('\n')).not.toContain('node-3');
  });
});
