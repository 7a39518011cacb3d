/**
 * Validator economics: what a node's info.* and platform.* answers mean for its money. The types
 * the validator probe records, and the pure arithmetic every reader (metrics, alerts, status)
 * shares. Facts and sources: docs/validators.md.
 */
import type { FailureReason } from './failure.js';
import type { EndpointObservation } from './observation.js';
import type { PeriodEntry } from './periods.js';
import { projectReward, type RewardProjection } from './reward-projection.js';

/** The requirement before the Helicon upgrade (genesis UptimeRequirement). */
export const UPTIME_REQUIREMENT = 0.8;
/** ACP-267: periods starting at or after Helicon activation need 90 %. */
export const HELICON_UPTIME_REQUIREMENT = 0.9;
export const NAVAX_PER_AVAX = 1e9;
/** Stake on newer versions above this share of the network means the node is behind. */
export const VERSION_BEHIND_STAKE_RATIO = 0.5;
/** The most L1 validations kept per node (each is three series). */
export const MAX_OWN_L1_VALIDATIONS = 100;

/** `info.uptime`, percent ÷ 100. */
export interface ValidatorUptime {
  rewardingStakeRatio: number;
  weightedAverageRatio: number;
}

/** Why the validator's uptime verdicts are held (model/uptime-snapshot.ts), on the report. */
export interface UptimeSettling {
  /** Epoch seconds of the first reading at the own share. */
  since: number;
  /** The node's own share of the Primary Network's stake (its weight ÷ the total weight). */
  ownStakeRatio: number;
  /**
   * Held only because it is this daemon's first answer (a fresh start, a new shard owner): a climb
   * is not ruled out, so verdicts wait, but nothing says it is one, so the figures are shown as read.
   */
  firstAnswer?: true;
}

/** The figures are a restart's snapshot, not the cumulative uptime peers hold: not shown, no budget from them. */
export function snapshotHidden(report: Pick<ValidatorReport, 'uptimeSettling'>): boolean {
  return report.uptimeSettling !== undefined && report.uptimeSettling.firstAnswer !== true;
}

/** The node's own Primary Network validation (platform.getCurrentValidators). */
export interface PrimaryValidation {
  txId?: string;
  /** Epoch seconds. */
  startTime: number;
  endTime: number;
  weightNAvax?: number;
  potentialRewardNAvax?: number;
  /** Percent, as sent. */
  delegationFee?: number;
  delegatorCount?: number;
  /** Stake delegated to it, nAVAX (`delegatorWeight`): with `weightNAvax`, its weight in the validator set. */
  delegatorWeightNAvax?: number;
  /** The answering node's view of itself: says little (ask another node). */
  connected?: boolean;
  uptimeRatio?: number;
  /** Present only for an auto-renewed validator (ACP-236, AvalancheGo v1.15). */
  autoRenewal?: AutoRenewal;
}

/**
 * An auto-renewed validator's config (getCurrentValidators' `validatorAuthority`, `nextPeriod`,
 * `autoCompoundRewardShares`). Its `startTime`/`endTime` are the current cycle: reward, requirement
 * and downtime budget are per cycle.
 */
export interface AutoRenewal {
  /** Length of the next cycle, seconds; 0 = the validator exits at `endTime`. */
  nextPeriodSeconds: number;
  /** `nextPeriodSeconds > 0`: a new cycle starts at `endTime` (nothing ends then). */
  renews: boolean;
  /** Share of each cycle's reward restaked, 0–1 (millionths on the wire). */
  autoCompoundRatio: number;
  /** Addresses of the owner allowed to change the config (validatorAuthority). */
  authorityAddresses: string[];
  /** Later v1.15 releases: `restakedValidationRewards`: validation rewards earlier cycles compounded into the stake, nAVAX. */
  restakedValidationNAvax?: number;
  /** Later v1.15 releases: `restakedDelegateeRewards`: delegation fees earlier cycles compounded into the stake, nAVAX. */
  restakedDelegateeNAvax?: number;
}

/** The validation goes on after its `endTime` (an auto-renewed validator with a next period). */
export function validationRenews(validation: PrimaryValidation | undefined): boolean {
  return validation?.autoRenewal?.renews === true;
}

