/**
 * The network's upgrade schedule, as the fleet's own nodes know it. Each node's `info.upgrades`
 * (api/info/service.go Upgrades) is its build's upgrade.Config (upgrade/upgrade.go): one activation
 * time per upgrade, `UnscheduledActivationTime` (9999-12-01) for an upgrade its build has a field
 * for but no date, no field at all for an upgrade its build predates (upgrade/new_upgrade_checklist.md).
 * A release schedules an upgrade weeks ahead; a node whose build does not know an activation that
 * another node of its network knows must be upgraded before that time, and has missed it once the
 * time has passed. AvalancheGo's own futureupgrade check (node/node.go) tells only in the last
 * 3 days, and only from what its connected peers advertise.
 */

/** A node's own schedule, from its `info.upgrades`. */
export interface NodeSchedule {
  /** The network it says it is on (info.getNetworkID), else the configured one; absent when neither is known. */
  network?: string;
  /** Activation times by upgrade.Config JSON name (`heliconTime`): epoch seconds, `null` when unscheduled. */
  activations: Readonly<Record<string, number | null>>;
  /** Epoch seconds of the answer. */
  readAt: number;
}

/** An activation the network's schedule has and a node's build does not know. */
export interface UnknownUpgrade {
  /** The upgrade.Config JSON name (`heliconTime`). */
  key: string;
  /** Epoch seconds of the activation, as the fleet's node that knows it says. */
  at: number;
  /** The fleet's node whose schedule has it. */
  from: string;
  /** How this node's build reads it: `unscheduled` (its field reads 9999-12-01), `absent` (no field: an older build). */
  own: 'unscheduled' | 'absent';
}

/** One node's schedule as the fleet comparison reads it. */
export interface FleetSchedule {
  target: string;
  schedule: NodeSchedule;
}

/** "heliconTime" → "Helicon". */
export function upgradeName(key: string): string {
  const base = key.endsWith('Time') ? key.slice(0, -4) : key;
  return base.charAt(0).toUpperCase() + base.slice(1);
}

/**
 * The activations the network's schedule has and `own` does not: for each upgrade, the latest
 * activation time any other node of the same network knows (a node may know a date a later release
 * moved: the later one is the network's), when `own` has no field for it or reads it unscheduled.
 * Earliest first. None when the node's network is unknown: nodes of different networks have
 * different schedules (mainnet, fuji, a local network).
 */
export function unknownUpgrades(own: FleetSchedule, fleet: Iterable<FleetSchedule>): UnknownUpgrade[] {
  const network = own.schedule.network;
  if (network === undefined) return [];
  return unknownIn(own, newestActivations(fleet, network, own.target));
}

/** Each upgrade's latest activation any node of `network` (but `except`) knows, and the node that knows it (the first by name on a tie). */
export type NewestActivations = Map<string, { at: number; from: string }>;

export function newestActivations(fleet: Iterable<FleetSchedule>, network: string, except?: string): NewestActivations {
  const newest: NewestActivations = new Map();
  for (const node of fleet) {
    if (node.target === except || node.schedule.network !== network) continue;
    for (const [key, at] of Object.entries(node.schedule.activations)) {
      if (at === null) continue;
      const known = newest.get(key);
      if (!known || at > known.at || (at === known.at && node.target < known.from)) newest.set(key, { at, from: node.target });
    }
  }
  return newest;
}

/**
 * unknownUpgrades against the newest activations of its network. Whether `own` itself is among the
 * nodes they were taken from does not matter: an upgrade it knows is not unknown to it, and one it
 * does not know it gave nothing to.
 */
export function unknownIn(own: FleetSchedule, newest: NewestActivations): UnknownUpgrade[] {
  const unknown: UnknownUpgrade[] = [];
  for (const [key, { at, from }] of newest) {
    const mine = Object.hasOwn(own.schedule.activations, key) ? own.schedule.activations[key] : undefined;
    if (mine === undefined) unknown.push({ key, at, from, own: 'absent' });
    else if (mine === null) unknown.push({ key, at, from, own: 'unscheduled' });
  }
  return unknown.sort((a, b) => a.at - b.at || a.key.localeCompare(b.key));
}

/** Whether the node's own build knows an activation at `at` (epoch seconds) or later: it has that upgrade. */
export function knowsActivation(schedule: NodeSchedule | undefined, at: number): boolean {
  return schedule !== undefined && Object.values(schedule.activations).some((t) => t !== null && t >= at);
}
