import { describe, expect, it } from 'vitest';
import type { NetworkBaselineViews } from '../../model/observed.js';
import type { PeriodEntry, PeriodOutcome } from '../../model/periods.js';
import { economicsOf, type ValidatorReport } from '../../model/validator.js';
import AvalancheL1ValidatorBalanceLow from './AvalancheL1ValidatorBalanceLow.js';
import AvalancheL1ValidatorInactive from './AvalancheL1ValidatorInactive.js';
import AvalancheNetworkDegraded from './AvalancheNetworkDegraded.js';
import AvalancheNodeVersionBehind from './AvalancheNodeVersionBehind.js';
import AvalancheValidatorDowntimeBudgetLow from './AvalancheValidatorDowntimeBudgetLow.js';
import AvalancheValidatorEndingSoon from './AvalancheValidatorEndingSoon.js';
import AvalancheValidatorPublicIpChanged from './AvalancheValidatorPublicIpChanged.js';
import AvalancheValidatorRewardAtRisk from './AvalancheValidatorRewardAtRisk.js';
import AvalancheValidatorRewardMissed from './AvalancheValidatorRewardMissed.js';
import { resolveSummary, ruleSettings, rulesOf, UNKNOWN, type AnyRule, type FleetInput, type RuleTuning, type ValidatorInput } from './index.js';
import type { RuleContext } from './rule.js';

const DAY = 86_400;
const HELICON = Date.UTC(2026, 8, 22, 15) / 1000;
const START = Date.UTC(2026, 10, 13, 0) / 1000; // after Helicon: the 0.9 rule
const END = START + 14 * DAY; // 2026-11-27
const NOW = START + 10 * DAY;
const VALIDATION = '2H7pEcXNnmKpYZ6VxNY2nRZ6Kx1BT2qgcM8J9o8zWLgqDTN5E8';
const SUBNET = 'csu12v5GV2hVy5gLTGap8zJNX2q6Ka4cKZ4Xfyq6sqh7GtpPB';

function input(report: Partial<ValidatorReport>, versionStake?: ValidatorInput['versionStake']): ValidatorInput {
  const full: ValidatorReport = { l1: [], problems: [], ...report };
  full.economics = economicsOf(full, NOW);
  return { observation: { endpoint: 'validator', view: 'all', ok: full.problems.length === 0, durationSeconds: 0, at: NOW, detail: full }, ...(versionStake ? { versionStake } : {}) };
}

function ctx(rule: AnyRule, tuning?: RuleTuning): RuleContext {
  return { target: 'validator-1', settings: ruleSettings(rule, [tuning], 0), enabled: () => true, now: NOW * 1000, label: (v) => v };
}

const run = (rule: AnyRule, i: ValidatorInput, tuning?: RuleTuning) => rule.evaluate(i, ctx(rule, tuning), undefined);

const validating = {
  heliconTime: HELICON,
  version: 'avalanche/1.15.2',
  primary: { startTime: START, endTime: END, potentialRewardNAvax: 117_431_493_426 },
};

describe('the validator rules are registered under their own source', () => {
  it('eight rules read the validator poll (AvalancheValidatorEndingSoon needs no chain data)', () => {
    expect(rulesOf('validator').map((r) => r.name)).toEqual([
      'AvalancheValidatorEndingSoon',
      'AvalancheValidatorRewardAtRisk',
      'AvalancheValidatorDowntimeBudgetLow',
      'AvalancheValidatorRewardMissed',
      'AvalancheValidatorPublicIpChanged',
      'AvalancheL1ValidatorBalanceLow',
      'AvalancheL1ValidatorInactive',
      'AvalancheNodeVersionBehind',
    ]);
  });
});

