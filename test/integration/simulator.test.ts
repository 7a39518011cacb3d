import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PRIMARY_SUBNET } from '../../src/sim/ids.js';
import type { SimServer } from '../../src/sim/server.js';
import { get, setScenario, startSim } from '../helpers/harness.js';

async function rpc(url: string, body: string, headers: Record<string, string> = { 'content-type': 'application/json' }) {
  const res = await request(`${url}/ext/health`, { method: 'POST', body, headers });
  return { status: res.statusCode, headers: res.headers, text: await res.body.text() };
}

describe('the simulator behaves like AvalancheGo', () => {
  let sim: SimServer;
  let url: string;
  let l1: { chain: string; subnet: string };

  beforeAll(async () => {
    sim = await startSim([{ name: 'n', scenario: 'healthy', l1: true, offsetMinutes: 480 }, { name: 'fresh', scenario: 'restarted' }]);
    url = sim.nodeUrl('n');
    l1 = { chain: sim.nodes.get('n')!.l1ChainId!, subnet: sim.nodes.get('n')!.l1SubnetId! };
  });
  afterAll(() => sim.close());

  it('GET /ext/health: sorted checks, node-id header, trailing newline, Go escaping, local offset', async () => {
    const res = await get(`${url}/ext/health`);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('application/json');
    expect(res.headers['node-id']).toBe(sim.nodes.get('n')!.nodeId);
    expect(res.body.endsWith('\n')).toBe(true);
    const body = JSON.parse(res.body);
    expect(Object.keys(body.checks)).toEqual(['C', 'P', 'X', l1.chain, 'bls', 'bootstrapped', 'database', 'diskspace', 'futureupgrade', 'network', 'router'].sort());
    expect(body.checks.database).toEqual({ timestamp: expect.stringMatching(/\+08:00$/), duration: expect.any(Number) });
    expect(body.checks[l1.chain].message.engine.vm).toEqual({ database: null, health: null });
    expect((await get(`${url}/ext/health/health`)).body).toBe(res.body);
  });

  it('tags: union of the named tags plus application checks; unknown or empty tag → application checks only', async () => {
    const names = async (query: string) => Object.keys(JSON.parse((await get(`${url}/ext/health${query}`)).body).checks);
    const application = ['bls', 'bootstrapped', 'database', 'diskspace', 'futureupgrade', 'network', 'router'];
    expect(await names(`?tag=${l1.subnet}`)).toEqual([l1.chain, ...application].sort());
    expect(await names(`?tag=${PRIMARY_SUBNET}`)).toEqual(['C', 'P', 'X', ...application]);
    expect(await names(`?tag=${PRIMARY_SUBNET}&tag=${l1.subnet}`)).toEqual(['C', 'P', 'X', l1.chain, ...application].sort());
    expect(await names('?tag=unknown')).toEqual(application);
    expect(await names('?tag=')).toEqual(application);
  });

  it('HTTP edge cases: HEAD 405, trailing slash 404, liveness always healthy', async () => {
    const head = await request(`${url}/ext/health`, { method: 'HEAD' });
    await head.body.dump();
    expect(head.statusCode).toBe(405);
    expect((await get(`${url}/ext/health/`)).status).toBe(404);
    const live = await get(`${url}/ext/health/liveness`);
    expect([live.status, JSON.parse(live.body)]).toEqual([200, { checks: {}, healthy: true }]);
  });

  it('JSON-RPC: result envelope with echoed id, params variants, and the gorilla error codes', async () => {
    const ok = await rpc(url, JSON.stringify({ jsonrpc: '2.0', id: 42, method: 'health.health', params: { tags: [l1.subnet] } }));
    expect(ok.status).toBe(200);
    expect(ok.headers['content-type']).toBe('application/json; charset=utf-8');
    const body = JSON.parse(ok.text);
    expect(body.id).toBe(42);
    expect(Object.keys(body.result.checks)).toContain(l1.chain);
    expect(Object.keys(body.result.checks)).not.toContain('C');
    for (const params of [undefined, null, {}, { tags: null }, { tags: [] }, [{ tags: [] }]]) {
      const r = JSON.parse((await rpc(url, JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'health.health', params }))).text);
      expect(Object.keys(r.result.checks)).toContain('C');
    }
    const error = async (body: string) => JSON.parse((await rpc(url, body)).text).error;
    expect(await error('{"jsonrpc":"2.0","id":1,"method":"health.Health"}')).toEqual({ code: -32000, message: 'method must start with a non-uppercase letter', data: null });
    expect(await error('{"jsonrpc":"2.0","id":1,"method":"health.getLiveness"}')).toEqual({ code: -32000, message: 'rpc: can\'t find method "health.GetLiveness"', data: null });
    expect((await error('{"jsonrpc":"2.0","id":1,"method":"health.health","params":{"tags":"x"}}')).message).toMatch(/^couldn't unmarshal an argument/);
    expect(await error('{"id":1,"method":"health.health"}')).toEqual({ code: -32600, message: 'jsonrpc must be 2.0', data: null });
    expect((await error('{"jsonrpc":"2.0",')).code).toBe(-32700);
    expect(await rpc(url, '{"jsonrpc":"2.0","method":"health.health"}')).toMatchObject({ status: 200, text: '' });
    expect(await rpc(url, '{}', {})).toMatchObject({ status: 415 });
  });

  it('"not yet run" chains after a restart, then real results after the next period', async () => {
    const body = JSON.parse((await get(`${sim.nodeUrl('fresh')}/ext/health`)).body);
    expect(body.checks.C).toEqual({ error: 'not yet run', timestamp: '0001-01-01T00:00:00Z', duration: 0 });
    expect(body.checks.database.error).toBeUndefined();
    expect(body.healthy).toBe(false);
    await setScenario(sim, 'fresh', 'healthy');
    const after = JSON.parse((await get(`${sim.nodeUrl('fresh')}/ext/health`)).body);
    expect(after.checks.C.error).toBeUndefined();
    expect(after.healthy).toBe(true);
  });

  it('the control API rejects unknown scenarios with the list of known ones', async () => {
    const res = await request(`${sim.baseUrl}/sim/nodes/n/scenario`, { method: 'POST', body: '{"scenario":"meltdown"}' });
    expect(res.statusCode).toBe(400);
    expect(await res.body.text()).toMatch(/^unknown scenario "meltdown"; known: healthy, bootstrapping/);
    const list = JSON.parse((await get(`${sim.baseUrl}/sim/nodes`)).body);
    expect(list.nodes.map((n: { name: string }) => n.name)).toEqual(['n', 'fresh']);
  });

  it('the control API refuses a field a route does not take, naming it, and changes nothing', async () => {
    const cases: Array<[string, string, RegExp]> = [
      ['/sim/nodes/n/scenario', '{"scenario":"reward-at-risk","bogusField":1}', /^unknown field "bogusField"; this route takes scenario, /],
      ['/sim/scenario', '{"scenario":"healthy","validationEndsAt":5}', /^unknown field "validationEndsAt"/],
      ['/sim/network', '{"dip":{"connected":70}}', /^unknown field "dip\.connected"/],
      ['/sim/nodes/n/restart', '{"snapshot":30}', /^unknown field "snapshot"; this route takes l1, snapshotSeconds/],
      ['/sim/services/data-api/scenario', '{"scenario":"degraded","retryAfter":3}', /^unknown field "retryAfter"/],
    ];
    for (const [path, body, message] of cases) {
      const res = await request(`${sim.baseUrl}${path}`, { method: 'POST', body });
      expect(res.statusCode, path).toBe(400);
      expect(await res.body.text(), path).toMatch(message);
    }
    const list = JSON.parse((await get(`${sim.baseUrl}/sim/nodes`)).body);
    expect(list.nodes.find((n: { name: string }) => n.name === 'n').scenario).not.toBe('reward-at-risk');
  });

  it('heights follow the network while healthy, trail it when lagging, and freeze while the network is down', async () => {
    const node = sim.nodes.get('n')!;
    const t = Date.now();
    const height = (now: number) => (node.health(undefined, now).checks.C!.message as { engine: { consensus: { lastAcceptedHeight: number } } }).engine.consensus.lastAcceptedHeight;
    node.setScenario('healthy', t + 10_000);
    const h1 = height(t + 10_000);
    expect(h1).toBe(sim.network.height('C', t + 10_000));
    node.setScenario('healthy', t + 20_000);
    expect(height(t + 20_000)).toBe(h1 + 5); // one block every 2 s
    node.lagBlocks = 40;
    node.setScenario('lagging', t + 20_000);
    expect(height(t + 20_000)).toBe(h1 + 5 - 40);
    node.setScenario('network-down', t + 30_000);
    const frozen = height(t + 30_000);
    node.setScenario('network-down', t + 60_000);
    expect(height(t + 60_000)).toBe(frozen);
  });

  it('holds conditions at once (`also`): disk low while cut off and an upgrade due, then disk low while unreachable', async () => {
    const checks = async () => JSON.parse((await get(`${url}/ext/health`)).body).checks as Record<string, { error?: string }>;
    await setScenario(sim, 'n', 'network-down', { also: ['disk-low', 'upgrade-required'], upgradeIn: 86_400 * 2 });
    const cut = await checks();
    expect(cut.network!.error).toBeDefined();
    expect(cut.diskspace!.error).toMatch(/below warning threshold/);
    expect(cut.C!.error).toMatch(/not connected to enough stake/);
    // cut off, the node knows nothing of its peers' upgrade (node/node.go: the mode of its connected peers)
    expect(cut.futureupgrade!.error).toBeUndefined();
    const list = JSON.parse((await get(`${sim.baseUrl}/sim/nodes`)).body);
    expect(list.nodes[0]).toMatchObject({ name: 'n', scenario: 'network-down', also: ['disk-low', 'upgrade-required'] });
    // reconnected, still not upgraded: the futureupgrade check fails (within 3 days)
    await setScenario(sim, 'n', 'upgrade-required', { also: ['disk-low'] });
    const reconnected = await checks();
    expect(reconnected.futureupgrade!.error).toBe('unknown network upgrade detected');
    expect(reconnected.network!.error).toBeUndefined();
    expect(reconnected.diskspace!.error).toBeDefined();
    // a transport condition with a health one: the node does not answer, its disk stays low behind it
    await setScenario(sim, 'n', 'proxy-error', { also: ['disk-low'] });
    expect((await get(`${url}/ext/health`)).status).toBe(502);
    await setScenario(sim, 'n', 'disk-low');
    expect((await checks()).diskspace!.error).toBeDefined();
    expect(sim.nodes.get('n')!.also).toEqual([]);
    const bad = await request(`${sim.baseUrl}/sim/nodes/n/scenario`, { method: 'POST', body: '{"scenario":"healthy","also":["meltdown"]}' });
    expect(bad.statusCode).toBe(400);
    expect(await bad.body.text()).toBe('unknown scenario "meltdown" in also\n');
    await setScenario(sim, 'n', 'healthy');
    expect((await checks()).diskspace!.error).toBeUndefined();
  });
});
