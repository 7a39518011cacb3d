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
  const newest = new Map<string, { at: number; from: string }>();
  for (const node of fleet) {
    if (node.target === own.target || node.schedule.network !== network) continue;
    for (const [key, at] of Object.entries(node.schedule.activations)) {
      if (at === null) continue;
      const known = newest.get(key);
      if (!known || at > known.at || (at === known.at && node.target < known.from)) newest.set(key, { at, from: node.target });
    }
  }
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

/** An activation as the index holds it: its time and the node that knows it. */
interface Holder {
  at: number;
  from: string;
}

/** The fleet's schedules of one network, and per upgrade the two newest activations its nodes know. */
interface NetworkIndex {
  members: Map<string, NodeSchedule>;
  /** By upgrade key: the newest activation and the next one (latest first, then by target name); each from another node. */
  top: Map<string, [Holder, Holder | undefined]>;
  /** Moves whenever a top pair changes: an answer worked out before holds while it stays. */
  version: number;
}

const NO_UPGRADES: UnknownUpgrade[] = [];

/** Whether `a` wins over `b` as the network's activation (unknownUpgrades: the later time, then the smaller target name). */
function newer(a: Holder, b: Holder): boolean {
  return a.at > b.at || (a.at === b.at && a.from < b.from);
}

/**
 * unknownUpgrades for every node of a fleet, kept up to date as the nodes' schedules change: per
 * network and upgrade the two newest activations (so that "newest known by any OTHER node" holds for
 * the node that knows the newest), changed only when a node's schedule does. A node whose schedule
 * and network's top pairs did not change gets the answer it got last (the same array) without
 * looking at the fleet; a change costs the upgrade keys of the two schedules, and the network's
 * nodes only when it moves or drops one of the two newest. Same answers as unknownUpgrades over the
 * schedules set (test/unit/upgrade-schedule.test.ts checks it against random fleets).
 */
export class FleetScheduleIndex {
  private readonly schedules = new Map<string, NodeSchedule>();
  private readonly networks = new Map<string, NetworkIndex>();
  private readonly answers = new Map<string, { schedule: NodeSchedule; network: NetworkIndex; version: number; unknown: UnknownUpgrade[] }>();
  private clock = 0;

  /** The schedule the index holds for a target. */
  get(target: string): NodeSchedule | undefined {
    return this.schedules.get(target);
  }

  /** A node's schedule as last read (undefined: it has none, or it left the fleet); nothing to do when it is the one held. */
  set(target: string, schedule: NodeSchedule | undefined): void {
    const old = this.schedules.get(target);
    if (old === schedule) return;
    if (schedule) this.schedules.set(target, schedule);
    else {
      this.schedules.delete(target);
      this.answers.delete(target);
    }
    const was = old?.network !== undefined ? this.networks.get(old.network) : undefined;
    const now = schedule?.network !== undefined ? this.network(schedule.network) : undefined;
    was?.members.delete(target);
    if (now && schedule) now.members.set(target, schedule);
    const recount = new Set<string>();
    if (was && old) {
      for (const key in old.activations) {
        if (!Object.hasOwn(old.activations, key) || old.activations[key] === null) continue;
        if (was === now && Object.hasOwn(schedule!.activations, key) && schedule!.activations[key] === old.activations[key]) continue;
        const pair = was.top.get(key);
        // Dropping an activation that is not one of the two newest changes nothing.
        if (pair && (pair[0].from === target || pair[1]?.from === target)) {
          if (was === now) recount.add(key);
          else this.recount(was, key);
        }
      }
      if (was.members.size === 0) this.networks.delete(old.network!);
    }
    if (now && schedule) {
      for (const key in schedule.activations) {
        const at = schedule.activations[key];
        if (!Object.hasOwn(schedule.activations, key) || at === null || at === undefined || recount.has(key)) continue;
        if (was === now && old && Object.hasOwn(old.activations, key) && old.activations[key] === at) continue;
        this.offer(now, key, { at, from: target });
      }
      for (const key of recount) this.recount(now, key);
    }
  }

  /** The activations the network's schedule has and `schedule` (the target's own) does not: unknownUpgrades over the schedules set. */
  unknown(target: string, schedule: NodeSchedule): UnknownUpgrade[] {
    const network = schedule.network !== undefined ? this.networks.get(schedule.network) : undefined;
    if (!network) return NO_UPGRADES;
    const answer = this.answers.get(target);
    if (answer && answer.schedule === schedule && answer.network === network && answer.version === network.version) return answer.unknown;
    const unknown: UnknownUpgrade[] = [];
    for (const [key, [first, second]] of network.top) {
      const holder = first.from !== target ? first : second;
      if (!holder) continue;
      const mine = Object.hasOwn(schedule.activations, key) ? schedule.activations[key] : undefined;
      if (mine === undefined) unknown.push({ key, at: holder.at, from: holder.from, own: 'absent' });
      else if (mine === null) unknown.push({ key, at: holder.at, from: holder.from, own: 'unscheduled' });
    }
    unknown.sort((a, b) => a.at - b.at || a.key.localeCompare(b.key));
    const result = unknown.length > 0 ? unknown : NO_UPGRADES;
    if (this.schedules.has(target)) this.answers.set(target, { schedule, network, version: network.version, unknown: result });
    return result;
  }

  private network(name: string): NetworkIndex {
    let network = this.networks.get(name);
    if (!network) this.networks.set(name, (network = { members: new Map(), top: new Map(), version: ++this.clock }));
    return network;
  }

  /** One more activation of `key`: it takes the first or second place when it is newer. */
  private offer(network: NetworkIndex, key: string, holder: Holder): void {
    const pair = network.top.get(key);
    if (!pair) network.top.set(key, [holder, undefined]);
    else if (newer(holder, pair[0])) network.top.set(key, [holder, pair[0]]);
    else if (!pair[1] || newer(holder, pair[1])) network.top.set(key, [pair[0], holder]);
    else return;
    network.version = ++this.clock;
  }

  /** The two newest activations of `key` again, from every schedule of the network. */
  private recount(network: NetworkIndex, key: string): void {
    network.top.delete(key);
    for (const [from, schedule] of network.members) {
      const at = Object.hasOwn(schedule.activations, key) ? schedule.activations[key] : undefined;
      if (at !== null && at !== undefined) this.offer(network, key, { at, from });
    }
    network.version = ++this.clock;
  }
}