describe('AvalancheValidatorRewardAtRisk', () => {
  const rule = AvalancheValidatorRewardAtRisk as AnyRule;

  // The reward vote (docs/validators.md): each node prefers the reward iff its own measure of the
  // uptime since the period's start meets the requirement (avalanchego
  // vms/platformvm/block/executor/options.go, prefersCommit) and Snowman (k = 20, alpha = 15:
  // snow/consensus/snowball/parameters.go) carries the side holding more than half of the stake.
  const VOTE =
    'When the period ends, each node votes to reward it only if its own measure of its uptime since the period started meets the requirement, and Snowman (polls of 20 validators by stake, 15 matching votes to move) carries the side holding more than half of the stake: the reward is likely at 60 % of stake or more, uncertain between 40 % and 60 %, likely lost below 40 %.';

  it('warns below 80 % rewarding stake: a stake majority still sees it above the requirement, so the reward is still likely', () => {
    // 14-day period at 0.9: 33.6 h allowed; 10 days at 91 % weighted uptime spent 21.6 h: 12.0 h left.
    const findings = run(rule, input({ ...validating, uptime: { rewardingStakeRatio: 0.725, weightedAverageRatio: 0.91 } }));
    expect(findings).toEqual([
      {
        identity: { scope: 'self' },
        severity: 'warning',
        summary: 'validator-1: 72.5 % of stake sees its uptime at or above the 90 % requirement: the reward is still likely, uncertain below 60 % of stake; 12.0 h of the 33.6 h downtime budget left until 2026-11-27 00:00 UTC',
        description: `The reward of 117.4 AVAX (and its delegators') is all or nothing. ${VOTE} Peers see it up 91 % of the time (stake-weighted). Check inbound connectivity on the staking port, the node clock, and avoid restarts.`,
      },
    ]);
    expect((findings as Array<{ summary: string }>)[0]!.summary).not.toMatch(/majority/);
  });

  it('critical below 60 % only when the end is out of reach: the budget for the whole period is spent', () => {
    const at = (ratio: number, weighted = 0.8) => (run(rule, input({ ...validating, uptime: { rewardingStakeRatio: ratio, weightedAverageRatio: weighted } })) as Array<{ severity: string; summary: string }>)[0]!;
    expect(at(0.6)).toMatchObject({ severity: 'warning', summary: expect.stringContaining('the reward is still likely') });
    // 10 days in at 80 %: 48 h down, more than the 33.6 h the whole period allows.
    expect(at(0.55)).toEqual(
      expect.objectContaining({
        severity: 'critical',
        summary: 'validator-1: only 55 % of stake sees its uptime at or above the 90 % requirement: the reward is uncertain, likely lost below 40 % of stake; even up from now on, the stake that sees it lowest would measure 68.3 % when the period ends; downtime budget overspent by 14.4 h (the period ends 2026-11-27 00:00 UTC)',
      }),
    );
    expect(at(0.4).summary).toContain('the reward is uncertain');
    expect(at(0.395)).toMatchObject({ severity: 'critical', summary: expect.stringContaining('only 39.5 % of stake sees its uptime at or above the 90 % requirement: the reward is likely lost; even up from now on') });
  });

  it('below 60 % with the end in reach, a warning that says so: 10 days into 14 with budget left', () => {
    // 55 % at 100 %, 45 % at 89 %: 95 % on average, 4 days left: the 89 % climb to 92 % by the end.
    const [finding] = run(rule, input({ ...validating, uptime: { rewardingStakeRatio: 0.55, weightedAverageRatio: 0.55 + 0.45 * 0.89 } })) as Array<{ severity: string; summary: string; description: string }>;
    expect(finding!.severity).toBe('warning');
    expect(finding!.summary).toBe('validator-1: only 55 % of stake sees its uptime at or above the 90 % requirement now: the reward is still in reach: up from now on, the stake that sees it lowest would measure 92.1 % when the period ends; 21.7 h of the 33.6 h downtime budget left until 2026-11-27 00:00 UTC');
    expect(finding!.description).toContain('It is evidence, not a verdict: 71.4 % of the period has passed');
  });

  describe('a 10-minute outage 1 h into a 48-hour cycle (mainnet HeliconMinStakeDuration, genesis/genesis_mainnet.go) is a warning, never critical', () => {
    // Each validation's (and each auto-renewed cycle's) measure starts at zero (vms/platformvm/state/state.go,
    // writeCurrentStakers): 50 of 60 minutes is 83 % (floored, network/peer/peer.go getUptime), below 90 %
    // for every peer: only the node's own 1 % stake is rewarding.
    const cycleStart = START;
    const cycle = (hours: number) => ({ ...validating, primary: { ...validating.primary, startTime: cycleStart, endTime: cycleStart + hours * 3600, autoRenewal: { nextPeriodSeconds: hours * 3600, renews: true, autoCompoundRatio: 0, authorityAddresses: [] } } });
    const oneHourIn = (report: Partial<ValidatorReport>) => {
      const i = input(report);
      const full = i.observation.detail as ValidatorReport;
      full.economics = economicsOf(full, cycleStart + 3600);
      return { i, at: { target: 'validator-1', settings: ruleSettings(rule, [], 0), enabled: () => true, now: (cycleStart + 3600) * 1000, label: (v: string) => v } };
    };
    const uptime = { rewardingStakeRatio: 0.01, weightedAverageRatio: 0.01 + 0.99 * 0.83 };

    it('48 h: 4.6 h of the 4.8 h budget left, and the end', () => {
      const { i, at } = oneHourIn({ ...cycle(48), uptime });
      const [finding] = rule.evaluate(i, at, undefined) as Array<{ severity: string; summary: string }>;
      expect(finding).toMatchObject({ severity: 'warning' });
      expect(finding!.summary).toBe(
        "validator-1: only 1 % of stake sees its uptime at or above the 90 % requirement now: the reward is still in reach: up from now on, the stake that sees it lowest would measure 99.6 % when the cycle ends; 4.6 h of this cycle's 4.8 h downtime budget left until 2026-11-15 00:00 UTC (a new cycle starts then)",
      );
      expect(run(AvalancheValidatorDowntimeBudgetLow as AnyRule, i)).toEqual([]);
    });

    it('12 h (Fuji, genesis/genesis_fuji.go): 1.0 h of the 1.2 h budget left, a warning', () => {
      const { i, at } = oneHourIn({ ...cycle(12), uptime });
      expect(rule.evaluate(i, at, undefined)).toMatchObject([{ severity: 'warning', summary: expect.stringContaining("1.0 h of this cycle's 1.2 h downtime budget left until 2026-11-13 12:00 UTC") }]);
    });
  });

  it('follows tuning: the thresholds move the alert, not the outlook', () => {
    expect(run(rule, input({ ...validating, uptime: { rewardingStakeRatio: 0.75, weightedAverageRatio: 0.95 } }), { threshold: 0.7 })).toEqual([]);
    expect(run(rule, input({ ...validating, uptime: { rewardingStakeRatio: 0.65, weightedAverageRatio: 0.95 } }), { critical_threshold: 0.7 })).toMatchObject([{ severity: 'critical', summary: expect.stringContaining('still likely') }]);
  });

  it('no alert at 80 % and above, for a node that is not a validator, or when the info API is off', () => {
    expect(run(rule, input({ ...validating, uptime: { rewardingStakeRatio: 0.8, weightedAverageRatio: 0.99 } }))).toEqual([]);
    expect(run(rule, input({ notValidator: true }))).toEqual([]);
    expect(run(rule, input({ problems: [{ call: 'info.uptime', reason: 'disabled', error: 'HTTP 404: 404 page not found' }] }))).toEqual([]);
  });

  it('unknown (its alert stays as it is) while info.uptime fails or the poll failed outright', () => {
    expect(run(rule, input({ problems: [{ call: 'info.uptime', reason: 'bad_shape', error: 'rewardingStakePercentage "172.5000" is not a percentage' }] }))).toBe(UNKNOWN);
    expect(run(rule, { observation: { endpoint: 'validator', view: 'all', ok: false, reason: 'timeout', durationSeconds: 5, at: NOW } })).toBe(UNKNOWN);
    // The period (and with it the requirement and the projection) comes from getCurrentValidators.
    expect(run(rule, input({ ...validating, uptime: { rewardingStakeRatio: 0.5, weightedAverageRatio: 0.9 }, problems: [{ call: 'platform.getCurrentValidators', reason: 'timeout', error: 'no answer' }] }))).toBe(UNKNOWN);
    expect(run(rule, input({ ...validating, uptime: { rewardingStakeRatio: 0.5, weightedAverageRatio: 0.9 }, problems: [{ call: 'platform.getValidatorFeeState', reason: 'timeout', error: 'no answer' }] }))).toHaveLength(1);
    // Not a validator now, whatever the last uptime said.
    expect(run(rule, input({ ...validating, notValidator: true, uptime: { rewardingStakeRatio: 0.5, weightedAverageRatio: 0.9 } }))).toEqual([]);
  });

  it('without its period (no requirement, no projection, no reward known): a warning that says only what the snapshot says', () => {
    const report: ValidatorReport = { l1: [], problems: [], uptime: { rewardingStakeRatio: 0.5, weightedAverageRatio: 0.9 } };
    const noPeriod: ValidatorInput = { observation: { endpoint: 'validator', view: 'all', ok: true, durationSeconds: 0, at: NOW, detail: report } };
    expect(run(rule, noPeriod)).toEqual([
      {
        identity: { scope: 'self' },
        severity: 'warning',
        summary: 'validator-1: only 50 % of stake sees its uptime at or above the requirement now: the reward is still in reach',
        description: `The reward (and its delegators') is all or nothing. ${VOTE} Peers see it up 90 % of the time (stake-weighted). Check inbound connectivity on the staking port, the node clock, and avoid restarts.`,
      },
    ]);
    expect(rule.recovered!({ observation: { ...noPeriod.observation, detail: { ...report, uptime: { rewardingStakeRatio: 0.93, weightedAverageRatio: 0.99 } } } }, ctx(rule), {}, undefined)).toBe('reward no longer at risk: 93 % of stake sees its uptime at or above the requirement');
  });

  it('resolves without words when nothing is known now: the info API off, or no uptime in the answer', () => {
    expect(rule.recovered!(input({ ...validating, problems: [{ call: 'info.uptime', reason: 'disabled', error: 'info API off' }] }), ctx(rule), {}, undefined)).toBeUndefined();
    expect(rule.recovered!(input({ ...validating }), ctx(rule), {}, undefined)).toBeUndefined();
  });
});

describe('AvalancheValidatorDowntimeBudgetLow', () => {
  const rule = AvalancheValidatorDowntimeBudgetLow as AnyRule;

  it('warns below 25 % of the allowance, critical below 10 %', () => {
    // 12.0 h of 33.6 h = 36 %: fine. At 88 %: 33.6 − 28.8 = 4.8 h = 14 %: warning. At 87 %: 2.4 h = 7 %: critical.
    expect(run(rule, input({ ...validating, uptime: { rewardingStakeRatio: 1, weightedAverageRatio: 0.91 } }))).toEqual([]);
    expect(run(rule, input({ ...validating, uptime: { rewardingStakeRatio: 1, weightedAverageRatio: 0.88 } }))).toEqual([
      {
        identity: { scope: 'self' },
        severity: 'warning',
        summary: "validator-1: 4.8 h of downtime budget left (14.3 % of the period's 33.6 h) until 2026-11-27 00:00 UTC",
        description: 'Peers see it up 88 % of the time against a 90 % requirement; more downtime before 2026-11-27 00:00 UTC costs the whole reward (117.4 AVAX). Avoid restarts and maintenance until then.',
      },
    ]);
    expect(run(rule, input({ ...validating, uptime: { rewardingStakeRatio: 1, weightedAverageRatio: 0.87 } }))).toMatchObject([{ severity: 'critical' }]);
  });

  it('an older node (no heliconTime) is held to 0.8: 67.2 h allowed', () => {
    const findings = run(rule, input({ ...validating, heliconTime: null, uptime: { rewardingStakeRatio: 1, weightedAverageRatio: 0.76 } }));
    expect(findings).toMatchObject([{ summary: "validator-1: 9.6 h of downtime budget left (14.3 % of the period's 67.2 h) until 2026-11-27 00:00 UTC" }]);
  });

  it('nothing without a validation, unknown while getCurrentValidators fails', () => {
    expect(run(rule, input({ uptime: { rewardingStakeRatio: 1, weightedAverageRatio: 0.5 } }))).toEqual([]);
    expect(run(rule, input({ uptime: { rewardingStakeRatio: 1, weightedAverageRatio: 0.5 }, problems: [{ call: 'platform.getCurrentValidators', reason: 'bad_shape', error: 'endTime nothing is not a time' }] }))).toBe(UNKNOWN);
  });

  it('overspent: how far, critical, and a reward not known is not named', () => {
    // 10 days at 80 %: 48 h down of the 33.6 h allowed.
    const report = { ...validating, primary: { startTime: START, endTime: END }, uptime: { rewardingStakeRatio: 1, weightedAverageRatio: 0.8 } };
    expect(run(rule, input(report))).toEqual([
      {
        identity: { scope: 'self' },
        severity: 'critical',
        summary: 'validator-1: downtime budget overspent by 14.4 h (period ends 2026-11-27 00:00 UTC)',
        description: 'Peers see it up 80 % of the time against a 90 % requirement; more downtime before 2026-11-27 00:00 UTC costs the whole reward. Avoid restarts and maintenance until then.',
      },
    ]);
  });

  it('follows tuning of both shares', () => {
    const at88 = (tuning: RuleTuning) => (run(rule, input({ ...validating, uptime: { rewardingStakeRatio: 1, weightedAverageRatio: 0.88 } }), tuning) as Array<{ severity: string }>).map((f) => f.severity);
    expect(at88({ threshold: 0.1 })).toEqual([]);
    expect(at88({ critical_threshold: 0.2 })).toEqual(['critical']);
  });

  it('reads info.uptime, info.upgrades (the requirement) and getCurrentValidators; nothing for a node not validating now', () => {
    const low = { ...validating, uptime: { rewardingStakeRatio: 1, weightedAverageRatio: 0.88 } };
    const failing = (call: string) => input({ ...low, problems: [{ call, reason: 'timeout', error: 'no answer' }] });
    expect(run(rule, failing('info.uptime'))).toBe(UNKNOWN);
    expect(run(rule, failing('info.upgrades'))).toBe(UNKNOWN);
    expect(run(rule, failing('platform.getValidatorFeeState'))).toHaveLength(1);
    expect(run(rule, input({ ...low, notValidator: true }))).toEqual([]);
    expect(run(rule, input({ ...validating }))).toEqual([]);
    expect(run(rule, input({ ...low, problems: [{ call: 'info.uptime', reason: 'disabled', error: 'info API off' }] }))).toEqual([]);
  });

  it('resolves with the budget now; not a validator, or nothing known, says so or nothing', () => {
    const recovered = (report: Partial<ValidatorReport>) => rule.recovered!(input(report), ctx(rule), {}, undefined);
    expect(recovered({ ...validating, notValidator: true })).toBe('not a validator now');
    expect(recovered({ ...validating, uptime: { rewardingStakeRatio: 1, weightedAverageRatio: 0.99 }, problems: [{ call: 'info.upgrades', reason: 'disabled', error: 'info API off' }] })).toBeUndefined();
    expect(recovered({ uptime: { rewardingStakeRatio: 1, weightedAverageRatio: 0.99 } })).toBeUndefined();
    expect(recovered({ ...validating, uptime: { rewardingStakeRatio: 1, weightedAverageRatio: 0.95 } })).toBe("downtime budget recovered: 21.6 h left (64.3 % of the period's 33.6 h) until 2026-11-27 00:00 UTC");
  });
});

