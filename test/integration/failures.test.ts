import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SimServer } from '../../src/sim/server.js';
import { closedPort, get, sample, scrape, startDaemon, startFixtureServer, startSim, waitForRounds, type RunningDaemon } from '../helpers/harness.js';

/** Each target is built to fail in exactly one way: [target, protocol, reason, error text it must show]. */
const CASES: Array<[string, 'get' | 'jsonrpc', string, RegExp]> = [
  ['slow', 'get', 'timeout', /no complete response within 3000 ms/],
  ['refused', 'get', 'connect', /connection refused \(ECONNREFUSED\)/],
  ['reset', 'get', 'connect', /connection|closed|reset/],
  ['no-dns', 'get', 'dns', /DNS lookup failed \(ENOTFOUND\)/],
  ['tls-to-plain', 'get', 'tls', /TLS handshake failed/],
  ['proxy-502', 'get', 'http_status', /^HTTP 502: 502 Bad Gateway 502 Bad Gateway nginx\/1\.25\.3$/],
  ['forbidden-host', 'get', 'http_status', /^HTTP 403: invalid host specified$/],
  ['not-found', 'get', 'http_status', /^HTTP 404: 404 page not found$/],
  ['unsupported-415', 'jsonrpc', 'http_status', /^HTTP 415: rpc: unrecognized Content-Type:$/],
  ['rate-limited', 'get', 'rate_limited', /^HTTP 429/],
  ['huge', 'get', 'too_large', /exceeds the size limit/],
  ['truncated', 'get', 'bad_json', /^body is not JSON: /],
  ['empty-rpc', 'jsonrpc', 'bad_json', /^empty JSON-RPC response body$/],
  ['bad-shape', 'get', 'bad_shape', /^not a health report: "healthy" must be a boolean/],
  ['wrong-id', 'jsonrpc', 'bad_shape', /^JSON-RPC id mismatch: sent \d+, got \d+$/],
  ['rpc-error', 'jsonrpc', 'rpc_error', /^JSON-RPC error -32000: health check service unavailable$/],
];

describe('every failure class yields its reason', () => {
  let sim: SimServer;
  let d: RunningDaemon;
  let fixture: Awaited<ReturnType<typeof startFixtureServer>>;

  beforeAll(async () => {
    const simNodes = ['slow', 'reset', 'proxy-error', 'forbidden-host', 'not-found', 'rate-limited', 'huge', 'truncated', 'bad-shape', 'wrong-id', 'rpc-error'] as const;
    sim = await startSim([{ name: 'healthy', scenario: 'healthy' }, ...simNodes.map((s) => ({ name: s, scenario: s, slowDelayMs: 10_000 }))]);
    fixture = await startFixtureServer((req, res) => {
      req.resume();
      if (req.url?.startsWith('/empty')) {
        res.writeHead(200, { 'content-type': 'application/json; charset=utf-8' });
        return res.end();
      }
      res.writeHead(415, { 'content-type': 'text/plain; charset=utf-8' });
      res.end('rpc: unrecognized Content-Type: \n');
    });
    const refused = await closedPort();
    const urls: Record<string, string> = {
      healthy: sim.nodeUrl('healthy'),
      slow: sim.nodeUrl('slow'),
      refused: `http://127.0.0.1:${refused}`,
      reset: sim.nodeUrl('reset'),
      'no-dns': 'http://avahealth-test.invalid:9650',
      'tls-to-plain': sim.nodeUrl('healthy').replace('http://', 'https://'),
      'proxy-502': sim.nodeUrl('proxy-error'),
      'forbidden-host': sim.nodeUrl('forbidden-host'),
      'not-found': sim.nodeUrl('not-found'),
      'unsupported-415': fixture.url,
      'rate-limited': sim.nodeUrl('rate-limited'),
      huge: sim.nodeUrl('huge'),
      truncated: sim.nodeUrl('truncated'),
      'empty-rpc': `${fixture.url}/empty`,
      'bad-shape': sim.nodeUrl('bad-shape'),
      'wrong-id': sim.nodeUrl('wrong-id'),
      'rpc-error': sim.nodeUrl('rpc-error'),
    };
    const protocols = Object.fromEntries(CASES.map(([name, protocol]) => [name, protocol]));
    const nodes = Object.entries(urls)
      .map(([name, url]) => `  - {name: ${name}, url: "${url}", protocol: ${protocols[name] ?? 'get'}}`)
      .join('\n');
    // The simulator, the fixture server and the daemon share this process: in the first round every
    // target is polled at once, by code not yet compiled, and on a loaded machine the last answers
    // took ~0.9 s. The deadline leaves room for that; only the slow node (10 s) must miss it.
    d = await startDaemon(`defaults: {interval: 3s, timeout: 3s, endpoints: [health], validator: false}\nnodes:\n${nodes}\n`);
    await Promise.all(Object.keys(urls).map((name) => waitForRounds(d, name, 1)));
  });

  afterAll(async () => {
    await d?.stop();
    await sim?.close();
    await fixture?.close();
  });

  it.each(CASES)('%s (%s) → %s', async (target, _protocol, reason, errorText) => {
    const m = await scrape(d.url);
    const labels = { target, endpoint: 'health', view: 'all' };
    expect(sample(m, 'avahealth_probe_success', labels)).toBe(0);
    expect(sample(m, 'avahealth_probe_failures_total', { ...labels, reason })).toBeGreaterThanOrEqual(1);
    expect(sample(m, 'avahealth_node_healthy', labels)).toBeUndefined();
    const status = JSON.parse((await get(`${d.url}/api/v1/status`)).body);
    const endpoint = status.targets.find((t: { name: string }) => t.name === target).endpoints[0];
    expect(endpoint.reason).toBe(reason);
    expect(endpoint.error).toMatch(errorText);
    // a 429 is the proxy's quota, not the node's health: pending, as it never answered (status/status.ts)
    expect(status.targets.find((t: { name: string }) => t.name === target).state).toBe(reason === 'rate_limited' ? 'pending' : 'unreachable');
  });

  it('the healthy node beside them keeps being polled and stays healthy', async () => {
    const before = d.daemon.store.get('healthy')!.rounds;
    await waitForRounds(d, 'healthy', before + 1);
    const m = await scrape(d.url);
    expect(sample(m, 'avahealth_probe_success', { target: 'healthy', endpoint: 'health', view: 'all' })).toBe(1);
    expect(sample(m, 'avahealth_node_healthy', { target: 'healthy', endpoint: 'health', view: 'all' })).toBe(1);
    expect(d.logs()).toContain('"msg":"probe failed"');
  });
});
