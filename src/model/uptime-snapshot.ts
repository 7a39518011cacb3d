/**
 * Whether an `info.uptime` answer has settled. It is a snapshot, not a history (AvalancheGo
 * network/network.go, NodeUptime): the node's own stake counts as 100 % and rewarding; each
 * connected validator counts with the uptime it last sent in a Ping (network/peer/peer.go,
 * handlePing; a Ping every 22.5 s, utils/constants/networking.go); a validator not connected, or
 * connected but not yet pinged, counts as 0 % and not rewarding. For the first tens of seconds after
 * the node (re)starts, both figures are therefore about its own share of the stake, then climb as
 * peers connect and ping: nothing the reward vote will see (each node votes with its own cumulative
 * measure, vms/platformvm/block/executor/options.go).
 *
 * Unsettled: both figures within OWN_SHARE_MARGIN of the node's own share of the stake (no
 * validator peer's Ping counted yet: the node has just (re)started and few peers are connected),
 * then while the figures climb (up to SETTLE_CLIMB_SECONDS): the climb ends when they have not
 * risen for a Ping interval (CLIMB_PAUSE_SECONDS), not at the first poll that finds them no
 * higher (two polls a moment apart, or between two peers' Pings, read the same). Bounded: a node whose
 * figures stay at its own share for SETTLE_MAX_SECONDS is cut off from the network, and that is a
 * verdict, not a snapshot.
 */
import type { PrimaryValidation, UptimeSettling, ValidatorUptime } from './validator.js';

export type { UptimeSettling } from './validator.js';

/** Both figures within this of the own stake share: no validator peer's Ping is counted yet. */
export const OWN_SHARE_MARGIN = 0.02;
/** After a reading at the own share, the figures climb as peers ping (every 22.5 s): hold this long. */
export const SETTLE_CLIMB_SECONDS = 90;
/**
 * A climb that has not risen for this long is over: each peer's Ping comes every 22.5 s
 * (utils/constants/networking.go, DefaultPingFrequency), so within one interval every connected
 * peer has counted.
 */
export const CLIMB_PAUSE_SECONDS = 22.5;
/** Figures with this much of the stake rewarding are at the top of a climb: settled, however they got there. */
const CLIMB_TOP_RATIO = 0.99;
/** A node at its own share longer than this is cut off, not restarting: its verdict stands. */
export const SETTLE_MAX_SECONDS = 300;

/** The validator's weight (own stake plus delegations) ÷ the Primary Network's total weight. */
export function ownStakeRatio(primary: PrimaryValidation | undefined, totalWeightNAvax: number | undefined): number | undefined {
  if (!primary || primary.weightNAvax === undefined || !totalWeightNAvax || totalWeightNAvax <= 0) return undefined;
  return Math.min(1, (primary.weightNAvax + (primary.delegatorWeightNAvax ?? 0)) / totalWeightNAvax);
}

/** Both figures at about the own share (a snapshot no validator peer has contributed to yet). */
export function atOwnShare(uptime: ValidatorUptime, own: number): boolean {
  return uptime.rewardingStakeRatio <= own + OWN_SHARE_MARGIN && uptime.weightedAverageRatio <= own + OWN_SHARE_MARGIN;
}

/** Whether the figures could be a snapshot worth checking (then the total stake is asked). */
export function mayBeUnsettled(uptime: ValidatorUptime | undefined): boolean {
  return uptime !== undefined && Math.min(uptime.rewardingStakeRatio, uptime.weightedAverageRatio) < 0.5;
}

/** The total weight moves slowly: one getTotalStake answer serves this long. */
export const TOTAL_WEIGHT_MAX_AGE_SECONDS = 600;

/** What one poll tells the next: the first and the latest reading at the own share (epoch seconds), and the latest weighted figure while settling. */
export interface SettlingMemory {
  settlingSince?: number;
  settlingLastAt?: number;
  settlingWeighted?: number;
  /** When the weighted figure last rose (epoch seconds): a climb that has not risen for CLIMB_PAUSE_SECONDS is over. */
  settlingRoseAt?: number;
  /** The climb held is only the daemon's first answer (model/validator.ts, UptimeSettling.firstAnswer). */
  settlingFirstAnswer?: boolean;
  /** The last info.uptime was no answer (bootstrapping, or the node down): the next answer starts a climb. */
  uptimeUnanswered?: boolean;
}

