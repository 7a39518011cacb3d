/**
 * The silences API attacked for real, against the built daemon with the admin API on and no auth:
 * invalid and catastrophic-backtracking regexes, a hostile node whose check name is made to make a
 * backtracking engine spin, a page's cross-site `text/plain` POST, and a broken silence left in the
 * state file. The daemon must refuse what it cannot use and keep evaluating and answering.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startCapture } from '../helpers/capture.js';
import { startCli } from '../helpers/cli.js';
import { get, startFixtureServer, waitFor, writeConfig } from '../helpers/harness.js';

type Webhook = { alerts: Array<{ labels: Record<string, string> }> };

// `(a+)+b` against 40 a's and a c: about 2^40 steps for a backtracking engine, a few hundred for RE2.
const EVIL_CHECK = `${'a'.repeat(40)}c`;

describe('hostile silences', () => {
  it('refuses invalid matchers, cross-site and non-JSON writes, drops a broken stored silence, and a backtracking pattern cannot stall evaluation', { timeout: 60_000 }, async () => {
    let failing = false;
    const node = await startFixtureServer((_req, res) => {
      const check = { message: 'ok', timestamp: '2026-08-22T14:03:41Z', duration: 1, contiguousFailures: 0 };
      res.writeHead(failing ? 503 : 200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ healthy: !failing, checks: { [EVIL_CHECK]: failing ? { error: 'boom', timestamp: check.timestamp, duration: 1, contiguousFailures: 5 } : check } }));
    });
    const capture = await startCapture();
    const file = writeConfig(`
listen: 127.0.0.1:0
state_dir: ./state
nodes:
  - {name: n, url: "${node.url}", interval: 1s, endpoints: [health]}
alerts:
  for_polls: 1
  receivers:
    - {name: hook, webhook: {url: "${capture.url}/hook"}}
`);
    const stateDir = join(dirname(file), 'state');
    mkdirSync(stateDir);
    const stored = (id: string, target: string) => ({ id, matchers: { target }, startsAt: 0, endsAt: Date.now() + 3_600_000, comment: '', createdBy: 'api', source: 'api' });
    writeFileSync(join(stateDir, 'silences.json'), JSON.stringify({ version: 1, silences: [stored('broken', '~(unclosed'), stored('kept', 'other-node')] }));
    const daemon = startCli(['run', '--config', file, '--web.enable-admin-api']);
    try {
      const [, address] = await daemon.waitForOutput(/"address":"([^"]+)".*avahealth started/);
      const url = `http://${address}`;
      expect(daemon.output()).toMatch(/"id":"broken".*invalid regular expression.*stored silence cannot be used; dropped/);
      const listed = () => JSON.parse(readFileSync(join(stateDir, 'silences.json'), 'utf8')).silences as Array<{ id: string; matchers: Record<string, string> }>;
      const post = (body: unknown, headers: Record<string, string> = { 'content-type': 'application/json' }) =>
        fetch(`${url}/api/v1/silences`, { method: 'POST', headers, body: typeof body === 'string' ? body : JSON.stringify(body) });
      const endsAt = new Date(Date.now() + 3_600_000).toISOString();

      const invalid = await post({ matchers: { target: '~(unclosed' }, endsAt });
      expect(invalid.status).toBe(400);
      expect(((await invalid.json()) as { error: string }).error).toMatch(/^matchers\.target: invalid regular expression: .*missing closing \)/);
      const huge = await post({ matchers: { target: `~${'a?'.repeat(600)}` }, endsAt });
      expect(huge.status).toBe(400);

      // What a web page can send without a preflight: text/plain, or JSON from another origin.
      expect((await post({ matchers: { target: 'n' }, endsAt }, { 'content-type': 'text/plain' })).status).toBe(415);
      expect((await post({ matchers: { target: 'n' }, endsAt }, { 'content-type': 'application/json', origin: 'http://evil.example' })).status).toBe(403);
      expect((await post({ matchers: { target: 'n' }, endsAt }, { 'content-type': 'application/json', 'sec-fetch-site': 'cross-site' })).status).toBe(403);
      expect((await fetch(`${url}/api/v1/silences/kept`, { method: 'DELETE', headers: { origin: 'http://evil.example' } })).status).toBe(403);
      expect((await fetch(`${url}/-/reload`, { method: 'POST', headers: { 'sec-fetch-site': 'cross-site' } })).status).toBe(403);
      expect(listed().map((s) => s.id)).toEqual(['broken', 'kept']); // nothing written by the refused requests (the file is rewritten on the next add)

      // A same-origin page and a plain client may write; the backtracking pattern is accepted and evaluated in linear time.
      const sameOrigin = await post({ matchers: { check: '~(a+)+b' }, endsAt }, { 'content-type': 'application/json', origin: url, 'sec-fetch-site': 'same-origin' });
      expect(sameOrigin.status).toBe(200);
      expect(listed().map((s) => s.id)).toEqual(['kept', ((await sameOrigin.json()) as { id: string }).id]);

      // The check now fails: its alert passes the silence gate, which tests the pattern against the
      // evil check name (a backtracking engine would spin here for hours), and is delivered.
      failing = true;
      await waitFor('the check alert delivered', () => capture.on('/hook').some((r) => (r.json as Webhook).alerts.some((a) => a.labels.check === EVIL_CHECK)), 20_000);
      expect((await get(`${url}/-/healthy`)).status).toBe(200);
    } finally {
      daemon.child.kill('SIGKILL');
      await node.close();
      await capture.close();
    }
  });
});