/** AvalancheGo's network names (utils/constants/network_ids.go); any other ID stays its number. */
export function networkName(networkId: number): string {
  return networkId === 1 ? 'mainnet' : networkId === 5 ? 'fuji' : String(networkId);
}

/** One ACP-77 L1 validation of the node (getCurrentValidators with subnetID, or getL1Validator). */
export interface L1Validation {
  subnetId: string;
  validationId: string;
  nodeId?: string;
  weight?: number;
  startTime?: number;
  balanceNAvax: number;
}

/** platform.getValidatorFeeState: price in nAVAX per second per active L1 validator. */
export interface FeeState {
  priceNAvaxPerSecond: number;
  excess?: number;
  timestamp?: number;
}

/** A change of the IP a node advertises to its peers (info.getNodeIP), as its validator poll saw it. */
export interface PublicIpChange {
  from: string;
  to: string;
  /** Epoch seconds of the poll that saw it. */
  at: number;
}

/**
 * A call that did not give an answer; `disabled` (404, method not found) never fails the node, nor
 * does `bootstrapping` (a P-Chain call not asked, or its answer not used, while the node's P-Chain
 * is bootstrapping: not known yet, which is neither a failure nor "none").
 */
export interface ValidatorProblem {
  /** The call (`info.uptime`, `platform.getCurrentValidators`, `platform.getCurrentValidators <subnet>`…). */
  call: string;
  reason: FailureReason | 'disabled' | 'bootstrapping';
  error: string;
}

/** The endpoint the validator poll records (`endpoint="validator"`). */
export const VALIDATOR_ENDPOINT = 'validator';

/** The validator poll's report on its endpoint; undefined for any other endpoint, or when the poll failed outright. */
export function validatorReport(e: EndpointObservation | undefined): ValidatorReport | undefined {
  return e?.endpoint === VALIDATOR_ENDPOINT ? (e.detail as ValidatorReport | undefined) : undefined;
}

/** Everything one validator poll learnt; a field is absent when its call failed or was not made. */
export interface ValidatorReport {
  nodeId?: string;
  /**
   * Why no P-Chain validation is attributed to the node: its NodeID is unknown (info API off, no
   * `node-id` header, no `node_id` configured). Without it nothing is asked by subnet or NodeID.
   */
  nodeIdUnknown?: string;
  /** The network the node says it is on (info.getNetworkID): `mainnet`, `fuji` or the numeric ID. */
  network?: string;
  /**
   * true: /ext/info answered HTTP 404 (the info API is switched off), its own state and a failed
   * exchange; false: it answered; absent: no answer either way (unreachable).
   */
  infoApiDisabled?: boolean;
  /** `avalanchego/1.14.2` (`avalanche/…` up to v1.10.17), as the node sent it (checked to be label-safe). */
  version?: string;
  /**
   * Helicon activation from the node's own info.upgrades: epoch seconds; `null` when its schedule
   * has none or reads it unscheduled (9999-12-01); absent when unknown.
   */
  heliconTime?: number | null;
  /**
   * The schedule the requirement follows when it is not the node's own: that of the newest node
   * (by version) of the same network in the fleet, which may know an upgrade this node predates.
   */
  networkSchedule?: { heliconTime: number | null; from: string; version: string };
  /** The IP:port the node advertises to its peers (info.getNodeIP); absent when unknown. */
  publicIp?: string;
  /** The last change of `publicIp` this poll saw (since the target was configured): from, to, epoch seconds. */
  publicIpChange?: PublicIpChange;
  uptime?: ValidatorUptime;
  /** info.uptime answered that the node is still bootstrapping (AvalancheGo v1.15, after a restart): its figures are not known yet, and nothing failed. */
  uptimeBootstrapping?: boolean;
  /**
   * The node's own `info.isBootstrapped {chain: "P"}` said false (asked when info.uptime gave no
   * figures): its P-Chain is still replaying blocks, so its validator set and lists are of a past
   * height (vms/platformvm/state/state.go loads them at start and moves them with each block
   * accepted). A resynced node says "node is not a validator" meanwhile. Its P-Chain calls carry a
   * `bootstrapping` problem instead of an answer: not known yet.
   */
  pChainBootstrapping?: boolean;
  /**
   * Set while `uptime` is an unsettled snapshot (the node just (re)started: both figures about its
   * own stake share, model/uptime-snapshot.ts): its verdicts are held, its budget not computed.
   */
  uptimeSettling?: UptimeSettling;
  /** The Primary Network's total validator weight (platform.getTotalStake), asked only while the figures are low. */
  totalWeightNAvax?: number;
  /**
   * Upgrade day: the connected validators whose last Ping said 0 % for this node (info.peers
   * `observedUptime` "0"), asked only while the figures are low (BOOTSTRAPPING_PEERS_ASK). A peer
   * still bootstrapping sends 0 for every validator (AvalancheGo network/peer/peer.go getUptime,
   * snow/uptime/locked_calculator.go), and info.uptime counts it at 0 % and not rewarding
   * (network/network.go NodeUptime): none of it is this node's downtime. `stakeRatio`: their weight
   * (own stake plus delegations) ÷ the Primary Network's.
   */
  bootstrappingPeers?: BootstrappingPeers;
  /** The node said "node is not a validator" (no Primary Network stake): an answer, not a failure. */
  notValidator?: boolean;
  primary?: PrimaryValidation;
  /** At most MAX_OWN_L1_VALIDATIONS, in subnet order. */
  l1: L1Validation[];
  /** Own L1 validations beyond MAX_OWN_L1_VALIDATIONS, not kept (counted, logged once). */
  l1Dropped?: number;
  feeState?: FeeState;
  problems: ValidatorProblem[];
  /** Derived numbers, computed once at poll time with the target's configuration. */
  economics?: ValidatorEconomics;
  /** The period followed and the last ended periods' outcomes ("was it paid?"; model/periods.ts). */
  periods?: PeriodEntry;
}

