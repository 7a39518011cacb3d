// Who is a witness (issue 35): what another fleet node says of a validator counts only while its own
// health answers and passes, its network check passes, it is not bootstrapping and it sees most of
// the network connected (AvalancheGo's chains fail below 80 % connected stake:
// snow/engine/common/tracker/peers.go). Real parsed health payloads, a real Store.
import { describe, expect, it } from 'vitest';
import type { HealthReport } from '../../src/model/observation.js';
import { witnessOf } from '../../src/probes/witness.js';
import { Store } from '../../src/store.js';
import { BOOTSTRAPPING, HEALTHY, failing } from '../helpers/states.js';

const SUBJECT = 'NodeID-A';

function storeWith(health: HealthReport | 'down'): Store {
  const store = new Store();
  const endpoint = health === 'down' ? { endpoint: 'health', view: 'all', ok: false, reason: 'timeout' as const, error: 'timeout', durationSeconds: 1, at: 0 } : { endpoint: 'health', view: 'all', ok: true, durationSeconds: 0, at: 0, report: health };
  store.record({ target: 'o', kind: 'node', at: 0, endpoints: [endpoint] });
  return store;
}

const said = (entries: Array<[string, boolean]>) => new Map(entries.map(([id, connected]) => [id, { connected }]));
const fine = said([[SUBJECT, false], ['NodeID-B', true], ['NodeID-C', true]]);

describe('witnessOf', () => {
  it('a healthy observer that sees the others connected is a witness (a low disk of its own aside)', () => {
    expect(witnessOf('o', SUBJECT, fine, { store: storeWith(HEALTHY()) })).toMatchObject({ witness: true });
    expect(witnessOf('o', SUBJECT, fine, { store: storeWith(failing({ diskspace: 2 })) })).toMatchObject({ witness: true });
  });

  it('a failing, bootstrapping, unknown or unanswering observer is not', () => {
    expect(witnessOf('o', SUBJECT, fine, { store: storeWith(failing({ network: 2 })) })).toMatchObject({ witness: false, notWitness: 'its own network check fails' });
    expect(witnessOf('o', SUBJECT, fine, { store: storeWith(BOOTSTRAPPING()) }).witness).toBe(false);
    expect(witnessOf('o', SUBJECT, fine, { store: storeWith(failing({ C: 1 })) })).toMatchObject({ witness: false, notWitness: 'its own C check fails' });
    expect(witnessOf('o', SUBJECT, fine, { store: storeWith('down') })).toMatchObject({ witness: false, notWitness: 'its own health API does not answer' });
    expect(witnessOf('o', SUBJECT, fine, { store: new Store() })).toMatchObject({ witness: false, notWitness: 'its own health is not known yet', pending: true });
  });

  it('a cut-off observer (chains below 80 % connected stake) or a lying one (most others disconnected) is not', () => {
    const cut = HEALTHY();
    cut.checks = cut.checks.map((c) => (c.name === 'P' && c.chain ? { ...c, chain: { ...c.chain, connectedStakeRatio: 0.5 } } : c));
    expect(witnessOf('o', SUBJECT, fine, { store: storeWith(cut) })).toMatchObject({ witness: false, notWitness: 'it is connected to 50 % of the stake only' });
    const liar = said([[SUBJECT, false], ['NodeID-B', false], ['NodeID-C', false]]);
    expect(witnessOf('o', SUBJECT, liar, { store: storeWith(HEALTHY()) })).toMatchObject({ witness: false, notWitness: 'it sees only 0 of 2 other fleet validators connected' });
    // half of the others is enough (two of four fleet validators really down)
    expect(witnessOf('o', SUBJECT, said([[SUBJECT, false], ['NodeID-B', false], ['NodeID-C', true]]), { store: storeWith(HEALTHY()) }).witness).toBe(true);
  });
});
