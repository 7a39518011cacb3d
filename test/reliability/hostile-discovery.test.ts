/**
 * Hostile names from discovery, end to end (issue 45, the untried surfaces): a file_sd file and a
 * real DNS server on loopback answer names with control characters, HTML, very long names and
 * duplicates, and labels with HTML, control bytes, 5,000 characters and a hundred names. Nothing of
 * it is polled unless it is `host:port`; two long host names alike in their first 63 characters stay
 * two targets; a label value is one line, at most 256 characters, on every series; the page, the
 * JSON API and the log carry no raw control byte or unescaped tag; /metrics stays valid.
 */
import { spawnSync } from 'node:child_process';
import type { Socket } from 'node:dgram';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDns } from '../helpers/dns.js';
import { get, parseExposition, sample, startDaemon, startFixtureServer, waitFor, type RunningDaemon } from '../helpers/harness.js';
import { requireTool } from '../helpers/tools.js';

const promtool = requireTool('promtool', 'promtool check metrics on /metrics with hostile discovered labels');
const RAW_CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/;
const LONG_A = `${'a'.repeat(56)}-one.example`;
const LONG_B = `${'a'.repeat(56)}-two.example`;

describe('hostile discovered names and labels', () => {
  let node: Awaited<ReturnType<typeof startFixtureServer>>;
  let dns: { server: Socket; address: string };
  let d: RunningDaemon;
  const polled = new Set<string>();

  beforeAll(async () => {
    node = await startFixtureServer((req, res) => {
      polled.add(String(req.headers.host));
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"checks":{},"healthy":true}');
    });
    const port = Number(new URL(node.url).port);
    dns = await startDns({
      srv: {
        'fleet.test.local': [
          { target: 'evil\u0007\u001b[31mname.example', port },
          { target: '<script>alert(1)</script>.example', port },
          { target: `${'x'.repeat(63)}.${'y'.repeat(63)}.${'z'.repeat(63)}`, port },
          { target: 'localhost', port },
          { target: 'localhost', port },
        ],
      },
      a: {},
    });
    const dir = mkdtempSync(join(tmpdir(), 'avahealth-hostile-sd-'));
    const many = Object.fromEntries(Array.from({ length: 100 }, (_, i) => [`l${i}`, `v${i}`]));
    writeFileSync(
      join(dir, 'fleet.json'),
      JSON.stringify([
        {
          targets: ['evil\u0000\u001b]0;pwned\u0007.example:9650', '<img src=x onerror=alert(1)>:9650', `${'h'.repeat(300)}:9650`, `127.0.0.1:${port}`, `127.0.0.1:${port}`],
          labels: { team: `<b>ops</b>\u0000\u001b[2J\r\nrole="x"|${'y'.repeat(5000)}`, 'bad-name!': 'v', ...many },
        },
        // Two host names alike in their first 63 characters (each resolves to this machine).
        { targets: [`${LONG_A}:${port}`, `${LONG_B}:${port}`] },
      ]),
    );
    d = await startDaemon(`
listen: 127.0.0.1:0
state_dir: ${join(dir, 'state')}
defaults: {interval: 1s, timeout: 900ms, validator: false, endpoints: [health]}
discovery:
  file_sd:
    - {files: ["${join(dir, 'fleet.json')}"], refresh_interval: 1s}
  dns:
    - {names: [fleet.test.local], type: SRV, servers: ["${dns.address}"], refresh_interval: 1s}
`);
  }, 30_000);

  afterAll(async () => {
    await d?.stop();
    await node?.close();
    dns?.server.close();
  });

  it('polls only host:port targets; long names alike stay two targets; hostile ones are counted, never polled', async () => {
    const port = new URL(node.url).port;
    // Every discovered target polled once: the two reachable ones answer; the long names resolve nowhere.
    const names = await waitFor('the discovered targets polled', async () => {
      const m = parseExposition(await (await fetch(`${d.url}/metrics`)).text());
      const polledTargets = new Set(m.filter((s) => s.name === 'avahealth_probe_success').map((s) => s.labels.target!));
      return polledTargets.size >= 5 ? [...polledTargets].sort() : undefined;
    }, 20_000);
    expect(names).toHaveLength(5);
    expect(names).toContain(`127.0.0.1:${port}`);
    expect(names).toContain(`localhost:${port}`);
    const long = names.filter((n) => n.startsWith('aaaa'));
    expect(long).toHaveLength(2); // each its own target: alike in their first 63 characters, different names
    // A valid but long SRV host name (191 characters) is a target, its name ending in a hash of the whole.
    expect(names.filter((n) => n.startsWith('xxxx'))).toEqual([expect.stringMatching(/^x{54}-[0-9a-f]{8}$/)]);
    for (const name of names) expect(name).toMatch(/^[A-Za-z0-9][A-Za-z0-9_.:-]{0,62}$/);
    const m = parseExposition(await (await fetch(`${d.url}/metrics`)).text());
    expect(sample(m, 'avahealth_discovery_targets_dropped_total', { source: 'file_sd[0]', reason: 'invalid_address' })).toBeGreaterThanOrEqual(3);
    expect(sample(m, 'avahealth_discovery_targets_dropped_total', { source: 'dns[0]', reason: 'invalid_address' })).toBeGreaterThanOrEqual(2);
    expect(sample(m, 'avahealth_discovery_targets_dropped_total', { source: 'file_sd[0]', reason: 'duplicate_name' })).toBe(0);
    expect([...polled].every((host) => /^(127\.0\.0\.1|localhost):\d+$/.test(host))).toBe(true);
  }, 60_000);

  it('a hostile label value is one line of at most 256 characters on every series, escaped on the page', async () => {
    const port = new URL(node.url).port;
    const text = await (await fetch(`${d.url}/metrics`)).text();
    expect(text).not.toMatch(RAW_CONTROL);
    const m = parseExposition(text);
    const series = m.filter((s) => s.labels.target === `127.0.0.1:${port}`);
    expect(series.length).toBeGreaterThan(0);
    for (const s of series) {
      expect(s.labels.team!.length).toBeLessThanOrEqual(256);
      expect(s.labels.team).toContain('<b>ops</b>␀␛[2J␍␊role="x"|yyy');
      expect(Object.keys(s.labels).length).toBeLessThanOrEqual(64 + 4);
    }
    if (promtool) {
      const result = spawnSync(promtool, ['check', 'metrics'], { input: text, encoding: 'utf8' });
      expect(result.status, result.stderr).toBe(0);
    }
    for (const path of ['/', `/targets/${encodeURIComponent(`127.0.0.1:${port}`)}`, '/api/v1/status']) {
      const page = await get(`${d.url}${path}`);
      expect(page.status, path).toBe(200);
      expect(page.body, path).not.toMatch(RAW_CONTROL);
      if (path === '/api/v1/status') continue; // JSON: the value as discovered (a string, served as application/json with nosniff)
      expect(page.body, path).not.toContain('<b>ops</b>');
      if (path !== '/') expect(page.body, path).toContain('&lt;b&gt;ops&lt;/b&gt;');
    }
    expect(d.logs()).not.toMatch(RAW_CONTROL);
  });
});
