/** The store on its own: a known target's state is updated in place, and still says what changed. */
import { describe, expect, it } from 'vitest';
import type { EndpointObservation, HealthReport, TargetObservation } from '../../src/model/observation.js';
import { Store, type TargetState } from '../../src/store.js';
import { failing, HEALTHY } from '../helpers/states.js';

const poll = (at: number, durationSeconds: number, report: HealthReport, extra: Partial<EndpointObservation> = {}): TargetObservation => ({
  target: 'n1',
  kind: 'node',
  network: 'mainnet',
  at,
  endpoints: [{ endpoint: 'health', view: 'all', ok: true, httpStatus: 200, durationSeconds, at, report, ...extra }],
});

describe('Store', () => {
  it('updates a known target in place: the new poll, its times and rounds, and history only when something changed', () => {
    const store = new Store();
    const seen: TargetState[] = [];
    store.onUpdate((_, state) => seen.push(state));
    const healthy = HEALTHY();
    const first = store.record(poll(100, 0.01, healthy));
    const history = first.history;
    const second = store.record(poll(101, 0.02, healthy, { nodeId: 'NodeID-111111111111111111111111' })); // the same report: an unchanged body
    expect(second).toBe(first);
    expect(seen).toEqual([first, first]);
    expect(second.observation.at).toBe(101);
    expect(second.observation.endpoints[0]!.durationSeconds).toBe(0.02);
    expect(second.latest).toBe(second.observation);
    expect(second.lastSuccessAt.get('health/all')).toBe(101.02);
    expect(second.rounds).toBe(2);
    expect(second.history).toBe(history);
    expect(second.history).toEqual([]);

    const name = healthy.checks[0]!.name;
    store.record({ ...poll(102, 0.03, failing({ [name]: 1 }, healthy)), nodeId: 'NodeID-111111111111111111111111' });
    expect(second.history).not.toBe(history); // a new list: a reader holding the old one is not changed under it
    expect(second.history.map((c) => c.text)).toContain(`${name} failing: ${name} is failing`);
    expect(history).toEqual([]);
    expect(second.nodeId).toBe('NodeID-111111111111111111111111');
    expect(second.observation.endpoints[0]!.report!.healthy).toBe(false);

    store.record({ ...poll(103, 0.04, healthy), source: 'validator', endpoints: [{ endpoint: 'validator', view: 'all', ok: false, reason: 'connect', durationSeconds: 0.04, at: 103 }] });
    expect(second.rounds).toBe(3); // the validator job's poll is not a round
    expect(second.observation.endpoints.map((e) => e.endpoint)).toEqual(['health', 'validator']);
    expect(second.lastSuccessAt.get('health/all')).toBe(102.03);
  });

  it("networkOf: the network the node itself reported (info.getNetworkID), kept across polls, else the configured one", () => {
    const store = new Store();
    store.record(poll(100, 0.01, HEALTHY()));
    expect(store.networkOf('n1')).toBe('mainnet');
    const validatorPoll = (nodeNetwork?: string): TargetObservation => ({ target: 'n1', kind: 'node', source: 'validator', network: 'mainnet', at: 101, endpoints: [], ...(nodeNetwork ? { nodeNetwork } : {}) });
    store.record(validatorPoll('12345'));
    expect(store.networkOf('n1')).toBe('12345');
    store.record(validatorPoll());
    store.record(poll(102, 0.01, HEALTHY()));
    expect(store.networkOf('n1')).toBe('12345');
    expect(store.networkOf('unknown')).toBeUndefined();
  });

  it('networksVersion changes when a node says another network than it had, not with every poll', () => {
    const store = new Store();
    const validatorPoll = (nodeNetwork?: string): TargetObservation => ({ target: 'n1', kind: 'node', source: 'validator', network: 'mainnet', at: 101, endpoints: [], ...(nodeNetwork ? { nodeNetwork } : {}) });
    const start = store.networksVersion();
    store.record(poll(100, 0.01, HEALTHY())); // first record, on its configured network
    store.record(validatorPoll('mainnet')); // says the network it was configured with
    store.record(poll(101, 0.01, HEALTHY()));
    expect(store.networksVersion()).toBe(start);
    store.record(validatorPoll('fuji'));
    expect(store.networksVersion()).toBe(start + 1);
    store.record(validatorPoll('fuji'));
    store.record(poll(102, 0.01, HEALTHY()));
    expect(store.networksVersion()).toBe(start + 1);
    store.remove('n1');
    expect(store.networksVersion()).toBe(start + 2);
  });
});
