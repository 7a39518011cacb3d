/**
 * Node text with control bytes and Nagios syntax (issue 45.7, 45.8): a node whose check name holds
 * CR/LF and `|`, and whose check error holds NUL, BEL and ESC sequences (a terminal `curl`ing the
 * page would clear its screen and retitle its window). `check --format text` keeps one status line
 * with one perfdata part; the status page, the JSON API and Telegram show the bytes as visible signs.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { get, startDaemon, startFixtureServer, waitFor, writeConfig, type RunningDaemon } from '../helpers/harness.js';
import { startBotApi } from '../helpers/telegram.js';

const NAME = 'net\r\nOK - all fine | fake=1;;;;\nmore';
const ERROR = 'down\u0000\u0007\u001b[2J\u001b]0;pwned\u0007 | injected=9 \u009b31m\u202egnp.exe';
const RAW = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202e]/;

const health = JSON.stringify({
  checks: {
    [NAME]: { error: ERROR, timestamp: '2026-11-22T12:00:00Z', duration: 1000, contiguousFailures: 5, timeOfFirstFailure: '2026-11-22T11:00:00Z' },
    C: { message: {}, timestamp: '2026-11-22T12:00:00Z', duration: 1000, contiguousFailures: 0, timeOfFirstFailure: null },
  },
  healthy: false,
});

describe('control bytes and Nagios syntax from a node', () => {
  let node: Awaited<ReturnType<typeof startFixtureServer>>;

  beforeAll(async () => {
    node = await startFixtureServer((req, res) => {
      if (!req.url?.startsWith('/ext/health')) return void res.writeHead(404).end();
      res.writeHead(503, { 'content-type': 'application/json' }).end(health);
    });
  });

  afterAll(async () => {
    await node?.close();
  });

  it('check --format text: one status line, one perfdata part, no line split or `|` from node text', async () => {
    const file = writeConfig(`nodes:\n  - {name: evil, url: "${node.url}", endpoints: [health]}\n  - {name: other, url: "${node.url}", endpoints: [health]}\n`);
    const { code, stdout } = await runCli(['check', '--config', file, '--format', 'text']);
    expect(code).toBe(2);
    const lines = stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(4); // the status line, one line per target, and whose verdicts they are
    expect(lines[3]).toMatch(/^verdicts: /);
    expect(lines[0]).toMatch(/^CRITICAL - /);
    expect(lines[0]!.split('|')).toHaveLength(2);
    expect(lines[0]!.split('|')[1]).toMatch(/^ healthy=0;;;0;2 warning=0;;;0;2 unhealthy=2;;;0;2 unreachable=0;;;0;2 pending=0;;;0;2$/);
    for (const line of lines.slice(1)) expect(line).not.toContain('|');
    expect(stdout).not.toMatch(RAW);
    expect(stdout).not.toContain('\r');
    expect(lines[0]).toContain('net␍␊OK - all fine ¦ fake=1;;;;␊more');
  });

  describe('the page, the API and Telegram', () => {
    let d: RunningDaemon;
    let api: Awaited<ReturnType<typeof startBotApi>>;

    beforeAll(async () => {
      api = await startBotApi({ token: '123456:control-bytes-test-token', chats: ['-100200'] });
      d = await startDaemon(`
listen: 127.0.0.1:0
nodes:
  - {name: evil, url: "${node.url}", interval: 1s, endpoints: [health]}
alerts:
  for_polls: 1
  receivers:
    - {name: tg, telegram: {bot_token: "123456:control-bytes-test-token", chat_id: -100200, api_url: "${api.url}"}}
`);
      await waitFor('a Telegram message', () => api.sent.length > 0, 20_000);
    }, 30_000);

    afterAll(async () => {
      await d?.stop();
      await api?.close();
    });

    it('shows every control byte as a visible sign and obeys none', async () => {
      for (const path of ['/', '/targets/evil']) {
        const page = await get(`${d.url}${path}`);
        expect(page.status).toBe(200);
        expect(page.body, path).not.toMatch(RAW);
      }
      const target = await get(`${d.url}/targets/evil`);
      expect(target.body).toContain('down␀␇␛[2J␛]0;pwned␇');
      expect(target.body).toContain('\\u009b31m\\u202egnp.exe');
      // The JSON API carries the text as parsed (JSON escapes what is left): no raw control byte either.
      expect(JSON.stringify(JSON.parse((await get(`${d.url}/api/v1/status`)).body))).toContain('␛[2J');
      expect(api.errors).toEqual([]);
      for (const message of api.sent) expect(message.text).not.toMatch(RAW);
      expect(api.sent.map((m) => m.text).join('\n')).toContain('␛[2J');
    });
  });
});
