/**
 * What each simulated node sees of the Primary Network's validators: `platform.getCurrentValidators`
 * answers with the answering node's own view of every validator (`uptime`, `connected`), as
 * AvalancheGo does (vms/platformvm/service.go, getPrimaryOrSubnetValidators: the uptime manager's
 * CalculateUptimePercentFrom and Peers().Has of the answering node; a node counts itself connected,
 * snow/networking/router/chain_router.go "Mark myself as connected").
 *
 * `uptime` is cumulative, per observer and validator, since the validation's (or the auto-renewed
 * cycle's) start (snow/uptime/manager.go, kept in ./uptime-book.ts): a disconnection moves it only
 * as disconnected time accumulates, never at once. `connected` is instantaneous. Every validation
 * has run VALIDATION_AGE_SECONDS when the set is created, and validation time runs `clockFactor`
 * times real time (a scenario setting: real time by default, as AvalancheGo's nodes measure it;
 * ACCELERATED_UPTIME_CLOCK_FACTOR, an hour a second, for a test of what a day of downtime does).
 * info.uptime is computed from the same
 * accounts (network/network.go, NodeUptime), the reward vote from each validator's own measure
 * (vms/platformvm/block/executor/options.go, prefersCommit). Figures set for a member (a scenario's
 * or the control API's info.uptime) are played as its peers' measures, so the vote is theirs, not
 * the figure's.
 *
 * The set holds the fleet's simulated validators and a number of other validators (weights,
 * uptimes and connectivity drawn once from their IDs). It plays a network-wide dip (each node loses
 * its connection to validators holding a given share of the stake, at once) and a validator its peers
 * cannot reach (scenario `unreachable-by-peers`: its own health passes, every other node sees it
 * disconnected and its uptime falling as the disconnected time accumulates).
 */
import { hashString } from './ids.js';
import { drawOtherValidators, type OtherValidator } from './other-validators.js';
import { UptimeBook } from './uptime-book.js';

/** A fleet validator as the set needs it (a SimValidator). */
export interface ObservedMember {
  readonly nodeName: string;
  readonly nodeId: string;
  readonly scenario: string;
  readonly isPrimaryValidator: boolean;
  /** isPrimaryValidator without settling an ended period (which asks the set for info.uptime). */
  readonly holdsStake: boolean;
  /** The entry without `uptime`/`connected` (the observer's part); its `delegators` only when asked for. */
  primaryEntry(withDelegators: boolean): Record<string, unknown>;
  /**
   * The uptime requirement this node applies to a validation starting at `startTime` (epoch
   * seconds): its --uptime-requirement, or 0.9 when its schedule has Helicon active then (ACP-267;
   * network/network.go for info.uptime, vms/platformvm/block/executor/options.go for its vote).
   */
  requirementFor(startTime: number): number;
  /** Its weight in the validator set: own stake plus delegations, nAVAX (the entry's weight + delegatorWeight). */
  readonly weightNAvax: number;
  /** Its current period's (cycle's) start, epoch seconds. */
  readonly periodStart: number;
  /**
   * Whether its P-Chain is still bootstrapping (a v1.15 restart): its uptime calculator is locked
   * (snow/uptime/locked_calculator.go, errStillBootstrapping), so every Ping it sends says 0
   * (network/peer/peer.go, getUptime).
   */
  bootstrapping?(now: number): boolean;
  /**
   * After a restart, while its peers reconnect: the window over which their first Pings arrive
   * (epoch ms from, and its length). A peer sends its first Ping one ping period after it connected
   * (network/peer/peer.go sendNetworkMessages: a ticker, nothing at the handshake), and until then
   * its `observedUptime` reads 0 (handlePing sets it). Undefined once every peer has pinged.
   */
  firstPings?(now: number): { from: number; spreadMs: number } | undefined;
}

/** info.uptime's figures set for a member (percent), played as its peers' measures (SimValidatorSet.playFigures). */
export interface SetFigures {
  rewarding?: number;
  weighted?: number;
}

