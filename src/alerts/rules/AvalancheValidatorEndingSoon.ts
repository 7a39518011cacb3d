/**
 * With chain data: the node's active validation ends soon (re-stake in time). An auto-renewed
 * validator (ACP-236) whose next period is set renews only if the reward vote commits (AvalancheGo
 * vms/platformvm/txs/executor/proposal_tx_executor.go, RewardAutoRenewedValidatorTx: on abort it is
 * removed whatever nextPeriod says): no page while the outlook is likely; paged as an exiting
 * validator while it is uncertain or lost (model/reward-vote.ts renewalDoubt).
 */
import { validationRenews } from '../../model/validator.js';
import { formatDuration } from './format.js';
import { defineRule, durationThresholdTuning, promAlert, type RuleDefaults } from './rule.js';

const DAY = 86_400;
const defaults: RuleDefaults = { severity: 'warning', forPolls: 1, threshold: 7 * DAY, criticalThreshold: DAY };

export default defineRule({
  name: 'AvalancheValidatorEndingSoon',
  source: 'chain',
  fires: 'with `chain_data`: the active validation ends within 7 days (not for an auto-renewed validator with a next period while its reward vote likely commits); critical within 1 day',
  defaults,
  tuning: durationThresholdTuning('time left', defaults),
  phrases: { firing: 'validation ending soon', resolved: 'validation renewed' },
  prometheus: [
    promAlert(
      'AvalancheValidatorEndingSoon',
      '(avahealth_validator_end_timestamp_seconds - time() < 7 * 86400) and on (target, node_id) (avahealth_validator_status{status="active"} == 1) unless on (target) ((avahealth_validator_next_period_seconds > 0) unless on (target) (avahealth_validator_uptime_rewarding_stake_ratio < 0.6 or avahealth_validator_downtime_budget_remaining_seconds < 0))',
      '0s',
      'warning',
      '{{ $labels.target }}: validation ends in {{ $value | humanizeDuration }}',
      'The current validation of {{ $labels.node_id }} ends in {{ $value | humanizeDuration }}; re-stake to keep validating.',
    ),
  ],
  evaluate({ validator, primary, renewalDoubt }, ctx) {
    if (validator?.status !== 'active' || validator.endTimestamp === undefined || (validationRenews(primary) && !renewalDoubt)) return [];
    const left = validator.endTimestamp - ctx.now / 1000;
    if (left >= (ctx.settings.threshold ?? 7 * DAY)) return [];
    return [
      {
        identity: {},
        severity: left < (ctx.settings.criticalThreshold ?? DAY) ? 'critical' : 'warning',
        summary: `${ctx.target}: validation of ${validator.nodeId} ends in ${formatDuration(Math.max(0, left))}`,
        description: renewalDoubt
          ? `the auto-renewed validator renews only if the reward vote commits (ACP-236): ${renewalDoubt}, so the validation ends at ${new Date(validator.endTimestamp * 1000).toISOString()} unless the vote commits (principal returned, this cycle's reward forfeited); keep the node up and well connected until then, and be ready to re-stake`
          : primary?.autoRenewal
          ? `the auto-renewed validator is set to exit when this cycle ends at ${new Date(validator.endTimestamp * 1000).toISOString()} (next period 0); set a next period with SetAutoRenewedValidatorConfigTx or re-stake to keep validating`
          : `the current validation ends at ${new Date(validator.endTimestamp * 1000).toISOString()}; re-stake to keep validating`,
      },
    ];
  },
});