describe('AvalancheL1ValidatorBalanceLow and AvalancheL1ValidatorInactive', () => {
  const low = AvalancheL1ValidatorBalanceLow as AnyRule;
  const inactive = AvalancheL1ValidatorInactive as AnyRule;
  const fee = { priceNAvaxPerSecond: 512 };
  const validation = (balanceNAvax: number) => ({ subnetId: SUBNET, validationId: VALIDATION, balanceNAvax });

  it('runway below 14 days warns, below 3 days is critical; one alert per validation', () => {
    expect(run(low, input({ l1: [validation(8_780_477_952)], feeState: fee }))).toEqual([]); // ~198 days
    expect(run(low, input({ l1: [validation(Math.round(2.3 * DAY * 512))], feeState: fee }))).toEqual([
      {
        identity: { subnet_id: SUBNET, validation_id: VALIDATION },
        severity: 'critical',
        // 30 days at 512 nAVAX/s = 1,327,104,000 nAVAX
        summary: 'validator-1: L1 validation 2H7p… runs out of balance in 2.3 days at 512 nAVAX/s: add 1.33 AVAX for 30 days with IncreaseL1ValidatorBalanceTx',
        description: `Validation ${VALIDATION} on subnet ${SUBNET} has 0.102 AVAX left; at zero it becomes inactive (not sampled, its signatures invalid) until topped up.`,
      },
    ]);
    expect(run(low, input({ l1: [validation(10 * DAY * 512)], feeState: fee }))).toMatchObject([{ severity: 'warning' }]);
  });

  it('an inactive validation (balance 0) is the Inactive alert, not a low balance', () => {
    const i = input({ l1: [validation(0)], feeState: fee });
    expect(run(low, i)).toEqual([]);
    expect(run(inactive, i)).toEqual([
      {
        identity: { subnet_id: SUBNET, validation_id: VALIDATION },
        severity: 'critical',
        summary: 'validator-1: L1 validation 2H7p… is inactive (balance 0): add 1.33 AVAX for 30 days with IncreaseL1ValidatorBalanceTx to reactivate it',
        description: `Validation ${VALIDATION} on subnet ${SUBNET} ran out of balance: it is not sampled and its signatures are invalid until an IncreaseL1ValidatorBalanceTx tops it up.`,
      },
    ]);
  });

  it('the top-up follows the fee price; without a price the inactive alert still says to top it up', () => {
    expect(run(low, input({ l1: [validation(DAY * 1024)], feeState: { priceNAvaxPerSecond: 1024 } }))).toMatchObject([{ summary: expect.stringContaining('at 1024 nAVAX/s: add 2.65 AVAX for 30 days with IncreaseL1ValidatorBalanceTx') }]);
    expect(run(inactive, input({ l1: [validation(0)] }))).toMatchObject([{ summary: 'validator-1: L1 validation 2H7p… is inactive (balance 0): top it up with IncreaseL1ValidatorBalanceTx to reactivate it' }]);
  });

  it('unknown while the subnet list or the fee state cannot be read', () => {
    expect(run(low, input({ l1: [], problems: [{ call: 'platform.getValidatorFeeState', reason: 'bad_shape', error: 'price nothing is not a fee price' }] }))).toBe(UNKNOWN);
    expect(run(inactive, input({ problems: [{ call: `platform.getCurrentValidators ${SUBNET}`, reason: 'timeout', error: 'no answer' }] }))).toBe(UNKNOWN);
    expect(run(inactive, input({ problems: [{ call: 'platform.getValidatorFeeState', reason: 'bad_shape', error: 'x' }] }))).toEqual([]);
  });
});

describe('AvalancheNodeVersionBehind', () => {
  const rule = AvalancheNodeVersionBehind as AnyRule;
  const network = [
    { version: 'avalanche/1.15.2', amountStakedNAvax: 620 },
    { version: 'avalanche/1.15.1', amountStakedNAvax: 250 },
    { version: 'avalanche/1.14.2', amountStakedNAvax: 130 },
  ];

  it('warns when newer versions hold more than half of the stake', () => {
    expect(run(rule, input({ version: 'avalanche/1.14.2' }, network))).toEqual([
      {
        identity: {},
        severity: 'warning',
        summary: "validator-1 runs avalanche/1.14.2 while 87 % of the network's stake runs newer versions (most: avalanche/1.15.2, 62 %)",
        description: 'Nodes left on old versions are dropped at the next network upgrade, and a validator that cannot follow it loses its uptime. Upgrade AvalancheGo.',
      },
    ]);
    expect(run(rule, input({ version: 'avalanche/1.15.2' }, network))).toEqual([]);
    expect(run(rule, input({ version: 'avalanche/1.15.1' }, network))).toMatchObject([{ summary: expect.stringContaining('62 % of the network') }]);
    expect(run(rule, input({ version: 'avalanche/1.15.1' }, network), { threshold: 0.7 })).toEqual([]);
  });

  it('nothing without the network distribution (no chain data)', () => {
    expect(run(rule, input({ version: 'avalanche/1.9.0' }))).toEqual([]);
  });
});

describe('auto-renewed validators (ACP-236, AvalancheGo v1.15): reward and budget per cycle', () => {
  // getCurrentValidators' nextPeriod: seconds of the cycle after endTime, 0 = exits at endTime
  // (vms/platformvm/api/validator.go, txs/set_auto_renewed_validator_config_tx.go)
  const renewal = (nextPeriodSeconds: number) => ({ nextPeriodSeconds, renews: nextPeriodSeconds > 0, autoCompoundRatio: 0.5, authorityAddresses: [] });
  const cycle = (nextPeriodSeconds: number) => ({ ...validating, primary: { ...validating.primary, autoRenewal: renewal(nextPeriodSeconds) } });
  const reward = AvalancheValidatorRewardAtRisk as AnyRule;
  const budget = AvalancheValidatorDowntimeBudgetLow as AnyRule;

  it("a renewing validator: this cycle's reward and budget, and a new cycle starting at its end", () => {
    const [risk] = run(reward, input({ ...cycle(14 * DAY), uptime: { rewardingStakeRatio: 0.725, weightedAverageRatio: 0.91 } })) as Array<{ summary: string; description: string }>;
    expect(risk!.summary).toBe("validator-1: 72.5 % of stake sees its uptime at or above the 90 % requirement: the reward is still likely, uncertain below 60 % of stake; 12.0 h of this cycle's 33.6 h downtime budget left until 2026-11-27 00:00 UTC (a new cycle starts then)");
    expect(risk!.description).toMatch(/^This cycle's reward of 117\.4 AVAX \(and its delegators'\) is all or nothing\. When the cycle ends, each node votes/);
    const [low] = run(budget, input({ ...cycle(14 * DAY), uptime: { rewardingStakeRatio: 1, weightedAverageRatio: 0.88 } })) as Array<{ summary: string; description: string }>;
    expect(low!.summary).toBe("validator-1: 4.8 h of downtime budget left (14.3 % of the cycle's 33.6 h) until 2026-11-27 00:00 UTC; a new cycle starts then");
    expect(low!.description).toContain("costs this cycle's whole reward");
  });

  it('one that exits at the end of this cycle says so', () => {
    const [risk] = run(reward, input({ ...cycle(0), uptime: { rewardingStakeRatio: 0.725, weightedAverageRatio: 0.91 } })) as Array<{ summary: string }>;
    expect(risk!.summary).toContain("12.0 h of this cycle's 33.6 h downtime budget left until 2026-11-27 00:00 UTC (it exits then)");
  });

});

