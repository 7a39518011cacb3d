import { join } from 'node:path';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SimServer } from '../../src/sim/server.js';
import { OWN_FIXTURES } from '../helpers/fixtures.js';
import { get, sample, scrape, series, serveFile, setScenario, startDaemon, startFixtureServer, startSim, waitFor, waitForRounds, type RunningDaemon } from '../helpers/harness.js';

type RawCheck = { message?: any; error?: string; timestamp: string; duration: number; contiguousFailures?: number };

describe('daemon against the simulator', () => {
  let sim: SimServer;
  let d: RunningDaemon;

  beforeAll(async () => {
    sim = await startSim([
      { name: 'v1', scenario: 'healthy', offsetMinutes: 120 },
      { name: 'v2', scenario: 'healthy' },
      { name: 'boot', scenario: 'bootstrapping' },
      { name: 'l1', scenario: 'healthy', l1: true },
    ]);
    const l1Subnet = sim.nodes.get('l1')!.l1SubnetId!;
    d = await startDaemon(`
listen: 127.0.0.1:0
defaults: {interval: 1s, timeout: 900ms}
nodes:
  - {name: v1, url: "${sim.nodeUrl('v1')}", labels: {env: mainnet, role: validator}}
  - {name: v2, url: "${sim.nodeUrl('v2')}"}
  - {name: boot, url: "${sim.nodeUrl('boot')}"}
  - name: l1
    url: "${sim.nodeUrl('l1')}"
    protocol: jsonrpc
    views:
      - {name: my-l1, tags: ["${l1Subnet}"]}
      - {name: unknown-tag, tags: [no-such-subnet]}
`);
    await Promise.all(['v1', 'v2', 'boot', 'l1'].map((t) => waitForRounds(d, t, 1)));
  });

  afterAll(async () => {
    await d?.stop();
    await sim?.close();
  });

  it('exports exact values after a round', async () => {
    const raw = JSON.parse((await get(`${sim.nodeUrl('v1')}/ext/health`)).body) as { checks: Record<string, RawCheck> };
    const m = await scrape(d.url);
    const v1 = { target: 'v1' };
    for (const endpoint of ['health', 'readiness', 'liveness']) {
      expect(sample(m, 'avahealth_probe_success', { ...v1, endpoint, view: 'all' })).toBe(1);
      expect(sample(m, 'avahealth_probe_http_status_code', { ...v1, endpoint, view: 'all' })).toBe(200);
      expect(sample(m, 'avahealth_node_healthy', { ...v1, endpoint, view: 'all' })).toBe(1);
    }
    // static labels ride on every series of the target
    expect(series(m, 'avahealth_probe_success', v1).every((s) => s.labels.env === 'mainnet' && s.labels.role === 'validator')).toBe(true);
    expect(sample(m, 'avahealth_node_info', { ...v1, node_id: sim.nodes.get('v1')!.nodeId })).toBe(1);

    const checks = series(m, 'avahealth_node_check_passing', { ...v1, endpoint: 'health', view: 'all' });
    expect(checks.map((s) => s.labels.check).sort()).toEqual(Object.keys(raw.checks).sort());
    expect(checks.every((s) => s.value === 1)).toBe(true);
    for (const [name, entry] of Object.entries(raw.checks)) {
      const labels = { ...v1, endpoint: 'health', view: 'all', check: name };
      expect(sample(m, 'avahealth_node_check_duration_seconds', labels)).toBeCloseTo(entry.duration / 1e9, 12);
      expect(sample(m, 'avahealth_node_check_last_run_timestamp_seconds', labels)).toBeCloseTo(Date.parse(entry.timestamp) / 1000, 2);
      expect(sample(m, 'avahealth_node_check_contiguous_failures', labels)).toBe(0);
      expect(sample(m, 'avahealth_node_check_failing_since_timestamp_seconds', labels)).toBeUndefined();
    }
    for (const chain of ['C', 'P', 'X']) {
      const msg = raw.checks[chain]!.message;
      expect(sample(m, 'avahealth_node_chain_last_accepted_height', { ...v1, chain })).toBe(msg.engine.consensus.lastAcceptedHeight);
      expect(sample(m, 'avahealth_node_chain_processing_blocks', { ...v1, chain })).toBe(msg.engine.consensus.processingBlocks);
      expect(sample(m, 'avahealth_node_chain_connected_stake_ratio', { ...v1, chain })).toBe(msg.networking.percentConnected);
      expect(sample(m, 'avahealth_node_chain_disconnected_validators', { ...v1, chain })).toBe(msg.networking.disconnectedValidators.length);
      expect(sample(m, 'avahealth_node_chain_bootstrapping', { ...v1, chain })).toBe(0);
    }
    const net = raw.checks.network!.message;
    expect(sample(m, 'avahealth_node_network_connected_peers', v1)).toBe(net.connectedPeers);
    expect(sample(m, 'avahealth_node_network_send_fail_ratio', v1)).toBe(net.sendFailRate);
    expect(sample(m, 'avahealth_node_network_ingress_connections', v1)).toBe(702);
    expect(sample(m, 'avahealth_node_router_outstanding_requests', v1)).toBe(raw.checks.router!.message.outstandingRequests);
    expect(sample(m, 'avahealth_node_disk_available_bytes', v1)).toBe(raw.checks.diskspace!.message.availableDiskBytes);
    expect(sample(m, 'avahealth_node_disk_available_ratio', v1)).toBe(0.38);
    expect(sample(m, 'avahealth_node_bootstrapping_subnets', v1)).toBe(0);
    expect(sample(m, 'avahealth_node_upgrade_mode_weight_ratio', v1)).toBeCloseTo(0.9873164170922519, 12);
    expect(sample(m, 'avahealth_probe_last_success_timestamp_seconds', { ...v1, endpoint: 'health', view: 'all' })).toBeGreaterThan(Date.now() / 1000 - 60);
    expect(sample(m, 'avahealth_build_info')).toBe(1);
    expect(sample(m, 'avahealth_config_last_reload_successful')).toBe(1);
  });

  it('serves /metrics with the Prometheus content type, and the other routes', async () => {
    const metrics = await get(`${d.url}/metrics`);
    expect(metrics.headers['content-type']).toBe('text/plain; version=0.0.4; charset=utf-8');
    expect(metrics.body).toContain('# TYPE avahealth_node_check_passing gauge');
    expect(metrics.body).toContain('process_resident_memory_bytes');
    expect((await get(`${d.url}/-/healthy`)).status).toBe(200);
    expect((await get(`${d.url}/-/ready`)).status).toBe(200);
    const status = JSON.parse((await get(`${d.url}/api/v1/status`)).body);
    expect(status.targets.map((t: { name: string; state: string }) => [t.name, t.state])).toEqual([
      ['v1', 'healthy'],
      ['v2', 'healthy'],
      ['boot', 'unhealthy'],
      ['l1', 'healthy'],
    ]);
    expect(status.targets[2].failingChecks).toEqual(['bootstrapped']);
    const page = await get(`${d.url}/`);
    expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(page.body).toContain('>boot</a>');
    expect((await get(`${d.url}/nope`)).status).toBe(404);
  });

  it('a malformed percent-encoded URL is a 400, with nothing logged as a failure', async () => {
    for (const path of ['/targets/%E0%A4%A', '/api/v1/targets/%E0%A4%A', '/targets/%zz']) {
      const res = await get(`${d.url}${path}`);
      expect(res.status, path).toBe(400);
      expect(res.body).toBe('malformed percent-encoding in the URL\n');
    }
    expect(d.logs()).not.toContain('HTTP handler failed');
    // A well-formed encoding still finds its target, and an unknown one is still a 404.
    expect((await get(`${d.url}/targets/%76%31`)).status).toBe(200);
    expect((await get(`${d.url}/api/v1/targets/nobody`)).status).toBe(404);
    expect((await request(`${d.url}/metrics`, { method: 'POST', body: '' })).statusCode).toBe(405);
  });

  it('a scenario switch changes check_passing, contiguous_failures and node_healthy as the node would', async () => {
    const v2 = { target: 'v2', endpoint: 'health', view: 'all' };
    // Two polls after each switch: one under way at the switch may carry the old answer; the next began after it.
    let rounds = d.daemon.store.get('v2')!.rounds;
    await setScenario(sim, 'v2', 'network-down');
    await waitForRounds(d, 'v2', (rounds += 2));
    let m = await scrape(d.url);
    expect(sample(m, 'avahealth_node_healthy', v2)).toBe(0);
    expect(sample(m, 'avahealth_probe_success', v2)).toBe(1); // a 503 with a valid body is a successful probe
    expect(sample(m, 'avahealth_probe_http_status_code', v2)).toBe(503);
    expect(sample(m, 'avahealth_node_check_passing', { ...v2, check: 'network' })).toBe(0);
    expect(sample(m, 'avahealth_node_check_contiguous_failures', { ...v2, check: 'network' })).toBe(1);
    expect(sample(m, 'avahealth_node_check_passing', { ...v2, check: 'C' })).toBe(0);
    expect(sample(m, 'avahealth_node_check_passing', { ...v2, check: 'database' })).toBe(1);
    expect(sample(m, 'avahealth_node_check_failing_since_timestamp_seconds', { ...v2, check: 'network' })).toBeGreaterThan(Date.now() / 1000 - 60);
    expect(sample(m, 'avahealth_node_network_connected_peers', { target: 'v2' })).toBe(0);
    // Cut off, a validator still counts itself connected (snow/networking/router/chain_router.go "Mark myself
    // as connected"): its own share of the stake, not 0.
    const alone = sample(m, 'avahealth_node_chain_connected_stake_ratio', { target: 'v2', chain: 'C' });
    expect(alone).toBeGreaterThan(0);
    expect(alone).toBeLessThan(0.01);

    // Another health period of the same failure: the node's own counter goes up.
    await setScenario(sim, 'v2', 'network-down');
    await waitForRounds(d, 'v2', (rounds += 2));
    m = await scrape(d.url);
    expect(sample(m, 'avahealth_node_check_contiguous_failures', { ...v2, check: 'network' })).toBe(2);

    await setScenario(sim, 'v2', 'healthy');
    await waitForRounds(d, 'v2', (rounds += 2));
    m = await scrape(d.url);
    expect(sample(m, 'avahealth_node_healthy', v2)).toBe(1);
    expect(sample(m, 'avahealth_node_check_passing', { ...v2, check: 'network' })).toBe(1);
    expect(sample(m, 'avahealth_node_check_contiguous_failures', { ...v2, check: 'network' })).toBe(0);
    expect(sample(m, 'avahealth_node_check_failing_since_timestamp_seconds', { ...v2, check: 'network' })).toBeUndefined();
    expect(d.logs()).toContain('"msg":"node unhealthy"');
  });

  it('readiness is 503 while bootstrapping, and stays passing once it passed (monotonic)', async () => {
    const boot = { target: 'boot', endpoint: 'readiness', view: 'all' };
    let m = await scrape(d.url);
    expect(sample(m, 'avahealth_node_healthy', boot)).toBe(0);
    expect(sample(m, 'avahealth_probe_http_status_code', boot)).toBe(503);
    expect(sample(m, 'avahealth_node_chain_bootstrapping', { target: 'boot', chain: 'C' })).toBe(1);
    expect(sample(m, 'avahealth_node_bootstrapping_subnets', { target: 'boot' })).toBe(1);
    let rounds = d.daemon.store.get('boot')!.rounds;
    await setScenario(sim, 'boot', 'healthy');
    await waitForRounds(d, 'boot', (rounds += 2));
    await setScenario(sim, 'boot', 'network-down');
    await waitForRounds(d, 'boot', (rounds += 2));
    m = await scrape(d.url);
    expect(sample(m, 'avahealth_node_healthy', boot)).toBe(1);
    expect(sample(m, 'avahealth_node_healthy', { ...boot, endpoint: 'health' })).toBe(0);
    expect(sample(m, 'avahealth_node_chain_bootstrapping', { target: 'boot', chain: 'C' })).toBe(0);
  });

  it('tag views report the filtered result; an unknown tag hides chain failures (JSON-RPC)', async () => {
    let rounds = d.daemon.store.get('l1')!.rounds;
    await setScenario(sim, 'l1', 'flapping'); // C fails on this health period; the L1 chain does not
    await waitForRounds(d, 'l1', (rounds += 2));
    const l1Chain = sim.nodes.get('l1')!.l1ChainId!;
    const m = await scrape(d.url);
    const view = (name: string) => ({ target: 'l1', endpoint: 'health', view: name });
    expect(sample(m, 'avahealth_node_healthy', view('all'))).toBe(0);
    expect(sample(m, 'avahealth_node_check_passing', { ...view('all'), check: 'C' })).toBe(0);
    expect(sample(m, 'avahealth_node_healthy', view('my-l1'))).toBe(1);
    const inView = series(m, 'avahealth_node_check_passing', view('my-l1')).map((s) => s.labels.check).sort();
    expect(inView).toEqual([l1Chain, 'bls', 'bootstrapped', 'database', 'diskspace', 'futureupgrade', 'network', 'router'].sort());
    const unknownTag = series(m, 'avahealth_node_check_passing', view('unknown-tag')).map((s) => s.labels.check).sort();
    expect(unknownTag).toEqual(['bls', 'bootstrapped', 'database', 'diskspace', 'futureupgrade', 'network', 'router']);
    expect(sample(m, 'avahealth_node_healthy', view('unknown-tag'))).toBe(1);
    expect(sample(m, 'avahealth_node_chain_last_accepted_height', { target: 'l1', chain: l1Chain })).toBeGreaterThan(4000);
    // readiness and liveness are polled unfiltered only
    expect(series(m, 'avahealth_probe_success', { target: 'l1', endpoint: 'readiness' }).map((s) => s.labels.view)).toEqual(['all']);
  });

  it('a check that vanishes loses its series', async () => {
    const l1Chain = sim.nodes.get('l1')!.l1ChainId!;
    let m = await scrape(d.url);
    expect(sample(m, 'avahealth_node_check_passing', { target: 'l1', endpoint: 'health', view: 'all', check: l1Chain })).toBe(1);
    const rounds = d.daemon.store.get('l1')!.rounds;
    await (await request(`${sim.baseUrl}/sim/nodes/l1/restart`, { method: 'POST', body: '{"l1":false}' })).body.text();
    await waitForRounds(d, 'l1', rounds + 2);
    m = await scrape(d.url);
    expect(series(m, 'avahealth_node_check_passing', { target: 'l1', check: l1Chain })).toEqual([]);
    expect(series(m, 'avahealth_node_chain_last_accepted_height', { target: 'l1', chain: l1Chain })).toEqual([]);
    expect(sample(m, 'avahealth_node_check_passing', { target: 'l1', endpoint: 'health', view: 'all', check: 'C' })).toBe(1);
  });
});

