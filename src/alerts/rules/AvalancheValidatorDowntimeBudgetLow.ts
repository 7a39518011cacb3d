/**
 * Little of the period's allowed downtime is left: a few more hours offline and peers stop voting
 * to reward the validator. Remaining = (1 − requirement) × period − (1 − weighted uptime) × elapsed.
 */
import { downtimeBudgetRemainingSeconds, snapshotHidden } from '../../model/validator.js';
import { scopeTemplate, UPGRADE_DAY } from './promql.js';
import { defineRule, promAlert, thresholdTuning, UNKNOWN, type RuleDefaults } from './rule.js';
import { aboutPeriod, avax, cycleEnd, endsAt, hours, percent, periodOf, reportFor, scopeFor, newScopeWait, noVerdict, periodEnded, periodOver, PERIOD_OUTCOME, scopeWaits, uptimeVerdictWaits } from './validator-facts.js';

/** Upgrade day: without the peers reporting 0 % for everyone, a quarter of the budget is left (never critical then). */
const PROM_SCOPE = scopeTemplate(`min(${UPGRADE_DAY.budgetShare('{target=%[1]q}')}) >= 0.25`);
const defaults: RuleDefaults = { severity: 'warning', forPolls: 1, threshold: 0.25, criticalThreshold: 0.1 };

export default defineRule({
  name: 'AvalancheValidatorDowntimeBudgetLow',
  source: 'validator',
  fires: "less than 25 % of the period's allowed downtime is left; critical below 10 %",
  defaults,
  tuning: thresholdTuning('share of the allowance left (0–1)', defaults),
  phrases: { firing: 'downtime budget low', resolved: 'downtime budget recovered' },
  // Its findings say whose problem it is (`scope`): AvalancheNetworkDegraded speaks for the network-wide ones.
  scoped: true,
  // The reward alert's text ends with the downtime budget left: one sentence on a target's line, not two.
  toldBy: ['AvalancheValidatorRewardAtRisk'],
  prometheus: [
    promAlert(
      'AvalancheValidatorDowntimeBudgetLow',
      'avahealth_validator_downtime_budget_remaining_seconds / ((1 - avahealth_validator_uptime_requirement_ratio) * (avahealth_validator_period_end_timestamp_seconds - avahealth_validator_period_start_timestamp_seconds)) < 0.25',
      '5m',
      'warning',
      "{{ $labels.target }}: {{ $value | humanizePercentage }} of the period's downtime budget left",
      'More downtime before the period ends costs the whole reward. Avoid restarts and maintenance until it ends.',
      { scope: PROM_SCOPE },
    ),
    promAlert(
      'AvalancheValidatorDowntimeBudgetLowCritical',
      `avahealth_validator_downtime_budget_remaining_seconds / ((1 - avahealth_validator_uptime_requirement_ratio) * (avahealth_validator_period_end_timestamp_seconds - avahealth_validator_period_start_timestamp_seconds)) < 0.1 unless on (target) (${UPGRADE_DAY.budgetShare('')} >= 0.25)`,
      '5m',
      'critical',
      "{{ $labels.target }}: {{ $value | humanizePercentage }} of the period's downtime budget left",
      'Almost no downtime is left before the reward is lost. Keep the node up until the period ends.',
      { scope: PROM_SCOPE },
    ),
  ],
  newState: newScopeWait,
  outcome: PERIOD_OUTCOME,
  over: (input, ctx, state) => periodOver(input, ctx.now / 1000, state),
  recovered(input, ctx, _labels, state) {
    // The period the verdict was about ended: its outcome, never good news.
    const whole = reportFor(input, (call) => call === 'platform.getCurrentValidators');
    const ended = whole !== null && typeof whole === 'object' ? periodEnded(whole, ctx.now / 1000, state?.periodEnd) : undefined;
    if (ended) return ended;
    const report = reportFor(input, (call) => call === 'info.uptime' || call === 'info.upgrades' || call === 'platform.getCurrentValidators');
    if (report === null || typeof report === 'string') return undefined;
    if (report.notValidator) return 'not a validator now';
    const allowance = report.economics?.downtimeAllowanceSeconds;
    const left = report.economics?.downtimeBudgetRemainingSeconds;
    if (!report.primary || allowance === undefined || left === undefined || allowance <= 0) return undefined;
    return `downtime budget recovered: ${hours(left)} left (${percent(Math.max(0, left / allowance))} of the ${periodOf(report.primary)}'s ${hours(allowance)}) until ${endsAt(report.primary.endTime)}`;
  },
  evaluate(input, ctx, wait) {
    const report = reportFor(input, (call) => call === 'info.uptime' || call === 'info.upgrades' || call === 'platform.getCurrentValidators');
    if (report === null || typeof report === 'string') return report === null ? noVerdict(wait) : report;
    // A snapshot right after a restart is not cumulative uptime (no budget is computed from it): hold.
    if (snapshotHidden(report)) return UNKNOWN;
    const economics = report.economics;
    const allowance = economics?.downtimeAllowanceSeconds;
    const left = economics?.downtimeBudgetRemainingSeconds;
    if (report.notValidator || !report.primary || !report.uptime || allowance === undefined || left === undefined || allowance <= 0) return noVerdict(wait);
    const share = left / allowance;
    if (share >= (ctx.settings.threshold ?? 0.25)) return noVerdict(wait);
    if (uptimeVerdictWaits(input, report, wait) || scopeWaits(input, wait)) return UNKNOWN;
    const end = endsAt(report.primary.endTime);
    const period = periodOf(report.primary);
    const then = report.primary.autoRenewal ? `; ${cycleEnd(report)}` : '';
    const state = left >= 0 ? `${hours(left)} of downtime budget left (${percent(Math.max(0, share))} of the ${period}'s ${hours(allowance)}) until ${end}${then}` : `downtime budget overspent by ${hours(-left)} (${period} ends ${end}${then})`;
    const reward = report.primary.potentialRewardNAvax !== undefined ? ` (${avax(report.primary.potentialRewardNAvax)})` : '';
    // Upgrade day: without the peers that report 0 % for everyone (bootstrapping), enough of the budget is left.
    const threshold = ctx.settings.threshold ?? 0.25;
    const scope = scopeFor(input, report, (without) => {
      const rest = downtimeBudgetRemainingSeconds(economics!.requirement!, report.primary!.startTime, report.primary!.endTime, without.weightedAverageRatio, input.observation.at);
      return rest / allowance >= threshold ? `${hours(rest)} of the ${hours(allowance)} downtime budget is left` : undefined;
    });
    return aboutPeriod(wait, report, [
      {
        identity: scope.identity,
        severity: share < (ctx.settings.criticalThreshold ?? 0.1) && !scope.bootstrapping ? 'critical' : 'warning',
        summary: `${ctx.target}: ${scope.lead}${scope.bootstrapping ? `the budget reads low from those Pings: ${state}` : state}`,
        description: `Peers see it up ${percent(report.uptime.weightedAverageRatio)} of the time against a ${percent(economics!.requirement!)} requirement; more downtime before ${end} costs ${period === 'cycle' ? "this cycle's" : 'the'} whole reward${reward}.${scope.bootstrapping ? '' : ' Avoid restarts and maintenance until then.'}${scope.note}`,
      },
    ]);
  },
});
