/** With chain data: the node's active validation ends soon (re-stake in time). */
import { formatDuration } from './format.js';
import { defineRule, durationThresholdTuning, promAlert, type RuleDefaults } from './rule.js';

const DAY = 86_400;
const defaults: RuleDefaults = { severity: 'warning', forPolls: 1, threshold: 7 * DAY, criticalThreshold: DAY };

export default defineRule({
  name: 'AvalancheValidatorEndingSoon',
  source: 'chain',
  fires: 'with `chain_data`: the active validation ends within 7 days; critical within 1 day',
  defaults,
  tuning: durationThresholdTuning('time left', defaults),
  phrases: { firing: 'validation ending soon', resolved: 'validation renewed' },
  prometheus: [
    promAlert(
      'AvalancheValidatorEndingSoon',
      '(avahealth_validator_end_timestamp_seconds - time() < 7 * 86400) and on (target, node_id) (avahealth_validator_status{status="active"} == 1)',
      '0s',
      'warning',
      '{{ $labels.target }}: validation ends in {{ $value | humanizeDuration }}',
      'The current validation of {{ $labels.node_id }} ends in {{ $value | humanizeDuration }}; re-stake to keep validating.',
    ),
  ],
  evaluate({ validator }, ctx) {
    if (validator?.status !== 'active' || validator.endTimestamp === undefined) return [];
    const left = validator.endTimestamp - ctx.now / 1000;
    if (left >= (ctx.settings.threshold ?? 7 * DAY)) return [];
    return [
      {
        identity: {},
        severity: left < (ctx.settings.criticalThreshold ?? DAY) ? 'critical' : 'warning',
        summary: `${ctx.target}: validation of ${validator.nodeId} ends in ${formatDuration(Math.max(0, left))}`,
        description: `the current validation ends at ${new Date(validator.endTimestamp * 1000).toISOString()}; re-stake to keep validating`,
      },
    ];
  },
});
