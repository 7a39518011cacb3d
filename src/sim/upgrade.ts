/**
 * The `futureupgrade` health check of a simulated node, as AvalancheGo writes it (node/node.go,
 * futureUpgradeCheck, since v1.14.1; escalation from ava-labs/avalanchego#4474):
 *
 * - `localUpgradeTime`: the newest upgrade the node's build knows (v1.14.x: GraniteTime; v1.15.x:
 *   HeliconTime, "Must be updated for each network upgrade").
 * - `modeUpgradeTime` / `modeUpgradeWeightPercentage` / `numUpgradeTimes`: the upgrade time the
 *   most stake of its *connected* validator peers advertises in their handshake (PeerInfo), its share
 *   of the whole validator set's weight.
 * - Only when the mode is later than the local time and holds at least half of the weight:
 *   `timeUntilUpgrade` (time.Duration.String()) and, by time left, nothing (beyond 3 days: an info
 *   log beyond 7 days, a warning log within 7), "unknown network upgrade detected" (within 3 days),
 *   "… - update as soon as possible" (within 1 day), "imminent network upgrade detected - update
 *   immediately" (within 1 hour, and after the time).
 * - After the upgrade time, peers on the new version drop the stale node at their next Ping
 *   (network/peer/peer.go shouldDisconnect: version.Compatibility's MinCompatibleAfterUpgrade; Pings
 *   every 22.5 s, utils/constants/networking.go): the mode falls back to the times its remaining
 *   (stale) peers advertise, its own, and the check passes again while its chains lose the stake.
 */
import { formatGoDuration, formatGoTime } from './go-format.js';

const DAY = 86_400;
/** constants.DefaultPingFrequency: 3/4 of the 30 s ping-pong timeout. */
export const PING_SECONDS = 22.5;

export const UPGRADE_ERRORS = {
  needed: 'unknown network upgrade detected',
  withinTheDay: 'unknown network upgrade detected - update as soon as possible',
  withinTheHour: 'imminent network upgrade detected - update immediately',
} as const;

export interface UpgradeFacts {
  /** Epoch seconds of the newest upgrade the node's build knows. */
  localAt: number;
  /** `upgrade-required`: the upgrade most stake advertises (epoch seconds), and its share. */
  requiredAt?: number;
  stakePercent: number;
  /** No peers at all (network-down). */
  alone: boolean;
}

/** Whether the node missed the upgrade and its upgraded peers dropped it (epoch seconds `now`). */
export function droppedByPeers(f: UpgradeFacts, now: number): boolean {
  return f.requiredAt !== undefined && f.requiredAt > f.localAt && now >= f.requiredAt + PING_SECONDS;
}

/** The stake share the node is still connected to after it was dropped: the stale validators (and itself). */
export function staleStakeRatio(f: UpgradeFacts): number {
  return Math.max(0, 100 - f.stakePercent) / 100;
}

export function futureUpgradeResult(f: UpgradeFacts, now: number): { message: unknown; error?: string } {
  const local = formatGoTime(f.localAt * 1000);
  if (f.alone) return { message: { localUpgradeTime: local, modeUpgradeTime: '1970-01-01T00:00:00Z', modeUpgradeWeightPercentage: 0, numUpgradeTimes: 0 } };
  if (f.requiredAt === undefined || f.requiredAt <= f.localAt || droppedByPeers(f, now)) {
    // Most (connected) stake advertises the node's own time: the whole network, or after being dropped the stale part of it.
    const weight = f.requiredAt !== undefined && droppedByPeers(f, now) ? 100 - f.stakePercent - 0.13 : 98.73164170922519;
    return { message: { localUpgradeTime: local, modeUpgradeTime: local, modeUpgradeWeightPercentage: weight, numUpgradeTimes: 1 } };
  }
  const left = f.requiredAt - now;
  const message = {
    localUpgradeTime: local,
    modeUpgradeTime: formatGoTime(f.requiredAt * 1000),
    modeUpgradeWeightPercentage: f.stakePercent,
    numUpgradeTimes: 2,
    timeUntilUpgrade: formatGoDuration(left),
  };
  if (f.stakePercent < 50) {
    const { timeUntilUpgrade: _, ...below } = message;
    return { message: below };
  }
  if (left > 3 * DAY) return { message };
  if (left > DAY) return { message, error: UPGRADE_ERRORS.needed };
  if (left > 3600) return { message, error: UPGRADE_ERRORS.withinTheDay };
  return { message, error: UPGRADE_ERRORS.withinTheHour };
}
