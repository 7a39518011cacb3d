/**
 * An L1 validation (ACP-77) pays a continuous fee from its balance and is deactivated at zero:
 * warn while there is time to top it up. One alert per validation.
 */
import { defineRule, durationThresholdTuning, promAlert, type RuleDefaults } from './rule.js';
import { avax, days, l1Standing, PROM_TOP_UP, reportFor, shortId, topUp } from './validator-facts.js';

const DAY = 86_400;
const L1_CALLS = (call: string) => call.startsWith('platform.getCurrentValidators ') || call === 'platform.getL1Validator' || call === 'platform.getValidatorFeeState';
const defaults: RuleDefaults = { severity: 'warning', forPolls: 1, threshold: 14 * DAY, criticalThreshold: 3 * DAY };

export default defineRule({
  name: 'AvalancheL1ValidatorBalanceLow',
  source: 'validator',
  fires: "an L1 validation's balance runs out within 14 days at today's fee price; critical within 3 days",
  defaults,
  tuning: durationThresholdTuning('runway', defaults),
  phrases: { firing: 'L1 validator balance low', resolved: 'L1 validator balance topped up' },
  prometheus: [
    promAlert(
      'AvalancheL1ValidatorBalanceLow',
      'avahealth_l1_validator_runway_seconds < 14 * 86400 and avahealth_l1_validator_active == 1',
      '0s',
      'warning',
      '{{ $labels.target }}: L1 validation {{ $labels.validation_id }} runs out of balance in {{ $value | humanizeDuration }}',
      `At zero the validator becomes inactive (not sampled, its signatures invalid). At today's fee price, ${PROM_TOP_UP} with IncreaseL1ValidatorBalanceTx.`,
    ),
    promAlert(
      'AvalancheL1ValidatorBalanceLowCritical',
      'avahealth_l1_validator_runway_seconds < 3 * 86400 and avahealth_l1_validator_active == 1',
      '0s',
      'critical',
      '{{ $labels.target }}: L1 validation {{ $labels.validation_id }} runs out of balance in {{ $value | humanizeDuration }}',
      `At zero the validator becomes inactive (not sampled, its signatures invalid). At today's fee price, ${PROM_TOP_UP} with IncreaseL1ValidatorBalanceTx now.`,
    ),
  ],
  recovered(input, ctx, labels) {
    const report = reportFor(input, L1_CALLS);
    return report === null || typeof report === 'string' ? undefined : l1Standing(report, labels.validation_id, ctx.label, 'balance topped up to');
  },
  evaluate(input, ctx) {
    const report = reportFor(input, L1_CALLS);
    if (report === null || typeof report === 'string') return report === null ? [] : report;
    const price = report.feeState?.priceNAvaxPerSecond;
    const runways = report.economics?.l1RunwaySeconds ?? [];
    return report.l1.flatMap((validation, i) => {
      const runway = runways[i];
      if (validation.balanceNAvax <= 0 || runway === undefined || price === undefined || runway >= (ctx.settings.threshold ?? 14 * DAY)) return [];
      return [
        {
          identity: { subnet_id: ctx.label(validation.subnetId), validation_id: ctx.label(validation.validationId) },
          severity: runway < (ctx.settings.criticalThreshold ?? 3 * DAY) ? ('critical' as const) : ('warning' as const),
          summary: `${ctx.target}: L1 validation ${shortId(validation.validationId)} runs out of balance in ${days(runway)} at ${price} nAVAX/s: ${topUp(price)} with IncreaseL1ValidatorBalanceTx`,
          description: `Validation ${validation.validationId} on subnet ${validation.subnetId} has ${avax(validation.balanceNAvax)} left; at zero it becomes inactive (not sampled, its signatures invalid) until topped up.`,
        },
      ];
    });
  },
});
