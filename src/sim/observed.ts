/**
 * What each simulated node sees of the Primary Network's validators: `platform.getCurrentValidators`
 * answers with the answering node's own view of every validator (`uptime`, `connected`), as
 * AvalancheGo does (vms/platformvm/service.go, getPrimaryOrSubnetValidators: the uptime manager's
 * CalculateUptimePercentFrom and Peers().Has of the answering node; a node counts itself connected,
 * snow/networking/router/chain_router.go "Mark myself as connected").
 *
 * The set holds the fleet's simulated validators and a number of other validators (weights,
 * uptimes and connectivity drawn once from their IDs). It plays a network-wide dip (every node sees
 * every validator's uptime drop) and a validator its peers cannot reach (scenario
 * `unreachable-by-peers`: its own health passes, every other node sees it disconnected and its
 * uptime falling).
 */
import { hashString, nodeIdFor, prng } from './ids.js';

/** A fleet validator as the set needs it (a SimValidator). */
export interface ObservedMember {
  readonly nodeName: string;
  readonly nodeId: string;
  readonly scenario: string;
  readonly isPrimaryValidator: boolean;
  /** The entry without `uptime`/`connected` (the observer's part); its `delegators` only when asked for. */
  primaryEntry(withDelegators: boolean): Record<string, unknown>;
}

/** Every other node sees the unreachable validator's uptime fall by this many points a second (accelerated). */
export const UNREACHABLE_UPTIME_FALL_PER_SECOND = 0.3;
const NORMAL_UPTIME = 99.2;

export interface NetworkDip {
  /** The uptime every node sees every validator at (± 3 points). */
  uptimePercent: number;
  /** The share of validators each node still sees connected. */
  connectedPercent: number;
}

interface OtherValidator {
  nodeID: string;
  weight: number;
  delegatorWeight: number;
  /** Its uptime as the network sees it outside a dip. */
  uptime: number;
  connected: boolean;
  entry: Record<string, unknown>;
}

export class SimValidatorSet {
  private readonly members = new Map<string, ObservedMember>();
  private others?: OtherValidator[];
  /** Set through the control API (POST /sim/network): every node sees every validator low. */
  dip?: NetworkDip;
  /** When each member became unreachable by its peers (epoch ms). */
  private readonly unreachableSince = new Map<string, number>();

  constructor(readonly otherCount = 40) {}

  join(member: ObservedMember): void {
    this.members.set(member.nodeName, member);
  }

  /** A scenario switch starts (or ends) a member's unreachability. */
  onScenario(member: ObservedMember, scenario: string, now = Date.now()): void {
    if (scenario === 'unreachable-by-peers') {
      if (!this.unreachableSince.has(member.nodeName)) this.unreachableSince.set(member.nodeName, now);
    } else this.unreachableSince.delete(member.nodeName);
  }

  /** The uptime peers see the member at while they cannot reach it, else undefined. */
  unreachableUptime(member: ObservedMember, now = Date.now()): number | undefined {
    const since = this.unreachableSince.get(member.nodeName);
    if (since === undefined) return undefined;
    return Math.max(0, NORMAL_UPTIME - ((now - since) / 1000) * UNREACHABLE_UPTIME_FALL_PER_SECOND);
  }

  /**
   * platform.getCurrentValidators on the Primary Network as `observer` answers it: every validator,
   * or those of `nodeIds`; the `delegators` list only when exactly one NodeID was asked for (service.go:
   * "If we are handling multiple nodeIDs, we don't return the delegator information").
   */
  view(observer: ObservedMember, nodeIds: readonly unknown[] | undefined, now = Date.now()): Array<Record<string, unknown>> {
    const wanted = nodeIds && nodeIds.length > 0 ? new Set(nodeIds.filter((id): id is string => typeof id === 'string')) : undefined;
    const oneAsked = wanted !== undefined && wanted.size === 1;
    const entries: Array<Record<string, unknown>> = [];
    for (const member of this.members.values()) {
      if (!member.isPrimaryValidator || (wanted && !wanted.has(member.nodeId))) continue;
      const entry = member.primaryEntry(oneAsked);
      const seen = this.seen(observer, member.nodeId, this.unreachableUptime(member, now), NORMAL_UPTIME, true);
      entries.push({ ...entry, uptime: seen.uptime.toFixed(4), connected: seen.connected && reaches(observer, member) });
    }
    for (const other of this.otherValidators()) {
      if (wanted && !wanted.has(other.nodeID)) continue;
      const seen = this.seen(observer, other.nodeID, undefined, other.uptime, other.connected);
      entries.push({ ...other.entry, uptime: seen.uptime.toFixed(4), connected: seen.connected && observer.scenario !== 'lying-observer' });
    }
    return entries;
  }

  private seen(observer: ObservedMember, nodeId: string, unreachable: number | undefined, uptime: number, connected: boolean): { uptime: number; connected: boolean } {
    if (nodeId === observer.nodeId) return { uptime: 100, connected: true };
    if (observer.scenario === 'network-down') return { uptime, connected: false };
    const pair = hashString(`${observer.nodeId}>${nodeId}`);
    if (this.dip) {
      return { uptime: clamp(this.dip.uptimePercent + ((pair % 600) / 100 - 3)), connected: (pair >>> 12) % 100 < this.dip.connectedPercent };
    }
    if (unreachable !== undefined) return { uptime: unreachable, connected: false };
    return { uptime: clamp(uptime + ((pair % 80) / 100 - 0.4)), connected };
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
 * A `lying-observer` says nobody is connected (not AvalancheGo behaviour: a hostile node).
 */
function reaches(observer: ObservedMember, member: ObservedMember): boolean {
  if (observer.nodeId === member.nodeId) return true;
  if (observer.scenario === 'lying-observer') return false;
  return !(member.scenario === 'inbound-closed' && !observer.isPrimaryValidator);
}

/** An entry's weight in the validator set: its stake plus the stake delegated to it. */
function weightOf(entry: Record<string, unknown>): number {
  return Number(entry.weight ?? 0) + Number(entry.delegatorWeight ?? 0);
}

function clamp(percent: number): number {
  return Math.min(100, Math.max(0, percent));
}
