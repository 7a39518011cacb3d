import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SimServer } from '../../src/sim/server.js';
import { get, sample, scrape, series, startDaemon, startSim, waitFor, type RunningDaemon } from '../helpers/harness.js';

/**
 * Issue 24 through the real daemon: a node whose NodeID cannot be learnt (#24.2), one answering
 * 5,000 own L1 validations and one answering 6,000-deep JSON (#24.11), an auto-renewed validator
 * (#24.4), beside a healthy L1 validator.
 */
describe('validator attribution and hostile answers in the daemon', () => {
  let sim: SimServer;
  let d: RunningDaemon;

  beforeAll(async () => {
    sim = await startSim([
      { name: 'anon', scenario: 'node-id-unknown', l1: true },
      { name: 'many', scenario: 'l1-many-validations', l1: true },
      { name: 'deep', scenario: 'validator-deep-json' },
      { name: 'renew', scenario: 'auto-renewing' },
    ]);
    const node = (name: string, l1 = false) => `  - {name: ${name}, url: "${sim.nodeUrl(name)}"${l1 ? `, validator: {subnets: [${sim.nodes.get(name)!.l1SubnetId}]}` : ''}}`;
    d = await startDaemon(`
listen: 127.0.0.1:0
defaults: {interval: 1s, timeout: 2s, endpoints: [health], validator: {interval: 1s}}
nodes:
${node('anon', true)}
${node('many', true)}
${node('deep')}
${node('renew')}
`);
    // three polls each (one info.uptime per poll), so "once" means once over several polls
    const polls = (name: string) => sim.nodes.get(name)!.economics.calls.filter((c) => c === 'info.uptime').length;
    await waitFor('three validator polls of every node', () => ['anon', 'many', 'deep', 'renew'].every((t) => polls(t) >= 3 && d.daemon.store.get(t)?.jobs.get('validator')), 20_000);
  }, 30_000);

  afterAll(async () => {
    await d?.stop();
    await sim?.close();
  });

  it('#24.2 no NodeID: no L1 series for anyone else\'s validations, node_id_known 0, the reason on the page and logged once', async () => {
    const m = await scrape(d.url);
    // the L1 the simulated node validates lists another node's (inactive) validation too
    expect(series(m, 'avahealth_l1_validator_balance_avax', { target: 'anon' })).toEqual([]);
    expect(series(m, 'avahealth_l1_validator_active', { target: 'anon' })).toEqual([]);
    expect(sample(m, 'avahealth_validator_node_id_known', { target: 'anon' })).toBe(0);
    expect(sample(m, 'avahealth_validator_node_id_known', { target: 'many' })).toBe(1);
    expect(sample(m, 'avahealth_node_healthy', { target: 'anon', endpoint: 'health' })).toBe(1);
    // nothing asked by subnet (as an observer the node may still be asked about other validators by NodeID)
    const anon = sim.nodes.get('anon')!.economics;
    const bySubnet = anon.params.filter((p, i) => anon.calls[i] === 'platform.getCurrentValidators' && (p as { subnetID?: unknown } | undefined)?.subnetID !== undefined);
    expect(bySubnet).toEqual([]);
    const page = (await get(`${d.url}/targets/anon`)).body;
    expect(page).toContain('NodeID unknown (info API off, no node-id header, no node_id configured)');
    const lines = d.logs().split('\n').filter((l) => l.includes('"target":"anon"') && l.includes('its NodeID is unknown'));
    expect(lines).toHaveLength(1);
  });

  it('#24.11 5,000 own L1 validations: 100 exported, the rest counted and logged once', async () => {
    const m = await scrape(d.url);
    expect(series(m, 'avahealth_l1_validator_balance_avax', { target: 'many' })).toHaveLength(100);
    expect(series(m, 'avahealth_l1_validator_runway_seconds', { target: 'many' })).toHaveLength(100);
    expect(sample(m, 'avahealth_l1_validator_dropped_validations', { target: 'many' })).toBe(4_900);
    expect(d.logs().split('\n').filter((l) => l.includes('"target":"many"') && l.includes('more L1 validations than kept'))).toHaveLength(1);
  });

  it('#24.11 6,000-deep JSON: bad_shape every poll (series current, not frozen), no RangeError or stack trace logged', async () => {
    const count = async () => sample(await scrape(d.url), 'avahealth_probe_failures_total', { target: 'deep', endpoint: 'validator', reason: 'bad_shape' }) ?? 0;
    const before = await count();
    expect(before).toBeGreaterThanOrEqual(1);
    await waitFor('another bad_shape poll', async () => (await count()) > before, 10_000);
    const m = await scrape(d.url);
    expect(sample(m, 'avahealth_probe_success', { target: 'deep', endpoint: 'validator' })).toBe(0);
    // the parts that parsed keep their series
    expect(sample(m, 'avahealth_validator_period_end_timestamp_seconds', { target: 'deep' })).toBeGreaterThan(0);
    expect(series(m, 'avahealth_validator_uptime_rewarding_stake_ratio', { target: 'deep' })).toEqual([]);
    expect(d.logs()).not.toContain('RangeError');
    expect(d.logs()).not.toContain('Maximum call stack');
    // logged once as it started (a first poll may also time out while everything starts at once)
    const failed = d.logs().split('\n').filter((l) => l.includes('"target":"deep"') && l.includes('validator call failed') && l.includes('bad_shape'));
    expect(failed, failed.join('\n')).toHaveLength(1);
  });

  it('#24.4 an auto-renewed validator exports its next period', async () => {
    const m = await scrape(d.url);
    expect(sample(m, 'avahealth_validator_next_period_seconds', { target: 'renew' })).toBe(14 * 86_400);
    expect(series(m, 'avahealth_validator_next_period_seconds', { target: 'deep' })).toEqual([]);
  });
});
