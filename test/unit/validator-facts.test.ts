/**
 * What the validator rules share (src/alerts/rules/validator-facts.ts), read directly: when a part
 * of the validator poll counts as known, how a period's end and outcome are said, when a verdict's
 * scope waits, and how amounts, shares and durations read in a page. The rules' own tests
 * (validator-rules.test.ts) read these through whole findings; these pin each edge.
 */
import { describe, expect, it } from 'vitest';
import { UNKNOWN, type ValidatorInput } from '../../src/alerts/rules/rule.js';
import {
  aboutPeriod,
  avax,
  bootstrappingExcuse,
  budgetLeft,
  cycleEnd,
  day,
  days,
  endsAt,
  hours,
  isUpgradeDaySummary,
  l1Standing,
  newScopeWait,
  noVerdict,
  outcomeWords,
  percent,
  PERIOD_END_TOLD_SECONDS,
  PROM_TOP_UP,
  PERIOD_OUTCOME,
  periodEnded,
  periodOf,
  periodOver,
  reportFor,
  scopeFor,
  scopeWaits,
  shortId,
  topUp,
  uptimeVerdictWaits,
  VIEW_WAIT_POLLS,
} from '../../src/alerts/rules/validator-facts.js';
import type { NetworkBaselineViews, ObservedReport } from '../../src/model/observed.js';
import type { PeriodOutcome, TrackedPeriod } from '../../src/model/periods.js';
import type { AutoRenewal, ValidatorReport } from '../../src/model/validator.js';
import { failing, nodeState } from '../helpers/states.js';

const DAY = 86_400;
const END = Date.UTC(2026, 10, 27, 0) / 1000;
const NOW = END - 3 * DAY;

const report = (extra: Partial<ValidatorReport> = {}): ValidatorReport => ({ l1: [], problems: [], ...extra });
const inputOf = (r: ValidatorReport | undefined, extra: Partial<ValidatorInput> = {}, at = NOW): ValidatorInput => ({
  observation: { endpoint: 'validator', view: 'all', ok: true, durationSeconds: 0, at, ...(r ? { detail: r } : {}) },
  ...extra,
});
const period = (extra: Partial<TrackedPeriod> = {}): TrackedPeriod => ({ txId: 'tx', startTime: END - 14 * DAY, endTime: END, renews: false, autoRenewed: false, ...extra });
const outcome = (extra: Partial<PeriodOutcome> = {}): PeriodOutcome => ({ ...period(), rewarded: true, evidence: 'the validator set', decidedAt: END, ...extra });
const observed = (b: NetworkBaselineViews): ObservedReport => ({ nodeId: 'NodeID-x', network: 'mainnet', stakingPort: 9651, views: [], baseline: b });
const renewal = (nextPeriodSeconds: number): AutoRenewal => ({ nextPeriodSeconds, renews: nextPeriodSeconds > 0, autoCompoundRatio: 0, authorityAddresses: [] });
const baseline = (at: number, median = 0.99, connected = 0.95): NetworkBaselineViews => ({ network: 'mainnet', views: [{ observer: 'o1', medianUptimeRatio: median, connectedStakeRatio: connected, at }] });

describe('reportFor: whether the calls a rule needs answered', () => {
  const uptimeOnly = (call: string) => call === 'info.uptime';
  it('no validator report yet, or the uptime still bootstrapping for a rule that reads it: unknown', () => {
    expect(reportFor(inputOf(undefined), uptimeOnly)).toBe(UNKNOWN);
    expect(reportFor(inputOf(report({ uptimeBootstrapping: true })), uptimeOnly)).toBe(UNKNOWN);
    const r = report({ uptimeBootstrapping: true });
    expect(reportFor(inputOf(r), () => false)).toBe(r);
  });
  it('a failed call it reads: unknown; every one switched off: null; a failure of a call it does not read: the report', () => {
    const failed = report({ problems: [{ call: 'info.uptime', reason: 'timeout', error: 'timed out' }] });
    expect(reportFor(inputOf(failed), uptimeOnly)).toBe(UNKNOWN);
    expect(reportFor(inputOf(failed), () => false)).toBe(failed);
    const off = report({ problems: [{ call: 'info.uptime', reason: 'disabled', error: 'info API off' }] });
    expect(reportFor(inputOf(off), uptimeOnly)).toBeNull();
    const both = report({ problems: [{ call: 'info.uptime', reason: 'disabled', error: 'off' }, { call: 'info.peers', reason: 'timeout', error: 'timed out' }] });
    expect(reportFor(inputOf(both), () => true)).toBe(UNKNOWN);
  });
});

