/**
 * Known secret values go through a full run: an API key, webhook URLs and secret, a Slack URL, a
 * PagerDuty routing key, a Telegram bot token (in the URL path), an SMTP password, a node's basic-auth
 * password and bearer token. Services and receivers are
 * made to fail while echoing what they were sent. None of the secrets may appear in anything
 * avahealth emits: logs, metrics, status page, JSON APIs, `check` output, error messages.
 */
import { writeFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startCapture } from '../helpers/capture.js';
import { runCli, startCli } from '../helpers/cli.js';
import { get, startSim, waitFor, writeConfig } from '../helpers/harness.js';

const SECRETS = {
  DATA_API_KEY: 'dak-SECRET-1111-aaaa',
  WEBHOOK_TOKEN: 'hooktoken-SECRET-2222',
  WEBHOOK_SECRET: 'wh-SECRET-3333-signing',
  SLACK_TOKEN: 'slack-SECRET-4444',
  PD_KEY: 'pd-SECRET-5555-routing',
  NODE_PASSWORD: 'pw-SECRET-6666',
  NODE_TOKEN: 'bt-SECRET-7777',
  TELEGRAM_TOKEN: '7012345678:AAHk3-SECRET-9999-tokenPART_01',
  SMTP_PASSWORD: 'smtp-SECRET-pass-8888',
};

describe('secrets never leak', () => {
  it('not in logs, metrics, the status page, the JSON APIs, check output or errors', { timeout: 90_000 }, async () => {
    const sim = await startSim([{ name: 'n', scenario: 'network-down' }]);
    await fetch(`${sim.baseUrl}/sim/services/data-api/scenario`, { method: 'POST', body: '{"scenario":"unauthorized"}' });
    // Receivers and a node proxy that fail while echoing everything they were sent.
    const echo = await startCapture((req) => ({ status: req.path.startsWith('/pd') ? 400 : 500, body: `rejected ${req.path} ${req.headers.authorization ?? ''} ${req.body.slice(0, 300)}` }));
    // An SMTP server that refuses the login while echoing it, decoded (AUTH PLAIN is base64 of \0user\0password).
    const smtpEcho = createServer((socket) => {
      socket.write('220 echo ESMTP\r\n');
      socket.on('data', (data: Buffer) => {
        const line = data.toString().trim();
        if (/^(EHLO|HELO)/i.test(line)) socket.write('250-echo\r\n250 AUTH PLAIN LOGIN\r\n');
        else if (/^AUTH PLAIN /i.test(line)) socket.write(`535 rejected ${Buffer.from(line.slice(11), 'base64').toString().replace(/\0/g, ' ')}\r\n`);
        else socket.write(`502 unknown ${line}\r\n`);
      });
    });
    await new Promise<void>((resolve) => smtpEcho.listen(0, '127.0.0.1', resolve));
    const file = writeConfig(`
listen: 127.0.0.1:0
state_dir: ./state
nodes:
  - {name: n, url: "${sim.nodeUrl('n')}", interval: 1s, bearer_token: \${NODE_TOKEN}}
  - {name: proxied, url: "${echo.url}/node", interval: 1s, basic_auth: {username: monitor, password_file: node-password}}
services:
  - {name: data-api, kind: data-api, url: "${sim.serviceUrl('data-api')}", api_key: \${DATA_API_KEY}, interval: 1s}
alerts:
  for_polls: 1
  receivers:
    - {name: hook, webhook: {url: "${echo.url}/hook/\${WEBHOOK_TOKEN}", secret: \${WEBHOOK_SECRET}}}
    - {name: chat, slack: {url: "${echo.url}/services/T0/B0/\${SLACK_TOKEN}"}}
    - {name: pager, pagerduty: {routing_key: \${PD_KEY}, url: "${echo.url}/pd"}}
    - {name: tg, telegram: {bot_token: \${TELEGRAM_TOKEN}, chat_id: -100123, api_url: "${echo.url}/tg"}}
    - {name: mail, email: {to: ops@example.com, from: a@example.com, smarthost: "127.0.0.1:${(smtpEcho.address() as AddressInfo).port}", auth_username: u, auth_password: \${SMTP_PASSWORD}, require_tls: false}}
`);
    writeFileSync(join(file, '..', 'node-password'), `${SECRETS.NODE_PASSWORD}\n`);
    const env = { ...SECRETS };
    const daemon = startCli(['run', '--config', file, '--log.level', 'debug', '--web.enable-admin-api'], env);
    let emitted = '';
    try {
      const [, port] = await daemon.waitForOutput(/"address":"127\.0\.0\.1:(\d+)"/);
      const url = `http://127.0.0.1:${port}`;
      await waitFor('failed deliveries to every receiver', () => ['/hook', '/services', '/pd', '/tg'].every((p) => echo.requests.some((r) => r.path.startsWith(p))), 20_000);
      await waitFor('the refused email logged', () => /"receiver":"mail"[^\n]*SMTP 535 rejected/.test(daemon.output()), 20_000);
      await waitFor('a retry logged', () => daemon.output().includes('will retry'), 20_000);
      for (const path of ['/metrics', '/', '/api/v1/status', '/api/v1/alerts', '/api/v1/silences', '/targets/n']) emitted += (await get(`${url}${path}`)).body;
      for (const format of ['text', 'json', 'prometheus']) {
        const r = await runCli(['check', '--config', file, '--format', format], env);
        emitted += r.stdout + r.stderr;
      }
      for (const receiver of ['pager', 'tg', 'mail']) {
        const test = await runCli(['notify-test', '--config', file, '--receiver', receiver], env);
        expect(test.code).toBe(1);
        emitted += test.stdout + test.stderr;
      }
      const validate = await runCli(['validate', '--config', file], env);
      emitted += validate.stdout + validate.stderr;
      daemon.child.kill('SIGTERM');
      await daemon.exit;
      emitted += daemon.output();
      // the echoes really carried the secrets, so the redaction was exercised
      expect(echo.requests.some((r) => r.path.includes(SECRETS.WEBHOOK_TOKEN))).toBe(true);
      expect(echo.requests.some((r) => r.body.includes(SECRETS.PD_KEY))).toBe(true);
      expect(echo.requests.some((r) => r.path.includes(SECRETS.TELEGRAM_TOKEN))).toBe(true);
      expect(emitted).toContain('[REDACTED]');
      expect(emitted).toContain('SMTP 535 rejected u [REDACTED]');
      const credential = Buffer.from(`monitor:${SECRETS.NODE_PASSWORD}`).toString('base64');
      for (const [name, value] of Object.entries({ ...SECRETS, NODE_CREDENTIAL: credential })) {
        expect(emitted.includes(value), `${name} leaked`).toBe(false);
      }
    } finally {
      daemon.child.kill('SIGKILL');
      await sim.close();
      await echo.close();
      smtpEcho.close();
    }
  });
});
