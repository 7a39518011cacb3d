/** An L1 validation of the node has run out of balance: inactive, not sampled, its signatures invalid. */
import { defineRule, NO_TUNING, promAlert, type RuleDefaults } from './rule.js';
import { l1Standing, PROM_TOP_UP, reportFor, shortId, topUp } from './validator-facts.js';

const defaults: RuleDefaults = { severity: 'critical', forPolls: 1 };

export default defineRule({
  name: 'AvalancheL1ValidatorInactive',
  source: 'validator',
  fires: 'an L1 validation of the node has balance 0 (inactive until topped up)',
  defaults,
  tuning: NO_TUNING,
  phrases: { firing: 'L1 validator inactive', resolved: 'L1 validator active again' },
  prometheus: [
    promAlert(
      'AvalancheL1ValidatorInactive',
      'avahealth_l1_validator_active == 0',
      '0s',
      'critical',
      '{{ $labels.target }}: L1 validation {{ $labels.validation_id }} is inactive (balance 0)',
      `An inactive L1 validator is not sampled and its signatures are invalid. To reactivate it at today's fee price, ${PROM_TOP_UP} with IncreaseL1ValidatorBalanceTx.`,
    ),
  ],
  recovered(input, ctx, labels) {
    const report = reportFor(input, (call) => call.startsWith('platform.getCurrentValidators ') || call === 'platform.getL1Validator');
    return report === null || typeof report === 'string' ? undefined : l1Standing(report, labels.validation_id, ctx.label, 'active again, balance');
  },
  evaluate(input, ctx) {
    const report = reportFor(input, (call) => call.startsWith('platform.getCurrentValidators ') || call === 'platform.getL1Validator');
    if (report === null || typeof report === 'string') return report === null ? [] : report;
    const price = report.feeState?.priceNAvaxPerSecond;
    const advice = price !== undefined && price > 0 ? `${topUp(price)} with IncreaseL1ValidatorBalanceTx to reactivate it` : 'top it up with IncreaseL1ValidatorBalanceTx to reactivate it';
    return report.l1
      .filter((v) => v.balanceNAvax <= 0)
      .map((validation) => ({
        identity: { subnet_id: ctx.label(validation.subnetId), validation_id: ctx.label(validation.validationId) },
        severity: 'critical' as const,
        summary: `${ctx.target}: L1 validation ${shortId(validation.validationId)} is inactive (balance 0): ${advice}`,
        description: `Validation ${validation.validationId} on subnet ${validation.subnetId} ran out of balance: it is not sampled and its signatures are invalid until an IncreaseL1ValidatorBalanceTx tops it up.`,
      }));
  },
});
