/**
 * The plain values that flow from probes to the store, and from the store to metrics, status and
 * alerts. Probes produce them; nothing downstream ever sees raw HTTP.
 */

import type { FailureReason } from './failure.js';
import type { NodeSchedule, UnknownUpgrade } from './schedule.js';

export { FAILURE_REASONS, type FailureReason } from './failure.js';

export const NODE_ENDPOINTS = ['health', 'readiness', 'liveness'] as const;
export type NodeEndpoint = (typeof NODE_ENDPOINTS)[number];

/** The unfiltered view of an endpoint; tag-filtered views carry their configured name. */
export const ALL_VIEW = 'all';

export interface ChainDetails {
  /** true while the chain bootstraps or state-syncs (its consensus block is `{}`). */
  bootstrapping?: boolean;
  lastAcceptedHeight?: number;
  processingBlocks?: number;
  longestProcessingBlockSeconds?: number;
  /** networking.percentConnected, already a 0–1 ratio on the wire. */
  connectedStakeRatio?: number;
  disconnectedValidators?: number;
}

export interface NetworkDetails {
  connectedPeers?: number;
  sendFailRatio?: number;
  lastMessageReceivedAgeSeconds?: number;
  lastMessageSentAgeSeconds?: number;
  ingressConnections?: number;
  primaryNetworkValidator?: boolean;
}

export interface RouterDetails {
  outstandingRequests?: number;
  longestRunningRequestSeconds?: number;
}

export interface DiskDetails {
  availableBytes?: number;
  /** availableDiskPercentage / 100 (v1.14.1+). */
  availableRatio?: number;
}

export interface UpgradeDetails {
  /** modeUpgradeWeightPercentage / 100. */
  modeWeightRatio?: number;
  timeUntilSeconds?: number;
  /** Epoch seconds of the newest upgrade this node's version knows (localUpgradeTime). */
  localTime?: number;
  /** Epoch seconds of the upgrade time most stake advertises (modeUpgradeTime). */
  modeTime?: number;
  /**
   * Epoch seconds by which the node must be upgraded: the stake majority's upgrade time when it is
   * later than the node's own and holds at least half of the stake (AvalancheGo node/node.go).
   */
  deadline?: number;
}

export interface CheckResult {
  /** The check's name exactly as the node sent it (untrusted; sanitized only where it becomes a label). */
  name: string;
  passing: boolean;
  /** A freshly registered check the node has not run yet; failing, as the node counts it. */
  notYetRun: boolean;
  error?: string;
  /** The raw `message` value: any JSON type, absent when the node omitted it. */
  message?: unknown;
  /** Epoch seconds of the last run; undefined for Go's zero time. */
  lastRun?: number;
  durationSeconds: number;
  contiguousFailures: number;
  failingSince?: number;
  chain?: ChainDetails;
  network?: NetworkDetails;
  router?: RouterDetails;
  disk?: DiskDetails;
  bootstrappingSubnets?: string[];
  upgrade?: UpgradeDetails;
}

/** A chain's health error when its connected stake is below the threshold (snow/networking/handler/health.go), alone. */
const NOT_ENOUGH_STAKE = /^(?:networking: )?not connected to enough stake: /;

/** Whether a check fails only because the chain is connected to too little stake. */
export function lostConnectedStake(check: CheckResult): boolean {
  return !check.passing && NOT_ENOUGH_STAKE.test(check.error ?? '');
}

/** The Primary Network's chains, as AvalancheGo names their health checks. */
export const PRIMARY_CHAINS = ['C', 'P', 'X'] as const;

/** A Primary Network chain's check (C, P, X), whose stake is the network baseline's. */
export function isPrimaryChainCheck(check: CheckResult): boolean {
  return (PRIMARY_CHAINS as readonly string[]).includes(check.name);
}

export interface HealthReport {
  healthy: boolean;
  checks: CheckResult[];
}

/** A hosted service's health report (NestJS Terminus `{status, info, error, details}` or an error body). */
export interface ServiceReport {
  /** `ok`, `error`, `shutting_down`, or whatever the service sent. */
  status: string;
  healthy: boolean;
  components: Array<{ name: string; up: boolean; status: string; message?: string }>;
  /** The `message` of an error body, or of a component that failed. */
  message?: string;
}

export interface RateLimitInfo {
  limit?: number;
  remaining?: number;
}