describe('how a period and its end are said', () => {
  it('cycle for an auto-renewed validator, period otherwise', () => {
    expect(periodOf(undefined)).toBe('period');
    expect(periodOf({ startTime: 0, endTime: END })).toBe('period');
    expect(periodOf({ startTime: 0, endTime: END, autoRenewal: renewal(0) })).toBe('cycle');
  });

  it('the budget left, overspent, and per cycle with what happens at its end', () => {
    const primary = { startTime: END - 14 * DAY, endTime: END };
    const economics = (left: number) => ({ downtimeBudgetRemainingSeconds: left, downtimeAllowanceSeconds: 33.6 * 3600 }) as ValidatorReport['economics'];
    expect(budgetLeft(report({ primary, economics: economics(12 * 3600) }))).toBe('12.0 h of the 33.6 h downtime budget left until 2026-11-27 00:00 UTC');
    expect(budgetLeft(report({ primary, economics: economics(0) }))).toBe('0.0 h of the 33.6 h downtime budget left until 2026-11-27 00:00 UTC');
    expect(budgetLeft(report({ primary, economics: economics(-1.5 * 3600) }))).toBe('downtime budget overspent by 1.5 h (the period ends 2026-11-27 00:00 UTC)');
    const cycle = { ...primary, autoRenewal: renewal(0) };
    expect(budgetLeft(report({ primary: cycle, economics: economics(3600) }))).toBe("1.0 h of this cycle's 33.6 h downtime budget left until 2026-11-27 00:00 UTC (it exits then)");
    expect(budgetLeft(report({ primary: cycle, economics: economics(-3600) }))).toBe("this cycle's downtime budget overspent by 1.0 h (the cycle ends 2026-11-27 00:00 UTC (it exits then))");
    expect(budgetLeft(report({ economics: economics(3600) }))).toBe('');
    expect(budgetLeft(report({ primary }))).toBe('');
    expect(budgetLeft(report({ primary, economics: { downtimeAllowanceSeconds: 3600 } as ValidatorReport['economics'] }))).toBe('');
    expect(budgetLeft(report({ primary, economics: { downtimeBudgetRemainingSeconds: 3600 } as ValidatorReport['economics'] }))).toBe('');
  });

  it('an exiting cycle exits; a renewing one starts again', () => {
    expect(cycleEnd(report({ primary: { startTime: 0, endTime: END, autoRenewal: renewal(0) } }))).toBe('it exits then');
    expect(cycleEnd(report({ primary: { startTime: 0, endTime: END, autoRenewal: renewal(14 * DAY) } }))).toBe('a new cycle starts then');
    // renewal is conditional (proposal_tx_executor.go: the next cycle starts only on commit): in doubt, no new cycle is promised
    const doubtful = report({ primary: { startTime: 0, endTime: END, autoRenewal: renewal(14 * DAY) }, uptime: { rewardingStakeRatio: 0.3, weightedAverageRatio: 0.5 } });
    expect(cycleEnd(doubtful)).toBe('the validation ends then unless the reward vote commits');
  });

  it('the outcome in words: paid with its restaked split, unpaid, not known', () => {
    expect(outcomeWords(outcome({ validationRewardNAvax: 117_431_493_426 }))).toBe('validation period ended, paid 117.4 AVAX');
    expect(outcomeWords(outcome({ potentialRewardNAvax: 2_500_000_000 }))).toBe('validation period ended, paid 2.50 AVAX');
    expect(outcomeWords(outcome({}))).toBe('validation period ended, paid');
    expect(outcomeWords(outcome({ autoRenewed: true, validationRewardNAvax: 10e9, restakedNAvax: 4e9 }))).toBe('validation cycle ended, paid 10.00 AVAX: 4.00 AVAX restaked, 6.00 AVAX paid out');
    expect(outcomeWords(outcome({ autoRenewed: true, validationRewardNAvax: 10e9, restakedNAvax: 4e9, restakedEstimated: true }))).toBe('validation cycle ended, paid 10.00 AVAX: about 4.00 AVAX restaked, 6.00 AVAX paid out');
    expect(outcomeWords(outcome({ autoRenewed: true, restakedNAvax: 4e9 }))).toBe('validation cycle ended, paid');
    expect(outcomeWords(outcome({ rewarded: false, potentialRewardNAvax: 117_431_493_426 }))).toBe('validation period ended unpaid: 117.4 AVAX forfeited');
    expect(outcomeWords(outcome({ rewarded: false }))).toBe('validation period ended unpaid: its reward forfeited');
    expect(outcomeWords(outcome({ rewarded: null }))).toBe('validation period ended; outcome not known');
  });

  it('a period the verdict was about: nothing before its end, then its outcome, or not known yet as period or cycle', () => {
    const paid = outcome({ validationRewardNAvax: 5e9 });
    expect(periodEnded(report({ periods: { outcomes: [paid] } }), END - 1, END)).toBeUndefined();
    expect(periodEnded(report({ periods: { outcomes: [paid] } }), END, END)).toBe('validation period ended, paid 5.00 AVAX');
    expect(periodEnded(report({ periods: { outcomes: [outcome({ endTime: END - 14 * DAY })] } }), END, END)).toBe('validation period ended; outcome not known yet');
    expect(periodEnded(report({ periods: { ended: period({ autoRenewed: true }), outcomes: [] } }), END, END)).toBe('validation cycle ended; outcome not known yet');
    expect(periodEnded(report({ periods: { tracking: period({ autoRenewed: true }), outcomes: [] } }), END, END)).toBe('validation cycle ended; outcome not known yet');
    expect(periodEnded(report({ periods: { ended: period({ endTime: END - DAY, autoRenewed: true }), outcomes: [] } }), END, END)).toBe('validation period ended; outcome not known yet');
    const cycle = { startTime: 0, endTime: END, autoRenewal: renewal(0) };
    expect(periodEnded(report({ primary: cycle }), END, END)).toBe('validation cycle ended; outcome not known yet');
  });

  it('without one: the shown period once it ended, a period awaiting its outcome, or an outcome told within the hour', () => {
    expect(periodEnded(report({ primary: { startTime: 0, endTime: END } }), END - 1)).toBeUndefined();
    expect(periodEnded(report({ primary: { startTime: 0, endTime: END } }), END)).toBe('validation period ended; outcome not known yet');
    expect(periodEnded(report({ primary: { startTime: 0, endTime: END, autoRenewal: renewal(0) } }), END)).toBe('validation cycle ended; outcome not known yet');
    expect(periodEnded(report({ periods: { ended: period({ autoRenewed: true }), outcomes: [] } }), END - 1)).toBeUndefined();
    expect(periodEnded(report({ periods: { ended: period({ autoRenewed: true }), outcomes: [] } }), END)).toBe('validation cycle ended; outcome not known yet');
    const told = report({ periods: { outcomes: [outcome({ rewarded: false })] } });
    expect(periodEnded(told, END - 1)).toBeUndefined();
    expect(periodEnded(told, END)).toBe('validation period ended unpaid: its reward forfeited');
    expect(periodEnded(told, END + PERIOD_END_TOLD_SECONDS)).toBe('validation period ended unpaid: its reward forfeited');
    expect(periodEnded(told, END + PERIOD_END_TOLD_SECONDS + 1)).toBeUndefined();
    expect(periodEnded(report(), END)).toBeUndefined();
  });

  it('resolve words: an outcome still to come waits, an outcome is told, other words are neither', () => {
    expect(PERIOD_OUTCOME.pending('validation cycle ended; outcome not known yet')).toBe(true);
    expect(PERIOD_OUTCOME.told('validation cycle ended; outcome not known yet')).toBe(false);
    expect(PERIOD_OUTCOME.told('validation period ended, paid 5.00 AVAX')).toBe(true);
    expect(PERIOD_OUTCOME.told('validation cycle ended unpaid: its reward forfeited')).toBe(true);
    expect(PERIOD_OUTCOME.pending('validation period ended, paid 5.00 AVAX')).toBe(false);
    expect(PERIOD_OUTCOME.told('no longer at risk: validation period ended, paid')).toBe(false);
  });
});