/** The validation time each validation has behind it when the set is created (10 days). */
export const VALIDATION_AGE_SECONDS = 10 * 86_400;
/** Validation time per real second in the uptime accounting by default: real time. */
export const UPTIME_CLOCK_FACTOR = 1;
/** An accelerated clock a scenario may set (`uptimeClockFactor`): one real second is an hour of validation. */
export const ACCELERATED_UPTIME_CLOCK_FACTOR = 3_600;
/** The base uptime requirement (--uptime-requirement): 0.8 on mainnet and Fuji (genesis/genesis_mainnet.go, UptimeRequirement). */
export const SIM_UPTIME_REQUIREMENT = 0.8;
/** ACP-267's requirement for validations starting at or after Helicon (genesis.ACP267UptimeRequirement). */
export const ACP267_UPTIME_REQUIREMENT = 0.9;
const NORMAL_UPTIME = 99.2;

/**
 * Upgrade day: validators besides the fleet's holding `stakePercent` of the stake restarted and are
 * bootstrapping. They are connected (they bootstrap from their peers) and send a Ping every 22.5 s,
 * but until their P-Chain is bootstrapped their uptime calculator is locked
 * (snow/uptime/locked_calculator.go, errStillBootstrapping), so each Ping says 0 % for every
 * validator (network/peer/peer.go, getUptime: `primaryUptime = 0` on error). Every validator's
 * info.uptime counts them at 0 % and not rewarding (network/network.go, NodeUptime), and its
 * info.peers shows them with `observedUptime` "0" (network/peer/peer.go, handlePing, Info). Their own
 * measures of the others, and so the reward vote, do not change: a node that was down credits
 * everyone with its own downtime when it starts tracking again (snow/uptime/manager.go).
 */
export interface NetworkBootstrapping {
  stakePercent: number;
}

export interface NetworkDip {
  /** The share of the stake (percent) each node still sees connected; it loses the rest at once. */
  connectedPercent: number;
}

/** A node as observer or as validator: a fleet member or one of the other validators. */
type Party = { member: ObservedMember; other?: undefined } | { member?: undefined; other: OtherValidator };

export class SimValidatorSet {
  private readonly members = new Map<string, ObservedMember>();
  private others?: OtherValidator[];
  private currentDip?: NetworkDip;
  private currentBootstrapping?: NetworkBootstrapping;
  /** The other validators bootstrapping now (NodeIDs), drawn for the current setting. */
  private bootstrappingIds?: Set<string>;
  /** Per member, the validators it lost in the current dip (NodeIDs). */
  private readonly dipCut = new Map<string, Set<string>>();
  /** The figures played per member whose figures are set. */
  private readonly played = new Map<string, SetFigures>();
  /** Each member's scenario (`a+b` with conditions besides it) as the accounting last settled it (a switch settles the old one first). */
  private readonly scenarios = new Map<string, string>();
  /** Each node's uptime manager's account of each validator. */
  private readonly book: UptimeBook;
  private readonly createdAt = Date.now();
  /** Helicon activation (epoch seconds) as the other validators' (current) builds know it. */
  heliconTime?: number;

  constructor(
    readonly otherCount = 40,
    clockFactor = UPTIME_CLOCK_FACTOR,
  ) {
    this.book = new UptimeBook(this.createdAt, VALIDATION_AGE_SECONDS, clockFactor);
  }

  /** Validation time per real second in the uptime accounting (1 = real time). */
  get clockFactor(): number {
    return this.book.factor;
  }

  /** A new clock factor from now on (accounts are brought up to now first). */
  setClockFactor(factor: number, now = Date.now()): void {
    const parties = new Map(this.everyone().map((p) => [idOf(p), p]));
    this.book.setFactor(factor, now, (from, to) => {
      const [a, b] = [parties.get(from), parties.get(to)];
      return a !== undefined && b !== undefined && this.linked(a, b);
    });
  }

  join(member: ObservedMember): void {
    this.members.set(member.nodeName, member);
  }

  /** The current network-wide dip (POST /sim/network), if any. */
  get dip(): NetworkDip | undefined {
    return this.currentDip;
  }

