/**
 * What the reward vote will see at the period's end, not what it would see were the period to end
 * now. AvalancheGo votes once, when the period (an auto-renewed validator's cycle) ends, each node
 * with its own cumulative measure of the validator's uptime since the period's start
 * (vms/platformvm/block/executor/options.go, prefersCommit: CalculateUptimePercentFrom(nodeID,
 * StartTime)); that measure starts at zero with each validation, and again with each cycle of an
 * auto-renewed validator (vms/platformvm/state/state.go, writeCurrentStakers: `UpDuration: 0`,
 * `LastUpdated = StartTime`). Early in a period a short outage is a large share of a small elapsed
 * time: peers measure 83 % one hour into a 48-hour cycle after a 10-minute outage, while the cycle
 * would end at 99.65 % with the node up from then on. So the outlook is projected to the end:
 * the uptime peers would measure then, were the node up from now on.
 *
 * info.uptime gives two stake-weighted figures (network/network.go, NodeUptime): the share of stake
 * that sees the uptime at or above the requirement (`rewarding`, the node's own stake included at
 * 100 %) and the average uptime (`weighted`). The stake that sees it below the requirement (the
 * laggards) decides whether the reward is in reach: its average is at least
 * (weighted − rewarding) ÷ (1 − rewarding) (the rest counted at 100 %, a lower bound). Up from
 * now on, a laggard's measure climbs to (measure × elapsed + left) ÷ period by the end. When it
 * reaches the requirement the whole stake would see the node at or above it then; when it does
 * not, the stake that sees it so stays what it is now. The reward is in reach while that projected
 * share is where the vote likely commits (model/reward-vote.ts).
 */

/** At or above this rewarding stake the reward is likely, were the period to end now (derivation: model/reward-vote.ts). */
export const REWARD_LIKELY_STAKE_RATIO = 0.6;


export interface RewardProjection {
  /** The period's length, the time elapsed and the time left, seconds (elapsed clamped to the period). */
  periodSeconds: number;
  elapsedSeconds: number;
  leftSeconds: number;
  /** Up from now on, the stake-weighted uptime peers would measure at the end: 1 − downtime so far ÷ period. */
  endUptimeRatio: number;
  /**
   * Up from now on, the uptime the stake that sees it below the requirement would measure at the end
   * (a lower bound); `endUptimeRatio` when no stake sees it below the requirement.
   */
  laggardsEndUptimeRatio: number;
  /**
   * Were the node up from now on, the share of stake that would see it at or above the requirement
   * at the end: 1 when the laggards climb back by then, else the share that does now (an estimate).
   */
  rewardingEndRatio: number;
  /** The projected share is where the reward vote likely commits: the reward is still in reach. */
  inReach: boolean;
}

export interface ProjectionInput {
  requirement: number;
  /** Epoch seconds of the period's (cycle's) start and end, and now. */
  start: number;
  end: number;
  now: number;
  /** info.uptime, 0–1. */
  rewardingStakeRatio: number;
  weightedAverageRatio: number;
}

/** The projection to the period's end; undefined for a period of no length. */
export function projectReward(input: ProjectionInput): RewardProjection | undefined {
  const period = input.end - input.start;
  if (!(period > 0)) return undefined;
  const elapsed = Math.min(Math.max(0, input.now - input.start), period);
  const left = period - elapsed;
  const weighted = clamp(input.weightedAverageRatio);
  const rewarding = clamp(input.rewardingStakeRatio);
  const laggards = rewarding < 1 ? clamp((weighted - rewarding) / (1 - rewarding)) : weighted;
  const endUptime = (weighted * elapsed + left) / period;
  const laggardsEnd = (laggards * elapsed + left) / period;
  // Floating point: 0.9 × 172800 and its sum of parts differ in the last bits.
  const rewardingEnd = laggardsEnd >= input.requirement - 1e-9 ? 1 : rewarding;
  return {
    periodSeconds: period,
    elapsedSeconds: elapsed,
    leftSeconds: left,
    endUptimeRatio: endUptime,
    laggardsEndUptimeRatio: laggardsEnd,
    rewardingEndRatio: rewardingEnd,
    inReach: rewardingEnd >= REWARD_LIKELY_STAKE_RATIO,
  };
}

function clamp(ratio: number): number {
  return Math.min(1, Math.max(0, ratio));
}
