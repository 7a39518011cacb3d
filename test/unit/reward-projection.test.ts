/**
 * The reward outlook projected to the period's end (src/model/reward-projection.ts), from what
 * AvalancheGo does:
 * - the vote is cast once, at the end, on each node's cumulative measure since the validation's
 *   start (vms/platformvm/block/executor/options.go, prefersCommit: CalculateUptimePercentFrom(nodeID,
 *   StartTime) ≥ the requirement; snow/uptime/manager.go);
 * - that measure starts at zero with each validation, and with each cycle of an auto-renewed one
 *   (vms/platformvm/state/state.go, writeCurrentStakers: `UpDuration: 0`, `LastUpdated = StartTime`);
 * - since ACP-273 a Primary Network period can be 48 hours on mainnet and 12 on Fuji
 *   (genesis/genesis_mainnet.go and genesis/genesis_fuji.go, HeliconMinStakeDuration), at 0.9
 *   (genesis.ACP267UptimeRequirement);
 * - peers send whole percents, floored (network/peer/peer.go, getUptime: uint32(uptime × 100)).
 */
import { describe, expect, it } from 'vitest';
import { projectReward } from '../../src/model/reward-projection.js';
import { downtimeAllowanceSeconds, downtimeBudgetRemainingSeconds } from '../../src/model/validator.js';

const HOUR = 3600;
const START = Date.UTC(2026, 10, 27, 15) / 1000;

describe('a short outage early in a cycle is in reach of the requirement', () => {
  it('mainnet, 48 h at 0.9: 10 minutes down 1 h in, peers measure 83 %; up from then on the cycle ends at 99.65 %, 4.63 of the 4.8 h budget left', () => {
    const end = START + 48 * HOUR;
    const now = START + HOUR;
    // Every peer measures 50 of 60 minutes, floored: 83 %; the node's own 1 % stake counts 100 % and rewarding.
    const own = 0.01;
    const weighted = own + (1 - own) * 0.83;
    const projection = projectReward({ requirement: 0.9, start: START, end, now, rewardingStakeRatio: own, weightedAverageRatio: weighted })!;
    expect(projection.inReach).toBe(true);
    expect(projection.rewardingEndRatio).toBe(1);
    expect(projection.endUptimeRatio).toBeCloseTo(1 - (1 - weighted) / 48, 6);
    expect(projection.laggardsEndUptimeRatio).toBeCloseTo((0.83 + 47) / 48, 6); // 99.65 %
    expect(downtimeAllowanceSeconds(0.9, START, end) / HOUR).toBeCloseTo(4.8, 9);
    expect(downtimeBudgetRemainingSeconds(0.9, START, end, weighted, now) / HOUR).toBeCloseTo(4.8 - (1 - weighted), 6); // ≈ 4.63 h
  });

  it('Fuji, 12 h at 0.9: the same outage 1 h in is in reach too (1.2 h allowed)', () => {
    const projection = projectReward({ requirement: 0.9, start: START, end: START + 12 * HOUR, now: START + HOUR, rewardingStakeRatio: 0.01, weightedAverageRatio: 0.83 })!;
    expect(projection.inReach).toBe(true);
    expect(projection.laggardsEndUptimeRatio).toBeGreaterThan(0.98);
  });

  it('a cycle right after a renewal: its measure started at zero again, so a minute down a minute in is half, and still in reach', () => {
    const projection = projectReward({ requirement: 0.9, start: START, end: START + 48 * HOUR, now: START + 120, rewardingStakeRatio: 0.01, weightedAverageRatio: 0.5 })!;
    expect(projection.inReach).toBe(true);
  });
});

describe('out of reach: the budget for the whole period is spent, or too little time is left', () => {
  it('48 h cycle, 40 h in at 88 %: 4.8 h downtime already, the end cannot reach 90 %', () => {
    const projection = projectReward({ requirement: 0.9, start: START, end: START + 48 * HOUR, now: START + 40 * HOUR, rewardingStakeRatio: 0.3, weightedAverageRatio: 0.88 })!;
    expect(downtimeBudgetRemainingSeconds(0.9, START, START + 48 * HOUR, 0.88, START + 40 * HOUR)).toBeLessThan(0);
    expect(projection.inReach).toBe(false);
    expect(projection.rewardingEndRatio).toBe(0.3);
  });

  it('the budget left by the average can hide a stake that cannot climb back: 70 % of stake at 89 % half a day before a 14-day period ends', () => {
    const end = START + 14 * 24 * HOUR;
    const now = end - 12 * HOUR;
    // 30 % (the own stake and peers) at 100 %, 70 % at 89 %: the average 92.3 % leaves budget, the 70 % cannot reach 90 % in 12 h.
    const weighted = 0.3 + 0.7 * 0.89;
    expect(downtimeBudgetRemainingSeconds(0.9, START, end, weighted, now)).toBeGreaterThan(0);
    const projection = projectReward({ requirement: 0.9, start: START, end, now, rewardingStakeRatio: 0.3, weightedAverageRatio: weighted })!;
    expect(projection.laggardsEndUptimeRatio).toBeCloseTo((0.89 * 13.5 + 0.5) / 14, 6);
    expect(projection.inReach).toBe(false);
  });

  it('a healthy validator whose only stake below the requirement is a few small validators not connected (counted 0 %) is in reach', () => {
    const end = START + 14 * 24 * HOUR;
    const projection = projectReward({ requirement: 0.9, start: START, end, now: START + 10 * 24 * HOUR, rewardingStakeRatio: 0.99985, weightedAverageRatio: 0.988 })!;
    expect(projection.rewardingEndRatio).toBe(0.99985);
    expect(projection.inReach).toBe(true);
  });

  it('a period of no length projects nothing', () => {
    expect(projectReward({ requirement: 0.9, start: START, end: START, now: START, rewardingStakeRatio: 1, weightedAverageRatio: 1 })).toBeUndefined();
  });
});
