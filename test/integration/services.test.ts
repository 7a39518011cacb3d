import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiSpec } from '../../src/openapi/spec.js';
import { SimServer } from '../../src/sim/server.js';
import { get, sample, scrape, series, startDaemon, startFixtureServer, startSim, waitFor, waitForRounds, type RunningDaemon } from '../helpers/harness.js';

async function serviceScenario(sim: SimServer, service: 'data-api' | 'metrics-api', scenario: string, extra: Record<string, unknown> = {}) {
  const res = await request(`${sim.baseUrl}/sim/services/${service}/scenario`, { method: 'POST', body: JSON.stringify({ scenario, ...extra }) });
  expect(res.statusCode).toBe(200);
  await res.body.dump();
}

describe('hosted API health', () => {
  let sim: SimServer;
  let d: RunningDaemon;
  beforeAll(async () => {
    sim = await startSim([]);
    d = await startDaemon(`
services:
  - name: data-api
    kind: data-api
    url: ${sim.serviceUrl('data-api')}
    api_key: \${DATA_API_KEY:-sekret-key-0123456789}
    interval: 1s
  - {name: metrics-api, kind: metrics-api, url: "${sim.serviceUrl('metrics-api')}", interval: 1s}
`);
    await Promise.all(['data-api', 'metrics-api'].map((t) => waitForRounds(d, t, 1)));
  });
  afterAll(async () => {
    await d?.stop();
    await sim?.close();
  });

  it('healthy services: service, component, probe and rate-limit series', async () => {
    const m = await scrape(d.url);
    for (const target of ['data-api', 'metrics-api']) {
      for (const endpoint of ['health-check', 'live-check']) {
        expect(sample(m, 'avahealth_service_healthy', { target, endpoint })).toBe(1);
        expect(sample(m, 'avahealth_probe_success', { target, endpoint, view: 'all' })).toBe(1);
        expect(sample(m, 'avahealth_service_component_up', { target, endpoint, component: 'cache' })).toBe(1);
      }
    }
    expect(sample(m, 'avahealth_service_rate_limit_limit', { target: 'data-api' })).toBe(1000); // the key raises the limit
    expect(sample(m, 'avahealth_service_rate_limit_limit', { target: 'metrics-api' })).toBe(100);
    expect(sample(m, 'avahealth_service_rate_limit_remaining', { target: 'metrics-api' })).toBeLessThan(100);
    // both checks of each service were polled, and nothing else
    expect(new Set(sim.dataApi.requests)).toEqual(new Set(['GET /v1/health-check', 'GET /v1/live-check']));
  });

  it('degraded (Terminus 503) and down (error body 503) are understood: unhealthy, message in the status', async () => {
    await serviceScenario(sim, 'data-api', 'degraded');
    await serviceScenario(sim, 'metrics-api', 'down');
    const rounds = (t: string) => d.daemon.store.get(t)!.rounds;
    const [r1, r2] = [rounds('data-api'), rounds('metrics-api')];
    await waitForRounds(d, 'data-api', r1 + 1);
    await waitForRounds(d, 'metrics-api', r2 + 1);
    const m = await scrape(d.url);
    expect(sample(m, 'avahealth_service_healthy', { target: 'data-api', endpoint: 'health-check' })).toBe(0);
    expect(sample(m, 'avahealth_probe_success', { target: 'data-api', endpoint: 'health-check' })).toBe(1);
    expect(sample(m, 'avahealth_probe_http_status_code', { target: 'data-api', endpoint: 'health-check' })).toBe(503);
    expect(sample(m, 'avahealth_service_component_up', { target: 'data-api', endpoint: 'health-check', component: 'cache' })).toBe(0);
    expect(sample(m, 'avahealth_service_component_up', { target: 'data-api', endpoint: 'health-check', component: 'database' })).toBe(1);
    expect(sample(m, 'avahealth_service_healthy', { target: 'metrics-api', endpoint: 'health-check' })).toBe(0);
    expect(series(m, 'avahealth_service_component_up', { target: 'metrics-api' })).toEqual([]);
    const status = JSON.parse((await get(`${d.url}/api/v1/status`)).body);
    const byName = (n: string) => status.targets.find((t: { name: string }) => t.name === n);
    expect(byName('data-api')).toMatchObject({ kind: 'service', state: 'unhealthy', failingChecks: ['cache'] });
    expect(byName('data-api').summary).toContain('down: cache: Connection is closed.');
    expect(byName('metrics-api').summary).toBe('health-check: error (Service Unavailable); live-check: error (Service Unavailable)');
    expect(d.logs()).toContain('"msg":"service unhealthy"');
    await serviceScenario(sim, 'data-api', 'healthy');
    await serviceScenario(sim, 'metrics-api', 'healthy');
  });

  it('the API key never appears in errors, the status view, metrics or logs (even when a service echoes it)', async () => {
    await serviceScenario(sim, 'data-api', 'unauthorized');
    const before = d.daemon.store.get('data-api')!.rounds;
    await waitForRounds(d, 'data-api', before + 1);
    const status = (await get(`${d.url}/api/v1/status`)).body;
    expect(status).toContain('Invalid API key: [REDACTED]');
    const everything = status + (await get(`${d.url}/metrics`)).body + (await get(`${d.url}/`)).body + d.logs();
    expect(everything).not.toContain('sekret-key-0123456789');
    expect(sample(await scrape(d.url), 'avahealth_probe_failures_total', { target: 'data-api', endpoint: 'health-check', reason: 'http_status' })).toBeGreaterThanOrEqual(1);
    await serviceScenario(sim, 'data-api', 'healthy');
  });
});