describe('AvalancheValidatorEndingSoon: from the validator poll, with the holds of every validator verdict', () => {
  const rule = AvalancheValidatorEndingSoon as AnyRule;
  // getCurrentValidators' nextPeriod: seconds of the cycle after endTime, 0 = exits at endTime (vms/platformvm/api/validator.go)
  const renewal = (nextPeriodSeconds: number) => ({ nextPeriodSeconds, renews: nextPeriodSeconds > 0, autoCompoundRatio: 0, authorityAddresses: [] });
  /** The poll `left` seconds before `end` of a period of `length` seconds (economics at that time), and a context then. */
  const before = (left: number, report: Partial<ValidatorReport>, length = 14 * DAY) => {
    const end = START + length;
    const now = end - left;
    const primary = { ...validating.primary, ...report.primary, startTime: START, endTime: end };
    const full: ValidatorReport = { l1: [], problems: [], ...validating, nodeId: 'NodeID-A', ...report, primary };
    full.economics = economicsOf(full, now);
    const i: ValidatorInput = { observation: { endpoint: 'validator', view: 'all', ok: true, durationSeconds: 0, at: now, detail: full } };
    return { i, c: { ...ctx(rule), now: now * 1000 } };
  };
  const evaluate = (left: number, report: Partial<ValidatorReport> = {}, length?: number, state = rule.newState!()) => {
    const { i, c } = before(left, report, length);
    return rule.evaluate(i, c, state) as Array<{ severity: string; summary: string; description: string; identity: Record<string, string> }> | typeof UNKNOWN;
  };
  const up = { uptime: { rewardingStakeRatio: 0.99, weightedAverageRatio: 0.99 } };

  it("reads the validator poll's own endTime (no chain data): a plain validation 2 days before its end", () => {
    expect(evaluate(2 * DAY, up)).toEqual([
      {
        identity: { scope: 'self' },
        severity: 'warning',
        summary: 'validator-1: validation of NodeID-A ends in 2d (2026-11-27 00:00 UTC, the end of its period)',
        description: 'the current validation ends at 2026-11-27T00:00:00.000Z; re-stake to keep validating',
        // from endTime on the views no longer count it, before the poll that ends it
        until: END * 1000,
      },
    ]);
  });

  it('does not page for a validator that renews; pages for one that exits', () => {
    expect(evaluate(2 * DAY, { ...up, primary: { ...validating.primary, autoRenewal: renewal(14 * DAY) } })).toEqual([]);
    expect(evaluate(2 * DAY, { ...up, primary: { ...validating.primary, autoRenewal: renewal(0) } })).toMatchObject([
      { severity: 'warning', description: 'the auto-renewed validator is set to exit when this cycle ends at 2026-11-27T00:00:00.000Z (next period 0); set a next period with SetAutoRenewedValidatorConfigTx or re-stake to keep validating' },
    ]);
  });

  it('the window is a share of the period: a 48-hour cycle (genesis/genesis_mainnet.go HeliconMinStakeDuration) is not inside it for good', () => {
    const exiting = { ...up, primary: { ...validating.primary, autoRenewal: renewal(0) } };
    expect(evaluate(47 * 3600, exiting, 2 * DAY)).toEqual([]);
    expect(evaluate(23 * 3600, exiting, 2 * DAY)).toMatchObject([{ severity: 'warning', summary: 'validator-1: validation of NodeID-A ends in 23h (2026-11-15 00:00 UTC, the end of its cycle)' }]);
    expect(evaluate(3 * 3600, exiting, 2 * DAY)).toMatchObject([{ severity: 'critical' }]);
    // 12 hours on Fuji (genesis/genesis_fuji.go): 6 h of warning, under 51 minutes critical
    expect(evaluate(7 * 3600, exiting, DAY / 2)).toEqual([]);
    expect(evaluate(5 * 3600, exiting, DAY / 2)).toMatchObject([{ severity: 'warning' }]);
    expect(evaluate(50 * 60, exiting, DAY / 2)).toMatchObject([{ severity: 'critical' }]);
    // a 14-day period keeps its 7 days and 1 day
    expect(evaluate(6.9 * DAY, up)).toMatchObject([{ severity: 'warning' }]);
    expect(evaluate(0.9 * DAY, up)).toMatchObject([{ severity: 'critical' }]);
  });

  it('at the edges: each window leaves out its bound, endTime itself is over; tuning moves both windows', () => {
    const severities = (left: number, tuning?: RuleTuning) => {
      const { i, c } = before(left, up);
      const findings = rule.evaluate(i, { ...c, settings: ruleSettings(rule, [tuning], 0) }, rule.newState!());
      return (findings as Array<{ severity: string }>).map((f) => f.severity);
    };
    expect(severities(7 * DAY)).toEqual([]);
    expect(severities(7 * DAY - 1)).toEqual(['warning']);
    expect(severities(DAY)).toEqual(['warning']);
    expect(severities(DAY - 1)).toEqual(['critical']);
    expect(severities(1)).toEqual(['critical']);
    expect(severities(0)).toEqual([]);
    expect(severities(3 * DAY, { threshold: 3 * DAY })).toEqual([]);
    expect(severities(3 * DAY - 1, { threshold: 3 * DAY })).toEqual(['warning']);
    expect(severities(20 * 3600, { critical_threshold: 12 * 3600 })).toEqual(['warning']);
    expect(severities(12 * 3600 - 1, { critical_threshold: 12 * 3600 })).toEqual(['critical']);
  });

  it('a node whose NodeID is not known: "validation ends", without whose', () => {
    expect((evaluate(2 * DAY, { ...up, nodeId: undefined }) as Array<{ summary: string }>)[0]!.summary).toBe('validator-1: validation ends in 2d (2026-11-27 00:00 UTC, the end of its period)');
  });

  it('reads getCurrentValidators for every validation, and info.uptime only for one that renews', () => {
    const failing = (call: string, reason: 'timeout' | 'disabled' = 'timeout') => ({ problems: [{ call, reason, error: 'no answer' }] });
    const renewing = { ...up, primary: { ...validating.primary, autoRenewal: renewal(14 * DAY) } };
    expect(evaluate(2 * DAY, { ...up, ...failing('info.uptime') })).toMatchObject([{ severity: 'warning' }]);
    expect(evaluate(2 * DAY, { ...renewing, ...failing('platform.getValidatorFeeState') })).toEqual([]);
    expect(evaluate(2 * DAY, { ...up, ...failing('platform.getCurrentValidators') })).toBe(UNKNOWN);
    expect(evaluate(2 * DAY, { ...up, ...failing('platform.getCurrentValidators', 'disabled') })).toEqual([]);
    const noValidation = input({ ...validating, primary: undefined });
    expect(rule.evaluate(noValidation, ctx(rule), rule.newState!())).toEqual([]);
  });

  describe('what is true when it resolves before its end, and when it is over', () => {
    const fired = () => {
      const state = rule.newState!() as { periodEnd?: number };
      expect(evaluate(2 * DAY, up, undefined, state)).toHaveLength(1);
      return state;
    };
    const words = (left: number, report: Partial<ValidatorReport>, state: unknown = fired()) => {
      const { i, c } = before(left, report);
      return rule.recovered!(i, c, {}, state);
    };

    it('re-staked (a later endTime), renewing with the vote likely, not a validator, or nothing new to say', () => {
      const { i, c } = before(2 * DAY, up);
      const restaked = { ...i, observation: { ...i.observation, detail: { ...(i.observation.detail as ValidatorReport), primary: { ...validating.primary, startTime: START, endTime: END + 14 * DAY } } } };
      expect(rule.recovered!(restaked, c, {}, fired())).toBe('validating until 2026-12-11 00:00 UTC');
      expect(words(2 * DAY, { ...up, primary: { ...validating.primary, autoRenewal: renewal(14 * DAY) } })).toBe('the reward vote likely commits again: a new cycle starts at 2026-11-27 00:00 UTC');
      expect(words(2 * DAY, { ...up, notValidator: true })).toBe('not a validator now');
      expect(rule.recovered!(input({ ...validating, primary: undefined }), ctx(rule), {}, fired())).toBe('not a validator now');
      expect(words(2 * DAY, up)).toBeUndefined();
      expect(words(2 * DAY, { ...up, problems: [{ call: 'platform.getCurrentValidators', reason: 'timeout', error: 'no answer' }] })).toBeUndefined();
    });

    it('over from endTime on, once getCurrentValidators answers (another call failing does not matter)', () => {
      const over = (left: number, report: Partial<ValidatorReport> = up) => {
        const { i, c } = before(left, report);
        return rule.over!(i, c, fired());
      };
      expect(over(1)).toBe(false);
      expect(over(0)).toBe(true);
      expect(over(0, { ...up, problems: [{ call: 'info.uptime', reason: 'timeout', error: 'no answer' }] })).toBe(true);
      expect(over(0, { ...up, problems: [{ call: 'platform.getCurrentValidators', reason: 'timeout', error: 'no answer' }] })).toBe(false);
      expect(over(0, { ...up, problems: [{ call: 'platform.getCurrentValidators', reason: 'disabled', error: 'off' }] })).toBe(false);
      const { i, c } = before(0, up);
      expect(rule.over!(i, c, rule.newState!())).toBe(false);
    });

    it('without words of its own, a resolve says it in its phrases', () => {
      expect(resolveSummary('AvalancheValidatorEndingSoon', 'validator-1', {})).toBe('validator-1: validation no longer ending soon');
      expect(resolveSummary('AvalancheValidatorEndingSoon', 'validator-1', {}, undefined, 'target removed from the config')).toBe('validator-1: validation ending soon: no longer watched (target removed from the config)');
    });
  });

  describe('an auto-renewed validator whose renewal is in doubt (proposal_tx_executor.go, RewardAutoRenewedValidatorTx: removed on abort)', () => {
    const doubtful = (extra: Partial<ValidatorReport> = {}) => ({ ...validating, uptime: { rewardingStakeRatio: 0.3, weightedAverageRatio: 0.6 }, primary: { ...validating.primary, autoRenewal: renewal(14 * DAY) }, ...extra });

    it('pages as ending, with its scope', () => {
      const findings = evaluate(2 * DAY, doubtful());
      expect(findings).toMatchObject([{ identity: { scope: 'self' }, severity: 'warning', description: expect.stringContaining('renews only if the reward vote commits (ACP-236)') }]);
    });

    it("held through a restart's snapshot (model/uptime-snapshot.ts) and while info.uptime fails", () => {
      expect(evaluate(2 * DAY, doubtful({ uptimeSettling: { since: 0, ownStakeRatio: 0.01 } }))).toBe(UNKNOWN);
      expect(evaluate(2 * DAY, doubtful({ problems: [{ call: 'info.uptime', reason: 'timeout', error: 'no answer' }] }))).toBe(UNKNOWN);
    });

    it("waits for the fleet's view and for a network baseline read after the dip, then says scope=network", () => {
      const { i, c } = before(2 * DAY, doubtful());
      const state = rule.newState!();
      const at = i.observation.at;
      const views = (read: number, connected: number) => [{ observer: 'validator-2', medianUptimeRatio: 0.99, connectedStakeRatio: connected, at: read }];
      expect(rule.evaluate({ ...i, scopeAwaited: true }, c, state)).toBe(UNKNOWN);
      i.observed = { nodeId: 'NodeID-A', network: 'mainnet', stakingPort: 9651, views: [], baseline: { network: 'mainnet', views: views(at - 2, 0.99) } };
      expect(rule.evaluate(i, c, state)).toBe(UNKNOWN);
      i.observed = { ...i.observed, baseline: { network: 'mainnet', views: views(at + 3, 0.3) } };
      expect(rule.evaluate({ ...i, observation: { ...i.observation, at: at + 4 } }, c, state)).toMatchObject([{ identity: { scope: 'network' } }]);
    });
  });

  describe("ends at endTime, at once, with the period's outcome (model/periods.ts)", () => {
    const tracked = { txId: 'tx1', startTime: START, endTime: END, potentialRewardNAvax: 117_431_493_426, renews: false, autoRenewed: false };
    const fired = () => {
      const state = rule.newState!();
      expect(evaluate(2 * DAY, up, undefined, state)).toHaveLength(1);
      return state;
    };
    const after = (seconds: number, report: Partial<ValidatorReport>, state: unknown) => {
      const { i, c } = before(-seconds, report);
      return { findings: rule.evaluate(i, c, state), over: rule.over!(i, c, state), words: rule.recovered!(i, c, {}, state) };
    };

    it('still listed after its end, outcome not known yet', () => {
      expect(after(5, { ...up, periods: { tracking: tracked, outcomes: [] } }, fired())).toEqual({ findings: [], over: true, words: 'validation period ended; outcome not known yet' });
    });

    it('removed and paid, removed unpaid', () => {
      const outcome = { ...tracked, decidedAt: END + 5, evidence: 'platform.getRewardUTXOs' };
      expect(after(5, { notValidator: true, primary: undefined, periods: { outcomes: [{ ...outcome, rewarded: true, validationRewardNAvax: 117_431_493_426 }] } } as Partial<ValidatorReport>, fired())).toEqual({ findings: [], over: true, words: 'validation period ended, paid 117.4 AVAX' });
      expect(after(5, { notValidator: true, primary: undefined, periods: { outcomes: [{ ...outcome, rewarded: false, validationRewardNAvax: 0 }] } } as Partial<ValidatorReport>, fired()).words).toBe('validation period ended unpaid: 117.4 AVAX forfeited');
    });

    it('not over before its end', () => {
      const state = fired();
      const { i, c } = before(DAY, up);
      expect(rule.over!(i, c, state)).toBe(false);
    });
  });
});

