/**
 * The latest observation of every target, and the latest chain data: the one source of truth that
 * metrics, the status page, alerts and `check` read. Every probe job records here (a target's own
 * poll, a per-target job such as `validator`, the chain-data source); consumers subscribe with
 * onUpdate / onChainData and never call probes. It also remembers what an observation alone cannot
 * say (last success times), and derives the height lag once for everyone (lags()).
 */
import { heightLags, type ChainDataSnapshot, type ChainLag, type NodeHeights } from './model/chaindata.js';
import type { EndpointObservation, TargetObservation } from './model/observation.js';
import type { ConfigDiff } from './config/diff.js';

/** One change worth showing on the status page: "C failing: …", "network recovered", "unreachable: …". */
export interface Change {
  at: number;
  text: string;
  good: boolean;
}

const HISTORY = 20;

export interface TargetState {
  observation: TargetObservation;
  /** The last changes, newest first. */
  history: Change[];
  /** Epoch seconds of the last successful probe, per `endpoint/view`. */
  lastSuccessAt: Map<string, number>;
  /** Last NodeID seen in a `node-id` header (kept across failed polls). */
  nodeId?: string;
  /** The network the node itself reported (info.getNetworkID, by its validator poll; kept across failed polls). */
  nodeNetwork?: string;
  /** Completed polls of the target's own job (other jobs, like `validator`, do not count). */
  rounds: number;
  /** The latest observation of each job that recorded into this target, by source. */
  jobs: Map<string, TargetObservation>;
  /**
   * The observation whose recording produced this state (one job's; `observation` merges them all);
   * after a job's endpoints were dropped (dropSource), one with no endpoints.
   */
  latest: TargetObservation;
}

/** `source`: the probe kind whose result this update carries (`node`, `service`, `validator`, …). */
export type StoreListener = (target: string, state: TargetState, source: string) => void;
export type ChainDataListener = (snapshot: ChainDataSnapshot) => void;

/** The probe kind that produced an observation. */
export function sourceOf(observation: TargetObservation): string {
  return observation.source ?? observation.kind;
}

function mainEndpoint(o: TargetObservation): EndpointObservation | undefined {
  return o.endpoints.find((e) => (e.endpoint === 'health' || e.endpoint === 'health-check') && e.view === 'all') ?? o.endpoints[0];
}

/** What changed between two observations of a target, in words. */
function describeChanges(before: TargetObservation, after: TargetObservation): Change[] {
  const was = mainEndpoint(before);
  const now = mainEndpoint(after);
  if (!was || !now) return [];
  const at = after.at;
  if (was.ok && !now.ok) return [{ at, text: `unreachable: ${now.reason} (${now.error ?? ''})`, good: false }];
  if (!was.ok && now.ok) return [{ at, text: 'reachable again', good: true }];
  // The same report object means the same bytes as last time: nothing changed.
  if (was.report !== undefined && was.report === now.report) return [];
  const changes: Change[] = [];
  const previous = new Map((was.report?.checks ?? []).map((c) => [c.name, c]));
  for (const check of now.report?.checks ?? []) {
    const old = previous.get(check.name);
    if (old && old.passing && !check.passing && !check.notYetRun) changes.push({ at, text: `${check.name} failing: ${check.error ?? ''}`, good: false });
    if (old && !old.passing && check.passing) changes.push({ at, text: `${check.name} recovered`, good: true });
  }
  const wasHealthy = was.report?.healthy ?? was.service?.healthy;
  const isHealthy = now.report?.healthy ?? now.service?.healthy;
  if (wasHealthy !== undefined && isHealthy !== undefined && wasHealthy !== isHealthy) {
    changes.push({ at, text: isHealthy ? 'healthy' : `unhealthy${now.service?.message ? `: ${now.service.message}` : ''}`, good: isHealthy });
  }
  return changes;
}

export function endpointKey(e: Pick<EndpointObservation, 'endpoint' | 'view'>): string {
  return `${e.endpoint}/${e.view}`;
}

/** Every job's endpoints in one observation: the target's own job first, its fields win. */
function merge(jobs: Map<string, TargetObservation>, kind: string): TargetObservation {
  const own = jobs.get(kind);
  if (jobs.size === 1) return jobs.values().next().value!;
  const first = own ?? jobs.values().next().value!;
  const endpoints = [...(own?.endpoints ?? [])];
  for (const [source, o] of jobs) if (source !== kind) endpoints.push(...o.endpoints);
  return { ...first, endpoints };
}

function nodeHeights(o: TargetObservation): NodeHeights {
  const heights: NodeHeights['heights'] = [];
  const seen = new Set<string>();
  for (const e of o.endpoints) {
    if (e.endpoint !== 'health' || !e.report) continue;
    for (const check of e.report.checks) {
      const height = check.chain?.lastAcceptedHeight;
      if (height === undefined || seen.has(check.name)) continue;
      seen.add(check.name);
      heights.push({ chain: check.name, height });
    }
  }
  return { target: o.target, network: o.network ?? '', heights };
}

export class Store {
  private readonly targets = new Map<string, TargetState>();
  private readonly listeners: StoreListener[] = [];
  private readonly removeListeners: Array<(target: string) => void> = [];
  private readonly chainDataListeners: ChainDataListener[] = [];
  private chain?: ChainDataSnapshot;
  /** Height lags by target, derived from the nodes' heights and chain data; dropped when either changes. */
  private lagCache?: Map<string, ChainLag[]>;
  private networkChanges = 0;