describe('429 back-off', () => {
  it('a rate-limited service is not called again before the window ends, then polled again', async () => {
    const sim = await startSim([]);
    await serviceScenario(sim, 'metrics-api', 'rate-limited', { retryAfterSeconds: 3 });
    const d = await startDaemon(`services:\n  - {name: metrics-api, kind: metrics-api, url: "${sim.serviceUrl('metrics-api')}", interval: 1s}\n`);
    try {
      await waitForRounds(d, 'metrics-api', 1);
      // the 429 on health-check stopped live-check from being sent in the same round
      expect(sim.metricsApi.requests).toEqual(['GET /v2/health-check']);
      await serviceScenario(sim, 'metrics-api', 'healthy');
      await waitForRounds(d, 'metrics-api', 3);
      expect(sim.metricsApi.requests).toEqual(['GET /v2/health-check']); // two more polls, no requests
      const m = await scrape(d.url);
      expect(sample(m, 'avahealth_probe_success', { target: 'metrics-api', endpoint: 'live-check' })).toBe(0);
      expect(sample(m, 'avahealth_probe_failures_total', { target: 'metrics-api', endpoint: 'live-check', reason: 'rate_limited' })).toBeGreaterThanOrEqual(2);
      expect(sample(m, 'avahealth_service_rate_limit_remaining', { target: 'metrics-api' })).toBe(0);
      const status = JSON.parse((await get(`${d.url}/api/v1/status`)).body);
      expect(status.targets[0].endpoints[1].error).toMatch(/^rate limited: no requests until \d{4}-/);
      await waitFor('requests to resume after the window', () => sim.metricsApi.requests.length > 1, 10_000);
      await waitFor('metrics-api healthy again', async () => sample(await scrape(d.url), 'avahealth_service_healthy', { target: 'metrics-api', endpoint: 'live-check' }) === 1, 10_000);
    } finally {
      await d.stop();
      await sim.close();
    }
  });
});

