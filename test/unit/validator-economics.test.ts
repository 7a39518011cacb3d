import { describe, expect, it } from 'vitest';
import {
  compareVersions,
  downtimeAllowanceSeconds,
  downtimeBudgetRemainingSeconds,
  economicsOf,
  isVersionBehind,
  nAvaxToAvax,
  networkName,
  networkScheduleFor,
  newerStakeRatio,
  runwaySeconds,
  uptimeRequirement,
  versionStakeRatios,
  requirementBasis,
} from '../../src/model/validator.js';

const HOUR = 3600;
const DAY = 86400;
const HELICON = Date.UTC(2026, 8, 22, 15) / 1000;

describe('uptime requirement', () => {
  it('is 0.8 before Helicon, 0.9 for periods starting at or after it', () => {
    expect(uptimeRequirement(HELICON - 1, HELICON)).toBe(0.8);
    expect(uptimeRequirement(HELICON, HELICON)).toBe(0.9);
    expect(uptimeRequirement(HELICON + DAY, HELICON)).toBe(0.9);
  });

  it('is 0.8 when the node\'s schedule has no heliconTime (older node) or it is unknown', () => {
    expect(uptimeRequirement(HELICON + DAY, null)).toBe(0.8);
    expect(uptimeRequirement(HELICON + DAY, undefined)).toBe(0.8);
  });

  // ACP-267 (vms/platformvm/block/executor/options.go): 0.9 for every validation starting at or
  // after Helicon, whatever the base (a custom network's --uptime-requirement).
  it('a configured uptime_requirement is the base: it applies before Helicon, never after', () => {
    expect(uptimeRequirement(HELICON + DAY, HELICON, 0.8)).toBe(0.9);
    expect(uptimeRequirement(HELICON + DAY, HELICON, 0.85)).toBe(0.9);
    expect(uptimeRequirement(HELICON + DAY, HELICON, 0.95)).toBe(0.9);
    expect(uptimeRequirement(HELICON - DAY, HELICON, 0.95)).toBe(0.95);
    expect(uptimeRequirement(HELICON + DAY, null, 0.85)).toBe(0.85);
    expect(requirementBasis(HELICON + DAY, HELICON, 0.85)).toBe('acp-267');
    expect(requirementBasis(HELICON - DAY, HELICON, 0.85)).toBe('configured-base');
    expect(requirementBasis(HELICON - DAY, HELICON)).toBe('base');
  });
});

describe('downtime budget (the reference\'s worked numbers)', () => {
  it('67.2 h for 14 days at 0.8, 33.6 h at 0.9, 4.8 h for a 48-hour period at 0.9', () => {
    expect(downtimeAllowanceSeconds(0.8, 0, 14 * DAY) / HOUR).toBeCloseTo(67.2, 9);
    expect(downtimeAllowanceSeconds(0.9, 0, 14 * DAY) / HOUR).toBeCloseTo(33.6, 9);
    expect(downtimeAllowanceSeconds(0.9, 0, 48 * HOUR) / HOUR).toBeCloseTo(4.8, 9);
  });

  it('remaining = (1 − req) × (end − start) − (1 − weighted average) × (now − start)', () => {
    // 14 days at 0.9, 7 days in, seen up 95 % of the time: 33.6 h − 0.05 × 168 h = 25.2 h.
    expect(downtimeBudgetRemainingSeconds(0.9, 0, 14 * DAY, 0.95, 7 * DAY) / HOUR).toBeCloseTo(25.2, 9);
    // At 86 %: 33.6 h − 0.14 × 168 h = 10.08 h left; at 75 % it is overspent: 33.6 h − 42 h = −8.4 h.
    expect(downtimeBudgetRemainingSeconds(0.9, 0, 14 * DAY, 0.86, 7 * DAY) / HOUR).toBeCloseTo(10.08, 9);
    expect(downtimeBudgetRemainingSeconds(0.9, 0, 14 * DAY, 0.75, 7 * DAY) / HOUR).toBeCloseTo(-8.4, 9);
    expect(downtimeBudgetRemainingSeconds(0.9, 0, 14 * DAY, 1, 7 * DAY) / HOUR).toBeCloseTo(33.6, 9);
  });

  it('elapsed time is clamped to the period', () => {
    expect(downtimeBudgetRemainingSeconds(0.8, 100, 100 + 14 * DAY, 0.9, 0) / HOUR).toBeCloseTo(67.2, 9);
    expect(downtimeBudgetRemainingSeconds(0.8, 0, 14 * DAY, 0.9, 30 * DAY) / HOUR).toBeCloseTo(67.2 - 33.6, 9);
  });
});

describe('L1 fee runway and units', () => {
  it('8,780,477,952 nAVAX at 512 nAVAX/s lasts about 198 days', () => {
    const runway = runwaySeconds(8_780_477_952, 512)!;
    expect(runway).toBeCloseTo(17_149_371, 0);
    expect(runway / DAY).toBeCloseTo(198.5, 1);
  });

  it('no runway when nothing is charged; 0 when the balance is gone', () => {
    expect(runwaySeconds(1_000, 0)).toBeUndefined();
    expect(runwaySeconds(0, 512)).toBe(0);
  });

  it('1 AVAX = 10⁹ nAVAX', () => {
    expect(nAvaxToAvax(117_431_493_426)).toBeCloseTo(117.431493426, 12);
    expect(nAvaxToAvax(512)).toBeCloseTo(5.12e-7, 18);
  });
});