  /** Starts (or, with undefined, ends) a network-wide dip: connections drop (or return) at once, uptime only accrues. */
  setDip(dip: NetworkDip | undefined, now = Date.now()): void {
    this.settle(now);
    this.currentDip = dip;
    this.dipCut.clear();
  }

  /** The validators besides the fleet's that are bootstrapping now (POST /sim/network), if any. */
  get bootstrapping(): NetworkBootstrapping | undefined {
    return this.currentBootstrapping;
  }

  /**
   * Starts (or, with undefined, ends) upgrade day's bootstrapping: other validators holding about
   * `stakePercent` of the stake (never more) send Ping 0 for everyone from now on. Nothing accrues
   * differently: their connections stay, and their measures of the others are what they were.
   */
  setBootstrapping(bootstrapping: NetworkBootstrapping | undefined): void {
    this.currentBootstrapping = bootstrapping;
    delete this.bootstrappingIds;
  }

  /** Whether the validator `party` is bootstrapping now (its Pings say 0). */
  private isBootstrapping(party: Party, now: number): boolean {
    if (party.member) return party.member.bootstrapping?.(now) === true;
    if (!this.currentBootstrapping) return false;
    if (!this.bootstrappingIds) {
      const ids = new Set<string>();
      let budget = (this.currentBootstrapping.stakePercent / 100) * this.stakeTotal();
      // The connected ones (a node not connected sends no Ping at all), in an order drawn from their IDs.
      const candidates = this.otherValidators()
        .filter((o) => o.connected)
        .sort((a, b) => hashString(`bootstrapping>${a.nodeID}`) - hashString(`bootstrapping>${b.nodeID}`));
      for (const o of candidates) {
        const weight = o.weight + o.delegatorWeight;
        if (weight <= budget) {
          ids.add(o.nodeID);
          budget -= weight;
        }
      }
      this.bootstrappingIds = ids;
    }
    return this.bootstrappingIds.has(party.other.nodeID);
  }

  /**
   * The percent `peer`'s last Ping to `to` said (network/peer/peer.go, getUptime): its measure,
   * whole and floored; 0 while `peer` is bootstrapping (its calculator errs), and 0 for a node that
   * is not a validator (its start time is not found: database.ErrNotFound).
   */
  private pingOf(peer: Party, to: Party, now: number): number {
    if (!this.hasPinged(peer, to, now)) return 0;
    return this.lastPing(peer, to, now);
  }

  /** What `peer`'s Pings to `to` say now, whether or not one has reached it since its restart. */
  private lastPing(peer: Party, to: Party, now: number): number {
    if (this.isBootstrapping(peer, now)) return 0;
    if (to.member && !to.member.holdsStake) return 0;
    return Math.floor(this.uptimeSeen(peer, to, now));
  }

  /** Whether `peer` has sent `to` a Ping since `to` last restarted: each peer's first comes at a moment drawn from the pair, inside the window. */
  private hasPinged(peer: Party, to: Party, now: number): boolean {
    const window = to.member?.firstPings?.(now);
    if (!window) return true;
    return now >= window.from + window.spreadMs * ((hashString(`ping ${idOf(to)}<${idOf(peer)}`) % 1000) / 1000);
  }

  /** The share of the stake linked to `member` (peers only) whose first Ping since its restart has come (1 outside a restart). */
  pingedShare(member: ObservedMember, now = Date.now()): number {
    const to: Party = { member };
    let linked = 0;
    let pinged = 0;
    for (const [peer, weight] of this.peersOf(member)) {
      if (!this.linked(peer, to)) continue;
      linked += weight;
      if (this.hasPinged(peer, to, now)) pinged += weight;
    }
    return linked === 0 ? 1 : pinged / linked;
  }

  /**
   * info.peers of `member` as far as validators go: each validator connected to it, with the percent
   * its last Ping said of `member` (`observedUptime`, network/peer/peer.go Info). The non-validator
   * peers are sim/peers.ts's own.
   */
  validatorPeers(member: ObservedMember, now = Date.now()): Array<{ nodeId: string; observedUptime: number }> {
    const to: Party = { member };
    const peers: Array<{ nodeId: string; observedUptime: number }> = [];
    for (const [peer] of this.peersOf(member)) {
      if (!this.linked(peer, to)) continue;
      peers.push({ nodeId: idOf(peer), observedUptime: this.pingOf(peer, to, now) });
    }
    return peers;
  }