describe('chain data', () => {
  it('lag against the Data API, validator status (paged), chain status, network totals and TPS', async () => {
    // heights stand still for the test: one block an hour
    const still = new SimServer(
      [
        { name: 'behind-50', scenario: 'lagging', lagBlocks: 50, periodMs: 3_600_000 },
        { name: 'behind-80', scenario: 'lagging', lagBlocks: 80, validationEndsIn: 3 * 86400, periodMs: 3_600_000 },
        { name: 'rpc', scenario: 'healthy', validator: false, l1: true, periodMs: 3_600_000 },
      ],
      { blockMs: 3_600_000 },
    );
    await still.listen(0);
    still.dataApi.maxPageSize = 1;
    const l1Evm = still.network.chains.get(still.nodes.get('rpc')!.l1ChainId!)!.evmChainId!;
    const d = await startDaemon(`
defaults: {interval: 1s}
nodes:
  - {name: behind-50, url: "${still.nodeUrl('behind-50')}"}
  - {name: behind-80, url: "${still.nodeUrl('behind-80')}"}
  - {name: rpc, url: "${still.nodeUrl('rpc')}"}
services:
  - {name: data-api, kind: data-api, url: "${still.serviceUrl('data-api')}", interval: 1m}
  - {name: metrics-api, kind: metrics-api, url: "${still.serviceUrl('metrics-api')}", interval: 1m}
chain_data:
  evm_chains: ["43114", "${l1Evm}"]
`);
    try {
      const m = await waitFor('validator series', async () => {
        const samples = await scrape(d.url);
        return series(samples, 'avahealth_validator_status', { target: 'behind-80' }).length > 0 ? samples : undefined;
      });
      const base = still.network.height('C');
      expect(sample(m, 'avahealth_chain_latest_block_height', { chain_id: '43114' })).toBe(base);
      expect(sample(m, 'avahealth_chain_status_ok', { chain_id: '43114' })).toBe(1);
      expect(sample(m, 'avahealth_chain_avg_tps', { chain_id: '43114' })).toBe(18.4);
      expect(sample(m, 'avahealth_chain_avg_tps', { chain_id: l1Evm })).toBe(2.25);
      // against the network, not the fleet: both lagging nodes show their real lag
      expect(sample(m, 'avahealth_node_chain_height_lag_blocks', { target: 'behind-50', chain: 'C' })).toBe(50);
      expect(sample(m, 'avahealth_node_chain_height_lag_blocks', { target: 'behind-80', chain: 'C' })).toBe(80);
      expect(sample(m, 'avahealth_node_chain_height_lag_blocks', { target: 'rpc', chain: 'C' })).toBe(0);
      // an L1 check (keyed by blockchain ID) is mapped to its EVM chain through platformChainId
      expect(sample(m, 'avahealth_node_chain_height_lag_blocks', { target: 'rpc', chain: still.nodes.get('rpc')!.l1ChainId! })).toBe(0);
      const nodeId = still.nodes.get('behind-80')!.nodeId;
      expect(sample(m, 'avahealth_validator_status', { target: 'behind-80', node_id: nodeId, status: 'active' })).toBe(1);
      expect(sample(m, 'avahealth_validator_status', { target: 'behind-80', node_id: nodeId, status: 'completed' })).toBe(0);
      expect(sample(m, 'avahealth_validator_end_timestamp_seconds', { target: 'behind-80' })).toBeCloseTo(Date.now() / 1000 + 3 * 86400, -2);
      expect(sample(m, 'avahealth_validator_delegators', { target: 'behind-80' })).toBe(4);
      expect(sample(m, 'avahealth_validator_status', { target: 'rpc', status: 'none' })).toBe(1);
      expect(sample(m, 'avahealth_network_validators', { network: 'mainnet' })).toBe(1402);
      expect(sample(m, 'avahealth_network_delegators', { network: 'mainnet' })).toBe(38006);
      // the active validation was on the third page of one record each
      const pages = still.dataApi.requests.filter((r) => r.includes(`/validators/${nodeId}`));
      expect(pages.slice(0, 3).map((r) => /pageToken=([^&]+)/.exec(r)?.[1] ?? 'first')).toEqual(['first', 'MQ', 'Mg']);
      // one request per chain shared by all nodes
      expect(still.dataApi.requests.filter((r) => r.startsWith('GET /v1/chains/43114/blocks')).length).toBeLessThanOrEqual(2);
      const status = JSON.parse((await get(`${d.url}/api/v1/status`)).body);
      expect(status.chainData.errors).toEqual([]);
    } finally {
      await d.stop();
      await still.close();
    }
  });

  it('a chain data refresh whose every request fails (API key revoked) leaves the freshness timestamp where it was', async () => {
    const sim = new SimServer([{ name: 'v', scenario: 'healthy' }]);
    await sim.listen(0);
    const d = await startDaemon(`
defaults: {interval: 1s}
nodes:
  - {name: v, url: "${sim.nodeUrl('v')}"}
services:
  - {name: data-api, kind: data-api, url: "${sim.serviceUrl('data-api')}", interval: 1m}
chain_data: {interval: 10s}
`);
    const refreshed = async () => {
      const m = await scrape(d.url);
      return { at: sample(m, 'avahealth_chain_data_last_refresh_timestamp_seconds'), errors: sample(m, 'avahealth_chain_data_last_refresh_errors') };
    };
    try {
      const good = await waitFor('a complete refresh', async () => {
        const r = await refreshed();
        return (r.at ?? 0) > 0 && r.errors === 0 ? r : undefined;
      });
      sim.dataApi.scenario = 'unauthorized';
      await waitFor('a refresh whose requests all fail', async () => ((await refreshed()).errors ?? 0) > 0, 20_000);
      expect((await refreshed()).at).toBe(good.at);
      const status = JSON.parse((await get(`${d.url}/api/v1/status`)).body) as { chainData: { refreshedAt: number; errors: string[] } };
      expect(status.chainData.refreshedAt).toBe(good.at);
      expect(status.chainData.errors.join('\n')).toContain('401');
    } finally {
      await d.stop();
      await sim.close();
    }
  }, 40_000);

  it('without a Data API, lag is measured against the highest height in our own fleet', async () => {
    const sim = new SimServer(
      [
        { name: 'ahead', scenario: 'healthy', periodMs: 3_600_000 },
        { name: 'behind', scenario: 'lagging', lagBlocks: 30, periodMs: 3_600_000 },
      ],
      { blockMs: 3_600_000 },
    );
    await sim.listen(0);
    const d = await startDaemon(`
defaults: {interval: 1s}
nodes:
  - {name: ahead, url: "${sim.nodeUrl('ahead')}"}
  - {name: behind, url: "${sim.nodeUrl('behind')}"}
chain_data: {}
`);
    try {
      await Promise.all(['ahead', 'behind'].map((t) => waitForRounds(d, t, 1)));
      const m = await scrape(d.url);
      expect(sample(m, 'avahealth_node_chain_height_lag_blocks', { target: 'behind', chain: 'C' })).toBe(30);
      expect(sample(m, 'avahealth_node_chain_height_lag_blocks', { target: 'behind', chain: 'P' })).toBe(30);
      expect(sample(m, 'avahealth_node_chain_height_lag_blocks', { target: 'ahead', chain: 'C' })).toBe(0);
      expect(series(m, 'avahealth_chain_latest_block_height')).toEqual([]);
    } finally {
      await d.stop();
      await sim.close();
    }
  });
});

