/**
 * Header names are case-insensitive: a configured `Accept` or `User-Agent` replaces avahealth's own
 * (it is not sent beside it), and a node's header replaces the same one under `defaults:`
 * whatever the case each is written in.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDaemon, startFixtureServer, waitFor, type RunningDaemon } from '../helpers/harness.js';

describe('configured header names', () => {
  let node: Awaited<ReturnType<typeof startFixtureServer>>;
  let d: RunningDaemon;
  const seen: string[][] = [];

  beforeAll(async () => {
    node = await startFixtureServer((req, res) => {
      seen.push(req.rawHeaders);
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ healthy: true, checks: {} }));
    });
    d = await startDaemon(`
defaults:
  headers: {x-team: platform}
nodes:
  - name: n1
    url: "${node.url}"
    interval: 1s
    endpoints: [health]
    validator: false
    headers: {Accept: application/vnd.avahealth+json, User-Agent: ops-probe/2.1, X-Team: validators}
`);
  });

  afterAll(async () => {
    await d?.stop();
    await node?.close();
  });

  it('sends each header once, with the configured value', async () => {
    const raw = await waitFor('a request', () => seen[0]);
    const values = (name: string) => raw.flatMap((v, i) => (i % 2 === 0 && v.toLowerCase() === name ? [raw[i + 1]!] : []));
    expect(values('accept')).toEqual(['application/vnd.avahealth+json']);
    expect(values('user-agent')).toEqual(['ops-probe/2.1']);
    expect(values('x-team')).toEqual(['validators']);
  });
});
