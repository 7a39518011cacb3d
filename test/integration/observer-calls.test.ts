/**
 * The fleet as observers asks each observer once about every own validator of its network
 * (platform.getCurrentValidators with `nodeIDs`: vms/platformvm/service.go), not once per
 * validator: at 1,000 validators the first 16 nodes would otherwise get 1,000 calls a minute each.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config/load.js';
import { createLogger } from '../../src/log.js';
import { observedReport } from '../../src/model/observed.js';
import { Poller } from '../../src/poller.js';
import type { SimServer } from '../../src/sim/server.js';
import { Store } from '../../src/store.js';
import { NODE_IDS_PER_CALL } from '../../src/probes/observed.js';
import { setScenario, startSim } from '../helpers/harness.js';

const NAMES = ['v1', 'v2', 'v3', 'v4', 'v5', 'v6'];

/** A poller of these validators at hourly intervals, baseline off: each job runs when the test says. */
function pollerOf(sim: SimServer, names: readonly string[]) {
  const config = parseConfig(`defaults: {interval: 1h, validator: {interval: 1h, network: false}}\nnodes:\n${names.map((n) => `  - {name: ${n}, url: "${sim.nodeUrl(n)}"}`).join('\n')}\n`, 'cfg.yaml');
  const store = new Store();
  return { store, poller: new Poller(config, store, createLogger({ level: 'silent', format: 'json' })) };
}

describe('observers are asked about every own validator at once', () => {
  let sim: SimServer;
  beforeAll(async () => {
    sim = await startSim(NAMES.map((name) => ({ name, scenario: 'healthy' as const })));
  });
  afterAll(async () => sim?.close());

  /** The getCurrentValidators calls each node has answered so far, with the NodeIDs asked. */
  const observerCalls = () =>
    new Map(
      NAMES.map((name) => {
        const economics = sim.nodes.get(name)!.economics;
        const asked = economics.calls.flatMap((method, i) => (method === 'platform.getCurrentValidators' ? [(economics.params[i] as { nodeIDs?: string[] }).nodeIDs ?? []] : []));
        return [name, asked];
      }),
    );
  const id = (name: string) => sim.nodes.get(name)!.nodeId;
  const fleetPoller = () => pollerOf(sim, NAMES);

  it('one call per observer serves every validator; a validator learned later is asked alone', async () => {
    const { store, poller } = fleetPoller();
    try {
      // every validator but v6 has told its NodeID and network
      await Promise.all(NAMES.slice(0, 5).map((n) => poller.run(`${n}@validator`)));
      const before = observerCalls();
      await Promise.all(NAMES.slice(0, 5).map((n) => poller.run(`${n}@observed`)));
      const during = observerCalls();
      for (const observer of NAMES) {
        const asked = during.get(observer)!.slice(before.get(observer)!.length);
        // the first 16 other nodes of the network observe: here each node, once, about the others it knows
        expect(asked).toHaveLength(1);
        expect([...asked[0]!].sort()).toEqual(NAMES.slice(0, 5).filter((n) => n !== observer).map(id).sort());
      }
      for (const name of NAMES.slice(0, 5)) {
        const report = observedReport(store.get(name)!.jobs.get('observed')!.endpoints[0]);
        expect(report!.views.map((v) => v.observer).sort()).toEqual(NAMES.filter((n) => n !== name));
        for (const view of report!.views) {
          expect(view.error).toBeUndefined();
          expect(view.connected).toBe(true);
          expect(view.uptimeRatio).toBeGreaterThan(0.9);
        }
      }

      // v6 tells its NodeID now: the answers shared for this interval do not have it, so it is asked alone
      await poller.run('v6@validator');
      const beforeV6 = observerCalls();
      await poller.run('v6@observed');
      const afterV6 = observerCalls();
      for (const observer of NAMES.slice(0, 5)) {
        expect(afterV6.get(observer)!.slice(beforeV6.get(observer)!.length)).toEqual([[id('v6'), 'NodeID-111111111111111111116DBWJs']]);
      }
      expect(observedReport(store.get('v6')!.jobs.get('observed')!.endpoints[0])!.views.filter((v) => v.connected)).toHaveLength(5);
    } finally {
      await poller.close();
    }
  });

  it('a node that says another network leaves the observers of the first at once (the grouping by network follows it)', async () => {
    const { store, poller } = fleetPoller();
    const observersOf = (name: string) => observedReport(store.get(name)!.jobs.get('observed')!.endpoints[0])!.views.map((v) => v.observer).sort();
    try {
      // v6 has not told its network yet: it counts as on the configured one (mainnet)
      await Promise.all(NAMES.slice(0, 5).map((n) => poller.run(`${n}@validator`)));
      await poller.run('v1@observed');
      expect(observersOf('v1')).toEqual(['v2', 'v3', 'v4', 'v5', 'v6']);
      sim.nodes.get('v6')!.economics.networkId = 5; // info.getNetworkID: fuji
      await poller.run('v6@validator');
      expect(store.networkOf('v6')).toBe('fuji');
      await poller.run('v1@observed');
      expect(observersOf('v1')).toEqual(['v2', 'v3', 'v4', 'v5']);
      await poller.run('v6@observed'); // alone on its network: nobody to ask
      expect(store.get('v6')!.jobs.get('observed')!.endpoints).toEqual([]);
    } finally {
      sim.nodes.get('v6')!.economics.networkId = 1;
      await poller.close();
    }
  });
});

