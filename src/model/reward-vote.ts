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

/** Snowman's mainnet sampling (snow/consensus/snowball/parameters.go, DefaultParameters). */
export const SNOWMAN_K = 20;
export const SNOWMAN_ALPHA = 15;

/** At or above this rewarding stake the reward is likely, were the period to end now. */
export const REWARD_LIKELY_STAKE_RATIO = 0.6;
/** Below this rewarding stake the reward is likely lost; in between the outcome is uncertain. */
export const REWARD_LOST_STAKE_RATIO = 0.4;

export type RewardOutlook = 'likely' | 'uncertain' | 'lost';

/** The outcome of the reward vote, were the validator's period to end now. */
export function rewardOutlook(rewardingStakeRatio: number): RewardOutlook {
  if (rewardingStakeRatio >= REWARD_LIKELY_STAKE_RATIO) return 'likely';
  return rewardingStakeRatio < REWARD_LOST_STAKE_RATIO ? 'lost' : 'uncertain';
}
