/**
 * The fleet's view for its network alerts (src/alerts/fleet.ts): a network is `complete` once every
 * validator has had a verdict of each scoped rule since the start (or after FLEET_WAIT_MS), and it is
 * kept per verdict, not by scanning the fleet at each one (5,000 validators made the first rounds
 * quadratic).
 */
import { describe, expect, it } from 'vitest';
import { FLEET_WAIT_MS, fleetTargetOf, FleetView, networkOfFleetTarget } from '../../src/alerts/fleet.js';
import { keyOf } from '../../src/alerts/incidents.js';
import type { AlertState, Condition, Evaluation } from '../../src/alerts/types.js';
import { parseConfig } from '../../src/config/load.js';

const T0 = Date.UTC(2026, 11, 3, 6, 0, 0);
const RULE = 'AvalancheValidatorRewardAtRisk';

function view(names: string[]) {
  const yaml = `nodes:\n${names.map((n) => `  - {name: ${n}, url: "http://127.0.0.1:1", validator: {}}`).join('\n')}\n`;
  const config = parseConfig(yaml, '/dev/null/config.yaml', {});
  return { fleet: new FleetView(config, T0), network: config.nodes[0]!.network, config };
}

/** Its validator poll's scoped rules, and the fleet's view of it (AvalancheValidatorUnreachableByPeers). */
const POLLED = ['AvalancheValidatorEndingSoon', RULE, 'AvalancheValidatorDowntimeBudgetLow'] as const;
const PORT = 'AvalancheValidatorUnreachableByPeers';
const verdict = (target: string, unknown: boolean): Evaluation => ({ target, covers: [...POLLED, PORT], unknown: unknown ? [...POLLED, PORT] : [], conditions: [] });

describe('FleetView: when a network is complete', () => {
  it('waits for every validator, an unknown verdict included, then stays complete', () => {
    const { fleet, network } = view(['v1', 'v2', 'v3']);
    expect(fleet.input(network, T0).complete).toBe(false);
    fleet.note(verdict('v1', false), new Map(), T0 + 1);
    fleet.note(verdict('v2', true), new Map(), T0 + 2);
    expect(fleet.input(network, T0 + 2).complete).toBe(false);
    fleet.note(verdict('v3', false), new Map(), T0 + 3);
    // v2 had only an unknown verdict: not decided yet
    expect(fleet.input(network, T0 + 3).complete).toBe(false);
    fleet.note(verdict('v2', false), new Map(), T0 + 4);
    expect(fleet.input(network, T0 + 4).complete).toBe(true);
    // a later unknown verdict does not undo it
    fleet.note(verdict('v1', true), new Map(), T0 + 5);
    expect(fleet.input(network, T0 + 5).complete).toBe(true);
  });

  it("an unknown that is the validator's own whatever it is (a port inside the ingress grace) decides it", () => {
    const { fleet, network } = view(['v1', 'v2']);
    fleet.note(verdict('v1', false), new Map(), T0 + 1);
    fleet.note({ target: 'v2', covers: [...POLLED], unknown: [], conditions: [] }, new Map(), T0 + 2);
    fleet.note({ target: 'v2', covers: [PORT], unknown: [PORT], unknownOwnOnly: [PORT], conditions: [] }, new Map(), T0 + 3);
    expect(fleet.input(network, T0 + 3).complete).toBe(true);
  });

  it('counts a validator noted before the network was first asked', () => {
    const { fleet, network } = view(['v1', 'v2']);
    fleet.note(verdict('v1', false), new Map(), T0 + 1);
    fleet.note(verdict('v2', false), new Map(), T0 + 2);
    expect(fleet.input(network, T0 + 2).complete).toBe(true);
  });

  it('a validator that left blocks it again until the config changes, and FLEET_WAIT_MS ends the wait', () => {
    const { fleet, network, config } = view(['v1', 'v2']);
    expect(fleet.input(network, T0).complete).toBe(false);
    fleet.note(verdict('v1', false), new Map(), T0 + 1);
    fleet.forget('v2');
    expect(fleet.input(network, T0 + 2).complete).toBe(false);
    fleet.setConfig({ ...config, nodes: config.nodes.filter((n) => n.name === 'v1') });
    expect(fleet.input(network, T0 + 3).complete).toBe(true);

    const other = view(['a', 'b']);
    expect(other.fleet.input(other.network, T0 + FLEET_WAIT_MS - 1).complete).toBe(false);
    expect(other.fleet.input(other.network, T0 + FLEET_WAIT_MS).complete).toBe(true);
  });

  it('a scoped rule without a verdict yet holds a network not complete', () => {
    const { fleet, network } = view(['v1']);
    expect(fleet.input(network, T0).complete).toBe(false);
    fleet.note({ target: 'v1', covers: [...POLLED], unknown: ['AvalancheValidatorDowntimeBudgetLow'], conditions: [] }, new Map(), T0 + 1);
    expect(fleet.input(network, T0 + 1).complete).toBe(false);
    fleet.note({ target: 'v1', covers: [...POLLED], unknown: [], conditions: [] }, new Map(), T0 + 2);
    // its validator poll spoke; the fleet's view of it (asked once that poll reported) has not yet
    expect(fleet.input(network, T0 + 2).complete).toBe(false);
    fleet.note({ target: 'v1', covers: [PORT], unknown: [], conditions: [] }, new Map(), T0 + 3);
    expect(fleet.input(network, T0 + 3).complete).toBe(true);
  });
});