  /** A scenario switch (unreachable-by-peers, network-down, inbound-closed…) changes connections from now on: the member's own. */
  onScenario(member: ObservedMember, scenario: string, now = Date.now()): void {
    const before = this.scenarios.get(member.nodeName);
    if (before === scenario) return;
    // The first is the node's own from its start: nothing was accounted under another one.
    if (before !== undefined) this.settle(now, member);
    this.scenarios.set(member.nodeName, scenario);
  }

  /** Whether every other node has lost the member (scenario `unreachable-by-peers`). */
  isUnreachable(member: ObservedMember): boolean {
    return this.is(member, 'unreachable-by-peers');
  }

  /**
   * platform.getCurrentValidators on the Primary Network as `observer` answers it: every validator,
   * or those of `nodeIds`; the `delegators` list only when exactly one NodeID was asked for (service.go:
   * "If we are handling multiple nodeIDs, we don't return the delegator information").
   */
  view(observer: ObservedMember, nodeIds: readonly unknown[] | undefined, now = Date.now()): Array<Record<string, unknown>> {
    const wanted = nodeIds && nodeIds.length > 0 ? new Set(nodeIds.filter((id): id is string => typeof id === 'string')) : undefined;
    const oneAsked = wanted !== undefined && wanted.size === 1;
    const lying = this.is(observer, 'lying-observer');
    const from: Party = { member: observer };
    const entries: Array<Record<string, unknown>> = [];
    for (const member of this.members.values()) {
      if (!member.isPrimaryValidator || (wanted && !wanted.has(member.nodeId))) continue;
      const to: Party = { member };
      entries.push({ ...member.primaryEntry(oneAsked), uptime: this.uptimeSeen(from, to, now).toFixed(4), connected: this.linked(from, to) && !lying });
    }
    for (const other of this.otherValidators()) {
      if (wanted && !wanted.has(other.nodeID)) continue;
      const to: Party = { other };
      entries.push({ ...other.entry, uptime: this.uptimeSeen(from, to, now).toFixed(4), connected: this.linked(from, to) && !lying });
    }
    return entries;
  }

  /**
   * info.uptime of `member` as AvalancheGo computes it (network/network.go, NodeUptime): its own
   * stake at 100 % and rewarding; each connected validator with the percent of its last Ping, whole
   * and floored (network/peer/peer.go, getUptime: `uint32(uptime × 100)`), rewarding when that is at
   * or above the member's own requirement; a validator not connected 0 % and not rewarding, one
   * bootstrapping 0 % too (its Pings say 0), one that has not pinged since the member restarted 0 %
   * too. Never below the member's own share of the stake. `asItSees` false: the peers' last Pings,
   * whether or not they reached it since a restart (what the network measures, not the node's own API).
   */
  nodeUptime(member: ObservedMember, now = Date.now(), asItSees = true): { rewarding: number; weighted: number } | undefined {
    const total = this.stakeTotal();
    if (total === 0) return undefined;
    const own = member.weightNAvax;
    const requirement = member.requirementFor(member.periodStart);
    let weighted = 100 * own;
    let rewarding = own;
    const to: Party = { member };
    for (const [peer, weight] of this.peersOf(member)) {
      if (!this.linked(peer, to)) continue;
      const ping = asItSees ? this.pingOf(peer, to, now) : this.lastPing(peer, to, now);
      weighted += ping * weight;
      if (ping / 100 >= requirement) rewarding += weight;
    }
    return { rewarding: (100 * rewarding) / total, weighted: weighted / total };
  }

