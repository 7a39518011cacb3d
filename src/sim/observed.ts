/**
 * What each simulated node sees of the Primary Network's validators: `platform.getCurrentValidators`
 * answers with the answering node's own view of every validator (`uptime`, `connected`), as
 * AvalancheGo does (vms/platformvm/service.go, getPrimaryOrSubnetValidators: the uptime manager's
 * CalculateUptimePercentFrom and Peers().Has of the answering node; a node counts itself connected,
 * snow/networking/router/chain_router.go "Mark myself as connected").
 *
 * `uptime` is cumulative, per observer and validator, since the validation's start
 * (snow/uptime/manager.go: CalculateUptime adds the time the observer has been connected to the
 * validator; CalculateUptimePercentFrom divides by the time since the start): a disconnection moves it
 * only as disconnected time accumulates, never at once. `connected` is instantaneous. To keep tests
 * fast the accounting runs on an accelerated clock: every validation has run VALIDATION_AGE_SECONDS
 * when the set is created, and one real second counts as UPTIME_CLOCK_FACTOR seconds of validation.
 *
 * The set holds the fleet's simulated validators and a number of other validators (weights,
 * uptimes and connectivity drawn once from their IDs). It plays a network-wide dip (each node loses
 * its connection to validators holding a given share of the stake, at once) and a validator its peers
 * cannot reach (scenario `unreachable-by-peers`: its own health passes, every other node sees it
 * disconnected and its uptime falling as the disconnected time accumulates).
 */
import { hashString, nodeIdFor, prng } from './ids.js';

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
}

/** The validation time each validation has behind it when the set is created (10 days). */
export const VALIDATION_AGE_SECONDS = 10 * 86_400;
/** One real second counts as this many seconds of validation time in the uptime accounting (an hour). */
export const UPTIME_CLOCK_FACTOR = 3_600;
const NORMAL_UPTIME = 99.2;

export interface NetworkDip {
  /** The share of the stake (percent) each node still sees connected; it loses the rest at once. */
  connectedPercent: number;
}

interface OtherValidator {
  nodeID: string;
  weight: number;
  delegatorWeight: number;
  /** Its uptime as the network saw it when the set was created. */
  uptime: number;
  connected: boolean;
  entry: Record<string, unknown>;
}

/** What an observer's uptime manager holds of one validator: validation seconds connected until `at` (real ms). */
interface Account {
  up: number;
  at: number;
}

/** A node as observer or as validator: a fleet member or one of the other validators. */
type Party = { member: ObservedMember; other?: undefined } | { member?: undefined; other: OtherValidator };

export class SimValidatorSet {
  private readonly members = new Map<string, ObservedMember>();
  private others?: OtherValidator[];
  private currentDip?: NetworkDip;
  /** Per member, the validators it lost in the current dip (NodeIDs). */
  private readonly dipCut = new Map<string, Set<string>>();
  /** Each member's scenario (`a+b` with conditions besides it) as the accounting last settled it (a switch settles the old one first). */
  private readonly scenarios = new Map<string, string>();
  /** observer>validator: the observer's uptime manager's account of the validator. */
  private readonly accounts = new Map<string, Account>();
  private readonly createdAt = Date.now();

