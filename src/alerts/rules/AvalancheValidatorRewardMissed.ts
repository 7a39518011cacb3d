/**
 * A validation period of the node ended without its reward (the reward vote aborted): what the
 * whole period was for is lost. Once per period: the outcome is learnt once (model/periods.ts, kept
 * in state_dir/periods.json), and the alert stays open until the node validates again or for a day.
 */
import { validatorReport } from '../../model/validator.js';
import { defineRule, NO_TUNING, promAlert, UNKNOWN, type RuleDefaults } from './rule.js';
import { avax, day, percent } from './validator-facts.js';

const DAY = 86_400;
/** How long the page stays open when the node does not validate again meanwhile. */
const OPEN_SECONDS = DAY;
const defaults: RuleDefaults = { severity: 'critical', forPolls: 1 };

export default defineRule({
  name: 'AvalancheValidatorRewardMissed',
  source: 'validator',
  fires: "a validation period of the node ended unpaid (the reward vote aborted); once per period, open until the node validates again or for a day",
  defaults,
  tuning: NO_TUNING,
  phrases: { firing: 'validation reward missed', resolved: 'validating again' },
  prometheus: [
    promAlert(
      'AvalancheValidatorRewardMissed',
      '(avahealth_validator_last_period_rewarded == 0) and on (target) (time() - avahealth_validator_last_period_end_timestamp_seconds < 86400)',
      '0s',
      'critical',
      '{{ $labels.target }}: the last validation period ended without its reward',
      'The reward vote of the period that ended aborted: its potential reward is forfeited (the principal is returned). See the status page for the period, its observed uptime and the evidence.',
    ),
  ],
  evaluate(input, ctx) {
    const periods = validatorReport(input.observation)?.periods;
    if (!periods) return UNKNOWN;
    const last = periods.outcomes[0];
    if (!last || last.rewarded !== false) return [];
    const validatingAgain = periods.tracking !== undefined && periods.tracking.startTime >= last.endTime;
    if (validatingAgain || ctx.now / 1000 - last.decidedAt > OPEN_SECONDS) return [];
    const kind = last.autoRenewed ? 'cycle' : 'period';
    const uptime = last.uptimeRatio !== undefined ? `uptime as peers saw it ${percent(last.uptimeRatio)}${last.requirement !== undefined ? ` (requirement ${percent(last.requirement)})` : ''}` : 'uptime unknown';
    const forfeited = last.potentialRewardNAvax !== undefined ? `${avax(last.potentialRewardNAvax)} forfeited` : 'its reward forfeited';
    return [
      {
        identity: {},
        severity: 'critical',
        summary: `${ctx.target}: validation ${kind} ${day(last.startTime)} – ${day(last.endTime)} ended unpaid: ${forfeited}`,
        description: `The reward vote aborted (${last.evidence}); ${uptime}.${last.autoRenewed ? ' An auto-renewed validator is removed when its vote aborts, whatever nextPeriod says (ACP-236): re-stake to validate again.' : ' The principal is returned; re-stake to validate again.'}${last.disagreement ? ` Note: ${last.disagreement}.` : ''}`,
      },
    ];
  },
});