describe('a sudden drop waits for a network baseline read after it, then decides its scope', () => {
  // AvalancheGo network/network.go (NodeUptime): info.uptime counts the stake the node is not
  // connected to as 0 % and not rewarding, at once. When the whole network dips, every validator's
  // figures fall in the same poll, while a baseline read before the dip still shows it normal.
  const dropped = { ...validating, uptime: { rewardingStakeRatio: 0.7, weightedAverageRatio: 0.7 } };
  const before = { observer: 'validator-2', medianUptimeRatio: 0.99, connectedStakeRatio: 0.99, at: NOW - 2 };
  const after = { observer: 'validator-2', medianUptimeRatio: 0.99, connectedStakeRatio: 0.7, at: NOW + 3 };
  const observed = (at: number, views: NetworkBaselineViews['views']): ValidatorInput => {
    const i = input(dropped);
    i.observation = { ...i.observation, at };
    i.observed = { nodeId: 'NodeID-1', network: 'mainnet', stakingPort: 9651, views: [], baseline: { network: 'mainnet', views } };
    return i;
  };

  for (const rule of [AvalancheValidatorRewardAtRisk, AvalancheValidatorDowntimeBudgetLow] as AnyRule[]) {
    it(`${rule.name}: held while the baseline predates the drop, then scope="network"`, () => {
      const state = rule.newState!();
      expect(rule.evaluate(observed(NOW, [before]), ctx(rule), state)).toBe(UNKNOWN);
      const [finding] = rule.evaluate(observed(NOW + 4, [after]), ctx(rule), state) as Array<{ identity: Record<string, string> }>;
      expect(finding!.identity).toEqual({ scope: 'network' });
    });

    it(`${rule.name}: waits for the next reading however late it comes (a busy machine), then decides on it (scope="self")`, () => {
      const state = rule.newState!();
      expect(rule.evaluate(observed(NOW, [before]), ctx(rule), state)).toBe(UNKNOWN);
      expect(rule.evaluate(observed(NOW + 20, [before]), ctx(rule), state)).toBe(UNKNOWN);
      const [finding] = rule.evaluate(observed(NOW + 21, [{ ...before, at: NOW + 20 }]), ctx(rule), state) as Array<{ identity: Record<string, string> }>;
      expect(finding!.identity).toEqual({ scope: 'self' });
    });

    it(`${rule.name}: decided on what there is once the old reading is dropped as stale (scope="self")`, () => {
      const state = rule.newState!();
      expect(rule.evaluate(observed(NOW, [before]), ctx(rule), state)).toBe(UNKNOWN);
      const stale = observed(NOW + 30, []);
      delete stale.observed!.baseline;
      const [finding] = rule.evaluate(stale, ctx(rule), state) as Array<{ identity: Record<string, string> }>;
      expect(finding!.identity).toEqual({ scope: 'self' });
    });

    it(`${rule.name}: a verdict that ended starts over: the next drop waits again`, () => {
      const state = rule.newState!();
      rule.evaluate(observed(NOW, [before]), ctx(rule), state);
      expect(rule.evaluate(observed(NOW + 6, [{ ...before, at: NOW + 5 }]), ctx(rule), state)).not.toBe(UNKNOWN);
      const recovered = input({ ...validating, uptime: { rewardingStakeRatio: 0.99, weightedAverageRatio: 0.99 } });
      expect(rule.evaluate(recovered, ctx(rule), state)).toEqual([]);
      expect(rule.evaluate(observed(NOW + 60, [{ ...before, at: NOW + 50 }]), ctx(rule), state)).toBe(UNKNOWN);
    });
  }
});