/** A scoped finding of RULE on `target`, its incident in `phase` (the book the pipeline keeps). */
function finding(target: string, scope: 'network' | 'self', summary: string, phase: AlertState['phase'] = 'firing') {
  const condition: Condition = { alertname: RULE, target, identity: { scope }, severity: 'warning', summary, description: '' };
  const incidents = new Map([[keyOf(RULE, target, condition.identity), { phase } as AlertState]]);
  return { condition, incidents };
}
const spoke = (target: string, conditions: Condition[] = []): Evaluation => ({ target, covers: [...POLLED, PORT], unknown: [], conditions });

describe('FleetView: who is affected, and when the notice may name them', () => {
  it("a network's fleet target is its name and ' network'; a configured target is none", () => {
    expect(fleetTargetOf('mainnet')).toBe('mainnet network');
    expect(networkOfFleetTarget('mainnet network')).toBe('mainnet');
    expect(networkOfFleetTarget('validator-1')).toBeUndefined();
    expect(networkOfFleetTarget('mainnet-network')).toBeUndefined();
    expect(networkOfFleetTarget('mainnet net')).toBeUndefined();
  });

  it('only validators and the scoped rules count', () => {
    const yaml = `nodes:\n  - {name: v1, url: "http://127.0.0.1:1", validator: {}}\n  - {name: rpc, url: "http://127.0.0.1:2", validator: false}\n`;
    const config = parseConfig(yaml, '/dev/null/config.yaml', {});
    const fleet = new FleetView(config, T0);
    const network = config.nodes[0]!.network;
    expect([...fleet.networks()]).toEqual([network]);
    expect(fleet.networkOf('v1')).toBe(network);
    expect(fleet.networkOf('rpc')).toBeUndefined();
    const { condition, incidents } = finding('v1', 'network', 'v1 looks down');
    expect(fleet.note({ target: 'rpc', covers: [RULE], unknown: [], conditions: [] }, new Map(), T0 + 1)).toBeUndefined();
    expect(fleet.note({ target: 'v1', covers: ['AvalancheCheckFailing'], unknown: [], conditions: [{ ...condition, alertname: 'AvalancheCheckFailing' }] }, incidents, T0 + 1)).toBeUndefined();
    expect(fleet.input(network, T0 + 1).affected).toEqual([]);
    expect(fleet.note(spoke('v1', [condition]), incidents, T0 + 2)).toBe(network);
    expect(fleet.input(network, T0 + 2)).toMatchObject({ validators: 1, affected: [{ target: 'v1', summaries: ['v1 looks down'] }] });
  });

  it("affected: the validators with an open network-wide finding, in the config's order; their own findings and resolved ones do not count", () => {
    const { fleet, network } = view(['v1', 'v2', 'v3', 'v4']);
    const v3 = finding('v3', 'network', 'v3 at 40 %');
    fleet.note(spoke('v3', [v3.condition]), v3.incidents, T0 + 1);
    const v1 = finding('v1', 'network', 'v1 at 41 %');
    fleet.note(spoke('v1', [v1.condition]), v1.incidents, T0 + 2);
    const own = finding('v2', 'self', 'v2 at 10 %');
    fleet.note(spoke('v2', [own.condition]), own.incidents, T0 + 3);
    const over = finding('v4', 'network', 'v4 at 42 %', 'resolved');
    fleet.note(spoke('v4', [over.condition]), over.incidents, T0 + 4);
    expect(fleet.input(network, T0 + 4).affected).toEqual([
      { target: 'v1', summaries: ['v1 at 41 %'] },
      { target: 'v3', summaries: ['v3 at 40 %'] },
    ]);
    // a verdict that cannot be known leaves what it said; one that speaks without the finding ends it
    fleet.note({ ...spoke('v3'), unknown: [...POLLED, PORT] }, new Map(), T0 + 5);
    expect(fleet.input(network, T0 + 5).affected.map((a) => a.target)).toEqual(['v1', 'v3']);
    fleet.note(spoke('v3'), new Map(), T0 + 6);
    expect(fleet.input(network, T0 + 6).affected.map((a) => a.target)).toEqual(['v1']);
    expect(fleet.forget('v1')).toBe(network);
    expect(fleet.input(network, T0 + 7).affected).toEqual([]);
    expect(fleet.forget('not-a-validator')).toBeUndefined();
  });

  it('the notice settles once every validator had a verdict since the first was affected, or after the longest validator and baseline interval', () => {
    const { fleet, network } = view(['v1', 'v2']);
    // the defaults: a validator poll every 60 s, the network baseline every 5 min
    const longest = 60_000 + 300_000;
    for (const v of ['v1', 'v2']) fleet.note(spoke(v), new Map(), T0 + 1);
    expect(fleet.input(network, T0 + 1).settled).toBe(true); // nobody affected
    const v1 = finding('v1', 'network', 'v1 at 40 %');
    fleet.note(spoke('v1', [v1.condition]), v1.incidents, T0 + 10);
    expect(fleet.input(network, T0 + 10)).toMatchObject({ settled: false, complete: true });
    expect(fleet.input(network, T0 + 20).settled).toBe(false); // v2's last verdict predates the onset
    fleet.note(spoke('v2'), new Map(), T0 + 30);
    expect(fleet.input(network, T0 + 30).settled).toBe(true);

    const late = view(['v1', 'v2']);
    const first = finding('v1', 'network', 'v1 at 40 %');
    late.fleet.note(spoke('v1', [first.condition]), first.incidents, T0 + 10);
    expect(late.fleet.input(late.network, T0 + 10).settled).toBe(false);
    expect(late.fleet.input(late.network, T0 + 10 + longest - 1).settled).toBe(false);
    expect(late.fleet.input(late.network, T0 + 10 + longest).settled).toBe(true);
    // once nobody is affected the onset is forgotten: the next dip waits again
    late.fleet.note(spoke('v1'), new Map(), T0 + 10 + longest);
    expect(late.fleet.input(late.network, T0 + 10 + longest).settled).toBe(true);
    late.fleet.note(spoke('v1', [first.condition]), first.incidents, T0 + 2 * longest);
    expect(late.fleet.input(late.network, T0 + 2 * longest).settled).toBe(false);
  });
});