export interface BootstrappingPeers {
  peers: number;
  stakeRatio: number;
}

/**
 * When the validator poll asks info.peers for peers reporting 0 % (about 1 MB on mainnet): the
 * rewarding stake below `rewarding`, or less than `budgetShare` of the downtime budget left. Above
 * both, no verdict is near.
 */
export const BOOTSTRAPPING_PEERS_ASK = { rewarding: 0.9, budgetShare: 0.5 } as const;

/**
 * The info.uptime figures without the peers that report 0 % (they count 0 in both numerators and
 * their stake in the total: network/network.go NodeUptime); undefined when nothing is left to
 * judge by (they hold half the stake or more: a majority reporting 0 is no upgrade day).
 */
export function withoutZeroReporters(uptime: ValidatorUptime, peers: BootstrappingPeers | undefined): ValidatorUptime | undefined {
  if (!peers || peers.peers === 0 || !(peers.stakeRatio > 0) || peers.stakeRatio >= 0.5) return undefined;
  const rest = 1 - peers.stakeRatio;
  return { rewardingStakeRatio: Math.min(1, uptime.rewardingStakeRatio / rest), weightedAverageRatio: Math.min(1, uptime.weightedAverageRatio / rest) };
}

export interface ValidatorEconomics {
  requirement?: number;
  /**
   * Where the requirement comes from: `acp-267` (the period started at or after Helicon: 0.9
   * whatever the base), `base` (0.8), `configured-base` (`uptime_requirement`: a custom network's
   * --uptime-requirement, which no API exposes).
   */
  requirementBasis?: RequirementBasis;
  /** Allowed downtime over the whole period, seconds. */
  downtimeAllowanceSeconds?: number;
  downtimeBudgetRemainingSeconds?: number;
  /** What the reward vote would see at the period's end were the node up from now on (model/reward-projection.ts); absent while the uptime is unknown or a restart's snapshot. */
  projection?: RewardProjection;
  /** Per L1 validation (same order as `l1`): seconds of fee left at today's price. */
  l1RunwaySeconds: Array<number | undefined>;
}

export type RequirementBasis = 'acp-267' | 'base' | 'configured-base';

/** Where the requirement of a period starting at `periodStart` comes from (see uptimeRequirement). */
export function requirementBasis(periodStart: number, heliconTime: number | null | undefined, base?: number): RequirementBasis {
  if (typeof heliconTime === 'number' && periodStart >= heliconTime) return 'acp-267';
  return base !== undefined ? 'configured-base' : 'base';
}