describe("at a period's end the reward and budget alerts end with its outcome, never as good news (proposal_tx_executor.go)", () => {
  const rules = [AvalancheValidatorRewardAtRisk, AvalancheValidatorDowntimeBudgetLow] as AnyRule[];
  const low = { ...validating, uptime: { rewardingStakeRatio: 0.3, weightedAverageRatio: 0.6 } };
  const tracked = { txId: 'tx1', startTime: START, endTime: END, potentialRewardNAvax: 117_431_493_426, renews: true, autoRenewed: true };
  /** A poll `seconds` after the period's end, with `report`. */
  const after = (seconds: number, report: Partial<ValidatorReport>) => {
    const full: ValidatorReport = { l1: [], problems: [], ...report };
    full.economics = economicsOf(full, END + seconds);
    const i: ValidatorInput = { observation: { endpoint: 'validator', view: 'all', ok: true, durationSeconds: 0, at: END + seconds, detail: full } };
    return { i, c: (rule: AnyRule) => ({ ...ctx(rule), now: (END + seconds) * 1000 }) };
  };
  const fired = (rule: AnyRule) => {
    const state = rule.newState!();
    expect(rule.evaluate(input(low), ctx(rule), state)).toHaveLength(1);
    return state;
  };

  for (const rule of rules) {
    it(`${rule.name}: removed at the end of its cycle: "ended unpaid", at once`, () => {
      const state = fired(rule);
      const outcome = { ...tracked, rewarded: false, validationRewardNAvax: 0, evidence: 'removed', decidedAt: END + 10 };
      const { i, c } = after(10, { notValidator: true, periods: { outcomes: [outcome] } });
      expect(rule.evaluate(i, c(rule), state)).toEqual([]);
      expect(rule.over!(i, c(rule), state)).toBe(true);
      expect(rule.recovered!(i, c(rule), {}, state)).toBe('validation cycle ended unpaid: 117.4 AVAX forfeited');
    });

    it(`${rule.name}: renewed (the vote committed): "ended, paid"; still listed after its end: "not known yet"`, () => {
      const state = fired(rule);
      const outcome = { ...tracked, rewarded: true, validationRewardNAvax: 117_431_493_426, evidence: 'renewed', decidedAt: END + 10 };
      const renewed = after(10, { ...validating, primary: { ...validating.primary, startTime: END, endTime: END + 14 * DAY }, uptime: { rewardingStakeRatio: 1, weightedAverageRatio: 1 }, periods: { outcomes: [outcome] } });
      expect(rule.recovered!(renewed.i, renewed.c(rule), {}, state)).toBe('validation cycle ended, paid 117.4 AVAX');
      // its AutoCompoundRewardShares restaked, the rest paid out (proposal_tx_executor.go, restakeAutoRenewedValidatorOnCommit)
      const split = after(10, { ...validating, primary: { ...validating.primary, startTime: END, endTime: END + 14 * DAY }, uptime: { rewardingStakeRatio: 1, weightedAverageRatio: 1 }, periods: { outcomes: [{ ...outcome, restakedNAvax: 35_229_448_028, restakedEstimated: true }] } });
      expect(rule.recovered!(split.i, split.c(rule), {}, state)).toBe('validation cycle ended, paid 117.4 AVAX: about 35.23 AVAX restaked, 82.20 AVAX paid out');
      const listed = after(5, { ...low, periods: { tracking: { ...tracked, renews: false, autoRenewed: false }, outcomes: [] } });
      expect(rule.recovered!(listed.i, listed.c(rule), {}, state)).toBe('validation period ended; outcome not known yet');
    });
  }

  it('before its end, recovered words are what is true now', () => {
    const state = fired(AvalancheValidatorRewardAtRisk as AnyRule);
    expect((AvalancheValidatorRewardAtRisk as AnyRule).over!(input(validating), ctx(AvalancheValidatorRewardAtRisk as AnyRule), state)).toBe(false);
  });
});

describe("a resolve's words: what is true now, never the firing's", () => {
  const recovered = (rule: unknown, i: ValidatorInput, labels: Record<string, string> = {}) => (rule as AnyRule).recovered!(i, ctx(rule as AnyRule), labels);
  const fee = { priceNAvaxPerSecond: 512 };
  const l1 = { subnet_id: SUBNET, validation_id: VALIDATION };

  it('an L1 validation: topped up to its balance and runway, active again, empty or gone', () => {
    const topped = input({ l1: [{ subnetId: SUBNET, validationId: VALIDATION, balanceNAvax: 31_200_000_000 }], feeState: fee });
    expect(recovered(AvalancheL1ValidatorBalanceLow, topped, l1)).toBe('L1 validation 2H7p… balance topped up to 31.20 AVAX: 705.3 days of runway at 512 nAVAX/s');
    expect(recovered(AvalancheL1ValidatorInactive, topped, l1)).toBe('L1 validation 2H7p… active again, balance 31.20 AVAX: 705.3 days of runway at 512 nAVAX/s');
    expect(recovered(AvalancheL1ValidatorBalanceLow, input({ l1: [{ subnetId: SUBNET, validationId: VALIDATION, balanceNAvax: 0 }], feeState: fee }), l1)).toBe('L1 validation 2H7p… ran out of balance: inactive until topped up');
    expect(recovered(AvalancheL1ValidatorBalanceLow, input({ l1: [], feeState: fee }), l1)).toBe("L1 validation 2H7p… is no longer one of the node's validations");
  });

  it('the reward, the downtime budget and the version, with their figures now', () => {
    expect(recovered(AvalancheValidatorRewardAtRisk, input({ ...validating, uptime: { rewardingStakeRatio: 0.93, weightedAverageRatio: 0.99 } }))).toBe('reward no longer at risk: 93 % of stake sees its uptime at or above the 90 % requirement');
    expect(recovered(AvalancheValidatorDowntimeBudgetLow, input({ ...validating, uptime: { rewardingStakeRatio: 1, weightedAverageRatio: 0.99 } }))).toBe("downtime budget recovered: 31.2 h left (92.9 % of the period's 33.6 h) until 2026-11-27 00:00 UTC");
    expect(recovered(AvalancheValidatorRewardAtRisk, input({ notValidator: true }))).toBe('not a validator now');
    expect(recovered(AvalancheNodeVersionBehind, input({ version: 'avalanche/1.15.2' }, [{ version: 'avalanche/1.15.2', amountStakedNAvax: 1 }]))).toBe('version up to date: runs avalanche/1.15.2');
    // nothing known now: the resolved phrase says it
    expect(recovered(AvalancheValidatorRewardAtRisk, input({ problems: [{ call: 'info.uptime', reason: 'timeout', error: 'no answer' }] }))).toBeUndefined();
  });
});

describe('a v1.15 restart: info.uptime "still bootstrapping" (snow/uptime/locked_calculator.go, api/info/service.go) is not yet', () => {
  it('the uptime verdicts stay as they are; the others go on', () => {
    const bootstrapping = input({ ...validating, uptimeBootstrapping: true });
    expect(run(AvalancheValidatorRewardAtRisk as AnyRule, bootstrapping)).toBe(UNKNOWN);
    expect(run(AvalancheValidatorDowntimeBudgetLow as AnyRule, bootstrapping)).toBe(UNKNOWN);
    expect(run(AvalancheNodeVersionBehind as AnyRule, bootstrapping)).toEqual([]);
  });
});

describe('a P-Chain still bootstrapping (info.isBootstrapped false): its lists are of a past height, not known yet', () => {
  // A resync from an empty database: the validator set is loaded from the P-Chain's own state and
  // moves with each block accepted (vms/platformvm/state/state.go initValidatorSets,
  // writeCurrentStakers), so until it is bootstrapped (chains/manager.go IsBootstrapped)
  // info.uptime says "node is not a validator" and getCurrentValidators lacks the validation.
  const notYet = (call: string) => ({ call, reason: 'bootstrapping' as const, error: 'not known yet: the P-Chain is still bootstrapping (info.isBootstrapped), its lists of a past height' });
  const resyncing = input({
    heliconTime: HELICON,
    pChainBootstrapping: true,
    uptimeBootstrapping: true,
    problems: [notYet('platform.getCurrentValidators'), notYet(`platform.getCurrentValidators ${SUBNET}`), notYet('platform.getValidatorFeeState')],
  });

  it('every validation verdict stays as it is: none resolves as "not a validator now" or "no validation"', () => {
    for (const rule of [AvalancheValidatorRewardAtRisk, AvalancheValidatorDowntimeBudgetLow, AvalancheValidatorEndingSoon, AvalancheL1ValidatorBalanceLow, AvalancheL1ValidatorInactive]) {
      expect(run(rule as AnyRule, resyncing), rule.name).toBe(UNKNOWN);
    }
    expect(AvalancheValidatorRewardAtRisk.recovered?.(resyncing, ctx(AvalancheValidatorRewardAtRisk as AnyRule), {}, undefined)).toBeUndefined();
  });

  it('what the same answers said without asking: "not a validator", and the verdicts ended', () => {
    const taken = input({ heliconTime: HELICON, notValidator: true });
    expect(run(AvalancheValidatorEndingSoon as AnyRule, taken)).toEqual([]);
    expect(run(AvalancheValidatorRewardAtRisk as AnyRule, taken)).toEqual([]);
    expect(AvalancheValidatorRewardAtRisk.recovered?.(taken, ctx(AvalancheValidatorRewardAtRisk as AnyRule), {}, undefined)).toBe('not a validator now');
  });
});