describe('API probes', () => {
  it('a documented operation that answers per its schema succeeds; a schema mismatch is bad_shape with the path', async () => {
    const sim = await startSim([{ name: 'v', scenario: 'healthy' }]);
    const liar = await startFixtureServer((req, res) => {
      req.resume();
      res.writeHead(200, { 'content-type': 'application/json' });
      const block = { chainId: '43114', blockNumber: 12, blockTimestamp: 1, blockHash: '0x1', txCount: 1, baseFee: '1', gasUsed: '1', gasLimit: '1', gasCost: '1', parentHash: '0x0', feesSpent: '1', cumulativeTransactions: '1' };
      res.end(JSON.stringify({ blocks: [block] }));
    });
    const nodeId = sim.nodes.get('v')!.nodeId;
    const d = await startDaemon(`
services:
  - name: data-api
    kind: data-api
    url: ${sim.serviceUrl('data-api')}
    endpoints: [health-check]
    probes:
      - {name: latest-blocks, path: /v1/chains/43114/blocks, query: {pageSize: 2}}
      - {name: my-validator, path: /v1/networks/mainnet/validators/${nodeId}}
      - {name: missing-chain, path: /v1/chains/1, expect_status: 404}
  - name: liar
    kind: data-api
    url: ${liar.url}
    endpoints: []
    probes:
      - {name: latest-blocks, path: /v1/chains/43114/blocks}
`);
    try {
      await Promise.all(['data-api', 'liar'].map((t) => waitForRounds(d, t, 1)));
      const m = await scrape(d.url);
      for (const endpoint of ['latest-blocks', 'my-validator', 'missing-chain']) {
        expect(sample(m, 'avahealth_probe_success', { target: 'data-api', endpoint }), endpoint).toBe(1);
      }
      expect(sample(m, 'avahealth_probe_success', { target: 'liar', endpoint: 'latest-blocks' })).toBe(0);
      expect(sample(m, 'avahealth_probe_failures_total', { target: 'liar', endpoint: 'latest-blocks', reason: 'bad_shape' })).toBe(1);
      const status = JSON.parse((await get(`${d.url}/api/v1/status`)).body);
      const liarProbe = status.targets.find((t: { name: string }) => t.name === 'liar').endpoints[0];
      expect(liarProbe.error).toBe('response does not match getLatestBlocks: /blocks/0/blockNumber must be string');
      expect(d.logs()).toContain('response does not match getLatestBlocks: /blocks/0/blockNumber must be string');
    } finally {
      await d.stop();
      await sim.close();
      await liar.close();
    }
  });
});