/** A rise of the weighted figure smaller than this is no rise (it moves in whole percents of stake). */
const RISE = 0.001;

/**
 * The settling state after a reading at `at` (epoch seconds): at the own share (up to
 * SETTLE_MAX_SECONDS in a row), or climbing since (each reading above the one before, up to
 * SETTLE_CLIMB_SECONDS after the last one at the own share). A reading no higher than the one
 * before is settled: its verdict stands. `borrowed`: the memory is the daemon's, read by
 * `avahealth check` (state/ledger.ts).
 */
export function settlingOf(memory: SettlingMemory, uptime: ValidatorUptime | undefined, own: number | undefined, at: number, borrowed = false, afterGap: boolean | 'first answer' = false): UptimeSettling | undefined {
  const held = (settling: UptimeSettling): UptimeSettling => (memory.settlingFirstAnswer ? { ...settling, firstAnswer: true } : settling);
  if (uptime && own !== undefined && atOwnShare(uptime, own)) {
    delete memory.settlingFirstAnswer;
    memory.settlingSince ??= at;
    memory.settlingLastAt = at;
    memory.settlingWeighted = uptime.weightedAverageRatio;
    memory.settlingRoseAt = at;
    return at - memory.settlingSince <= SETTLE_MAX_SECONDS ? { since: memory.settlingSince, ownStakeRatio: own } : undefined;
  }
  // The first answer after none (v1.15 answers "still bootstrapping" until the P-Chain is, while
  // peers connect and ping meanwhile): it may land anywhere on the climb, so it starts one (but at
  // the top: nothing is left to climb).
  if (uptime && afterGap && uptime.rewardingStakeRatio < CLIMB_TOP_RATIO) {
    if (memory.settlingSince === undefined && afterGap === 'first answer') memory.settlingFirstAnswer = true;
    else if (afterGap === true) delete memory.settlingFirstAnswer;
    memory.settlingSince ??= at;
    memory.settlingLastAt = at;
    memory.settlingWeighted = uptime.weightedAverageRatio;
    memory.settlingRoseAt = at;
    return held({ since: memory.settlingSince, ownStakeRatio: own ?? 0 });
  }
  const { settlingSince: since, settlingLastAt: last, settlingWeighted: before } = memory;
  // Readings borrowed from the daemon (`avahealth check`): one as high as its latest is the same climb, not a settled one.
  const rose = uptime !== undefined && before !== undefined && uptime.weightedAverageRatio > before + (borrowed ? -RISE : RISE);
  // No lower than the highest reading of the climb, and it rose within a Ping interval: still climbing
  // (but for figures at the top already: nothing is left to climb, and they are exported at once).
  const top = uptime !== undefined && uptime.rewardingStakeRatio >= CLIMB_TOP_RATIO;
  const paused = uptime !== undefined && before !== undefined && !top && uptime.weightedAverageRatio >= before - RISE && at - (memory.settlingRoseAt ?? last ?? at) <= CLIMB_PAUSE_SECONDS;
  // A climb held only as the daemon's first answer: the node was answering before (its peers are
  // connected), so within a Ping interval of that answer every one of them has counted.
  const firstOver = memory.settlingFirstAnswer === true && since !== undefined && at - since > CLIMB_PAUSE_SECONDS;
  if ((rose || paused) && !firstOver && since !== undefined && last !== undefined && at - last <= SETTLE_CLIMB_SECONDS) {
    if (rose) {
      memory.settlingWeighted = uptime.weightedAverageRatio;
      memory.settlingRoseAt = at;
    }
    return held({ since, ownStakeRatio: own ?? 0 });
  }
  delete memory.settlingFirstAnswer;
  delete memory.settlingSince;
  delete memory.settlingLastAt;
  delete memory.settlingWeighted;
  delete memory.settlingRoseAt;
  return undefined;
}