describe('what a reward rule keeps about its verdict', () => {
  it("remembers the period a verdict is about and forgets it with the period; the period is over at its end, once the validator set answers", () => {
    const state = newScopeWait();
    expect(aboutPeriod(state, report({ primary: { startTime: 0, endTime: END } }), ['found'])).toEqual(['found']);
    expect(state.periodEnd).toBe(END);
    const answered = inputOf(report());
    expect(periodOver(answered, END - 1, state)).toBe(false);
    expect(periodOver(answered, END, state)).toBe(true);
    expect(periodOver(inputOf(report({ problems: [{ call: 'platform.getCurrentValidators', reason: 'timeout', error: 't' }] })), END, state)).toBe(false);
    expect(periodOver(inputOf(report({ problems: [{ call: 'info.uptime', reason: 'timeout', error: 't' }] })), END, state)).toBe(true);
    expect(periodOver(answered, END, undefined)).toBe(false);
    aboutPeriod(state, report(), []);
    expect(state.periodEnd).toBeUndefined();
    expect(periodOver(answered, END, state)).toBe(false);
    expect(aboutPeriod(undefined, report(), ['x'])).toEqual(['x']);
  });

  it('no verdict starts the next one over', () => {
    const state = { waited: 2, onset: NOW, periodEnd: END };
    expect(noVerdict(state)).toEqual([]);
    expect(state).toEqual({ waited: 0, periodEnd: END });
    expect(noVerdict(undefined)).toEqual([]);
  });

  it(`a new verdict waits at most ${VIEW_WAIT_POLLS} polls for the fleet's view of a validator whose NodeID was just learnt`, () => {
    const state = newScopeWait();
    const pending = inputOf(report(), { viewPending: true });
    const waits = Array.from({ length: VIEW_WAIT_POLLS + 1 }, () => scopeWaits(pending, state));
    expect(waits).toEqual([...Array(VIEW_WAIT_POLLS).fill(true), false]);
    expect(state.onset).toBe(NOW);
    expect(scopeWaits(pending, undefined)).toBe(false);
    expect(scopeWaits(inputOf(report(), { viewPending: true, oneRound: true }), newScopeWait())).toBe(false);
  });

  it('and for a baseline read after its onset (model/observation.ts baselinePredates), never in one round', () => {
    const state = newScopeWait();
    expect(scopeWaits(inputOf(report(), { observed: observed(baseline(NOW - 1)) }), state)).toBe(true);
    expect(state.onset).toBe(NOW);
    // a later poll keeps the first onset: a baseline read between the two is after it
    expect(scopeWaits(inputOf(report(), { observed: observed(baseline(NOW + 1)) }, NOW + 5), state)).toBe(false);
    expect(state.onset).toBe(NOW);
    expect(scopeWaits(inputOf(report(), { observed: observed(baseline(NOW - 1)), oneRound: true }), newScopeWait())).toBe(false);
    expect(scopeWaits(inputOf(report()), newScopeWait())).toBe(false);
  });

  it("an uptime verdict waits while the figures settle or the scope is awaited; a first answer's hold sets the onset", () => {
    const state = newScopeWait();
    const settling = report({ uptimeSettling: { since: NOW - 60, ownStakeRatio: 0.01, firstAnswer: true } });
    expect(uptimeVerdictWaits(inputOf(settling), settling, state)).toBe(true);
    expect(state.onset).toBe(NOW);
    expect(uptimeVerdictWaits(inputOf(settling, {}, NOW + 30), settling, state)).toBe(true);
    expect(state.onset).toBe(NOW);
    const later = newScopeWait();
    const notFirst = report({ uptimeSettling: { since: NOW - 60, ownStakeRatio: 0.01 } });
    expect(uptimeVerdictWaits(inputOf(notFirst), notFirst, later)).toBe(true);
    expect(later.onset).toBeUndefined();
    const oneRound = newScopeWait();
    expect(uptimeVerdictWaits(inputOf(settling, { oneRound: true }), settling, oneRound)).toBe(true);
    expect(oneRound.onset).toBeUndefined();
    expect(uptimeVerdictWaits(inputOf(report(), { scopeAwaited: true }), report())).toBe(true);
    expect(uptimeVerdictWaits(inputOf(report(), { scopeAwaited: false }), report())).toBe(false);
    expect(uptimeVerdictWaits(inputOf(report()), report())).toBe(false);
  });
});

