import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SimServer } from '../../src/sim/server.js';
import { get, sample, scrape, setScenario, startDaemon, startSim, waitFor, type RunningDaemon } from '../helpers/harness.js';
import { startHostileProxy } from '../helpers/hostile-proxy.js';

/**
 * Values out of range from a node and from the Data API (issue 45.3), through a proxy in front of
 * the simulator: `endTime: "9007199254740991"` passes as a uint64 but is no time a Date holds
 * (8.64e12 s is its end), and a Data API `endTimestamp: -1e13` is none either. Both are refused at
 * parse time as bad shapes (the probe fails with reason="bad_shape"), the target's other rules and
 * its page go on, and a neighbour is untouched.
 */
describe('out-of-range values from a node and the Data API', () => {
  let sim: SimServer;
  let proxy: Awaited<ReturnType<typeof startHostileProxy>>;
  let d: RunningDaemon;

  beforeAll(async () => {
    sim = await startSim([
      { name: 'node-1', scenario: 'healthy' },
      { name: 'node-2', scenario: 'healthy' },
    ]);
    proxy = await startHostileProxy(sim.baseUrl, (answer, { path, method }) => {
      const result = answer.result as { validators?: Array<Record<string, unknown>> } | undefined;
      // platform.getCurrentValidators of node-1 only (its own NodeID filter): an end time past the Date range.
      if (method === 'platform.getCurrentValidators' && path.startsWith('/nodes/node-1/')) for (const v of result?.validators ?? []) v.endTime = '9007199254740991';
      // The Data API's record of node-1: an end time 300,000 years before 1970.
      if (path.includes(`/validators/${sim.nodes.get('node-1')!.nodeId}`)) for (const v of (answer.validators as Array<Record<string, unknown>>) ?? []) v.endTimestamp = -1e13;
      return answer;
    });
    d = await startDaemon(`
listen: 127.0.0.1:0
defaults: {interval: 1s, timeout: 1s, endpoints: [health], validator: {interval: 1s, network: {interval: 2s}}}
nodes:
  - {name: node-1, url: "${proxy.url}/nodes/node-1"}
  - {name: node-2, url: "${sim.nodeUrl('node-2')}"}
services:
  - {name: data-api, kind: data-api, url: "${proxy.url}/data-api"}
chain_data: {interval: 10s}
alerts:
  for_polls: 1
`);
  }, 30_000);

  afterAll(async () => {
    await d?.stop();
    await proxy?.close();
    await sim?.close();
  });

  it("an end time beyond the Date range is a bad shape; the target's node rules and page go on", async () => {
    const m = await waitFor('the hostile validator answer classified', async () => {
      const m = await scrape(d.url);
      return (sample(m, 'avahealth_probe_failures_total', { target: 'node-1', endpoint: 'validator', reason: 'bad_shape' }) ?? 0) > 0 ? m : undefined;
    }, 20_000);
    expect(sample(m, 'avahealth_probe_success', { target: 'node-1', endpoint: 'validator', view: 'all' })).toBe(0);
    expect(sample(m, 'avahealth_validator_period_end_timestamp_seconds', { target: 'node-1' })).toBeUndefined();
    // The neighbour's validator poll is read as before.
    await waitFor('node-2 validator polled', async () => sample(await scrape(d.url), 'avahealth_probe_success', { target: 'node-2', endpoint: 'validator', view: 'all' }) === 1, 20_000);

    // The node's own rules still run for node-1: a failing check fires.
    await setScenario(sim, 'node-1', 'disk-low');
    await waitFor('AvalancheDiskLow for node-1', async () => {
      const alerts = JSON.parse((await get(`${d.url}/api/v1/alerts`)).body) as { alerts?: Array<{ labels: Record<string, string>; state: string }> } | Array<{ labels: Record<string, string>; state: string }>;
      const list = Array.isArray(alerts) ? alerts : (alerts.alerts ?? []);
      return list.some((a) => a.labels.alertname === 'AvalancheDiskLow' && a.labels.target === 'node-1');
    }, 20_000);
    const page = await get(`${d.url}/targets/node-1`);
    expect(page.status).toBe(200);
    expect((await get(`${d.url}/`)).status).toBe(200);
    expect((await get(`${d.url}/api/v1/status`)).status).toBe(200);
    expect(d.logs()).not.toContain('Invalid time value');
  }, 60_000);

  it('a Data API end time before 1970 is refused with the record, not turned into a date', async () => {
    await waitFor('the Data API record refused as a bad shape', () => d.logs().includes('endTimestamp -10000000000000 is not a time'), 20_000);
    const m = await scrape(d.url);
    expect(m.filter((s) => s.name === 'avahealth_validator_end_timestamp_seconds' && s.value < 0)).toEqual([]);
    expect((await get(`${d.url}/targets/node-1`)).status).toBe(200);
    expect(d.logs()).not.toContain('Invalid time value');
  }, 60_000);
});