/**
 * 0.9 when the period started at or after Helicon, whatever the base (ACP-267: AvalancheGo
 * vms/platformvm/block/executor/options.go and network/network.go replace the base with
 * genesis.ACP267UptimeRequirement); before, the base: the configured `uptime_requirement` (a custom
 * network's --uptime-requirement, which no API exposes), else 0.8.
 */
export function uptimeRequirement(periodStart: number, heliconTime: number | null | undefined, base?: number): number {
  if (typeof heliconTime === 'number' && periodStart >= heliconTime) return HELICON_UPTIME_REQUIREMENT;
  return base ?? UPTIME_REQUIREMENT;
}

export function downtimeAllowanceSeconds(requirement: number, start: number, end: number): number {
  return (1 - requirement) * Math.max(0, end - start);
}

/**
 * (1 − requirement) × (end − start) − (1 − weighted average) × (now − start): the downtime still
 * allowed before the node's peers stop voting to reward it. Elapsed time is clamped to the period.
 */
export function downtimeBudgetRemainingSeconds(requirement: number, start: number, end: number, weightedAverage: number, now: number): number {
  const elapsed = Math.min(Math.max(0, now - start), Math.max(0, end - start));
  return downtimeAllowanceSeconds(requirement, start, end) - (1 - weightedAverage) * elapsed;
}

/** Seconds until the balance runs out at today's price; undefined when nothing is charged. */
export function runwaySeconds(balanceNAvax: number, priceNAvaxPerSecond: number): number | undefined {
  return priceNAvaxPerSecond > 0 ? balanceNAvax / priceNAvaxPerSecond : undefined;
}

export function nAvaxToAvax(nAvax: number): number {
  return nAvax / NAVAX_PER_AVAX;
}

/** Helicon activation as the requirement reads it: the network's schedule, else the node's own. */
export function effectiveHeliconTime(report: Pick<ValidatorReport, 'heliconTime' | 'networkSchedule'>): number | null | undefined {
  return report.networkSchedule ? report.networkSchedule.heliconTime : report.heliconTime;
}

export function economicsOf(report: Pick<ValidatorReport, 'primary' | 'uptime' | 'uptimeSettling' | 'heliconTime' | 'networkSchedule' | 'l1' | 'feeState'>, now: number, base?: number): ValidatorEconomics {
  const economics: ValidatorEconomics = { l1RunwaySeconds: report.l1.map((v) => (report.feeState ? runwaySeconds(v.balanceNAvax, report.feeState.priceNAvaxPerSecond) : undefined)) };
  const primary = report.primary;
  if (!primary) return economics;
  const requirement = uptimeRequirement(primary.startTime, effectiveHeliconTime(report), base);
  economics.requirement = requirement;
  economics.requirementBasis = requirementBasis(primary.startTime, effectiveHeliconTime(report), base);
  economics.downtimeAllowanceSeconds = downtimeAllowanceSeconds(requirement, primary.startTime, primary.endTime);
  // A snapshot taken right after a restart is not the cumulative uptime peers hold: no budget from it.
  if (report.uptime && !snapshotHidden(report)) {
    economics.downtimeBudgetRemainingSeconds = downtimeBudgetRemainingSeconds(requirement, primary.startTime, primary.endTime, report.uptime.weightedAverageRatio, now);
    const projection = projectReward({ requirement, start: primary.startTime, end: primary.endTime, now, ...report.uptime });
    if (projection) economics.projection = projection;
  }
  return economics;
}

/** `avalanchego/1.14.2`, `avalanche/1.10.17`, `avalanchego/v1.15.0-fuji` → [1, 14, 2]; undefined without a x.y.z. */
export function versionNumbers(version: string): [number, number, number] | undefined {
  const m = /(\d{1,6})\.(\d{1,6})\.(\d{1,6})/.exec(version);
  return m ? [Number(m[1]), Number(m[2]), Number(m[3])] : undefined;
}