  constructor(readonly otherCount = 40) {}

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
   * info.uptime of `member` while its peers' connections are disturbed (a dip, or unreachable by its
   * peers), else undefined: its own stake at 100 % and rewarding, each connected validator with the
   * uptime it observes of the member, one not connected 0 % (network/network.go, NodeUptime).
   */
  disturbedInfoUptime(member: ObservedMember, now = Date.now()): { rewarding: number; weighted: number } | undefined {
    if (!this.currentDip && !this.isUnreachable(member)) return undefined;
    const total = this.stakeTotal();
    if (total === 0) return undefined;
    const own = weightOf(member.primaryEntry(false));
    let weighted = 100 * own;
    let rewarding = own;
    const to: Party = { member };
    const peers: Array<[Party, number]> = [
      ...[...this.members.values()].filter((m) => m !== member && m.holdsStake).map((m): [Party, number] => [{ member: m }, weightOf(m.primaryEntry(false))]),
      ...this.otherValidators().map((o): [Party, number] => [{ other: o }, o.weight + o.delegatorWeight]),
    ];
    for (const [peer, weight] of peers) {
      if (!this.linked(peer, to)) continue;
      const seen = this.uptimeSeen(peer, to, now);
      weighted += seen * weight;
      if (seen >= 90) rewarding += weight;
    }
    return { rewarding: (100 * rewarding) / total, weighted: weighted / total };
  }

  /** The uptime `from`'s uptime manager computes for `to`: connected validation time over the time since the start. */
  private uptimeSeen(from: Party, to: Party, now: number): number {
    if (idOf(from) === idOf(to)) return 100;
    const account = this.account(from, to);
    const up = account.up + (this.linked(from, to) ? this.validationSeconds(now) - this.validationSeconds(account.at) : 0);
    return clamp((100 * up) / this.validationSeconds(now));
  }

  /**
   * Every account brought up to `now` under the connections as they are (before they change); with
   * `only`, the accounts of the pairs it is part of (a member's scenario changes no other pair). A
   * pair connected all along needs no account until it is cut: one made later starts at the set's
   * creation, as if it had been settled all the way.
   */
  private settle(now: number, only?: ObservedMember): void {
    const members = only ? [only] : [...this.members.values()];
    const everyone: Party[] = [...[...this.members.values()].map((member): Party => ({ member })), ...this.otherValidators().map((other): Party => ({ other }))];
    const pairs: Array<[Party, Party]> = [];
    for (const member of members) {
      const self: Party = { member };
      for (const other of everyone) pairs.push([self, other], [other, self]);
    }
    for (const [from, to] of pairs) {
      if (idOf(from) === idOf(to)) continue;
      const account = this.account(from, to);
      if (this.linked(from, to)) account.up += this.validationSeconds(now) - this.validationSeconds(account.at);
      account.at = now;
    }
  }

  private account(from: Party, to: Party): Account {
    const key = `${idOf(from)}>${idOf(to)}`;
    let account = this.accounts.get(key);
    if (!account) {
      // Its uptime when the set was created, a little different from each observer.
      const pair = hashString(key);
      const base = clamp((to.other ? to.other.uptime : NORMAL_UPTIME) + ((pair % 80) / 100 - 0.4));
      account = { up: (base / 100) * VALIDATION_AGE_SECONDS, at: this.createdAt };
      this.accounts.set(key, account);
    }
    return account;
  }

  /** The validation time (seconds) behind every validation at `atMs`, on the accounting's accelerated clock. */
  private validationSeconds(atMs: number): number {
    return VALIDATION_AGE_SECONDS + (Math.max(0, atMs - this.createdAt) / 1000) * UPTIME_CLOCK_FACTOR;
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
  private cutOf(member: ObservedMember): Set<string> {
    let cut = this.dipCut.get(member.nodeName);
    if (cut) return cut;
    cut = new Set();
    const candidates: Array<[string, number]> = [
      ...[...this.members.values()].filter((m) => m !== member && m.holdsStake).map((m): [string, number] => [m.nodeId, weightOf(m.primaryEntry(false))]),
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

  /** totalWeight without settling periods (called while one is being settled). */
  private stakeTotal(): number {
    let total = 0;
    for (const member of this.members.values()) if (member.holdsStake) total += weightOf(member.primaryEntry(false));
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
    for (const member of this.members.values()) if (member.isPrimaryValidator) total += weightOf(member.primaryEntry(false));
    for (const other of this.otherValidators()) total += other.weight + other.delegatorWeight;
    return total;
  }

  /** A member's share of the total weight, percent (what info.uptime reads before any peer has pinged). */
  ownStakePercent(member: ObservedMember): number {
    const total = this.totalWeight();
    return total > 0 ? (100 * weightOf(member.primaryEntry(false))) / total : 0;
  }

  /** The other validators, drawn once: most up all the time, a few poor ones, a few not connected. */
  private otherValidators(): OtherValidator[] {
    if (this.others) return this.others;
    const random = prng(this.otherCount);
    const owner = { locktime: '0', threshold: '1', addresses: ['P-avax1gfpj30csekhwmf4mqkncelus5zl2ztqzvv7aww'] };
    const start = Math.floor(Date.now() / 1000) - 20 * 86_400;
    this.others = Array.from({ length: this.otherCount }, (_, i) => {
      const nodeID = nodeIdFor(`network-validator-${i}`);
      // 2,000 AVAX to 3M AVAX, most of them small
      const weight = Math.round(2_000e9 + random() ** 4 * 3_000_000e9);
      const delegatorWeight = random() < 0.5 ? Math.round(random() * weight) : 0;
      // one in twelve poor (below the requirement), one in twenty-five not connected now
      const poor = i % 12 === 5;
      const uptime = poor ? 55 + random() * 35 : 98 + random() * 2;
      const connected = i % 25 !== 7;
      const entry = {
        txID: nodeIdFor(`network-validator-${i}:tx`).slice('NodeID-'.length),
        startTime: String(start - Math.floor(random() * 200 * 86_400)),
        endTime: String(start + Math.floor((30 + random() * 300) * 86_400)),
        weight: String(weight),
        nodeID,
        potentialReward: String(Math.round(weight * 0.03)),
        accruedDelegateeReward: '0',
        delegationFee: '2.0000',
        signer: { publicKey: `0x${'8f'.repeat(48)}`, proofOfPossession: `0x${'86'.repeat(96)}` },
        validationRewardOwner: owner,
        delegationRewardOwner: owner,
        delegatorCount: String(delegatorWeight > 0 ? 1 + Math.floor(random() * 40) : 0),
        delegatorWeight: String(delegatorWeight),
      };
      return { nodeID, weight, delegatorWeight, uptime, connected, entry };
    });
    return this.others;
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

function idOf(party: Party): string {
  return party.member ? party.member.nodeId : party.other.nodeID;
}

/** An entry's weight in the validator set: its stake plus the stake delegated to it. */
function weightOf(entry: Record<string, unknown>): number {
  return Number(entry.weight ?? 0) + Number(entry.delegatorWeight ?? 0);
}

function clamp(percent: number): number {
  return Math.min(100, Math.max(0, percent));
}