  /**
   * The reward vote on `member`'s period, as the network decides it: each validator prefers commit
   * iff its own cumulative measure of the member since the period's start meets the requirement it
   * applies (vms/platformvm/block/executor/options.go, prefersCommit; the member's own measure of
   * itself is 100 %), and Snowman carries the side holding more than half of the stake
   * (snow/consensus/snowball). A validator not connected votes with its measure too.
   */
  voteCommits(member: ObservedMember, now = Date.now()): boolean {
    const total = this.stakeTotal();
    const start = member.periodStart;
    let commit = member.weightNAvax;
    const to: Party = { member };
    for (const [peer, weight] of this.peersOf(member)) {
      const requirement = peer.member ? peer.member.requirementFor(start) : this.othersRequirement(start);
      if (this.uptimeSeen(peer, to, now) / 100 >= requirement) commit += weight;
    }
    return total > 0 && commit * 2 > total;
  }

  /** The other validators' requirement for a validation starting at `start` (they run a build that knows Helicon). */
  private othersRequirement(start: number): number {
    return this.heliconTime !== undefined && start >= this.heliconTime ? ACP267_UPTIME_REQUIREMENT : SIM_UPTIME_REQUIREMENT;
  }

  /**
   * Figures set for `member`'s info.uptime (undefined: none) played as its peers' measures, as a
   * history would leave them: other validators holding about `rewarding` percent of the stake (with
   * the member's own and the fleet's, whose views avahealth reads) measure it above the requirement,
   * the rest below it (to about `weighted` on average, at least 1 %; half the requirement without
   * one). Everyone is connected from now on, so the measures run on from there. The
   * reward vote follows them (voteCommits). Figures are a test's shorthand for what the peers
   * measure, not something a network does: taken away, the peers measure the member as an
   * undisturbed validation again.
   */
  playFigures(member: ObservedMember, figures: SetFigures | undefined, now = Date.now()): void {
    const played = this.played.get(member.nodeName);
    if (played?.rewarding === figures?.rewarding && played?.weighted === figures?.weighted) return;
    this.settle(now, member);
    if (played) for (const o of this.otherValidators()) this.book.forget(o.nodeID, member.nodeId);
    if (!figures || (figures.rewarding === undefined && figures.weighted === undefined)) {
      this.played.delete(member.nodeName);
      return;
    }
    const total = this.stakeTotal();
    const weightOf = (o: OtherValidator) => o.weight + o.delegatorWeight;
    const fleet = [...this.members.values()].filter((m) => m !== member && m.holdsStake).reduce((sum, m) => sum + m.weightNAvax, 0);
    let budget = ((figures.rewarding ?? 100) / 100) * total - member.weightNAvax - fleet;
    // the largest first, each while it fits: the stake above comes within a small validator's weight of the figure
    const others = [...this.otherValidators()].sort((a, b) => weightOf(b) - weightOf(a) || a.nodeID.localeCompare(b.nodeID));
    const above: OtherValidator[] = [];
    const below: OtherValidator[] = [];
    for (const o of others) {
      if (weightOf(o) <= budget) {
        above.push(o);
        budget -= weightOf(o);
      } else below.push(o);
    }
    const start = member.periodStart;
    const requirements = [member.requirementFor(start), this.othersRequirement(start)];
    // whole percents, as Pings floor them: at or above every requirement, or below every one
    const high = Math.min(100, Math.ceil(100 * Math.max(...requirements)) + 2);
    const belowAll = Math.max(0, Math.floor(100 * Math.min(...requirements)) - 5);
    const belowWeight = below.reduce((sum, o) => sum + weightOf(o), 0);
    const aboveWeight = above.reduce((sum, o) => sum + weightOf(o), 0);
    const toWeighted = figures.weighted === undefined || belowWeight === 0 ? belowAll / 2 : (figures.weighted * total - 100 * (member.weightNAvax + fleet) - high * aboveWeight) / belowWeight;
    // never 0: a Ping of 0 is what a bootstrapping peer sends (network/peer/peer.go getUptime)
    const low = Math.min(belowAll, Math.max(1, toWeighted));
    for (const o of above) this.book.pin(o.nodeID, member.nodeId, high, now);
    for (const o of below) this.book.pin(o.nodeID, member.nodeId, low, now);
    this.played.set(member.nodeName, { ...figures });
  }