describe('untrusted payloads and label caps', () => {
  it('hostile check names are sanitized, capped, and counted when over the limit', async () => {
    const server = await startFixtureServer(serveFile(join(OWN_FIXTURES, 'avalanchego', 'hostile-check-names.json'), 503));
    const d = await startDaemon(`
limits: {max_checks_per_target: 4, max_label_length: 32}
nodes:
  - {name: hostile, url: "${server.url}", interval: 1s, endpoints: [health]}
`);
    try {
      // a poll that answered (on a busy machine the first may time out, with no checks to show)
      const m = await waitFor('the hostile checks exported', async () => {
        const text = await scrape(d.url);
        return series(text, 'avahealth_node_check_passing', { target: 'hostile' }).length > 0 ? text : undefined;
      }, 20_000);
      const names = series(m, 'avahealth_node_check_passing', { target: 'hostile' }).map((s) => s.labels.check!);
      expect(names).toHaveLength(4);
      for (const name of names) {
        expect(name).toMatch(/^[A-Za-z0-9_.:\-/ ]+~[0-9a-f]{8}$/);
        expect(name.length).toBeLessThanOrEqual(32);
      }
      expect(sample(m, 'avahealth_node_checks_dropped_total', { target: 'hostile' })).toBe(1);
      const status = JSON.parse((await get(`${d.url}/api/v1/status`)).body);
      expect(status.targets[0].failingChecks).toContain('<script>alert(1)</script>');
      const page = (await get(`${d.url}/`)).body;
      expect(page).not.toContain('<script>');
    } finally {
      await d.stop();
      await server.close();
    }
  });
});

describe('readiness of avahealth itself', () => {
  it('/-/ready is 503 until every target finished its first poll, then 200', async () => {
    const sim = await startSim([{ name: 'slow', scenario: 'slow', slowDelayMs: 1500 }, { name: 'fast', scenario: 'healthy' }]);
    const d = await startDaemon(`nodes:\n  - {name: slow, url: "${sim.nodeUrl('slow')}", timeout: 5s, endpoints: [liveness]}\n  - {name: fast, url: "${sim.nodeUrl('fast')}"}\n`);
    try {
      const early = await get(`${d.url}/-/ready`);
      expect(early.status).toBe(503);
      expect(early.body).toBe('Not ready: first poll round not complete\n');
      await waitForRounds(d, 'slow', 1);
      expect((await get(`${d.url}/-/ready`)).status).toBe(200);
    } finally {
      await d.stop();
      await sim.close();
    }
  });
});