describe('an observer is asked one call at a time', () => {
  // More validators than one call asks about: every observer gets two calls.
  const names = Array.from({ length: NODE_IDS_PER_CALL + 6 }, (_, i) => `v${i + 1}`);
  let sim: SimServer;
  beforeAll(async () => {
    sim = await startSim(names.map((name) => ({ name, scenario: 'healthy' as const })));
  });
  afterAll(async () => sim?.close());

  const asked = (name: string, from: number) => {
    const economics = sim.nodes.get(name)!.economics;
    return economics.calls.slice(from).flatMap((method, i) => (method === 'platform.getCurrentValidators' ? [(economics.params[from + i] as { nodeIDs: string[] }).nodeIDs] : []));
  };

  it('asks NODE_IDS_PER_CALL NodeIDs a call, the next call after the last answered; a failed call stands for the rest', async () => {
    const { store, poller } = pollerOf(sim, names);
    try {
      await Promise.all(names.map((n) => poller.run(`${n}@validator`)));
      // v1 answers after a while: calls made side by side would overlap there
      await setScenario(sim, 'v1', 'slow', { delayMs: 50 });
      // v2 answers 429 to everything
      await setScenario(sim, 'v2', 'rate-limited');
      const from = new Map(names.map((n) => [n, sim.nodes.get(n)!.economics.calls.length]));
      const v2Requests = sim.nodes.get('v2')!.requests;
      sim.nodes.get('v1')!.mostInFlight = 0;
      await poller.run('v3@observed');

      const v1 = asked('v1', from.get('v1')!);
      expect(v1.map((ids) => ids.length)).toEqual([NODE_IDS_PER_CALL, names.length - 1 - NODE_IDS_PER_CALL]);
      expect(v1.flat().sort()).toEqual(names.filter((n) => n !== 'v1').map((n) => sim.nodes.get(n)!.nodeId).sort());
      expect(sim.nodes.get('v1')!.mostInFlight).toBe(1);
      // v2's first call failed: it is not asked the second, and its failure is its view of v3
      expect(sim.nodes.get('v2')!.requests - v2Requests).toBe(1);
      const views = observedReport(store.get('v3')!.jobs.get('observed')!.endpoints[0])!.views;
      expect(views.find((v) => v.observer === 'v2')).toEqual({ observer: 'v2', error: expect.stringContaining('429') });
      expect(views.find((v) => v.observer === 'v1')).toMatchObject({ connected: true });
      expect(views).toHaveLength(16);
    } finally {
      await setScenario(sim, 'v1', 'healthy');
      await setScenario(sim, 'v2', 'healthy');
      await poller.close();
    }
  });
});
