/**
 * Less stake sees the validator's uptime at or above the requirement. The reward (all or nothing,
 * its delegators' too) is voted once, when the period ends, on each node's cumulative measure then
 * (AvalancheGo vms/platformvm/block/executor/options.go, prefersCommit), so the snapshot is
 * evidence, and the verdict is the projection to the end (model/reward-projection.ts): critical
 * only when, even up from now on, the stake that sees it below the requirement cannot climb back
 * by the end (the downtime budget for the whole period is spent, or the time left is too short)
 * while that stake is large enough to make the vote uncertain (model/reward-vote.ts). Early in a
 * period (a 48-hour mainnet cycle since ACP-273) a short outage is a warning that says how much of
 * the budget is left and when the period ends.
 */
import { REWARD_LIKELY_STAKE_RATIO, REWARD_LOST_STAKE_RATIO, rewardOutlook, SNOWMAN_ALPHA, SNOWMAN_K } from '../../model/reward-vote.js';
import { scopeTemplate, UPGRADE_DAY } from './promql.js';
import { defineRule, promAlert, thresholdTuning, UNKNOWN, type RuleDefaults } from './rule.js';
import { aboutPeriod, avax, budgetLeft, percent, periodOf, reportFor, scopeFor, newScopeWait, noVerdict, periodEnded, periodOver, PERIOD_OUTCOME, scopeWaits, uptimeVerdictWaits } from './validator-facts.js';

const defaults: RuleDefaults = { severity: 'warning', forPolls: 1, threshold: 0.8, criticalThreshold: REWARD_LIKELY_STAKE_RATIO };
const LIKELY = percent(REWARD_LIKELY_STAKE_RATIO);
const LOST = percent(REWARD_LOST_STAKE_RATIO);

/** How a stake majority decides, and where the outcome turns: the same words in both twins. */
const vote = (period: string) => `When the ${period} ends, each node votes to reward it only if its own measure of its uptime since the ${period} started meets the requirement, and Snowman (polls of ${SNOWMAN_K} validators by stake, ${SNOWMAN_ALPHA} matching votes to move) carries the side holding more than half of the stake: the reward is likely at ${LIKELY} of stake or more, uncertain between ${LOST} and ${LIKELY}, likely lost below ${LOST}.`;
const VOTE = vote('period');
const ACT = 'Check inbound connectivity on the staking port, the node clock, and avoid restarts.';
const PROM_SUMMARY = `{{ $labels.target }}: {{ $value | humanizePercentage }} of stake sees its uptime at or above the requirement now`;
const PROM_BUDGET = '{{ with printf "avahealth_validator_downtime_budget_remaining_seconds{target=%q}" $labels.target | query }}{{ with . | first | value }}{{ if ge . 0.0 }}{{ humanizeDuration . }} of downtime budget left this period. {{ else }}Downtime budget overspent this period. {{ end }}{{ end }}{{ end }}';
const PROM_PROJECTION = '{{ with printf "avahealth_validator_projected_rewarding_stake_ratio{target=%q}" $labels.target | query }}Up from now on, {{ . | first | value | humanizePercentage }} of stake would see it at or above the requirement when the period ends. {{ end }}';
/** Upgrade day: without the peers reporting 0 % for everyone, 80 % of stake sees it at or above the requirement (never critical then). */
const PROM_SCOPE = scopeTemplate(`min(${UPGRADE_DAY.rewarding('{target=%[1]q}')}) >= 0.8`);
/** The projection's series beside the snapshot's: even up from now on, not enough stake would see it at or above the requirement at the end. */
const OUT_OF_REACH = `and on (target) (avahealth_validator_projected_rewarding_stake_ratio < ${REWARD_LIKELY_STAKE_RATIO})`;

