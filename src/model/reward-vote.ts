/**
 * What rewarding stake (info.uptime `rewardingStakePercentage`) means for a Primary Network
 * validator's reward. Derivation and sources: docs/validators.md, "The reward vote".
 *
 * At the period end each node prefers the block that rewards the validator iff its own measured
 * uptime of it meets the requirement (AvalancheGo vms/platformvm/block/executor/options.go,
 * `prefersCommit`). Snowman then polls k = 20 validators sampled by stake, again and again; a poll
 * with alpha = 15 votes for a side moves the polling node to it (snow/consensus/snowball). Every
 * poll so moves more nodes toward the side holding more than half of the stake, which wins; only
 * close to half can sampling luck and the metric's own error change the outcome.
 */
import { REWARD_LIKELY_STAKE_RATIO } from './reward-projection.js';
import { validationRenews, type ValidatorReport } from './validator.js';

export { REWARD_LIKELY_STAKE_RATIO };

/** Snowman's mainnet sampling (snow/consensus/snowball/parameters.go, DefaultParameters). */
export const SNOWMAN_K = 20;
export const SNOWMAN_ALPHA = 15;

/** Below this rewarding stake the reward is likely lost; in between the outcome is uncertain. */
export const REWARD_LOST_STAKE_RATIO = 0.4;

export type RewardOutlook = 'likely' | 'uncertain' | 'lost';

/** The outcome of the reward vote, were the validator's period to end now. */
export function rewardOutlook(rewardingStakeRatio: number): RewardOutlook {
  if (rewardingStakeRatio >= REWARD_LIKELY_STAKE_RATIO) return 'likely';
  return rewardingStakeRatio < REWARD_LOST_STAKE_RATIO ? 'lost' : 'uncertain';
}

/**
 * Why an auto-renewed validator's renewal is in doubt, in words; undefined when it is not (it does
 * not renew, its uptime is unknown or an unsettled snapshot, or the outlook is likely with budget
 * left, or the reward is still in reach by the cycle's end: model/reward-projection.ts). ACP-236
 * renewal is conditional (AvalancheGo vms/platformvm/txs/executor/proposal_tx_executor.go,
 * RewardAutoRenewedValidatorTx): the next cycle starts only in the commit branch of the reward vote;
 * on abort the validator is removed whatever `nextPeriod` says (principal and earlier cycles'
 * restaked rewards returned, this cycle's reward forfeited).
 */
export function renewalDoubt(report: Pick<ValidatorReport, 'primary' | 'uptime' | 'uptimeSettling' | 'economics'>): string | undefined {
  if (!validationRenews(report.primary) || !report.uptime || report.uptimeSettling) return undefined;
  const ratio = report.uptime.rewardingStakeRatio;
  const outlook = rewardOutlook(ratio);
  const share = `${(ratio * 100).toFixed(1).replace(/\.0$/, '')} %`;
  const inReach = report.economics?.projection?.inReach;
  if (outlook !== 'likely' && inReach) return undefined;
  if (outlook === 'lost') return `only ${share} of stake sees its uptime at or above the requirement: the reward vote likely aborts`;
  if (outlook === 'uncertain') return `only ${share} of stake sees its uptime at or above the requirement: the reward vote may abort`;
  const left = report.economics?.downtimeBudgetRemainingSeconds;
  if (left !== undefined && left < 0) return "its downtime budget is overspent: peers' measure of its uptime is below the requirement, and the reward vote may abort";
  return undefined;
}
