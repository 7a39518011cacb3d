import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config/load.js';
import { emptySnapshot } from '../../src/model/chaindata.js';
import type { EndpointObservation, TargetObservation } from '../../src/model/observation.js';
import { jobsOf, PROBERS } from '../../src/probes/registry.js';
import { Store } from '../../src/store.js';
import { HEALTHY } from '../helpers/states.js';

const config = parseConfig(
  `
nodes:
  - {name: n1, url: "http://127.0.0.1:1", interval: 15s}
  - {name: n2, url: "http://127.0.0.1:2", schedule: "*/5 * * * *"}
services:
  - {name: data-api, kind: data-api, url: "http://127.0.0.1:3", interval: 1m}
chain_data: {interval: 2m}
`,
  'test.yaml',
);

const endpoint = (name: string, extra: Partial<EndpointObservation> = {}): EndpointObservation => ({ endpoint: name, view: 'all', ok: true, durationSeconds: 0.01, at: 0, ...extra });

function withHeight(height: number) {
  const report = HEALTHY();
  return { ...report, checks: report.checks.map((c) => (c.name === 'C' ? { ...c, chain: { lastAcceptedHeight: height } } : c)) };
}

describe('probe registry', () => {
  it('registers node, service, validator, observed, baseline and chaindata probers and derives one job per target, a validator job per node, plus the chain-data source', () => {
    // Any other kind is one more line in PROBERS, this test untouched: target jobs first, whole-config sources last.
    expect(Object.keys(PROBERS)).toEqual(expect.arrayContaining(['node', 'service', 'validator', 'observed', 'baseline', 'chaindata']));
    expect(Object.keys(PROBERS).at(-1)).toBe('chaindata');
    expect(Object.entries(PROBERS).filter(([, p]) => p.decidesReachability).map(([kind]) => kind)).toEqual(['node', 'service']);
    const jobs = jobsOf(config).map((j) => ({ key: j.key, kind: j.kind, target: j.target, intervalMs: j.intervalMs, cron: j.cron }));
    expect(jobs).toEqual([
      { key: 'n1', kind: 'node', target: 'n1', intervalMs: 15_000, cron: undefined },
      { key: 'n2', kind: 'node', target: 'n2', intervalMs: config.nodes[1]!.intervalMs, cron: '*/5 * * * *' },
      { key: 'data-api', kind: 'service', target: 'data-api', intervalMs: 60_000, cron: undefined },
      // validator economics is on by default: one extra job per node on its own interval
      { key: 'n1@validator', kind: 'validator', target: 'n1', intervalMs: 60_000, cron: undefined },
      { key: 'n2@validator', kind: 'validator', target: 'n2', intervalMs: 60_000, cron: undefined },
      // the fleet as observers: what the others see of each validator, at its validator interval
      { key: 'n1@observed', kind: 'observed', target: 'n1', intervalMs: 60_000, cron: undefined },
      { key: 'n2@observed', kind: 'observed', target: 'n2', intervalMs: 60_000, cron: undefined },
      // the network baseline: up to 3 nodes per network, every 5 minutes
      { key: 'n1@baseline', kind: 'baseline', target: 'n1', intervalMs: 300_000, cron: undefined },
      { key: 'n2@baseline', kind: 'baseline', target: 'n2', intervalMs: 300_000, cron: undefined },
      { key: '@chaindata', kind: 'chaindata', target: undefined, intervalMs: 120_000, cron: undefined },
    ]);
  });
});

describe('store: several jobs per target, chain data, lag once', () => {
  it("merges an extra job's endpoints into the target's state without counting a poll", () => {
    const store = new Store();
    const seen: string[] = [];
    store.onUpdate((target, _state, source) => seen.push(`${target}:${source}`));
    const own: TargetObservation = { target: 'n1', kind: 'node', network: 'mainnet', at: 1, endpoints: [endpoint('health', { report: HEALTHY() })] };
    store.record(own);
    store.record({ target: 'n1', kind: 'node', source: 'validator', at: 2, endpoints: [endpoint('validator')] });
    let state = store.get('n1')!;
    expect(state.observation.endpoints.map((e) => e.endpoint)).toEqual(['health', 'validator']);
    expect(state.rounds).toBe(1);
    store.record({ ...own, at: 3, endpoints: [endpoint('health', { ok: false, reason: 'connect' })] });
    state = store.get('n1')!;
    expect(state.observation.endpoints.map((e) => [e.endpoint, e.ok])).toEqual([
      ['health', false],
      ['validator', true],
    ]);
    expect(state.rounds).toBe(2);
    expect(seen).toEqual(['n1:node', 'n1:validator', 'n1:node']);
  });

  it('derives height lag from the nodes and chain data, recomputed only after a change', () => {
    const store = new Store();
    const node = (name: string, height: number): TargetObservation => ({ target: name, kind: 'node', network: 'mainnet', at: 0, endpoints: [endpoint('health', { report: withHeight(height) })] });
    store.record(node('a', 100));
    store.record(node('b', 90));
    const first = store.lags();
    const cLag = (target: string) => store.lagsOf(target).filter((l) => l.chain === 'C');
    expect(cLag('b')).toEqual([{ target: 'b', chain: 'C', lagBlocks: 10 }]);
    expect(store.lags()).toBe(first);
    const snapshot = emptySnapshot();
    snapshot.chains.set('43114', { evmChainId: '43114', network: 'mainnet', check: 'C', height: 130 });
    const told: number[] = [];
    store.onChainData((s) => told.push(s.chains.size));
    store.recordChainData(snapshot);
    expect(told).toEqual([1]);
    expect(cLag('a')).toEqual([{ target: 'a', chain: 'C', lagBlocks: 30 }]);
    store.record(node('b', 125));
    expect(cLag('b')).toEqual([{ target: 'b', chain: 'C', lagBlocks: 5 }]);
    store.remove('a');
    expect(store.lags().has('a')).toBe(false);
  });
});
