/**
 * A network-wide dip in the simulator does to a node's chains what AvalancheGo does:
 * - snow/networking/handler/health.go networkHealthCheck: each chain's check reports
 *   `percentConnected` (the stake it is connected to, itself counted: snow/engine/common/tracker/peers.go)
 *   and fails below MinPercentConnectedHealthy, 80 % with mainnet's K 20 and AlphaConfidence 15
 *   (snow/consensus/snowball/parameters.go), "not connected to enough stake: connected to X%;
 *   required at least 80.000000%"; the health worker runs the checks once per period, so the
 *   reply changes at the next run;
 * - snow/engine/snowman/engine.go abortDueToInsufficientConnectedStake: below AlphaConfidence ÷ K
 *   (75 %) a node sends no query and accepts nothing, so when the whole network is below it the
 *   Primary Network's chains stand still, for the Data API too; an L1's validators are its own.
 */
import { describe, expect, it } from 'vitest';
import { SimServer } from '../../src/sim/server.js';
import type { HealthReply } from '../../src/sim/node.js';

const PERIOD_MS = 2_000;

function fleet(): SimServer {
  return new SimServer(
    [
      { name: 'v1', scenario: 'healthy', periodMs: PERIOD_MS },
      { name: 'v2', scenario: 'healthy', periodMs: PERIOD_MS, l1: true },
      { name: 'rpc', scenario: 'healthy', periodMs: PERIOD_MS, validator: false },
    ],
    { otherValidators: 40 },
  );
}

interface ChainMessage {
  networking: { percentConnected: number };
  engine: { consensus: { lastAcceptedHeight?: number } };
}

const chain = (reply: HealthReply, name: string) => reply.checks[name]!;
const connected = (reply: HealthReply, name: string) => (chain(reply, name).message as ChainMessage).networking.percentConnected;
const height = (reply: HealthReply, name: string) => (chain(reply, name).message as ChainMessage).engine.consensus.lastAcceptedHeight!;

describe('a network-wide dip, as each node’s chains see it', () => {
  it('below 75 %: C, P and X fail at the next health run with AvalancheGo’s words, and stand still; then go on', () => {
    const sim = fleet();
    const start = Date.now();
    const nodes = ['v1', 'v2', 'rpc'].map((name) => sim.nodes.get(name)!);
    const before = nodes.map((n) => n.health(undefined, start));
    for (const reply of before) for (const name of ['C', 'P', 'X']) expect(chain(reply, name).error).toBeUndefined();

    sim.network.setDip({ connectedPercent: 70 }, start);
    // The health worker has not run since: the replies are what they were.
    for (const n of nodes) expect(chain(n.health(undefined, start), 'C').error).toBeUndefined();

    const during = nodes.map((n) => n.health(undefined, start + PERIOD_MS));
    for (const reply of during) {
      for (const name of ['C', 'P', 'X']) {
        const ratio = connected(reply, name);
        expect(ratio).toBeGreaterThanOrEqual(0.7);
        expect(ratio).toBeLessThan(0.75);
        expect(chain(reply, name).error).toBe(`not connected to enough stake: connected to ${(ratio * 100).toFixed(6)}%; required at least 80.000000%`);
      }
    }
    // An L1's chain has its own validators: it does not dip.
    const l1 = Object.keys(during[1]!.checks).find((name) => name.length > 40)!;
    expect(chain(during[1]!, l1).error).toBeUndefined();

    // A minute later no Primary Network chain has accepted a block, the Data API's latest block neither.
    const later = nodes.map((n) => n.health(undefined, start + 60_000));
    for (const [i, reply] of later.entries()) for (const name of ['C', 'P', 'X']) expect(height(reply, name)).toBe(height(during[i]!, name));
    expect(sim.network.height('C', start + 60_000)).toBe(sim.network.height('C', start));
    expect(height(later[1]!, l1)).toBeGreaterThan(height(during[1]!, l1));

    sim.network.setDip(undefined, start + 60_000);
    const after = nodes.map((n) => n.health(undefined, start + 90_000));
    for (const [i, reply] of after.entries()) {
      for (const name of ['C', 'P', 'X']) {
        expect(chain(reply, name).error).toBeUndefined();
        expect(height(reply, name)).toBeGreaterThan(height(later[i]!, name));
      }
    }
  });

  it('between 75 and 80 %: the chains fail their check, yet the network goes on accepting blocks', () => {
    const sim = fleet();
    const start = Date.now();
    const v1 = sim.nodes.get('v1')!;
    sim.network.setDip({ connectedPercent: 78 }, start);
    const during = v1.health(undefined, start + PERIOD_MS);
    expect(chain(during, 'C').error).toMatch(/^not connected to enough stake: connected to 7[89]\.\d{6}%; required at least 80\.000000%$/);
    expect(height(v1.health(undefined, start + 60_000), 'C')).toBeGreaterThan(height(during, 'C'));
  });
});