describe('economics of one report', () => {
  it('derives requirement, allowance, remaining budget and runways', () => {
    const start = HELICON + DAY;
    const economics = economicsOf(
      {
        heliconTime: HELICON,
        primary: { startTime: start, endTime: start + 14 * DAY },
        uptime: { rewardingStakeRatio: 0.725, weightedAverageRatio: 0.95 },
        l1: [
          { subnetId: 's', validationId: 'a', balanceNAvax: 8_780_477_952 },
          { subnetId: 's', validationId: 'b', balanceNAvax: 0 },
        ],
        feeState: { priceNAvaxPerSecond: 512 },
      },
      start + 7 * DAY,
    );
    expect(economics.requirement).toBe(0.9);
    expect(economics.downtimeAllowanceSeconds! / HOUR).toBeCloseTo(33.6, 9);
    expect(economics.downtimeBudgetRemainingSeconds! / HOUR).toBeCloseTo(25.2, 9);
    expect(economics.l1RunwaySeconds).toEqual([expect.closeTo(17_149_371, 0), 0]);
  });

  it('has no Primary Network numbers without a validation, and no runway without a fee state', () => {
    const economics = economicsOf({ l1: [{ subnetId: 's', validationId: 'a', balanceNAvax: 5 }], uptime: { rewardingStakeRatio: 1, weightedAverageRatio: 1 } }, 0);
    expect(economics).toEqual({ l1RunwaySeconds: [undefined] });
  });
});

describe('versions against the network', () => {
  const network = [
    { version: 'avalanche/1.15.2', amountStakedNAvax: 600 },
    { version: 'avalanche/1.14.2', amountStakedNAvax: 300 },
    { version: 'avalanche/1.13.5', amountStakedNAvax: 100 },
  ];

  it('compares x.y.z numerically whatever the prefix', () => {
    expect(compareVersions('avalanche/1.14.10', 'avalanchego/1.14.9')).toBeGreaterThan(0);
    expect(compareVersions('avalanche/1.14.2', 'avalanche/v1.14.2-fuji')).toBe(0);
    expect(compareVersions('avalanche/1.9.0', 'avalanche/1.13.5')).toBeLessThan(0);
    expect(compareVersions('unknown', 'avalanche/1.13.5')).toBeUndefined();
  });

  it('shares of stake per version', () => {
    expect(Object.fromEntries(versionStakeRatios(network))).toEqual({ 'avalanche/1.15.2': 0.6, 'avalanche/1.14.2': 0.3, 'avalanche/1.13.5': 0.1 });
    expect(versionStakeRatios([]).size).toBe(0);
  });

  it('behind when newer versions hold more than half of the stake', () => {
    expect(newerStakeRatio('avalanche/1.14.2', network)).toBeCloseTo(0.6, 12);
    expect(isVersionBehind('avalanche/1.14.2', network)).toBe(true);
    expect(isVersionBehind('avalanche/1.15.2', network)).toBe(false);
    expect(isVersionBehind('avalanche/1.16.0', network)).toBe(false);
    // Exactly half is not "more than half".
    expect(isVersionBehind('avalanche/1.14.2', [{ version: 'avalanche/1.15.0', amountStakedNAvax: 1 }, { version: 'avalanche/1.14.2', amountStakedNAvax: 1 }])).toBe(false);
    expect(isVersionBehind('avalanche/1.14.2', [])).toBeUndefined();
  });
});

describe('the network schedule (#24.5)', () => {
  const newest = { target: 'new', network: 'mainnet', version: 'avalanchego/1.15.2', heliconTime: HELICON };
  const old = { target: 'old', network: 'mainnet', version: 'avalanchego/1.14.2', heliconTime: null };

  it('network names as AvalancheGo gives them (utils/constants/network_ids.go)', () => {
    expect([networkName(1), networkName(5), networkName(12345)]).toEqual(['mainnet', 'fuji', '12345']);
  });

  it('an older node follows the newest node of its network; the newest keeps its own', () => {
    expect(networkScheduleFor(old, [old, newest])).toEqual({ heliconTime: HELICON, from: 'new', version: 'avalanchego/1.15.2' });
    expect(networkScheduleFor(newest, [old, newest])).toBeUndefined();
    // and with it the requirement of a period started after Helicon: 0.9, not 0.8
    const primary = { startTime: HELICON + DAY, endTime: HELICON + 15 * DAY };
    const schedule = networkScheduleFor(old, [old, newest])!;
    expect(economicsOf({ primary, heliconTime: null, l1: [] }, HELICON + 2 * DAY).requirement).toBe(0.8);
    expect(economicsOf({ primary, heliconTime: null, networkSchedule: schedule, l1: [] }, HELICON + 2 * DAY).requirement).toBe(0.9);
  });

  it('only the same network, only known schedules; an unknown network or version keeps its own', () => {
    expect(networkScheduleFor(old, [old, { ...newest, network: 'fuji' }])).toBeUndefined();
    expect(networkScheduleFor({ ...old, network: undefined }, [old, newest])).toBeUndefined();
    expect(networkScheduleFor(old, [old, { target: 'new', network: 'mainnet', version: 'avalanchego/1.15.2' }])).toBeUndefined();
    // the own version unknown: the newest known one stands
    expect(networkScheduleFor({ target: 'x', network: 'mainnet' }, [old, newest])).toMatchObject({ from: 'new' });
    // equally new nodes: one that knows a time wins over one reading it unscheduled
    expect(networkScheduleFor(old, [old, { ...newest, target: 'a', heliconTime: null }, newest])).toMatchObject({ from: 'new' });
  });
});
