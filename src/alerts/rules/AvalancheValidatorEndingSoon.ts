/**
 * The node's own validation ends soon (re-stake in time), from the validator poll's own `endTime`
 * (platform.getCurrentValidators; no chain data needed). An auto-renewed validator (ACP-236) whose
 * next period is set renews only if the reward vote commits (AvalancheGo
 * vms/platformvm/txs/executor/proposal_tx_executor.go, RewardAutoRenewedValidatorTx: on abort it is
 * removed whatever nextPeriod says): no page while the outlook is likely; paged as an exiting
 * validator while it is uncertain or lost (model/reward-vote.ts renewalDoubt). That doubt is read
 * from info.uptime, so it has the holds of every uptime verdict: a restart's snapshot and a scope
 * not decided yet (the fleet's view, a network baseline read after the dip) hold it, and its
 * `scope` says whose problem it is.
 *
 * The window is a share of the period (a 48-hour mainnet cycle since ACP-273, 12 hours on Fuji:
 * genesis/genesis_mainnet.go, genesis/genesis_fuji.go), at most `threshold`: a short cycle is not
 * inside it for good. At `endTime` the incident ends at once (the first poll after it), with the
 * period's outcome as its words (model/periods.ts).
 */
import { validationRenews } from '../../model/validator.js';
import { renewalDoubt } from '../../model/reward-vote.js';
import { formatDuration } from './format.js';
import { SCOPE_TEMPLATE } from './promql.js';
import { defineRule, durationThresholdTuning, promAlert, UNKNOWN, type RuleDefaults } from './rule.js';
import { endsAt, newScopeWait, PERIOD_OUTCOME, noVerdict, periodEnded, periodOf, reportFor, scopeFor, scopeWaits, uptimeVerdictWaits, type ScopeWait } from './validator-facts.js';

const DAY = 86_400;
const defaults: RuleDefaults = { severity: 'warning', forPolls: 1, threshold: 7 * DAY, criticalThreshold: DAY };
/** The warning window is at most this share of the period (7 of 14 days, 24 of 48 hours, 6 of 12 hours). */
export const ENDING_WINDOW_SHARE = 1 / 2;
/** The critical window is at most this share of the period (1 of 14 days, 3.4 of 48 hours). */
export const ENDING_CRITICAL_SHARE = 1 / 14;

/** The PromQL of a window: at most `seconds`, at most `share` of the period. */
const window = (seconds: string, share: string) => `clamp_max((avahealth_validator_period_end_timestamp_seconds - avahealth_validator_period_start_timestamp_seconds) * ${share}, ${seconds})`;
const LEFT = '(avahealth_validator_period_end_timestamp_seconds - time())';
/** Not an auto-renewed validator that renews while its reward vote likely commits. */
const RENEWS = 'unless on (target) ((avahealth_validator_next_period_seconds > 0) unless on (target) (avahealth_validator_uptime_rewarding_stake_ratio < 0.6 or avahealth_validator_downtime_budget_remaining_seconds < 0))';