/** Negative when a is older than b, 0 when equal, positive when newer; undefined when either has no x.y.z. */
export function compareVersions(a: string, b: string): number | undefined {
  const x = versionNumbers(a);
  const y = versionNumbers(b);
  if (!x || !y) return undefined;
  for (let i = 0; i < 3; i++) if (x[i] !== y[i]) return x[i]! - y[i]!;
  return 0;
}

/** What a node's validator poll says about the schedule it runs. */
export interface ScheduleSource {
  target: string;
  network?: string;
  version?: string;
  heliconTime?: number | null;
}

/**
 * The schedule a node's requirement follows: that of the newest node (by version) of the same
 * network in the fleet when it is newer than this node and reads differently (a node predating an
 * upgrade does not know its time: v1.14.1+ reads it 9999-12-01 until a release schedules it).
 * Undefined when the node's own schedule stands (it is the newest, or its network is unknown).
 */
export function networkScheduleFor(own: ScheduleSource, fleet: Iterable<ScheduleSource>): ValidatorReport['networkSchedule'] | undefined {
  if (own.network === undefined) return undefined;
  const newest = newestPerNetwork(fleet).get(own.network);
  if (!newest || newest.target === own.target || newest.heliconTime === own.heliconTime) return undefined;
  if (own.version !== undefined && (compareVersions(newest.version, own.version) ?? 0) <= 0) return undefined;
  return { heliconTime: newest.heliconTime, from: newest.target, version: newest.version };
}

type KnownSchedule = ScheduleSource & { network: string; version: string; heliconTime: number | null };

/** The newest node (by version) of each network whose schedule is known; of equally new ones, one that knows a Helicon time. */
export function newestPerNetwork(fleet: Iterable<ScheduleSource>): Map<string, KnownSchedule> {
  const newest = new Map<string, KnownSchedule>();
  for (const node of fleet) {
    if (node.network === undefined || node.version === undefined || node.heliconTime === undefined || !versionNumbers(node.version)) continue;
    const best = newest.get(node.network);
    const order = best ? compareVersions(node.version, best.version)! : 1;
    if (order > 0 || (order === 0 && best!.heliconTime === null && node.heliconTime !== null)) {
      newest.set(node.network, { target: node.target, network: node.network, version: node.version, heliconTime: node.heliconTime });
    }
  }
  return newest;
}

/** One row of the Data API's stakingDistributionByVersion. */
export interface VersionStake {
  version: string;
  amountStakedNAvax: number;
  validatorCount?: number;
}

/** Each version's share of the stake (0–1), by version. */
export function versionStakeRatios(distribution: readonly VersionStake[]): Map<string, number> {
  const total = distribution.reduce((sum, row) => sum + row.amountStakedNAvax, 0);
  const ratios = new Map<string, number>();
  if (total <= 0) return ratios;
  for (const row of distribution) ratios.set(row.version, (ratios.get(row.version) ?? 0) + row.amountStakedNAvax / total);
  return ratios;
}

/** The share of stake on versions newer than `version` (0–1); undefined when it cannot be compared. */
export function newerStakeRatio(version: string, distribution: readonly VersionStake[]): number | undefined {
  if (!versionNumbers(version)) return undefined;
  const total = distribution.reduce((sum, row) => sum + row.amountStakedNAvax, 0);
  if (total <= 0) return undefined;
  const newer = distribution.filter((row) => (compareVersions(row.version, version) ?? 0) > 0).reduce((sum, row) => sum + row.amountStakedNAvax, 0);
  return newer / total;
}

/** Versions newer than the node's hold more than half of its network's stake. */
export function isVersionBehind(version: string, distribution: readonly VersionStake[]): boolean | undefined {
  const ratio = newerStakeRatio(version, distribution);
  return ratio === undefined ? undefined : ratio > VERSION_BEHIND_STAKE_RATIO;
}

/** The Data API validator record's health fields (live API's ActiveValidatorDetails), as ratios. */
export interface ValidatorRecordHealth {
  uptimePerformanceRatio?: number;
  reachabilityRatio?: number;
  /** Benched requests per chain (`P`, `X`, `C`), 0–1. */
  benchedRequestsRatio: Partial<Record<'P' | 'X' | 'C', number>>;
  avalancheGoVersion?: string;
}