  onUpdate(listener: StoreListener): void {
    this.listeners.push(listener);
  }

  onChainData(listener: ChainDataListener): void {
    this.chainDataListeners.push(listener);
  }

  /** The chain-data source's latest snapshot, once it has run. */
  get chainData(): ChainDataSnapshot | undefined {
    return this.chain;
  }

  recordChainData(snapshot: ChainDataSnapshot): void {
    this.chain = snapshot;
    this.lagCache = undefined;
    for (const listener of this.chainDataListeners) listener(snapshot);
  }

  /** Height lag of every node chain, computed at most once per change of heights or chain data. */
  lags(): Map<string, ChainLag[]> {
    if (!this.lagCache) {
      const nodes: NodeHeights[] = [];
      for (const state of this.targets.values()) {
        const own = state.jobs.get('node');
        if (own) nodes.push(nodeHeights(own));
      }
      this.lagCache = new Map();
      for (const lag of heightLags(nodes, this.chain)) {
        const list = this.lagCache.get(lag.target);
        if (list) list.push(lag);
        else this.lagCache.set(lag.target, [lag]);
      }
    }
    return this.lagCache;
  }

  lagsOf(target: string): ChainLag[] {
    return this.lags().get(target) ?? [];
  }

  onRemove(listener: (target: string) => void): void {
    this.removeListeners.push(listener);
  }

  /**
   * Records one job's observation of a target; other jobs' endpoints of the target are kept. A known
   * target's state is updated in place (its jobs, its history only when something changed): at a
   * poll a second per target, fresh containers per poll lived until the next one and were promoted.
   */
  record(observation: TargetObservation): TargetState {
    const source = sourceOf(observation);
    const own = source === observation.kind;
    const previous = this.targets.get(observation.target);
    // before its first record a node counts as on its configured network, which it carries
    const networkBefore = previous ? this.networkOf(observation.target) : observation.network;
    let state: TargetState;
    if (previous) {
      for (const e of observation.endpoints) if (e.ok) previous.lastSuccessAt.set(endpointKey(e), e.at + e.durationSeconds);
      previous.jobs.set(source, observation);
      const merged = merge(previous.jobs, observation.kind);
      const changes = describeChanges(previous.observation, merged);
      if (changes.length > 0) previous.history = [...changes, ...previous.history].slice(0, HISTORY);
      previous.observation = merged;
      previous.latest = observation;
      if (own) previous.rounds++;
      if (observation.nodeId && observation.nodeId !== previous.nodeId) previous.nodeId = observation.nodeId;
      if (observation.nodeNetwork) previous.nodeNetwork = observation.nodeNetwork;
      state = previous;
    } else {
      const lastSuccessAt = new Map<string, number>();
      for (const e of observation.endpoints) if (e.ok) lastSuccessAt.set(endpointKey(e), e.at + e.durationSeconds);
      state = { observation, lastSuccessAt, history: [], rounds: own ? 1 : 0, jobs: new Map([[source, observation]]), latest: observation };
      if (observation.nodeId) state.nodeId = observation.nodeId;
      if (observation.nodeNetwork) state.nodeNetwork = observation.nodeNetwork;
      this.targets.set(observation.target, state);
    }
    if (source === 'node') this.lagCache = undefined;
    if (this.networkOf(observation.target) !== networkBefore) this.networkChanges++;
    for (const listener of this.listeners) listener(observation.target, state, source);
    return state;
  }

  get(target: string): TargetState | undefined {
    return this.targets.get(target);
  }

  /**
   * A node's network: `mainnet`, `fuji` or the numeric network ID, as the node itself says
   * (info.getNetworkID, asked by its validator poll), else as configured (`network`, which
   * defaults to chain_data.network); undefined for an unknown target or a service.
   */
  networkOf(target: string): string | undefined {
    const state = this.targets.get(target);
    return state?.nodeNetwork ?? state?.observation.network;
  }

  /** Counts the changes of any node's network (networkOf): what is grouped by network holds while it stays the same. */
  networksVersion(): number {
    return this.networkChanges;
  }

  entries(): IterableIterator<[string, TargetState]> {
    return this.targets.entries();
  }

  /** A reload: observations of targets that left the config are dropped (subscribers are told). */
  reconfigure(diff: ConfigDiff): void {
    for (const name of diff.targets.removed) this.remove(name);
  }

  /**
   * A job of a target that the config no longer runs (`validator: false` by reload): what it
   * recorded leaves the target's state, and subscribers are told (with that source) so its series
   * and alerts go too.
   */
  dropSource(target: string, source: string): void {
    const previous = this.targets.get(target);
    const dropped = previous?.jobs.get(source);
    if (!previous || !dropped) return;
    const jobs = new Map(previous.jobs);
    jobs.delete(source);
    for (const e of dropped.endpoints) previous.lastSuccessAt.delete(endpointKey(e));
    const { kind, at, network } = previous.observation;
    // nothing was recorded: `latest` has no endpoints, so nothing already counted is counted again
    const nothingNew: TargetObservation = { target, kind, at, ...(network ? { network } : {}), endpoints: [] };
    const observation = jobs.size > 0 ? merge(jobs, kind) : nothingNew;
    const state: TargetState = { ...previous, observation, jobs, latest: nothingNew };
    this.targets.set(target, state);
    for (const listener of this.listeners) listener(target, state, source);
  }

  remove(target: string): void {
    if (!this.targets.delete(target)) return;
    this.lagCache = undefined;
    this.networkChanges++;
    for (const listener of this.removeListeners) listener(target);
  }
}