describe('how figures read in a page', () => {
  it('shares, durations and days', () => {
    expect(percent(0.725)).toBe('72.5 %');
    expect(percent(0.8)).toBe('80 %');
    expect(percent(1)).toBe('100 %');
    expect(hours(4 * DAY)).toBe('96.0 h');
    expect(hours(4 * DAY + 1)).toBe('4.0 days');
    expect(hours(90 * 60)).toBe('1.5 h');
    expect(days(61 * DAY)).toBe('61.0 days');
    expect(day(END)).toBe('2026-11-27');
    expect(endsAt(END + 15 * 3600 + 59)).toBe('2026-11-27 15:00 UTC');
  });

  it('AVAX: one decimal from 100, two from 1, three significant digits below', () => {
    expect(avax(117_431_493_426)).toBe('117.4 AVAX');
    expect(avax(100e9)).toBe('100.0 AVAX');
    expect(avax(99_994_000_000)).toBe('99.99 AVAX');
    expect(avax(1e9)).toBe('1.00 AVAX');
    expect(avax(999_400_000)).toBe('0.999 AVAX');
    expect(avax(12_345_678)).toBe('0.0123 AVAX');
    expect(topUp(512)).toBe('add 1.33 AVAX for 30 days');
    // the Prometheus twin's annotation computes the same from the node's fee price series
    expect(PROM_TOP_UP).toContain('avahealth_l1_fee_price_avax_per_second{target=%q} * 30 * 86400');
    expect(PROM_TOP_UP).toContain('AVAX for 30 days');
  });

  it('an ID short enough to recognise', () => {
    expect(shortId('2H7pEcXNnmKpYZ6V')).toBe('2H7p…');
    expect(shortId('12345678')).toBe('12345678');
    expect(shortId('123456789')).toBe('1234…');
  });

  it("an L1 validation's standing: gone, empty, or its balance with runway and price as known", () => {
    const ID = '2H7pEcXNnmKpYZ6VxNY2nRZ6Kx1BT2qgcM8J9o8zWLgqDTN5E8';
    const OTHER = '29VTdXzE3N4dFQq3Zb3xqnhxZjTAGcJPFMjQSgSNwAjPAkXFYG';
    const l1 = (balanceNAvax: number) => [{ subnetId: 's', validationId: OTHER, balanceNAvax: 1e9 }, { subnetId: 's', validationId: ID, balanceNAvax }];
    const label = (v: string) => `id-${v}`;
    expect(l1Standing(report({ l1: l1(1) }), undefined, label, 'balance')).toBeUndefined();
    expect(l1Standing(report({ l1: l1(1) }), 'id-gone-validation', label, 'balance')).toBe("L1 validation id-g… is no longer one of the node's validations");
    expect(l1Standing(report({ l1: l1(0) }), `id-${ID}`, label, 'balance')).toBe('L1 validation 2H7p… ran out of balance: inactive until topped up');
    expect(l1Standing(report({ l1: l1(-5) }), `id-${ID}`, label, 'balance')).toBe('L1 validation 2H7p… ran out of balance: inactive until topped up');
    expect(l1Standing(report({ l1: l1(2e9) }), `id-${ID}`, label, 'balance')).toBe('L1 validation 2H7p… balance 2.00 AVAX');
    expect(l1Standing(report({ l1: l1(2e9), economics: {} as ValidatorReport['economics'], feeState: { priceNAvaxPerSecond: 512 } }), `id-${ID}`, label, 'balance')).toBe('L1 validation 2H7p… balance 2.00 AVAX');
    const runway = { economics: { l1RunwaySeconds: [DAY, 61 * DAY] } as ValidatorReport['economics'] };
    expect(l1Standing(report({ l1: l1(31.2e9), ...runway }), `id-${ID}`, label, 'topped up to')).toBe('L1 validation 2H7p… topped up to 31.20 AVAX: 61.0 days of runway');
    expect(l1Standing(report({ l1: l1(31.2e9), ...runway, feeState: { priceNAvaxPerSecond: 512 } }), `id-${ID}`, label, 'balance')).toBe('L1 validation 2H7p… balance 31.20 AVAX: 61.0 days of runway at 512 nAVAX/s');
  });
});

