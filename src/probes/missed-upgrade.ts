/**
 * A missed upgrade stays known. AvalancheGo's futureupgrade check (node/node.go) names a deadline
 * only while most of the stake it is connected to advertises a later upgrade than its build knows.
 * Past that time its upgraded peers drop it (network/peer/peer.go shouldDisconnect: an incompatible
 * version after the upgrade time), the mode falls back to its own upgrade time and the check passes
 * again while the node is cut off. The node's own poll carries the deadline on from its last
 * observation until its build knows the upgrade (localUpgradeTime at or past the deadline: a new
 * version). The deadline the check names is also remembered in state_dir (missed-upgrades.json), so
 * a restart of avahealth after the deadline, when the check no longer names it, still knows it.
 *
 * The node's own schedule (info.upgrades, model/schedule.ts) cross-checks both ways: an activation
 * the network's schedule has, whose time has passed and which the node's build does not know, is a
 * missed upgrade even with nothing remembered (a new shard owner, an empty state_dir); and a build
 * whose schedule knows the upgrade has not missed it, whatever its futureupgrade check's
 * localUpgradeTime says (a constant edited by hand each release, node/node.go, that a release may
 * forget to move).
 */
import type { EndpointObservation, MissedUpgrade, TargetObservation, UpgradeDetails } from '../model/observation.js';
import { knowsActivation, type NodeSchedule, type UnknownUpgrade } from '../model/schedule.js';

function upgradeOf(endpoints: readonly EndpointObservation[]): UpgradeDetails | undefined {
  const health = endpoints.find((e) => e.endpoint === 'health' && e.view === 'all' && e.report);
  return health?.report?.checks.find((c) => c.name === 'futureupgrade')?.upgrade;
}

/**
 * The missed upgrade to carry on `endpoints` (epoch seconds `now`), from the node's previous own
 * observation or, after a restart, from what was `remembered`; and what to remember now: the
 * deadline the check names, the one the node missed, or (no health report this time) as before.
 */
export function missedUpgrade(
  previous: TargetObservation | undefined,
  remembered: MissedUpgrade | undefined,
  endpoints: readonly EndpointObservation[],
  now: number,
  /** The node's own schedule, and what the network's has that it lacks (model/schedule.ts). */
  own: { schedule?: NodeSchedule; unknown?: readonly UnknownUpgrade[] } = {},
): { missed?: MissedUpgrade; remember?: MissedUpgrade } {
  const passed = own.unknown?.find((u) => u.at <= now);
  const before = previous?.missedUpgrade ?? deadlineOf(previous ? upgradeOf(previous.endpoints) : undefined) ?? remembered ?? (passed ? { deadline: passed.at } : undefined);
  const missed = carried(before, endpoints, now, own.schedule) ?? (passed && before?.deadline !== passed.at ? carried({ deadline: passed.at }, endpoints, now, own.schedule) : undefined);
  const reported = endpoints.some((e) => e.endpoint === 'health' && e.view === 'all' && e.report);
  const remember = reported ? (deadlineOf(upgradeOf(endpoints)) ?? missed) : remembered;
  return { ...(missed ? { missed } : {}), ...(remember ? { remember } : {}) };
}

function carried(before: MissedUpgrade | undefined, endpoints: readonly EndpointObservation[], now: number, schedule: NodeSchedule | undefined): MissedUpgrade | undefined {
  if (!before || now < before.deadline) return undefined;
  // Its own schedule has an activation at that time or later: its build knows the upgrade.
  if (knowsActivation(schedule, before.deadline)) return undefined;
  const upgrade = upgradeOf(endpoints);
  // The check names a deadline itself (not dropped yet, or another upgrade): it speaks.
  if (upgrade?.deadline !== undefined) return undefined;
  // The build knows it now.
  if (upgrade?.localTime !== undefined && upgrade.localTime >= before.deadline) return undefined;
  return before;
}

/**
 * The futureupgrade check named a deadline at the node's previous poll and answers without one now:
 * the node may run a build that knows the upgrade (a restart this daemon did not see go unanswered).
 */
export function deadlineCleared(previous: TargetObservation | undefined, endpoints: readonly EndpointObservation[]): boolean {
  if (!previous || upgradeOf(previous.endpoints)?.deadline === undefined) return false;
  const reported = endpoints.some((e) => e.endpoint === 'health' && e.view === 'all' && e.report);
  return reported && upgradeOf(endpoints)?.deadline === undefined;
}

function deadlineOf(upgrade: UpgradeDetails | undefined): MissedUpgrade | undefined {
  if (upgrade?.deadline === undefined) return undefined;
  return { deadline: upgrade.deadline, ...(upgrade.modeWeightRatio !== undefined ? { modeWeightRatio: upgrade.modeWeightRatio } : {}) };
}
