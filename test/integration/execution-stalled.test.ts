/**
 * A C-Chain that accepts blocks but no longer executes them (issue #44). On AvalancheGo's SAE
 * C-Chain (v1.15 after Helicon) consensus enqueues each accepted block for execution without
 * waiting (vms/saevm/sae/consensus.go), eth_blockNumber answers the last executed block
 * (vms/saevm/blocks/access.go ResolveRPCNumber), and SAE's health check reports nothing
 * (vms/saevm/sae/health.go): the node stays healthy. AvalancheNodeExecutionStalled compares the C
 * check's lastAcceptedHeight with eth_blockNumber, in its own words for an RPC node and a validator.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SimServer } from '../../src/sim/server.js';
import { startCapture } from '../helpers/capture.js';
import { sample, scrape, setScenario, startDaemon, startSim, waitFor, waitForRounds, type RunningDaemon } from '../helpers/harness.js';

type Webhook = { alerts: Array<{ status: string; labels: Record<string, string>; annotations: Record<string, string> }> };

describe('C-Chain execution stalled', () => {
  let sim: SimServer;
  let hook: Awaited<ReturnType<typeof startCapture>>;
  let d: RunningDaemon;

  beforeAll(async () => {
    sim = await startSim([
      { name: 'val', scenario: 'healthy', periodMs: 500 },
      { name: 'rpc', scenario: 'healthy', validator: false, periodMs: 500 },
    ]);
    hook = await startCapture();
    d = await startDaemon(`
listen: 127.0.0.1:0
defaults: {interval: 1s, timeout: 1s, endpoints: [health]}
nodes:
  - {name: val, url: "${sim.nodeUrl('val')}", validator: {interval: 1s, network: false}}
  - {name: rpc, url: "${sim.nodeUrl('rpc')}", validator: false}
alerts:
  for_polls: 1
  resolve_polls: 1
  rules:
    AvalancheNodeExecutionStalled: {threshold: 3}
  receivers:
    - {name: oncall, webhook: {url: "${hook.url}/hook"}}
`);
  }, 30_000);

  afterAll(async () => {
    await d?.stop();
    await sim?.close();
    await hook?.close();
  });

  const told = (status: string, target: string) => hook.on('/hook').flatMap((r) => (r.json as Webhook).alerts).filter((a) => a.labels.alertname === 'AvalancheNodeExecutionStalled' && a.labels.target === target && a.status === status);

  it('executing as it accepts: the executed height follows, nothing is told', async () => {
    await waitFor('executed heights read', async () => {
      const m = await scrape(d.url);
      return ['val', 'rpc'].every((t) => (sample(m, 'avahealth_node_chain_last_executed_height', { target: t, chain: 'C' }) ?? 0) > 0);
    }, 15_000);
    await waitForRounds(d, 'rpc', (d.daemon.store.get('rpc')?.rounds ?? 0) + 5);
    expect(told('firing', 'val')).toEqual([]);
    expect(told('firing', 'rpc')).toEqual([]);
  });

  it('stalled: its own words for an RPC node and a validator, while every health check passes; resolved once it executes again', async () => {
    await setScenario(sim, 'val', 'execution-stalled');
    await setScenario(sim, 'rpc', 'execution-stalled');
    const rpc = await waitFor('ExecutionStalled for rpc', () => told('firing', 'rpc')[0], 20_000);
    const val = await waitFor('ExecutionStalled for val', () => told('firing', 'val')[0], 20_000);
    expect(rpc.labels).toMatchObject({ severity: 'warning', chain: 'C' });
    expect(rpc.annotations.summary).toMatch(/^rpc: C-Chain execution stalled at block \d+ for \d+s, \d+ accepted blocks not executed: its RPC answers for "latest" are \d+ blocks old$/);
    expect(rpc.annotations.description).toContain('Take it out of the load balancer');
    expect(val.annotations.summary).toMatch(/^val: C-Chain execution stalled at block \d+ for \d+s, \d+ accepted blocks not executed: it cannot follow the chain for long$/);
    expect(val.annotations.description).toContain('loses uptime');
    const m = await scrape(d.url);
    expect(sample(m, 'avahealth_node_healthy', { target: 'rpc', endpoint: 'health' })).toBe(1);
    expect(sample(m, 'avahealth_node_chain_last_accepted_height', { target: 'rpc', chain: 'C' })).toBeGreaterThan(sample(m, 'avahealth_node_chain_last_executed_height', { target: 'rpc', chain: 'C' })!);

    await setScenario(sim, 'rpc', 'healthy');
    const resolved = await waitFor('rpc resolved', () => told('resolved', 'rpc')[0], 20_000);
    expect(resolved.annotations.summary).toMatch(/^rpc: C executes again: block \d+$/);
  });
});
