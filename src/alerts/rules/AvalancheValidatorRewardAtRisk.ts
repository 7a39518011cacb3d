/**
 * Less stake sees the validator's uptime at or above the requirement: the reward (all or nothing,
 * its delegators' too) is decided by a stake majority when the period ends, so a falling share
 * first erodes the margin, then makes the outcome uncertain, then loses it (model/reward-vote.ts).
 */
import { REWARD_LIKELY_STAKE_RATIO, REWARD_LOST_STAKE_RATIO, rewardOutlook, SNOWMAN_ALPHA, SNOWMAN_K } from '../../model/reward-vote.js';
import { SCOPE_TEMPLATE } from './promql.js';
import { defineRule, promAlert, thresholdTuning, UNKNOWN, type RuleDefaults } from './rule.js';
import { avax, budgetLeft, percent, periodOf, reportFor, scopeFor, newScopeWait, noVerdict, scopeWaits, uptimeVerdictWaits } from './validator-facts.js';

const defaults: RuleDefaults = { severity: 'warning', forPolls: 1, threshold: 0.8, criticalThreshold: REWARD_LIKELY_STAKE_RATIO };
const LIKELY = percent(REWARD_LIKELY_STAKE_RATIO);
const LOST = percent(REWARD_LOST_STAKE_RATIO);

/** How a stake majority decides, and where the outcome turns: the same words in both twins. */
const vote = (period: string) => `When the ${period} ends, each node votes to reward it only if its own measure of its uptime meets the requirement, and Snowman (polls of ${SNOWMAN_K} validators by stake, ${SNOWMAN_ALPHA} matching votes to move) carries the side holding more than half of the stake: the reward is likely at ${LIKELY} of stake or more, uncertain between ${LOST} and ${LIKELY}, likely lost below ${LOST}.`;
const VOTE = vote('period');
const ACT = 'Check inbound connectivity on the staking port, the node clock, and avoid restarts.';
const PROM_SUMMARY = `{{ $labels.target }}: {{ $value | humanizePercentage }} of stake sees its uptime at or above the requirement: were the period to end now, the reward is {{ if lt $value ${REWARD_LOST_STAKE_RATIO} }}likely lost{{ else if lt $value ${REWARD_LIKELY_STAKE_RATIO} }}uncertain{{ else }}still likely{{ end }}`;
const PROM_BUDGET = '{{ with printf "avahealth_validator_downtime_budget_remaining_seconds{target=%q}" $labels.target | query }}{{ with . | first | value }}{{ if ge . 0.0 }}{{ humanizeDuration . }} of downtime budget left this period. {{ else }}Downtime budget overspent this period. {{ end }}{{ end }}{{ end }}';

export default defineRule({
  name: 'AvalancheValidatorRewardAtRisk',
  source: 'validator',
  fires: `less than 80 % of stake sees the validator's uptime at or above the requirement (info.uptime rewardingStakePercentage); critical below ${LIKELY}, where the outcome of the reward vote becomes uncertain (likely lost below ${LOST})`,
  defaults,
  tuning: thresholdTuning('rewarding-stake ratio (0–1)', defaults),
  phrases: { firing: 'reward at risk', resolved: 'reward no longer at risk' },
  prometheus: [
    promAlert('AvalancheValidatorRewardAtRisk', 'avahealth_validator_uptime_rewarding_stake_ratio < 0.8', '5m', 'warning', PROM_SUMMARY, `${PROM_BUDGET}The reward is all or nothing. ${VOTE} ${ACT}`, { scope: SCOPE_TEMPLATE }),
    promAlert('AvalancheValidatorRewardAtRiskCritical', `avahealth_validator_uptime_rewarding_stake_ratio < ${REWARD_LIKELY_STAKE_RATIO}`, '5m', 'critical', PROM_SUMMARY, `${PROM_BUDGET}The reward is all or nothing. ${VOTE} ${ACT}`, { scope: SCOPE_TEMPLATE }),
  ],
  newState: newScopeWait,
  evaluate(input, ctx, state) {
    const report = reportFor(input, (call) => call === 'info.uptime');
    if (report === null || typeof report === 'string') return report === null ? noVerdict(state) : report;
    if (report.notValidator || !report.uptime) return noVerdict(state);
    const ratio = report.uptime.rewardingStakeRatio;
    if (ratio >= (ctx.settings.threshold ?? 0.8)) return noVerdict(state);
    // A restart's snapshot (both figures about the own stake share) or a scope not decided yet: hold.
    if (uptimeVerdictWaits(input, report) || scopeWaits(input, state)) return UNKNOWN;
    const requirement = report.economics?.requirement;
    const sees = `${percent(ratio)} of stake sees its uptime at or above the ${requirement !== undefined ? `${percent(requirement)} ` : ''}requirement`;
    const verdict = {
      likely: `${sees}: the reward is still likely, uncertain below ${LIKELY} of stake`,
      uncertain: `only ${sees}: the reward is uncertain, likely lost below ${LOST} of stake`,
      lost: `only ${sees}: were the ${periodOf(report.primary)} to end now, the reward is likely lost`,
    }[rewardOutlook(ratio)];
    const budget = budgetLeft(report);
    const period = periodOf(report.primary);
    const reward = `${period === 'cycle' ? "This cycle's reward" : 'The reward'}${report.primary?.potentialRewardNAvax !== undefined ? ` of ${avax(report.primary.potentialRewardNAvax)}` : ''}`;
    const scope = scopeFor(input, report);
    return [
      {
        identity: scope.identity,
        severity: ratio < (ctx.settings.criticalThreshold ?? REWARD_LIKELY_STAKE_RATIO) ? 'critical' : 'warning',
        summary: `${ctx.target}: ${scope.lead}${verdict}${budget ? `; ${budget}` : ''}`,
        description: `${reward} (and its delegators') is all or nothing. ${vote(period)} Peers see it up ${percent(report.uptime.weightedAverageRatio)} of the time (stake-weighted). ${ACT}${scope.note}`,
      },
    ];
  },
});