describe('the simulated APIs answer as the published specs say', () => {
  let sim: SimServer;
  beforeAll(async () => {
    sim = await startSim([{ name: 'v', scenario: 'healthy' }, { name: 'l1', scenario: 'healthy', l1: true }]);
  });
  afterAll(() => sim.close());

  async function checkAgainstSpec(kind: 'data-api' | 'metrics-api', path: string, expectedStatus: number) {
    const res = await request(`${sim.serviceUrl(kind)}${path}`, { headers: { 'x-glacier-api-key': 'k' } });
    const body = (await res.body.json()) as { status?: unknown };
    expect(res.statusCode, path).toBe(expectedStatus);
    const spec = ApiSpec.load(kind);
    const operation = spec.findOperation('GET', path);
    expect(operation, `an operation for ${path}`).toBeDefined();
    // The one documented deviation (reference §4): Terminus answers 503 with its full report, which
    // the spec types only for 200. Such a body must match the 200 schema instead.
    const asStatus = res.statusCode === 503 && body.status !== undefined ? 200 : res.statusCode;
    expect(spec.check(operation!, asStatus, body), `${path} → ${res.statusCode}`).toBeUndefined();
    expect(res.headers['ratelimit-limit']).toBe('1000');
  }

  it.each(['healthy', 'degraded', 'down', 'rate-limited', 'unauthorized'])('every response in scenario %s', async (scenario) => {
    const status = { healthy: 200, degraded: 503, down: 503, 'rate-limited': 429, unauthorized: 401 }[scenario]!;
    await serviceScenario(sim, 'data-api', scenario);
    await serviceScenario(sim, 'metrics-api', scenario);
    const l1Evm = sim.network.chains.get(sim.nodes.get('l1')!.l1ChainId!)!.evmChainId!;
    const nodeId = sim.nodes.get('v')!.nodeId;
    const dataPaths: Array<[string, number]> = [
      ['/v1/health-check', status],
      ['/v1/live-check', status],
      ['/v1/chains?network=mainnet', scenario === 'healthy' ? 200 : status],
      [`/v1/chains/${l1Evm}`, scenario === 'healthy' ? 200 : status],
      ['/v1/chains/43114/blocks?pageSize=3', scenario === 'healthy' ? 200 : status],
      ['/v1/networks/mainnet', scenario === 'healthy' ? 200 : status],
      [`/v1/networks/mainnet/validators/${nodeId}?pageSize=2`, scenario === 'healthy' ? 200 : status],
      ['/v1/chains/1', scenario === 'healthy' ? 404 : status],
    ];
    for (const [path, expected] of dataPaths) {
      // degraded and down only concern the health endpoints; the rest answers normally
      const effective = (scenario === 'degraded' || scenario === 'down') && !path.includes('-check') ? (path === '/v1/chains/1' ? 404 : 200) : expected;
      await checkAgainstSpec('data-api', path, effective);
    }
    for (const path of ['/v2/health-check', '/v2/live-check']) await checkAgainstSpec('metrics-api', path, status);
    const tps = scenario === 'healthy' || scenario === 'degraded' || scenario === 'down' ? 200 : status;
    await checkAgainstSpec('metrics-api', '/v2/chains/43114/rollingWindowMetrics/avgTps', tps);
  });

  afterAll(async () => {
    await serviceScenario(sim, 'data-api', 'healthy');
  });
});