  /**
   * `member`'s validation starts anew at `startTime` (a new validation, or the next cycle of an
   * auto-renewed one): every validator's measure of it starts at zero then
   * (vms/platformvm/state/state.go, writeCurrentStakers).
   */
  restartMeasure(member: ObservedMember, startTime: number, now = Date.now()): void {
    this.settle(now, member);
    const to: Party = { member };
    const parties = new Map(this.everyone().map((p) => [idOf(p), p]));
    this.book.restart(member.nodeId, startTime, now, parties.keys(), (from) => this.linked(parties.get(from)!, to));
  }

  /**
   * `member` was stopped for the last `seconds` and starts again: every validator it was connected
   * to lost that connected time of it. Its own accounts of the others are not touched: a node that
   * was down credits everyone with its own downtime when it starts tracking again
   * (snow/uptime/manager.go, CalculateUptime before StartTracking: "assume that the node has been
   * online since their last update").
   */
  stoppedFor(member: ObservedMember, seconds: number, now = Date.now()): void {
    this.settle(now, member);
    const parties = this.everyone();
    this.book.debit(member.nodeId, seconds, now, parties.map(idOf), (from) => baseOf(from, member.nodeId, undefined));
  }

  /** The uptime `from`'s uptime manager computes for `to`: connected validation time over the time since the start. */
  private uptimeSeen(from: Party, to: Party, now: number): number {
    if (idOf(from) === idOf(to)) return 100;
    return this.book.percent(idOf(from), idOf(to), baseOf(idOf(from), idOf(to), to.other), this.linked(from, to), now);
  }

  /**
   * Every account brought up to `now` under the connections as they are (before they change); with
   * `only`, the accounts of the pairs it is part of (a member's scenario changes no other pair).
   */
  private settle(now: number, only?: ObservedMember): void {
    const members = only ? [only] : [...this.members.values()];
    const everyone = this.everyone();
    for (const member of members) {
      const self: Party = { member };
      for (const other of everyone) {
        if (idOf(other) === member.nodeId) continue;
        for (const [from, to] of [[self, other], [other, self]] as Array<[Party, Party]>) {
          this.book.settle(idOf(from), idOf(to), baseOf(idOf(from), idOf(to), to.other), this.linked(from, to), now);
        }
      }
    }
  }

  /** Every party: the fleet's members and the other validators. */
  private everyone(): Party[] {
    return [...[...this.members.values()].map((member): Party => ({ member })), ...this.otherValidators().map((other): Party => ({ other }))];
  }

  /** The validators other than `member` holding stake, with their weight. */
  private peersOf(member: ObservedMember): Array<[Party, number]> {
    return [
      ...[...this.members.values()].filter((m) => m !== member && m.holdsStake).map((m): [Party, number] => [{ member: m }, m.weightNAvax]),
      ...this.otherValidators().map((o): [Party, number] => [{ other: o }, o.weight + o.delegatorWeight]),
    ];
  }

  /** Whether `from` and `to` have a p2p connection now (either direction: service.go Peers().Has). */
  private linked(from: Party, to: Party): boolean {
    if (idOf(from) === idOf(to)) return true;
    if (from.member && this.is(from.member, 'network-down')) return false;
    if (to.member && this.isUnreachable(to.member)) return false;
    if (from.member && to.member && !reaches(from.member, to.member, this.is(to.member, 'inbound-closed'))) return false;
    if (this.currentDip) {
      // The dip is cut from the member's side: what it loses, it loses in both directions.
      if (from.member) return !this.cutOf(from.member).has(idOf(to));
      if (to.member) return !this.cutOf(to.member).has(idOf(from));
    }
    return (from.other?.connected ?? true) && (to.other?.connected ?? true);
  }

  /** The validators `member` loses in the current dip: in an order drawn from the pair, until the lost stake reaches 100 − connectedPercent. */
  private cutOf(member: { nodeName: string; nodeId: string }): Set<string> {
    let cut = this.dipCut.get(member.nodeName);
    if (cut) return cut;
    cut = new Set();
    const candidates: Array<[string, number]> = [
      ...[...this.members.values()].filter((m) => m.nodeId !== member.nodeId && m.holdsStake).map((m): [string, number] => [m.nodeId, m.weightNAvax]),
      ...this.otherValidators().map((o): [string, number] => [o.nodeID, o.weight + o.delegatorWeight]),
    ].sort((a, b) => hashString(`${member.nodeId}>${a[0]}`) - hashString(`${member.nodeId}>${b[0]}`));
    let budget = ((100 - (this.currentDip?.connectedPercent ?? 100)) / 100) * this.stakeTotal();
    for (const [nodeId, weight] of candidates) {
      if (weight <= budget) {
        cut.add(nodeId);
        budget -= weight;
      }
    }
    this.dipCut.set(member.nodeName, cut);
    return cut;
  }

