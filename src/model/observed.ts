/**
 * The fleet as observers (docs/validators.md, "Is it my validator or the network?"): every AvalancheGo
 * node answers platform.getCurrentValidators with its own view of each validator (`uptime` as the
 * node measured it, `connected` to it now: vms/platformvm/service.go). Fleet nodes are asked about
 * the fleet's own validators (ObservedReport, per own validator), and a few per network about every
 * validator (BaselineReport): if every validator looks down from here, a drop is the network's (or
 * our vantage point's), not one validator's.
 */

import type { EndpointObservation, NetworkBaselineViews } from './observation.js';

/** The endpoints the two probe kinds record (`endpoint="observed"` on the validator, `endpoint="baseline"` on the observer). */
export const OBSERVED_ENDPOINT = 'observed';
export const BASELINE_ENDPOINT = 'baseline';

/** What the fleet's other nodes see of a validator, on its `observed` endpoint. */
export function observedReport(e: EndpointObservation | undefined): ObservedReport | undefined {
  return e?.endpoint === OBSERVED_ENDPOINT ? (e.detail as ObservedReport | undefined) : undefined;
}

/** A baseline observer's view of its network, on its `baseline` endpoint. */
export function baselineReport(e: EndpointObservation | undefined): BaselineReport | undefined {
  return e?.endpoint === BASELINE_ENDPOINT ? (e.detail as BaselineReport | undefined) : undefined;
}

/** One other fleet node's view of an own validator. */
export interface ObserverView {
  /** The answering target's name. */
  observer: string;
  /** The validator's uptime as that node measured it (0–1). */
  uptimeRatio?: number;
  /** Whether that node is connected to it now. */
  connected?: boolean;
  /** Why there is no view (the call failed; never a label). */
  error?: string;
  /**
   * Whether its view counts for a verdict (docs/validators.md, "Who is a witness"): its own health
   * answers and passes (a failing `diskspace` aside), its `network` check passes, it is not
   * bootstrapping, and it sees most of the network connected (its chains' connected stake, and at
   * least half of the other fleet validators it was asked about). A failing, bootstrapping, cut-off
   * or lying node is not one.
   */
  witness?: boolean;
  /** Why it is not a witness now (words for the alert's description). */
  notWitness?: string;
  /** Whether it is a witness is not known yet (its own health not polled since the daemon started): no verdict from the views yet. */
  pending?: boolean;
  /**
   * Whether the observer itself is a Primary Network validator (its own validator poll, else its
   * `network` check's primaryNetworkValidator). AvalancheGo nodes dial every validator, so a
   * validator with a closed staking port still reaches validators (they see it connected) but no
   * non-validator can open a connection to it (network/network.go, peer/peer.go).
   */
  validator?: boolean;
}

/** What one quantile of the network's observed uptimes is, stake-weighted. */
export interface UptimeQuantile {
  quantile: number;
  ratio: number;
}

/** One fleet node's view of every validator of its network (the network baseline). */
export interface BaselineReport {
  /** `mainnet`, `fuji`, or the numeric network ID. */
  network: string;
  /** Validators in the answer (the answering node itself left out). */
  validators: number;
  /** Stake-weighted quantiles (0.1, 0.5, 0.9) of their observed uptime. */
  uptimeQuantiles: UptimeQuantile[];
  /** Share of the stake (own stake plus delegations) connected to the node now, itself counted (0–1), as AvalancheGo's percentConnected. */
  connectedStakeRatio: number;
}

export type { NetworkBaselineViews } from './observation.js';

/** What the fleet's other nodes see of one own validator, and its network's baseline. */
export interface ObservedReport {
  nodeId: string;
  network: string;
  /** Its staking port as configured (AvalancheGo's default 9651 when not). */
  stakingPort: number;
  views: ObserverView[];
  baseline?: NetworkBaselineViews;
  /**
   * No fresh baseline yet while the network has baseline observers, and less than one baseline
   * interval since this validator's first observation: validator alerts wait to decide their scope.
   */
  baselineAwaited?: boolean;
}

/** AvalancheGo's default --staking-port. */
export const DEFAULT_STAKING_PORT = 9651;

export const BASELINE_QUANTILES = [0.1, 0.5, 0.9] as const;
/** Below this share of connected stake the network "looks down" (AvalancheGo's chains fail their health check below 80 %). */
export const CONNECTED_STAKE_NORMAL = 0.8;