describe("docs/validators.md's verdict table: one row per validator and L1 rule, with the AvalancheGo source it follows", () => {
  it('every rule of the validator poll, the fleet view and the network has its row and a source file', async () => {
    const { readFileSync } = await import('node:fs');
    const doc = readFileSync(new URL('../../../docs/validators.md', import.meta.url), 'utf8');
    const section = doc.slice(doc.indexOf('## What AvalancheGo does, verdict by verdict'));
    const rows = section.slice(0, section.indexOf('\n## ', 3)).split('\n').filter((line) => line.startsWith('| `'));
    const rules = (['validator', 'observed', 'fleet'] as const).flatMap((source) => rulesOf(source).map((r) => r.name));
    expect(rules.length).toBeGreaterThanOrEqual(9);
    for (const name of rules) {
      const row = rows.find((line) => line.startsWith(`| \`${name}\` |`));
      expect(row, `a row for ${name}`).toBeDefined();
      // its last cell names AvalancheGo source files (a path in backticks)
      const cells = row!.split(' | ');
      expect(cells.at(-1), `${name}'s source`).toMatch(/`[a-z0-9_]+\/[a-z0-9_/.]+(\.go)?`/);
    }
  });
});

// Upgrade day (issue 44.4): a peer still bootstrapping sends 0 % in every Ping (AvalancheGo
// network/peer/peer.go getUptime; snow/uptime/locked_calculator.go errStillBootstrapping), and
// info.uptime counts it at 0 % and not rewarding (network/network.go NodeUptime).
describe('peers bootstrapping report 0 % for everyone (upgrade day)', () => {
  const risk = AvalancheValidatorRewardAtRisk as AnyRule;
  const budget = AvalancheValidatorDowntimeBudgetLow as AnyRule;
  // 30 % of the stake pings 0: 70 % rewarding, weighted 69.3 % (99 % of the rest).
  const upgradeDay = { ...validating, uptime: { rewardingStakeRatio: 0.7, weightedAverageRatio: 0.693 } };

  it('RewardAtRisk: scope="network", a warning that names them and what the rest sees', () => {
    const [finding] = run(risk, input({ ...upgradeDay, bootstrappingPeers: { peers: 27, stakeRatio: 0.3 } })) as Array<{ identity: object; severity: string; summary: string; description: string }>;
    expect(finding!.identity).toEqual({ scope: 'network' });
    expect(finding!.severity).toBe('warning');
    expect(finding!.summary).toBe('validator-1: 27 peers holding 30 % of the stake are bootstrapping and report 0 % for everyone; only 70 % of stake sees its uptime at or above the 90 % requirement now, and not for any downtime of its own');
    expect(finding!.description).toContain("Not this validator's doing: 27 peers holding 30 % of the stake are bootstrapping and report 0 % for everyone");
    expect(finding!.description).toContain('without them 100 % of the stake sees its uptime at or above the requirement.');
    expect(finding!.description).not.toContain('avoid restarts');
  });

  it('DowntimeBudgetLow: scope="network" with the budget left without them', () => {
    const [finding] = run(budget, input({ ...upgradeDay, bootstrappingPeers: { peers: 27, stakeRatio: 0.3 } })) as Array<{ identity: object; severity: string; summary: string; description: string }>;
    expect(finding!.identity).toEqual({ scope: 'network' });
    expect(finding!.severity).toBe('warning');
    expect(finding!.summary).toMatch(/^validator-1: 27 peers holding 30 % of the stake are bootstrapping and report 0 % for everyone; the budget reads low from those Pings: downtime budget overspent by 40\.1 h \(period ends 2026-11-27 00:00 UTC\)$/);
    // Without them 99 % (2.4 h of 240 h elapsed down) of the 33.6 h allowance (10 % of 14 days).
    expect(finding!.description).toContain('without them 31.2 h of the 33.6 h downtime budget is left.');
  });

  it("stays the validator's own when the rest does not clear the bar, when none report 0, or when they hold half the stake", () => {
    // 30 % pinging 0, and the rest sees it at 60 % rewarding: its own problem too.
    const low = { ...validating, uptime: { rewardingStakeRatio: 0.42, weightedAverageRatio: 0.6 } };
    for (const report of [
      { ...low, bootstrappingPeers: { peers: 27, stakeRatio: 0.3 } },
      { ...upgradeDay, bootstrappingPeers: { peers: 0, stakeRatio: 0 } },
      { ...upgradeDay },
      { ...upgradeDay, uptime: { rewardingStakeRatio: 0.45, weightedAverageRatio: 0.45 }, bootstrappingPeers: { peers: 900, stakeRatio: 0.55 } },
    ]) {
      const [finding] = run(risk, input(report)) as Array<{ identity: object; summary: string }>;
      expect(finding!.identity).toEqual({ scope: 'self' });
      expect(finding!.summary).not.toContain('bootstrapping');
    }
  });
});

// At a period's end the reward vote commits or aborts (vms/platformvm/txs/executor/proposal_tx_executor.go):
// a plain validator's principal is returned either way; an auto-renewed one (ACP-236) is removed on abort.
describe('AvalancheValidatorRewardMissed: a period that ended unpaid, once, open until it validates again or a day', () => {
  const rule = AvalancheValidatorRewardMissed as AnyRule;
  const ENDED = NOW - 3600;
  const unpaid = (more: Partial<PeriodOutcome> = {}): PeriodOutcome => ({
    txId: 'tx',
    startTime: ENDED - 14 * DAY,
    endTime: ENDED,
    potentialRewardNAvax: 117_431_493_426,
    renews: false,
    autoRenewed: false,
    uptimeRatio: 0.84,
    requirement: 0.9,
    rewarded: false,
    evidence: 'removed from the validator set without a reward UTXO',
    decidedAt: ENDED + 600,
    ...more,
  });
  const withPeriods = (periods: PeriodEntry | undefined) => input({ ...validating, ...(periods ? { periods } : {}) });
  const summaryOf = (periods: PeriodEntry) => (run(rule, withPeriods(periods)) as Array<{ summary: string }>).map((f) => f.summary);

  it('pages critical with the period, what was forfeited, the uptime peers saw and what to do', () => {
    expect(run(rule, withPeriods({ outcomes: [unpaid()] }))).toEqual([
      {
        identity: {},
        severity: 'critical',
        summary: 'validator-1: validation period 2026-11-08 – 2026-11-22 ended unpaid: 117.4 AVAX forfeited',
        description: 'The reward vote aborted (removed from the validator set without a reward UTXO); uptime as peers saw it 84 % (requirement 90 %). The principal is returned; re-stake to validate again.',
      },
    ]);
  });

  it("an auto-renewed validator's cycle: removed on abort whatever nextPeriod says; what is not known is said so", () => {
    const [finding] = run(rule, withPeriods({ outcomes: [unpaid({ autoRenewed: true, renews: true, potentialRewardNAvax: undefined, uptimeRatio: undefined, disagreement: 'the Data API says it was rewarded' })] })) as Array<{ summary: string; description: string }>;
    expect(finding!.summary).toBe('validator-1: validation cycle 2026-11-08 – 2026-11-22 ended unpaid: its reward forfeited');
    expect(finding!.description).toBe(
      'The reward vote aborted (removed from the validator set without a reward UTXO); uptime unknown. An auto-renewed validator is removed when its vote aborts, whatever nextPeriod says (ACP-236): re-stake to validate again. Note: the Data API says it was rewarded.',
    );
    expect((run(rule, withPeriods({ outcomes: [unpaid({ requirement: undefined })] })) as Array<{ description: string }>)[0]!.description).toContain('; uptime as peers saw it 84 %. The principal');
  });

  it('only the newest outcome counts, and only when it is known unpaid', () => {
    expect(summaryOf({ outcomes: [unpaid({ rewarded: true }), unpaid()] })).toEqual([]);
    expect(summaryOf({ outcomes: [unpaid({ rewarded: null })] })).toEqual([]);
    expect(summaryOf({ outcomes: [] })).toEqual([]);
  });

  it('ends when the node validates again (a period starting at or after the end) or a day after it was learnt', () => {
    const tracking = (startTime: number) => ({ txId: 'tx2', startTime, endTime: startTime + 14 * DAY, renews: false, autoRenewed: false });
    expect(summaryOf({ outcomes: [unpaid()], tracking: tracking(ENDED) })).toEqual([]);
    expect(summaryOf({ outcomes: [unpaid()], tracking: tracking(ENDED - 1) })).toHaveLength(1);
    expect(summaryOf({ outcomes: [unpaid({ decidedAt: NOW - DAY })] })).toHaveLength(1);
    expect(summaryOf({ outcomes: [unpaid({ decidedAt: NOW - DAY - 1 })] })).toEqual([]);
  });

  it('unknown (its alert stays as it is) while the ledger has nothing for the node', () => {
    expect(run(rule, withPeriods(undefined))).toBe(UNKNOWN);
  });
});