  /**
   * In a dip, the share of the Primary Network's stake a node is connected to, itself counted when
   * it validates (its chains' `percentConnected`: snow/networking/handler/health.go,
   * snow/engine/common/tracker/peers.go): what it lost is cut from its own side, a node that is no
   * validator (an RPC node) loses its connections too. Undefined outside a dip.
   */
  dipConnectedRatio(node: { nodeName: string; nodeId: string }): number | undefined {
    if (!this.currentDip) return undefined;
    const total = this.stakeTotal();
    if (total === 0) return undefined;
    const cut = this.cutOf(node);
    let lost = 0;
    for (const m of this.members.values()) if (m.holdsStake && cut.has(m.nodeId)) lost += m.weightNAvax;
    for (const o of this.otherValidators()) if (cut.has(o.nodeID)) lost += o.weight + o.delegatorWeight;
    return (total - lost) / total;
  }

  /** totalWeight without settling periods (called while one is being settled). */
  private stakeTotal(): number {
    let total = 0;
    for (const member of this.members.values()) if (member.holdsStake) total += member.weightNAvax;
    for (const other of this.otherValidators()) total += other.weight + other.delegatorWeight;
    return total;
  }

  /** Whether the member is in the scenario `name` (its own or one held besides it), as the accounting last settled it. */
  private is(member: ObservedMember, name: string): boolean {
    return (this.scenarios.get(member.nodeName) ?? member.scenario).split('+').includes(name);
  }

  /** The Primary Network's total weight (own stake plus delegations of every validator), nAVAX: getTotalStake. */
  totalWeight(): number {
    let total = 0;
    for (const member of this.members.values()) if (member.isPrimaryValidator) total += member.weightNAvax;
    for (const other of this.otherValidators()) total += other.weight + other.delegatorWeight;
    return total;
  }

  /** A member's share of the total weight, percent (what info.uptime reads before any peer has pinged). */
  ownStakePercent(member: ObservedMember): number {
    // Without settling periods: asked while one is being settled (its vote reads info.uptime's figures).
    const total = this.stakeTotal();
    return total > 0 ? (100 * member.weightNAvax) / total : 0;
  }

  /** The other validators, drawn once: most up all the time, a few poor ones, a few not connected. */
  private otherValidators(): OtherValidator[] {
    return (this.others ??= drawOtherValidators(this.otherCount));
  }
}

/**
 * Whether `observer` has a connection to `member` (either direction: service.go Peers().Has). A member
 * whose staking port is closed (`inbound-closed`) still dials every validator, but a node that is not
 * a validator cannot dial in (network/network.go: nodes connect to validators; no_ingress_conn_alert.go).
 * (A `lying-observer` says nobody is connected: not AvalancheGo behaviour, a hostile node; `view` plays it.)
 */
function reaches(observer: ObservedMember, member: ObservedMember, memberInboundClosed: boolean): boolean {
  if (observer.nodeId === member.nodeId) return true;
  return !(memberInboundClosed && !observer.holdsStake);
}

/** A pair's uptime before the set was created: the validator's (a fleet member's NORMAL_UPTIME), a little different from each observer. */
function baseOf(from: string, to: string, other: OtherValidator | undefined): number {
  return clamp((other ? other.uptime : NORMAL_UPTIME) + ((hashString(`${from}>${to}`) % 80) / 100 - 0.4));
}

function idOf(party: Party): string {
  return party.member ? party.member.nodeId : party.other.nodeID;
}

function clamp(percent: number): number {
  return Math.min(100, Math.max(0, percent));
}