export default defineRule({
  name: 'AvalancheValidatorRewardAtRisk',
  source: 'validator',
  fires: `less than 80 % of stake sees the validator's uptime at or above the requirement (info.uptime rewardingStakePercentage); critical below ${LIKELY} only when, even up from now on, not enough stake would see it at or above the requirement by the period's end (the projection, not the snapshot)`,
  defaults,
  tuning: thresholdTuning('rewarding-stake ratio (0–1)', defaults),
  phrases: { firing: 'reward at risk', resolved: 'reward no longer at risk' },
  // Its findings say whose problem it is (`scope`): AvalancheNetworkDegraded speaks for the network-wide ones.
  scoped: true,
  // Its text ends with the downtime budget left: the budget is this problem's evidence, not a second page.
  inhibits: [{ alertname: 'AvalancheValidatorDowntimeBudgetLow', because: 'the downtime budget runs low because peers see the uptime low, and the reward alert says how much budget is left' }],
  prometheus: [
    promAlert('AvalancheValidatorRewardAtRisk', 'avahealth_validator_uptime_rewarding_stake_ratio < 0.8', '5m', 'warning', PROM_SUMMARY, `${PROM_BUDGET}${PROM_PROJECTION}The reward is all or nothing. ${VOTE} ${ACT}`, { scope: PROM_SCOPE }),
    promAlert('AvalancheValidatorRewardAtRiskCritical', `avahealth_validator_uptime_rewarding_stake_ratio < ${REWARD_LIKELY_STAKE_RATIO} ${OUT_OF_REACH} unless on (target) (${UPGRADE_DAY.rewarding('')} >= 0.8)`, '5m', 'critical', `${PROM_SUMMARY}, and even up from now on not enough of it would by the period's end: the reward is {{ if lt $value ${REWARD_LOST_STAKE_RATIO} }}likely lost{{ else }}uncertain{{ end }}`, `${PROM_BUDGET}${PROM_PROJECTION}The reward is all or nothing. ${VOTE} ${ACT}`, { scope: PROM_SCOPE }),
  ],
  newState: newScopeWait,
  outcome: PERIOD_OUTCOME,
  over: (input, ctx, state) => periodOver(input, ctx.now / 1000, state),
  recovered(input, ctx, _labels, state) {
    // The period the verdict was about ended: its outcome, never good news.
    const whole = reportFor(input, (call) => call === 'platform.getCurrentValidators');
    const ended = whole !== null && typeof whole === 'object' ? periodEnded(whole, ctx.now / 1000, state?.periodEnd) : undefined;
    if (ended) return ended;
    const report = reportFor(input, (call) => call === 'info.uptime');
    if (report === null || typeof report === 'string') return undefined;
    if (report.notValidator) return 'not a validator now';
    if (!report.uptime) return undefined;
    const requirement = report.economics?.requirement;
    return `reward no longer at risk: ${percent(report.uptime.rewardingStakeRatio)} of stake sees its uptime at or above the ${requirement !== undefined ? `${percent(requirement)} ` : ''}requirement`;
  },
  evaluate(input, ctx, state) {
    const report = reportFor(input, (call) => call === 'info.uptime' || call === 'platform.getCurrentValidators');
    if (report === null || typeof report === 'string') return report === null ? noVerdict(state) : report;
    if (report.notValidator || !report.uptime) return noVerdict(state);
    const ratio = report.uptime.rewardingStakeRatio;
    if (ratio >= (ctx.settings.threshold ?? 0.8)) return noVerdict(state);
    // A restart's snapshot (both figures about the own stake share) or a scope not decided yet: hold.
    if (uptimeVerdictWaits(input, report, state) || scopeWaits(input, state)) return UNKNOWN;
    const requirement = report.economics?.requirement;
    const projection = report.economics?.projection;
    const period = periodOf(report.primary);
    const sees = `${percent(ratio)} of stake sees its uptime at or above the ${requirement !== undefined ? `${percent(requirement)} ` : ''}requirement`;
    const outlook = rewardOutlook(ratio);
    const likely = ratio >= (ctx.settings.criticalThreshold ?? REWARD_LIKELY_STAKE_RATIO);
    // Without its period (getCurrentValidators not answering it) nothing can be projected: a warning, never "lost" from a snapshot.
    const inReach = projection === undefined || projection.rewardingEndRatio >= (ctx.settings.criticalThreshold ?? REWARD_LIKELY_STAKE_RATIO);
    const atEnd = projection ? `up from now on, the stake that sees it lowest would measure ${percent(projection.laggardsEndUptimeRatio)} when the ${period} ends` : '';
    // Upgrade day: without the peers that report 0 % for everyone (bootstrapping), enough stake sees it at or above the requirement.
    const threshold = ctx.settings.threshold ?? 0.8;
    const scope = scopeFor(input, report, (without) => (without.rewardingStakeRatio >= threshold ? `${percent(without.rewardingStakeRatio)} of the stake sees its uptime at or above the requirement` : undefined));
    const verdict = scope.bootstrapping
      ? `only ${sees} now, and not for any downtime of its own`
      : outlook === 'likely'
        ? `${sees}: the reward is still likely, uncertain below ${LIKELY} of stake`
        : inReach
          ? `only ${sees} now: the reward is still in reach${atEnd ? `: ${atEnd}` : ''}`
          : outlook === 'uncertain'
            ? `only ${sees}: the reward is uncertain, likely lost below ${LOST} of stake; even ${atEnd}`
            : `only ${sees}: the reward is likely lost; even ${atEnd}`;
    const budget = budgetLeft(report);
    const reward = `${period === 'cycle' ? "This cycle's reward" : 'The reward'}${report.primary?.potentialRewardNAvax !== undefined ? ` of ${avax(report.primary.potentialRewardNAvax)}` : ''}`;
    const evidence =
      inReach && outlook !== 'likely' && projection && !scope.bootstrapping
        ? ` It is evidence, not a verdict: ${percent(projection.elapsedSeconds / projection.periodSeconds)} of the ${period} has passed, and each peer's measure climbs back as the node stays up.`
        : '';
    return aboutPeriod(state, report, [
      {
        identity: scope.identity,
        severity: !likely && !inReach && !scope.bootstrapping ? 'critical' : 'warning',
        // The budget read from figures the bootstrapping peers pull down is not the node's: left out then.
        summary: `${ctx.target}: ${scope.lead}${verdict}${budget && !scope.bootstrapping ? `; ${budget}` : ''}`,
        description: `${reward} (and its delegators') is all or nothing. ${vote(period)}${evidence} Peers see it up ${percent(report.uptime.weightedAverageRatio)} of the time (stake-weighted).${scope.bootstrapping ? '' : ` ${ACT}`}${scope.note}`,
      },
    ]);
  },
});