describe("a verdict's scope", () => {
  const uptime = { rewardingStakeRatio: 0.5, weightedAverageRatio: 0.7 };

  it('upgrade day: peers bootstrapping excuse the figures only when, without them, the bar is cleared', () => {
    const one = report({ uptime, bootstrappingPeers: { peers: 1, stakeRatio: 0.3 } });
    expect(bootstrappingExcuse(one, () => undefined)).toBeUndefined();
    expect(bootstrappingExcuse(report({ uptime }), () => 'cleared')).toBeUndefined();
    expect(bootstrappingExcuse(report({ bootstrappingPeers: { peers: 1, stakeRatio: 0.3 } }), () => 'cleared')).toBeUndefined();
    const excused = bootstrappingExcuse(one, () => '90 % of stake sees it up');
    expect(excused!.lead).toBe('1 peer holding 30 % of the stake is bootstrapping and reports 0 % for everyone; ');
    expect(excused!.note).toMatch(/^ Not this validator's doing: 1 peer holding 30 % .* and without them 90 % of stake sees it up\. /);
    expect(isUpgradeDaySummary(`v1: ${excused!.lead}50 % of stake`)).toBe(true);
    const many = bootstrappingExcuse(report({ uptime, bootstrappingPeers: { peers: 12, stakeRatio: 0.4 } }), () => 'ok');
    expect(many!.lead).toBe('12 peers holding 40 % of the stake are bootstrapping and report 0 % for everyone; ');
    expect(isUpgradeDaySummary(`v1: ${many!.lead}`)).toBe(true);
    expect(isUpgradeDaySummary('v1: 50 % of stake sees its uptime at or above the requirement')).toBe(false);
  });

  it("self without a baseline; network when every observer sees the network down; upgrade day's excuse first, given the bar", () => {
    expect(scopeFor(inputOf(report({ uptime })), report({ uptime }))).toEqual({ identity: { scope: 'self' }, lead: '', note: '' });
    const normal = scopeFor(inputOf(report(), { observed: observed(baseline(NOW)) }), report());
    expect(normal.identity).toEqual({ scope: 'self' });
    expect(normal.note).toMatch(/^ Only this validator: the network looks normal from here/);
    const down = scopeFor(inputOf(report(), { observed: observed(baseline(NOW, 0.3, 0.5)) }), report());
    expect(down.identity).toEqual({ scope: 'network' });
    expect(down.lead).toMatch(/^every validator looks down from here: .*; $/);
    expect(down.note).toMatch(/^ Every validator looks this way from the fleet's nodes/);
    const peers = report({ uptime, bootstrappingPeers: { peers: 3, stakeRatio: 0.3 } });
    const upgradeDay = scopeFor(inputOf(peers, { observed: observed(baseline(NOW)) }), peers, () => 'it clears');
    expect(upgradeDay).toMatchObject({ identity: { scope: 'network' }, bootstrapping: true, lead: expect.stringMatching(/^3 peers holding 30 % /) });
    expect(scopeFor(inputOf(peers), peers, () => undefined)).toEqual({ identity: { scope: 'self' }, lead: '', note: '' });
  });

  it("its own node saying it is cut off (network/network.go HealthCheck) is its own problem, even while the network looks down", () => {
    const cutOff = nodeState('v1', failing({ network: 3 })).observation;
    const scope = scopeFor(inputOf(report(), { node: cutOff, observed: observed(baseline(NOW, 0.3, 0.5)) }), report());
    expect(scope).toEqual({ identity: { scope: 'self' }, lead: '', note: ' Its own node says it is cut off: "network is failing".' });
    const silent = nodeState('v1', failing({ network: 3 })).observation;
    const health = silent.endpoints[0]!.report!;
    health.checks = health.checks.map((c) => (c.name === 'network' ? { ...c, error: undefined } : c));
    expect(scopeFor(inputOf(report(), { node: silent }), report()).note).toBe(' Its own node says it is cut off: "network failing".');
    const passing = nodeState('v1', failing({ C: 3 })).observation;
    expect(scopeFor(inputOf(report(), { node: passing, observed: observed(baseline(NOW, 0.3, 0.5)) }), report()).identity).toEqual({ scope: 'network' });
  });
});