export interface EndpointObservation {
  /** A node endpoint (`health readiness liveness`), a service endpoint (`health-check live-check`) or an API probe's name. */
  endpoint: string;
  /** `all`, or the name of a tag-filtered view. */
  view: string;
  /** The exchange succeeded and the body had the expected shape (a 503 with a valid body counts). */
  ok: boolean;
  reason?: FailureReason;
  /** Human-readable failure text; never a label. */
  error?: string;
  httpStatus?: number;
  durationSeconds: number;
  /** Epoch seconds when the probe started. */
  at: number;
  nodeId?: string;
  /** A node's health reply. */
  report?: HealthReport;
  /** A hosted service's health report. */
  service?: ServiceReport;
  rateLimit?: RateLimitInfo;
  /**
   * What an extra probe parsed (the validator poll's report, …): typed and read through that
   * source's own model module (e.g. `validatorReport(e)`), so this type does not grow per source.
   */
  detail?: unknown;
  /** The response body as received (redacted, at most 32 KB), kept for the main health endpoint only. */
  raw?: string;
}

export interface TargetObservation {
  target: string;
  kind: 'node' | 'service';
  /**
   * The probe kind that produced it when not the target's own (e.g. `validator` on a node): the
   * store merges its endpoints into the target's state next to those of the other jobs.
   */
  source?: string;
  /** A node's network (mainnet, fuji): height lag compares nodes of the same network only. */
  network?: string;
  /** The network the node itself reports (info.getNetworkID): `mainnet`, `fuji` or the numeric ID. */
  nodeNetwork?: string;
  at: number;
  nodeId?: string;
  endpoints: EndpointObservation[];
  /**
   * A network upgrade the node's build does not know whose time has passed (the node's own poll
   * remembers it: probes/missed-upgrade.ts). Its upgraded peers have dropped it, so its futureupgrade
   * check no longer names it; held until the build knows it (localUpgradeTime at or past it).
   */
  missedUpgrade?: MissedUpgrade;
  /** The node's own upgrade schedule (info.upgrades, probes/schedule.ts), as last read. */
  schedule?: NodeSchedule;
  /**
   * Activations the network's schedule has (another node of its network knows them) that this
   * node's build does not, earliest first (model/schedule.ts); absent when there are none.
   */
  unknownUpgrades?: UnknownUpgrade[];
  /** The C-Chain's last executed block (eth_blockNumber, probes/execution.ts); absent when not read. */
  cChainExecution?: ChainExecution;
  /**
   * The node has a validator poll configured, so the fleet observes it (probes/observed.ts) and
   * AvalancheValidatorUnreachableByPeers speaks for its inbound connections, from its first poll on
   * (before the validator poll's first report: a start, a new shard owner).
   */
  fleetObserves?: true;
  /**
   * The network baseline beside a node whose Primary Network chain fails for connected stake, without
   * its own view (probes/observed.ts baselineBeside): whether the stake it lost is the network's.
   */
  networkBaseline?: NetworkBaselineViews;
}

/** The baseline of a validator's network at the time its observers were asked: one entry per baseline observer with fresh data. */
export interface NetworkBaselineViews {
  network: string;
  views: Array<{ observer: string; medianUptimeRatio: number; connectedStakeRatio: number; at: number }>;
  /** No view yet: the first reading of an observer is on its way (since a start, for one baseline interval at most). */
  awaited?: true;
}

/**
 * The last executed C-Chain block, as `eth_blockNumber` answers it: on AvalancheGo's SAE C-Chain
 * (v1.15, after Helicon) blocks are executed after they are accepted, and `latest` is the last
 * executed one (vms/saevm/blocks/access.go ResolveRPCNumber); before, the last accepted.
 */
export interface ChainExecution {
  executedHeight: number;
  /** Epoch seconds of the first reading at this height (when it was seen to advance last). */
  since: number;
  /** Epoch seconds of the reading. */
  at: number;
  /** The last call got no answer: this is the reading before. */
  unanswered?: true;
}

export interface MissedUpgrade {
  /** Epoch seconds of the upgrade it missed. */
  deadline: number;
  /** The stake share that advertised it, as last seen. */
  modeWeightRatio?: number;
}

/**
 * Whether a baseline reading predates `onset` (epoch seconds, the daemon's clock, as the readings'
 * own `at`): it cannot tell whether the network lost what the verdict saw, and its observer's next
 * reading is on its way. Every observer reads once per interval, and one that does not answer is
 * left out once its reading is stale (probes/observed.ts baselineViews), so a verdict that waits
 * while this holds waits on the readings, bounded, and not on a clock a busy machine can outrun.
 */
export function baselinePredates(baseline: NetworkBaselineViews | undefined, onset: number): boolean {
  return baseline?.views.some((v) => v.at < onset) ?? false;
}
