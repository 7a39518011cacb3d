import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SimServer } from '../../src/sim/server.js';
import { SIM_PEERS, SIM_PEERS_BETWEEN, SIM_PEERS_BETWEEN_VERSION, SIM_PEERS_BEHIND, SIM_PEERS_BENCHED } from '../../src/sim/peers.js';
import { SIM_CURRENT_VERSION, SIM_OLD_VERSION } from '../../src/sim/validator.js';
import { sample, scrape, series, startDaemon, startSim, waitFor, type RunningDaemon } from '../helpers/harness.js';

/**
 * The info.peers probe end to end (the "Adding a probe" recipe of docs/architecture.md, proven): the
 * real daemon polls the simulator's info.peers for the nodes that ask for it, its collector exports
 * the counts, and a failing peers poll never makes a node unreachable.
 */
describe('connected peers (info.peers)', () => {
  let sim: SimServer;
  let d: RunningDaemon;

  beforeAll(async () => {
    sim = await startSim([
      { name: 'a', scenario: 'healthy' },
      { name: 'locked', scenario: 'info-api-disabled' },
    ]);
    d = await startDaemon(`
listen: 127.0.0.1:0
defaults: {interval: 1s, timeout: 1s, endpoints: [health], validator: false, peers: {interval: 1s}}
nodes:
  - {name: a, url: "${sim.nodeUrl('a')}"}
  - {name: locked, url: "${sim.nodeUrl('locked')}"}
  - {name: plain, url: "${sim.nodeUrl('a')}", peers: false}
`);
    await waitFor('a peers poll of a and of locked', async () => {
      const m = await scrape(d.url);
      return sample(m, 'avahealth_probe_success', { target: 'a', endpoint: 'peers' }) === 1 && sample(m, 'avahealth_probe_success', { target: 'locked', endpoint: 'peers' }) === 0;
    }, 20_000);
  }, 30_000);

  afterAll(async () => {
    await d?.stop();
    await sim?.close();
  });

  it('exports connected peers, per version and benched, for the nodes that ask', async () => {
    const m = await scrape(d.url);
    expect(sample(m, 'avahealth_node_peers', { target: 'a' })).toBe(SIM_PEERS);
    expect(series(m, 'avahealth_node_peers_by_version', { target: 'a' }).map((s) => [s.labels.version, s.value])).toEqual([
      [SIM_CURRENT_VERSION, SIM_PEERS - SIM_PEERS_BEHIND - SIM_PEERS_BETWEEN],
      [SIM_OLD_VERSION, SIM_PEERS_BEHIND],
      [SIM_PEERS_BETWEEN_VERSION, SIM_PEERS_BETWEEN],
    ]);
    expect(sample(m, 'avahealth_node_peers_benched', { target: 'a' })).toBe(SIM_PEERS_BENCHED);
    expect(series(m, 'avahealth_node_peers', { target: 'plain' })).toEqual([]);
    expect(series(m, 'avahealth_probe_success', { target: 'plain', endpoint: 'peers' })).toEqual([]);
  });

  it('a node whose info API is off has no peer series, a failed peers probe, and stays healthy', async () => {
    const m = await scrape(d.url);
    expect(series(m, 'avahealth_node_peers', { target: 'locked' })).toEqual([]);
    expect(sample(m, 'avahealth_probe_failures_total', { target: 'locked', endpoint: 'peers', reason: 'http_status' })).toBeGreaterThan(0);
    const status = (await (await fetch(`${d.url}/api/v1/status`)).json()) as { targets: Array<{ name: string; state: string }> };
    expect(status.targets.find((t) => t.name === 'locked')!.state).toBe('healthy');
  });

  it('a node whose network is down has no peers', async () => {
    await fetch(`${sim.baseUrl}/sim/nodes/a/scenario`, { method: 'POST', body: JSON.stringify({ scenario: 'network-down' }) });
    await waitFor('a to report no peers', async () => sample(await scrape(d.url), 'avahealth_node_peers', { target: 'a' }) === 0, 10_000);
    expect(series(await scrape(d.url), 'avahealth_node_peers_by_version', { target: 'a' })).toEqual([]);
  });
});