export default defineRule({
  name: 'AvalancheValidatorEndingSoon',
  source: 'validator',
  fires:
    "the node's own validation (platform.getCurrentValidators `endTime`) ends within 7 days and within the last half of its period (not for an auto-renewed validator with a next period while its reward vote likely commits); critical within 1 day and the last 1/14 of the period; resolved at `endTime` with the period's outcome",
  defaults,
  tuning: durationThresholdTuning('time left', defaults),
  phrases: { firing: 'validation ending soon', resolved: 'validation no longer ending soon' },
  // An auto-renewed validator's renewal is in doubt because peers see it down: its findings say whose problem that is.
  scoped: true,
  prometheus: [
    promAlert(
      'AvalancheValidatorEndingSoon',
      `(${LEFT} > 0 and ${LEFT} < ${window(`${7 * DAY}`, `${ENDING_WINDOW_SHARE}`)}) ${RENEWS}`,
      '5m',
      'warning',
      '{{ $labels.target }}: validation ends in {{ $value | humanizeDuration }}',
      'The current validation of {{ $labels.target }} ends in {{ $value | humanizeDuration }}; re-stake to keep validating (an auto-renewed validator whose reward vote may abort is removed instead of renewed).',
      { scope: SCOPE_TEMPLATE },
    ),
    promAlert(
      'AvalancheValidatorEndingSoonCritical',
      `(${LEFT} > 0 and ${LEFT} < ${window(`${DAY}`, ENDING_CRITICAL_SHARE.toFixed(6))}) ${RENEWS}`,
      '5m',
      'critical',
      '{{ $labels.target }}: validation ends in {{ $value | humanizeDuration }}',
      'The current validation of {{ $labels.target }} ends in {{ $value | humanizeDuration }}; re-stake now to keep validating.',
      { scope: SCOPE_TEMPLATE },
    ),
  ],
  newState: newScopeWait,
  outcome: PERIOD_OUTCOME,
  over(input, ctx, state) {
    const report = reportFor(input, (call) => call === 'platform.getCurrentValidators');
    return state.periodEnd !== undefined && ctx.now / 1000 >= state.periodEnd && report !== null && typeof report !== 'string';
  },
  recovered(input, ctx, _labels, state) {
    const report = reportFor(input, (call) => call === 'platform.getCurrentValidators');
    if (report === null || typeof report === 'string') return undefined;
    const now = ctx.now / 1000;
    const ended = periodEnded(report, now, state?.periodEnd);
    if (ended) return ended;
    const primary = report.primary;
    if (report.notValidator || !primary) return 'not a validator now';
    if (validationRenews(primary) && !renewalDoubt(report)) return `the reward vote likely commits again: a new cycle starts at ${endsAt(primary.endTime)}`;
    if (state?.periodEnd !== undefined && primary.endTime !== state.periodEnd) return `validating until ${endsAt(primary.endTime)}`;
    return undefined;
  },
  evaluate(input, ctx, state: ScopeWait) {
    const report = reportFor(input, (call) => call === 'platform.getCurrentValidators');
    if (report === null || typeof report === 'string') return report === null ? noVerdict(state) : report;
    const primary = report.primary;
    if (report.notValidator || !primary) return noVerdict(state);
    const left = primary.endTime - ctx.now / 1000;
    // Ended: the first poll after endTime ends the incident (over), with the period's outcome.
    if (left <= 0) return noVerdict(state);
    const length = Math.max(0, primary.endTime - primary.startTime);
    if (left >= Math.min(ctx.settings.threshold ?? 7 * DAY, length * ENDING_WINDOW_SHARE)) return noVerdict(state);
    const renews = validationRenews(primary);
    if (renews) {
      // Whether it renews is read from info.uptime: while that is unknown or a restart's snapshot, hold.
      const uptime = reportFor(input, (call) => call === 'info.uptime');
      if (uptime === UNKNOWN || report.uptimeSettling) return UNKNOWN;
    }
    const doubt = renews ? renewalDoubt(report) : undefined;
    if (renews && !doubt) return noVerdict(state);
    if (doubt && (uptimeVerdictWaits(input, report, state) || scopeWaits(input, state))) return UNKNOWN;
    const scope = doubt ? scopeFor(input, report) : { identity: { scope: 'self' }, lead: '', note: '' };
    state.periodEnd = primary.endTime;
    const end = new Date(primary.endTime * 1000).toISOString();
    const period = periodOf(primary);
    const who = report.nodeId ? ` of ${report.nodeId}` : '';
    return [
      {
        identity: scope.identity,
        severity: left < Math.min(ctx.settings.criticalThreshold ?? DAY, length * ENDING_CRITICAL_SHARE) ? 'critical' : 'warning',
        // At endTime it is over, before the next poll says so: the views stop counting it then.
        until: primary.endTime * 1000,
        summary: `${ctx.target}: ${scope.lead}validation${who} ends in ${formatDuration(left)} (${endsAt(primary.endTime)}, the end of its ${period})`,
        description: doubt
          ? `the auto-renewed validator renews only if the reward vote commits (ACP-236): ${doubt}, so the validation ends at ${end} unless the vote commits (principal returned, this cycle's reward forfeited); keep the node up and well connected until then, and be ready to re-stake.${scope.note}`
          : primary.autoRenewal
            ? `the auto-renewed validator is set to exit when this cycle ends at ${end} (next period 0); set a next period with SetAutoRenewedValidatorConfigTx or re-stake to keep validating`
            : `the current validation ends at ${end}; re-stake to keep validating`,
      },
    ];
  },
});
