/**
 * A missed upgrade stays known. AvalancheGo's futureupgrade check (node/node.go) names a deadline
 * only while most of the stake it is connected to advertises a later upgrade than its build knows.
 * Past that time its upgraded peers drop it (network/peer/peer.go shouldDisconnect: an incompatible
 * version after the upgrade time), the mode falls back to its own upgrade time and the check passes
 * again while the node is cut off. The node's own poll carries the deadline on from its last
 * observation until its build knows the upgrade (localUpgradeTime at or past the deadline: a new
 * version). Kept in memory: a restart of avahealth after the deadline forgets it.
 */
import type { EndpointObservation, MissedUpgrade, TargetObservation, UpgradeDetails } from '../model/observation.js';

function upgradeOf(endpoints: readonly EndpointObservation[]): UpgradeDetails | undefined {
  const health = endpoints.find((e) => e.endpoint === 'health' && e.view === 'all' && e.report);
  return health?.report?.checks.find((c) => c.name === 'futureupgrade')?.upgrade;
}

/** The missed upgrade to carry on `endpoints` (epoch seconds `now`), from the node's previous own observation. */
export function missedUpgrade(previous: TargetObservation | undefined, endpoints: readonly EndpointObservation[], now: number): MissedUpgrade | undefined {
  const before = previous?.missedUpgrade ?? deadlineOf(previous ? upgradeOf(previous.endpoints) : undefined);
  if (!before || now < before.deadline) return undefined;
  const upgrade = upgradeOf(endpoints);
  // The check names a deadline itself (not dropped yet, or another upgrade): it speaks.
  if (upgrade?.deadline !== undefined) return undefined;
  // The build knows it now.
  if (upgrade?.localTime !== undefined && upgrade.localTime >= before.deadline) return undefined;
  return before;
}

function deadlineOf(upgrade: UpgradeDetails | undefined): MissedUpgrade | undefined {
  if (upgrade?.deadline === undefined) return undefined;
  return { deadline: upgrade.deadline, ...(upgrade.modeWeightRatio !== undefined ? { modeWeightRatio: upgrade.modeWeightRatio } : {}) };
}
