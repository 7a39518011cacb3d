// The simulator plays what each node sees of the others (platform.getCurrentValidators answers with
// the answering node's own view: vms/platformvm/service.go, getPrimaryOrSubnetValidators), a network-
// wide dip, a validator its peers cannot reach (observed uptime cumulative per observer since the
// validation's start: snow/uptime/manager.go, CalculateUptimePercentFrom), and an upcoming upgrade (node/node.go, futureUpgradeCheck).
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseHealthReport } from '../../src/parse/avalanchego.js';
import { rpcRequest } from '../../src/parse/jsonrpc.js';
import { SimServer } from '../../src/sim/server.js';
import { setScenario, startSim, waitFor } from '../helpers/harness.js';

interface Entry {
  nodeID: string;
  uptime: string;
  connected: boolean;
  weight: string;
  delegatorWeight?: string;
  delegators?: unknown;
}

describe('simulated nodes as observers of each other', () => {
  let sim: SimServer;

  beforeAll(async () => {
    sim = await startSim([
      { name: 'v1', scenario: 'healthy' },
      { name: 'v2', scenario: 'healthy' },
      { name: 'v3', scenario: 'healthy' },
      { name: 'rpc', scenario: 'healthy', validator: false },
    ]);
    // Uptime falls only with time: at an hour of validation per real second (a setting; real time by default) it shows in seconds.
    const clock = await request(`${sim.baseUrl}/sim/network`, { method: 'POST', body: JSON.stringify({ uptimeClockFactor: 3600 }) });
    expect(((await clock.body.json()) as { uptimeClockFactor: number }).uptimeClockFactor).toBe(3600);
  });
  afterAll(() => sim.close());

  async function rpc(node: string, path: string, method: string, params: Record<string, unknown> = {}): Promise<{ result?: Record<string, unknown>; text: string }> {
    const res = await request(`${sim.nodeUrl(node)}${path}`, { method: 'POST', body: rpcRequest(method, params, 1), headers: { 'content-type': 'application/json' } });
    const text = await res.body.text();
    return { ...(JSON.parse(text) as { result?: Record<string, unknown> }), text };
  }
  const validators = async (node: string, params: Record<string, unknown> = {}) => (await rpc(node, '/ext/bc/P', 'platform.getCurrentValidators', params)).result!.validators as Entry[];
  const id = (name: string) => sim.nodes.get(name)!.nodeId;
  const of = (list: Entry[], name: string) => list.find((e) => e.nodeID === id(name))!;

  it('the whole list: the fleet and the other validators, each seen by the answering node (itself connected at 100 %)', async () => {
    const list = await validators('rpc');
    expect(list).toHaveLength(3 + 40);
    expect(list.map((e) => e.nodeID)).not.toContain(id('rpc'));
    for (const e of list) {
      expect(e.uptime).toMatch(/^\d+\.\d{4}$/);
      expect(typeof e.connected).toBe('boolean');
      expect(e).not.toHaveProperty('delegators'); // only for a single NodeID asked
    }
    expect(of(await validators('v1'), 'v1')).toMatchObject({ uptime: '100.0000', connected: true });
    expect(Number(of(list, 'v1').uptime)).toBeGreaterThan(98);
    // a few of the others are poor or disconnected, so the network's low quantile is below its median
    expect(list.filter((e) => !e.connected).length).toBeGreaterThan(0);
    expect(list.filter((e) => !e.connected).length).toBeLessThan(8);
  });

  it('nodeIDs narrows the list; delegators only when exactly one NodeID is asked for (service.go)', async () => {
    const two = await validators('v1', { nodeIDs: [id('v2'), id('v3')] });
    expect(two.map((e) => e.nodeID).sort()).toEqual([id('v2'), id('v3')].sort());
    expect(two[0]).not.toHaveProperty('delegators');
    const one = await validators('v1', { nodeIDs: [id('v2')] });
    expect(one).toHaveLength(1);
    expect(one[0]).toHaveProperty('delegators');
  });

  it('a whole mainnet-sized list (1,600 validators) is about 1.5 MB', async () => {
    const mainnet = new SimServer([{ name: 'o', periodMs: 3_600_000 }], { otherValidators: 1600 });
    await mainnet.listen(0);
    try {
      const res = await request(`${mainnet.nodeUrl('o')}/ext/bc/P`, { method: 'POST', body: rpcRequest('platform.getCurrentValidators', {}, 1), headers: { 'content-type': 'application/json' } });
      const bytes = (await res.body.arrayBuffer()).byteLength;
      expect(bytes).toBeGreaterThan(1.2e6);
      expect(bytes).toBeLessThan(1.8e6);
    } finally {
      await mainnet.close();
    }
  });

  it('unreachable-by-peers: its own health passes, every other node sees it disconnected at once, its uptime falling only with time', async () => {
    const before = Number(of(await validators('v1'), 'v2').uptime);
    await setScenario(sim, 'v2', 'unreachable-by-peers');
    try {
      const health = await request(`${sim.nodeUrl('v2')}/ext/health`);
      expect(health.statusCode).toBe(200);
      await health.body.dump();
      for (const observer of ['v1', 'v3', 'rpc']) expect(of(await validators(observer), 'v2').connected).toBe(false);
      expect(of(await validators('v2'), 'v2')).toMatchObject({ uptime: '100.0000', connected: true });
      expect(of(await validators('v1'), 'v3').connected).toBe(true);
      // cumulative (snow/uptime/manager.go): no jump at the disconnection, then a steady fall
      const first = Number(of(await validators('v1'), 'v2').uptime);
      expect(first).toBeGreaterThan(before - 1);
      await waitFor('v1 to see v2\'s uptime fall', async () => Number(of(await validators('v1'), 'v2').uptime) < first - 0.5, 20_000);
      // info.uptime (network/network.go NodeUptime): no peer connected, so only its own stake counts, at once
      const uptime = (await rpc('v2', '/ext/info', 'info.uptime')).result!;
      expect(Number(uptime.rewardingStakePercentage)).toBeLessThan(10);
      expect(Number(uptime.weightedAveragePercentage)).toBeLessThan(10);
    } finally {
      await setScenario(sim, 'v2', 'healthy');
    }
    expect(of(await validators('v1'), 'v2').connected).toBe(true);
  });

  it('a network-wide dip: each node loses 30 % of the stake at once, the median observed uptime does not jump, info.uptime follows the connections', async () => {
    const stake = (e: Entry) => Number(e.weight) + Number(e.delegatorWeight ?? 0);
    const median = (list: Entry[]) => list.map((e) => Number(e.uptime)).sort((x, y) => x - y)[Math.floor((list.length - 1) / 2)]!;
    const rejected = await request(`${sim.baseUrl}/sim/network`, { method: 'POST', body: JSON.stringify({ dip: { uptimePercent: 65, connectedPercent: 70 } }) });
    expect(rejected.statusCode).toBe(400);
    expect(await rejected.body.text()).toContain('cumulative');
    const medianBefore = median(await validators('v1'));
    const dip = await request(`${sim.baseUrl}/sim/network`, { method: 'POST', body: JSON.stringify({ dip: { connectedPercent: 70 } }) });
    expect(dip.statusCode).toBe(200);
    await dip.body.dump();
    try {
      for (const observer of ['v1', 'rpc']) {
        const list = await validators(observer);
        const total = list.reduce((sum, e) => sum + stake(e), 0);
        const connected = list.filter((e) => e.connected).reduce((sum, e) => sum + stake(e), 0) / total;
        expect(connected).toBeGreaterThan(0.65);
        expect(connected).toBeLessThan(0.75);
        // never at once: right after the dip every node still sees the median where it was
        expect(Math.abs(median(list) - medianBefore)).toBeLessThan(1);
      }
      const lost = (await validators('v1')).filter((e) => !e.connected);
      await waitFor('the uptime v1 sees of a validator it lost to fall', async () => {
        const now = await validators('v1');
        return lost.some((e) => Number(now.find((n) => n.nodeID === e.nodeID)!.uptime) < Number(e.uptime) - 0.5);
      }, 20_000);
      const uptime = (await rpc('v1', '/ext/info', 'info.uptime')).result!;
      expect(Number(uptime.weightedAveragePercentage)).toBeLessThan(80);
      expect(Number(uptime.rewardingStakePercentage)).toBeLessThan(80);
    } finally {
      const end = await request(`${sim.baseUrl}/sim/network`, { method: 'POST', body: JSON.stringify({ dip: null }) });
      await end.body.dump();
    }
    expect((await validators('v1')).filter((e) => e.connected).length).toBeGreaterThan(38);
    const bad = await request(`${sim.baseUrl}/sim/network`, { method: 'POST', body: JSON.stringify({ dip: { connectedPercent: 'low' } }) });
    expect(bad.statusCode).toBe(400);
    await bad.body.dump();
  });

  it('upgrade-required: futureupgrade names the stake majority\'s later upgrade; the node fails the check only within 3 days', async () => {
    const futureupgrade = async () => {
      const res = await request(`${sim.nodeUrl('v3')}/ext/health`);
      const parsed = parseHealthReport(await res.body.json());
      if (!parsed.ok) throw new Error(parsed.error);
      return parsed.value.checks.find((c) => c.name === 'futureupgrade')!;
    };
    expect((await futureupgrade()).upgrade?.deadline).toBeUndefined();
    await setScenario(sim, 'v3', 'upgrade-required', { upgradeIn: 5 * 86_400 });
    try {
      const week = await futureupgrade();
      expect(week.passing).toBe(true);
      expect(week.upgrade).toMatchObject({ modeWeightRatio: 0.7125 });
      expect(week.upgrade!.deadline! - Date.now() / 1000).toBeGreaterThan(5 * 86_400 - 600);
      expect(week.upgrade!.deadline! - Date.now() / 1000).toBeLessThanOrEqual(5 * 86_400);
      await setScenario(sim, 'v3', 'upgrade-required', { upgradeIn: 2 * 86_400, upgradeStakePercent: 80 });
      expect(await futureupgrade()).toMatchObject({ passing: false, error: 'unknown network upgrade detected', upgrade: { modeWeightRatio: 0.8 } });
      await setScenario(sim, 'v3', 'upgrade-required', { upgradeIn: 7200 });
      expect((await futureupgrade()).error).toBe('unknown network upgrade detected - update as soon as possible');
      // node/node.go: within the hour, and after the time until peers drop it
      await setScenario(sim, 'v3', 'upgrade-required', { upgradeIn: 1800 });
      expect((await futureupgrade()).error).toBe('imminent network upgrade detected - update immediately');
      await setScenario(sim, 'v3', 'upgrade-required', { upgradeIn: -10 });
      expect((await futureupgrade()).error).toBe('imminent network upgrade detected - update immediately');
      // network/peer/peer.go: a Ping (22.5 s) past the time, upgraded peers drop it; the mode falls back to its own time
      await setScenario(sim, 'v3', 'upgrade-required', { upgradeIn: -30 });
      const dropped = await futureupgrade();
      expect(dropped.passing).toBe(true);
      expect(dropped.upgrade?.deadline).toBeUndefined();
      expect(dropped.upgrade?.modeTime).toBe(dropped.upgrade?.localTime);
      expect(dropped.upgrade?.timeUntilSeconds).toBeUndefined();
    } finally {
      await setScenario(sim, 'v3', 'healthy');
    }
  });
});
