/**
 * A C-Chain that accepts blocks but no longer executes them (issue #44). On AvalancheGo's SAE
 * C-Chain (v1.15 after Helicon) consensus enqueues each accepted block for execution without
 * waiting (vms/saevm/sae/consensus.go), eth_blockNumber answers the last executed block
 * (vms/saevm/blocks/access.go ResolveRPCNumber), and SAE's health check reports nothing
 * (vms/saevm/sae/health.go): the node stays healthy. AvalancheNodeExecutionStalled compares the C
 * check's lastAcceptedHeight with eth_blockNumber, in its own words for an RPC node and a validator.
 */
import pLimit from 'p-limit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TargetObservation } from '../../src/model/observation.js';
import { parseConfig } from '../../src/config/load.js';
import { readExecution } from '../../src/probes/execution.js';
import { executionReadSeconds } from '../../src/probes/node.js';
import { HttpClient } from '../../src/transport/client.js';
import type { SimServer } from '../../src/sim/server.js';
import { startCapture } from '../helpers/capture.js';
import { sample, scrape, setScenario, startDaemon, startSim, waitFor, waitForRounds, type RunningDaemon } from '../helpers/harness.js';


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

  const told = (status: string, target: string) => hook.told({ path: '/hook', status, alertname: 'AvalancheNodeExecutionStalled', target });

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
    // eth_blockNumber is asked at most every 15 s (probes/execution.ts): the stall shows at the second reading after it
    const rpc = await waitFor('ExecutionStalled for rpc', () => told('firing', 'rpc')[0], 45_000);
    const val = await waitFor('ExecutionStalled for val', () => told('firing', 'val')[0], 45_000);
    expect(rpc.labels).toMatchObject({ severity: 'warning', chain: 'C' });
    expect(rpc.annotations.summary).toMatch(/^rpc: C-Chain execution stalled at block \d+ for \d+s, \d+ accepted blocks not executed: its RPC answers for "latest" are \d+ blocks old$/);
    expect(rpc.annotations.description).toContain('Take it out of the load balancer');
    expect(val.annotations.summary).toMatch(/^val: C-Chain execution stalled at block \d+ for \d+s, \d+ accepted blocks not executed: it cannot follow the chain for long$/);
    expect(val.annotations.description).toContain('loses uptime');
    const m = await scrape(d.url);
    expect(sample(m, 'avahealth_node_healthy', { target: 'rpc', endpoint: 'health' })).toBe(1);
    expect(sample(m, 'avahealth_node_chain_last_accepted_height', { target: 'rpc', chain: 'C' })).toBeGreaterThan(sample(m, 'avahealth_node_chain_last_executed_height', { target: 'rpc', chain: 'C' })!);

    await setScenario(sim, 'rpc', 'healthy');
    const resolved = await waitFor('rpc resolved', () => told('resolved', 'rpc')[0], 30_000);
    expect(resolved.annotations.summary).toMatch(/^rpc: C executes again: block \d+$/);
  }, 150_000);
});

describe('eth_blockNumber beside a poll a second: at most every 15 s', () => {
  let sim: SimServer;
  const ctx = { http: new HttpClient({ maxResponseBytes: 1 << 20 }), limit: pLimit(8) };

  beforeAll(async () => {
    sim = await startSim([{ name: 'rpc', scenario: 'healthy', validator: false, periodMs: 500 }]);
  });
  afterAll(async () => {
    await ctx.http.close();
    await sim?.close();
  });

  // its last poll's health: a C-Chain with an accepted height
  const previous: TargetObservation = {
    target: 'rpc',
    kind: 'node',
    at: 0,
    endpoints: [{ endpoint: 'health', view: 'all', ok: true, at: 0, durationSeconds: 0, report: { healthy: true, checks: [{ name: 'C', passing: true, notYetRun: false, durationSeconds: 0, contiguousFailures: 0, chain: { lastAcceptedHeight: 10 } }] } }],
  };

  it('the polls in between carry the last reading, not marked unanswered; a longer threshold asks less often', async () => {
    const node = sim.nodes.get('rpc')!;
    const target = { baseUrl: sim.nodeUrl('rpc'), headers: {}, timeoutMs: 2000, tls: { insecureSkipVerify: false }, secrets: [] };
    const T = 1_800_000_000;
    const asked = node.requests;
    const first = await readExecution(target, ctx, previous, T);
    expect(first).toMatchObject({ at: T, since: T });
    expect(first!.executedHeight).toBeGreaterThan(0);
    for (let at = T + 1; at < T + 15; at++) expect(await readExecution(target, ctx, previous, at)).toBe(first);
    expect(node.requests - asked).toBe(1);
    const again = await readExecution(target, ctx, previous, T + 15);
    expect(again!.at).toBe(T + 15);
    expect(again!.unanswered).toBeUndefined();
    expect(node.requests - asked).toBe(2);

    // AvalancheNodeExecutionStalled's threshold at 4 minutes: every 30 s
    const slower = { ...target };
    await readExecution(slower, ctx, previous, T, 30);
    for (let at = T + 1; at < T + 30; at += 7) await readExecution(slower, ctx, previous, at, 30);
    expect(node.requests - asked).toBe(3);
    await readExecution(slower, ctx, previous, T + 30, 30);
    expect(node.requests - asked).toBe(4);
  });

  it("how often, from the rule's threshold for the target: an eighth of it, 15 s at least", () => {
    const config = parseConfig(
      `
nodes:
  - {name: a, url: "http://127.0.0.1:9650"}
  - {name: b, url: "http://127.0.0.1:9651"}
alerts:
  rules:
    AvalancheNodeExecutionStalled: {threshold: 240}
  targets:
    b: {rules: {AvalancheNodeExecutionStalled: {threshold: 60}}}
`,
      'config.yaml',
    );
    expect(executionReadSeconds(config, 'a')).toBe(30);
    expect(executionReadSeconds(config, 'b')).toBe(15);
    expect(executionReadSeconds(parseConfig('nodes:\n  - {name: a, url: "http://127.0.0.1:9650"}\n', 'config.yaml'), 'a')).toBe(15);
  });
});