/** One validator as an observer sees it. */
export interface SeenValidator {
  nodeId: string;
  /** Own stake plus delegations (nAVAX). */
  stake: number;
  uptimeRatio?: number;
  connected?: boolean;
}

/**
 * The baseline from one observer's answer: stake-weighted uptime quantiles (the smallest uptime
 * at which the validators at or below it hold at least that share of the stake) and the connected
 * stake. The observer itself is left out of the uptimes (it reads itself 100 %), and counted as
 * connected in the connected stake, as AvalancheGo's percentConnected counts the node itself
 * (snow/engine/common/tracker/peers.go; snow/networking/router/chain_router.go "Mark myself as connected").
 */
export function baselineOf(network: string, seen: readonly SeenValidator[], observerNodeId: string | undefined): BaselineReport {
  const others = seen.filter((v) => v.nodeId !== observerNodeId && v.stake > 0);
  let totalStake = 0;
  let connectedStake = 0;
  for (const v of seen) {
    if (v.stake <= 0) continue;
    totalStake += v.stake;
    if (v.connected || v.nodeId === observerNodeId) connectedStake += v.stake;
  }
  const withUptime = others.filter((v): v is SeenValidator & { uptimeRatio: number } => v.uptimeRatio !== undefined).sort((a, b) => a.uptimeRatio - b.uptimeRatio);
  const uptimeStake = withUptime.reduce((sum, v) => sum + v.stake, 0);
  const uptimeQuantiles: UptimeQuantile[] = [];
  if (uptimeStake > 0) {
    for (const quantile of BASELINE_QUANTILES) {
      let cumulative = 0;
      const at = withUptime.find((v) => (cumulative += v.stake) >= quantile * uptimeStake) ?? withUptime.at(-1)!;
      uptimeQuantiles.push({ quantile, ratio: at.uptimeRatio });
    }
  }
  return { network, validators: others.length, uptimeQuantiles, connectedStakeRatio: totalStake > 0 ? connectedStake / totalStake : 0 };
}

export function medianOf(report: BaselineReport): number | undefined {
  return report.uptimeQuantiles.find((q) => q.quantile === 0.5)?.ratio;
}

export type Scope = 'self' | 'network';

/** Whether the whole network looks down from the fleet's vantage points, and the words for it. */
export interface ScopeVerdict {
  scope: Scope;
  /**
   * `network`: "every validator looks down from here: median observed uptime 65 % (…)"; `self` with a
   * baseline: "the network looks normal from here: median observed uptime 99 %"; else undefined.
   */
  words?: string;
}

/**
 * `network` when most baseline observers see the median observed uptime below `requirement`, or
 * the connected stake below CONNECTED_STAKE_NORMAL; `self` otherwise (also with no baseline).
 */
export function scopeOf(baseline: NetworkBaselineViews | undefined, requirement: number): ScopeVerdict {
  const views = baseline?.views ?? [];
  if (views.length === 0) return { scope: 'self' };
  const down = views.filter((v) => v.medianUptimeRatio < requirement || v.connectedStakeRatio < CONNECTED_STAKE_NORMAL);
  if (down.length * 2 <= views.length) {
    return { scope: 'self', words: `the network looks normal from here: median observed uptime ${whole(middle(views.map((v) => v.medianUptimeRatio)))} % as ${observers(views)} see${views.length === 1 ? 's' : ''} it` };
  }
  const median = middle(down.map((v) => v.medianUptimeRatio));
  const connected = middle(down.map((v) => v.connectedStakeRatio));
  const sees = `${observers(down)} see${down.length === 1 ? 's' : ''} it`;
  const words =
    median < requirement
      ? `every validator looks down from here: median observed uptime ${whole(median)} % (${whole(connected)} % of the stake connected) as ${sees}`
      : `the network looks cut off from here: ${whole(connected)} % of the stake connected as ${sees}`;
  return { scope: 'network', words };
}

function middle(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor((sorted.length - 1) / 2)]!;
}

function whole(ratio: number): string {
  return (ratio * 100).toFixed(0);
}

function observers(views: NetworkBaselineViews['views']): string {
  const names = views.map((v) => v.observer);
  return names.length <= 1 ? names.join('') : `${names.slice(0, -1).join(', ')} and ${names.at(-1)}`;
}

/** A network ID as the `network` label says it: AvalancheGo's constants (utils/constants/network_ids.go) 1 = mainnet, 5 = fuji. */
export function networkName(id: number | string): string {
  const n = typeof id === 'string' ? Number(id) : id;
  return n === 1 ? 'mainnet' : n === 5 ? 'fuji' : String(id);
}
