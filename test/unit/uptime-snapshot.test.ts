/**
 * info.uptime right after a restart is a snapshot, not a history (AvalancheGo network/network.go
 * NodeUptime: own stake 100 % and rewarding, each connected validator with its last Ping's uptime,
 * network/peer/peer.go; not yet pinged = 0 %). Both figures start at about the node's own stake
 * share and climb as peers ping: held until they settle, never longer than the bounds.
 */
import { describe, expect, it } from 'vitest';
import { CLIMB_PAUSE_SECONDS, ownStakeRatio, SETTLE_CLIMB_SECONDS, SETTLE_MAX_SECONDS, settlingOf, type SettlingMemory } from '../../src/model/uptime-snapshot.js';
import { economicsOf } from '../../src/model/validator.js';

const OWN = 0.004;
const up = (rewarding: number, weighted: number) => ({ rewardingStakeRatio: rewarding, weightedAverageRatio: weighted });

describe('a restart\'s info.uptime snapshot', () => {
  it('own share: stake plus delegations over the total weight', () => {
    expect(ownStakeRatio({ startTime: 0, endTime: 1, weightNAvax: 2_000e9, delegatorWeightNAvax: 120e9 }, 530_000e9)).toBeCloseTo(0.004, 9);
    expect(ownStakeRatio({ startTime: 0, endTime: 1, weightNAvax: 2_000e9 }, undefined)).toBeUndefined();
  });

  it('settles: at the own share, then climbing, then no rise for a Ping interval stands', () => {
    const memory: SettlingMemory = {};
    expect(settlingOf(memory, up(OWN, OWN), OWN, 100)).toEqual({ since: 100, ownStakeRatio: OWN });
    expect(settlingOf(memory, up(OWN + 0.01, OWN + 0.01), OWN, 110)).toEqual({ since: 100, ownStakeRatio: OWN });
    expect(settlingOf(memory, up(0.45, 0.44), OWN, 120)).toEqual({ since: 100, ownStakeRatio: OWN });
    expect(settlingOf(memory, up(0.97, 0.96), OWN, 130)).toBeDefined();
    // the same a moment later (two polls close together, or between two peers' Pings): still the climb
    expect(settlingOf(memory, up(0.97, 0.96), OWN, 140)).toEqual({ since: 100, ownStakeRatio: OWN });
    // no rise for a Ping interval (every connected peer has pinged since): settled, its verdict stands
    expect(settlingOf(memory, up(0.97, 0.96), OWN, 130 + CLIMB_PAUSE_SECONDS + 1)).toBeUndefined();
    expect(memory).toEqual({});
  });

  it('a climb read twice a moment apart is not its end (seeded trust week 6: two validator polls 20 ms apart at load 9)', () => {
    const memory: SettlingMemory = {};
    settlingOf(memory, up(OWN, OWN), OWN, 100);
    expect(settlingOf(memory, up(0.737, 0.72), OWN, 125)).toEqual({ since: 100, ownStakeRatio: OWN });
    expect(settlingOf(memory, up(0.738, 0.7205), OWN, 125.02)).toEqual({ since: 100, ownStakeRatio: OWN });
    // a fall below the climb's highest reading is no climb: its verdict stands at once
    expect(settlingOf(memory, up(0.5, 0.5), OWN, 127)).toBeUndefined();
    // and the top of a climb is settled at once, however soon (its figures exported)
    const top: SettlingMemory = {};
    settlingOf(top, up(OWN, OWN), OWN, 100);
    expect(settlingOf(top, up(0.995, 0.99), OWN, 120)).toEqual({ since: 100, ownStakeRatio: OWN });
    expect(settlingOf(top, up(0.995, 0.99), OWN, 121)).toBeUndefined();
  });

  it("`avahealth check` judges with the daemon's readings (state_dir): one as high as the daemon's latest is the same climb", () => {
    const daemons: SettlingMemory = { settlingSince: 100, settlingLastAt: 110, settlingWeighted: 0.44 };
    // the daemon's own poll reading the same figure a Ping interval after its last rise has settled; check's one reading is not news
    expect(settlingOf({ ...daemons }, up(0.45, 0.44), OWN, 110 + CLIMB_PAUSE_SECONDS + 1)).toBeUndefined();
    expect(settlingOf({ ...daemons }, up(0.45, 0.44), OWN, 125, true)).toEqual({ since: 100, ownStakeRatio: OWN });
    // lower than the daemon's latest, or past the climb window: a verdict for check too
    expect(settlingOf({ ...daemons }, up(0.3, 0.3), OWN, 125, true)).toBeUndefined();
    expect(settlingOf({ ...daemons }, up(0.6, 0.6), OWN, 110 + SETTLE_CLIMB_SECONDS + 1, true)).toBeUndefined();
  });

  it('low figures that are not the own share are a verdict at once (peers see it down)', () => {
    expect(settlingOf({}, up(0.04, 0.61), OWN, 100)).toBeUndefined();
    expect(settlingOf({}, up(0.35, 0.6), OWN, 100)).toBeUndefined();
  });

  it('bounded: at the own share longer than the hold is a node cut off; a climb stops being held after its window', () => {
    const stuck: SettlingMemory = {};
    for (let t = 0; t <= SETTLE_MAX_SECONDS; t += 60) expect(settlingOf(stuck, up(OWN, OWN), OWN, t)).toBeDefined();
    expect(settlingOf(stuck, up(OWN, OWN), OWN, SETTLE_MAX_SECONDS + 1)).toBeUndefined();
    const slow: SettlingMemory = {};
    settlingOf(slow, up(OWN, OWN), OWN, 0);
    expect(settlingOf(slow, up(0.2, 0.2), OWN, SETTLE_CLIMB_SECONDS + 1)).toBeUndefined();
  });

  // v1.15: info.uptime answers "still bootstrapping" until the P-Chain is (snow/uptime/locked_calculator.go), while peers
  // connect and ping meanwhile (network/peer/peer.go): the first answer after none lands anywhere on the climb.
  it('the first answer after none starts a climb wherever it lands, but at the top', () => {
    const memory: SettlingMemory = { uptimeUnanswered: true };
    expect(settlingOf(memory, up(0.6, 0.58), OWN, 100, false, true)).toEqual({ since: 100, ownStakeRatio: OWN });
    expect(memory.settlingFirstAnswer).toBeUndefined();
    expect(settlingOf(memory, up(0.8, 0.79), OWN, 110)).toEqual({ since: 100, ownStakeRatio: OWN });
    expect(settlingOf(memory, up(0.8, 0.79), OWN, 110 + CLIMB_PAUSE_SECONDS + 1)).toBeUndefined();
    // already at the top: nothing left to climb, its figures stand at once
    expect(settlingOf({}, up(0.995, 0.99), OWN, 100, false, true)).toBeUndefined();
    // without the own share (getTotalStake failed) the climb is held all the same, its share said as 0
    expect(settlingOf({}, up(0.6, 0.58), undefined, 100, false, true)).toEqual({ since: 100, ownStakeRatio: 0 });
  });

  it("a daemon's own first answer (a new shard owner) is held for one Ping interval at most, marked as such", () => {
    const memory: SettlingMemory = {};
    expect(settlingOf(memory, up(0.6, 0.58), OWN, 100, false, 'first answer')).toEqual({ since: 100, ownStakeRatio: OWN, firstAnswer: true });
    expect(memory.settlingFirstAnswer).toBe(true);
    // still rising within the interval: held
    expect(settlingOf(memory, up(0.7, 0.69), OWN, 110)).toEqual({ since: 100, ownStakeRatio: OWN, firstAnswer: true });
    // rising still, but a Ping interval after that first answer every connected peer has counted: it stands
    expect(settlingOf(memory, up(0.75, 0.74), OWN, 100 + CLIMB_PAUSE_SECONDS + 1)).toBeUndefined();
    expect(memory).toEqual({});
    // a reading at the own share after it is a real restart: no longer only a first answer
    const restarted: SettlingMemory = {};
    settlingOf(restarted, up(0.6, 0.58), OWN, 100, false, 'first answer');
    expect(settlingOf(restarted, up(OWN, OWN), OWN, 105)).toEqual({ since: 100, ownStakeRatio: OWN });
    expect(restarted.settlingFirstAnswer).toBeUndefined();
  });

  it('without the total weight (getTotalStake failed) nothing is held', () => {
    expect(settlingOf({}, up(OWN, OWN), undefined, 100)).toBeUndefined();
  });

  it('no downtime budget from an unsettled snapshot: it is not cumulative uptime', () => {
    const primary = { startTime: 0, endTime: 40 * 86_400, weightNAvax: 2_000e9 };
    const base = { primary, uptime: up(OWN, OWN), heliconTime: null, l1: [] };
    expect(economicsOf(base, 10 * 86_400).downtimeBudgetRemainingSeconds).toBeLessThan(0);
    expect(economicsOf({ ...base, uptimeSettling: { since: 0, ownStakeRatio: OWN } }, 10 * 86_400).downtimeBudgetRemainingSeconds).toBeUndefined();
  });
});