// info.getNodeIP answers the IP:port the node advertises (api/info/service.go GetNodeIP), which
// --public-ip-resolution-service re-resolves every --public-ip-resolution-frequency (utils/dynamicip/updater.go).
describe('AvalancheValidatorPublicIpChanged: a notice for an hour after the advertised IP:port changed', () => {
  const rule = AvalancheValidatorPublicIpChanged as AnyRule;
  const change = (secondsAgo: number) => ({ publicIp: '203.0.113.9:9651', publicIpChange: { from: '198.51.100.4:9651', to: '203.0.113.9:9651', at: NOW - secondsAgo } });

  it('says from what to what, how long ago, and what to check', () => {
    expect(run(rule, input({ ...validating, ...change(600) }))).toEqual([
      {
        identity: {},
        severity: 'warning',
        summary: 'validator-1: public IP changed from 198.51.100.4:9651 to 203.0.113.9:9651 (10m ago): check that its staking port is reachable there',
        description:
          'The IP:port the node advertises to its peers (info.getNodeIP) is now 203.0.113.9:9651, was 198.51.100.4:9651. Peers learn the new address from its signed IP gossip; until they do, or if the staking port is not reachable at the new address (NAT, firewall, a stale --public-ip), they cannot reconnect and its uptime falls. AvalancheGo re-resolves it every --public-ip-resolution-frequency (5m) when --public-ip-resolution-service is set.',
      },
    ]);
    // A poll whose clock reads the change a little ahead says 0s, never a negative age.
    expect((run(rule, input({ ...validating, ...change(-5) })) as Array<{ summary: string }>)[0]!.summary).toContain('(0s ago)');
  });

  it('for the threshold (an hour, tunable) after the change, and only for a node that validates', () => {
    const fires = (secondsAgo: number, report: Partial<ValidatorReport> = validating, tuning?: RuleTuning) => (run(rule, input({ ...report, ...change(secondsAgo) }), tuning) as unknown[]).length;
    expect(fires(3599)).toBe(1);
    expect(fires(3600)).toBe(0);
    expect(fires(7199, validating, { threshold: 7200 })).toBe(1);
    expect(fires(60, { version: 'avalanche/1.15.2' })).toBe(0);
    expect(fires(60, { l1: [{ validationId: VALIDATION, subnetId: SUBNET } as ValidatorReport['l1'][number]] })).toBe(1);
    expect(run(rule, input({ ...validating, publicIp: '203.0.113.9:9651' }))).toEqual([]);
  });

  it('unknown while info.getNodeIP fails; nothing, and no resolve words, with the info API off', () => {
    const failing = input({ ...validating, ...change(60), problems: [{ call: 'info.getNodeIP', reason: 'timeout', error: 'timed out' }] });
    expect(run(rule, failing)).toBe(UNKNOWN);
    const off = input({ ...validating, ...change(60), problems: [{ call: 'info.getNodeIP', reason: 'disabled', error: 'info API off' }] });
    expect(run(rule, off)).toEqual([]);
    expect(rule.recovered!(off, ctx(rule), {}, undefined)).toBeUndefined();
  });

  it('resolves saying for how long the address held, per its threshold', () => {
    expect(rule.recovered!(input({ ...validating, ...change(3600) }), ctx(rule), {}, undefined)).toBe('public IP unchanged for 60m: 203.0.113.9:9651');
    expect(rule.recovered!(input({ ...validating, ...change(3600) }), ctx(rule, { threshold: 3 * 3600 }), {}, undefined)).toBe('public IP unchanged for 3h: 203.0.113.9:9651');
    expect(rule.recovered!(input({ ...validating }), ctx(rule), {}, undefined)).toBeUndefined();
  });
});

// In a dip every validator's figures fall together: a node's info.uptime counts the stake it is not
// connected to as 0 at once (network/network.go NodeUptime), and the network baseline
// (platform.getCurrentValidators of a few fleet nodes, vms/platformvm/service.go) says it is everyone.
describe('AvalancheNetworkDegraded: one notice per network naming the validators it touches', () => {
  const rule = AvalancheNetworkDegraded as AnyRule;
  const fleetCtx: RuleContext = { ...ctx(rule), target: 'mainnet network', label: (v) => `net-${v}` };
  const run = (input: Partial<FleetInput>) => rule.evaluate({ network: 'mainnet', validators: 5, affected: [], complete: true, settled: true, ...input }, fleetCtx, undefined);
  const DIP = 'validator-1: only 35 % of stake sees its uptime at or above the 90 % requirement now';
  const UPGRADE_DAY = 'validator-1: 12 peers holding 40 % of stake are bootstrapping and report 0 % for everyone; only 55 % of stake sees its uptime';

  it('a dip: how many of how many, which, and what the first of them sees', () => {
    expect(run({ affected: [{ target: 'validator-1', summaries: [DIP, 'second'] }, { target: 'validator-2', summaries: [] }] })).toEqual([
      {
        identity: { network: 'net-mainnet', scope: 'network' },
        severity: 'warning',
        summary: 'mainnet: every validator looks down from the fleet: 2 of your 5 validators affected (validator-1 and validator-2)',
        description: `A network-wide dip, or the fleet's own connectivity: no action on one validator helps; check the fleet's network and the network's status. Their own reward, budget and reachability alerts wait while this lasts; a validator whose own node says it is cut off pages on its own. As validator-1 sees it: ${DIP}`,
      },
    ]);
    const [one] = run({ validators: 1, affected: [{ target: 'validator-1', summaries: [] }] }) as Array<{ summary: string; description: string }>;
    expect(one!.summary).toBe('mainnet: every validator looks down from the fleet: 1 of your 1 validator affected (validator-1)');
    expect(one!.description).toMatch(/pages on its own\.$/);
  });

  it('an upgrade day (every summary of every affected validator is one) says so, and that no one was down', () => {
    const [finding] = run({ affected: [{ target: 'validator-1', summaries: [UPGRADE_DAY] }, { target: 'validator-2', summaries: [UPGRADE_DAY, UPGRADE_DAY] }] }) as Array<{ summary: string; description: string }>;
    expect(finding!.summary).toBe('mainnet: peers bootstrapping report 0 % for every validator, as on an upgrade day: 2 of your 5 validators affected (validator-1 and validator-2)');
    expect(finding!.description).toMatch(/^Validators that restarted are bootstrapping: until its P-Chain is, a node sends 0 % in its Pings for everyone, .* No action helps; the figures climb back as they finish\. Their own reward/);
    const mixed = (summaries: string[]) => (run({ affected: [{ target: 'validator-1', summaries: [UPGRADE_DAY] }, { target: 'validator-2', summaries }] }) as Array<{ summary: string }>)[0]!.summary;
    expect(mixed([UPGRADE_DAY, DIP])).toMatch(/^mainnet: every validator looks down from the fleet/);
    expect(mixed([])).toMatch(/^mainnet: every validator looks down from the fleet/);
  });

  it('waits (settling) until each validator has had a verdict since the first was affected', () => {
    expect(run({ settled: false, affected: [{ target: 'validator-1', summaries: [DIP] }] })).toEqual([expect.objectContaining({ settling: true })]);
    expect((run({ affected: [{ target: 'validator-1', summaries: [DIP] }] }) as object[])[0]).not.toHaveProperty('settling');
  });

  it('nothing once no validator is affected and each has had a verdict; unknown before that', () => {
    expect(run({})).toEqual([]);
    expect(run({ complete: false })).toBe(UNKNOWN);
  });

  it('holds back the network-wide copies of the reward, budget and reachability alerts across the network', () => {
    expect(rule.inhibits!.map((i) => [i.alertname, i.labels, i.across])).toEqual([
      ['AvalancheValidatorRewardAtRisk', { scope: 'network' }, 'network'],
      ['AvalancheValidatorDowntimeBudgetLow', { scope: 'network' }, 'network'],
      ['AvalancheValidatorUnreachableByPeers', { scope: 'network' }, 'network'],
    ]);
    expect(rule.inhibits![0]!.because).toBe('every validator looks down from the fleet: one notice for the network, not one AvalancheValidatorRewardAtRisk per validator');
  });
});
