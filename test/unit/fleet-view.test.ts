/**
 * The fleet's view for its network alerts (src/alerts/fleet.ts): a network is `complete` once every
 * validator has had a verdict of each scoped rule since the start (or after FLEET_WAIT_MS), and it is
 * kept per verdict, not by scanning the fleet at each one (5,000 validators made the first rounds
 * quadratic).
 */
import { describe, expect, it } from 'vitest';
import { FLEET_WAIT_MS, FleetView } from '../../src/alerts/fleet.js';
import type { Evaluation } from '../../src/alerts/types.js';
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
