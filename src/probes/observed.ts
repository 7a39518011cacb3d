/**
 * The fleet as observers (docs/validators.md). Two probe kinds:
 *
 * - `observed` (`endpoint="observed"`, one job per own validator, at its validator interval): the
 *   fleet's other nodes on its network (at most MAX_OBSERVERS) give their own view of its uptime and
 *   whether they are connected to it. Each of them is asked platform.getCurrentValidators about every
 *   own validator of its network at once (NODE_IDS_PER_CALL NodeIDs a call, one call at a time),
 *   and that answer serves every validator's job for an interval: an observer gets one call per
 *   interval (per NODE_IDS_PER_CALL validators), not one per validator. The latest network
 *   baseline of its network is read from the store beside it.
 * - `baseline` (`endpoint="baseline"`, up to `validator.network.observers` fleet nodes per network,
 *   every `validator.network.interval`): the node is asked for the whole list (≈ 1.5 MB on mainnet)
 *   and only its stake-weighted uptime quantiles and connected stake are kept.
 *
 * Shapes: vms/platformvm/service.go (getPrimaryOrSubnetValidators). Each call's failure is its own
 * part's, never the node's health.
 */
import type { NodeTarget } from '../config/load.js';
import type { EndpointObservation, FailureReason, TargetObservation } from '../model/observation.js';
import { BASELINE_ENDPOINT, baselineOf, baselineReport, DEFAULT_STAKING_PORT, medianOf, OBSERVED_ENDPOINT, type NetworkBaselineViews, type ObservedReport, type ObserverView } from '../model/observed.js';
import type { ParseOutcome } from '../parse/avalanchego.js';
import { validatorReport } from '../model/validator.js';
import { parseSeenValidators } from '../parse/observed.js';
import { ProbeError } from '../transport/client.js';
import { redact } from '../util/text.js';
import { callNode } from './exchange.js';
import { perTarget, type ProbeContext, type Prober } from './types.js';
import { EMPTY_NODE_ID } from './validator.js';
import { witnessOf, type SaidOf, type Witness } from './witness.js';

/** Other fleet nodes asked about one own validator, at most (cost and series grow with validators × observers). */
export const MAX_OBSERVERS = 16;
/**
 * NodeIDs asked of an observer in one call. Its answer is about 1 KB per validator (no delegators
 * when several are asked): a few dozen keep each answer a small allocation instead of a large one.
 */
export const NODE_IDS_PER_CALL = 64;
/** A baseline older than this many of its intervals is not used for a verdict. */
const FRESH_INTERVALS = 3;

export interface ObservedSubject {
  target: NodeTarget;
  /** Every node with the validator poll on: those on its network (learned, else configured) are asked. */
  fleet: ByNetwork;
  /** Every node with `validator.network` on: the baseline observers of its network are among them. */
  baselines: ByNetwork;
}

export interface BaselineSubject {
  target: NodeTarget;
  /** Every node with `validator.network` on, in config order. */
  baselines: ByNetwork;
}

/** The network a node is on: as it told (info.getNetworkID), else as configured. */
function networkOf(node: NodeTarget, ctx: ProbeContext): string {
  return ctx.store.networkOf(node.name) ?? node.network;
}

/**
 * Some nodes by network, in config order, shared by the jobs of one config: grouped once and again
 * only after a node's network changed (ctx.store.networksVersion), not scanned by every job.
 */
export class ByNetwork {
  private version = -1;
  private readonly on = new Map<string, NodeTarget[]>();

  constructor(
    private readonly nodes: readonly NodeTarget[],
    /** What of a network's nodes is kept (all of them by default). */
    private readonly keep: (on: NodeTarget[]) => NodeTarget[] = (on) => on,
  ) {}

  of(network: string, ctx: ProbeContext): readonly NodeTarget[] {
    const version = ctx.store.networksVersion();
    if (version !== this.version) {
      this.on.clear();
      this.version = version;
    }
    let on = this.on.get(network);
    if (!on) this.on.set(network, (on = this.keep(this.nodes.filter((n) => networkOf(n, ctx) === network))));
    return on;
  }
}

/** The nodes with `validator.network` on, in config order: the candidates to read the baseline. */
function baselineCandidates(nodes: readonly NodeTarget[]): NodeTarget[] {
  return nodes.filter((n) => n.validator?.network);
}

/** The baseline observers of each network among a config's nodes (shared by the jobs made of that config). */
export function fleetBaselines(nodes: readonly NodeTarget[]): ByNetwork {
  return baselineObservers(baselineCandidates(nodes));
}

/**
 * The fresh baseline of a node's network without the node's own view (it says what the node's own
 * chains say, no more), for its own poll: whether a chain that lost connected stake lost it with the
 * whole network (rules/node-facts.ts networkLostStake). With no other observer's reading: `awaited`
 * while their first one is on its way (a start inside a dip, bounded by one baseline interval),
 * else undefined.
 */
export function baselineBeside(target: NodeTarget, baselines: ByNetwork, ctx: ProbeContext, at: number): NetworkBaselineViews | undefined {
  const network = networkOf(target, ctx);
  const others = baselines.of(network, ctx).filter((o) => o !== target);
  if (others.length === 0) return undefined;
  return baselineViews(network, others, ctx, at) ?? (baselineAwaited(target, others, ctx, at) ? { network, views: [], awaited: true } : undefined);
}

/** The baseline observers of each network: its first candidates, as many as the most any of them asks for. */
function baselineObservers(candidates: readonly NodeTarget[]): ByNetwork {
  return new ByNetwork(candidates, (on) => on.slice(0, on.reduce((most, n) => Math.max(most, n.validator!.network!.observers), 0)));
}

/** The first `count` of `nodes` other than `except`. */
function firstOthers(nodes: readonly NodeTarget[], except: NodeTarget, count: number): NodeTarget[] {
  const others: NodeTarget[] = [];
  for (const n of nodes) {
    if (others.length === count) break;
    if (n !== except) others.push(n);
  }
  return others;
}

export const observedProber: Prober<ObservedSubject> = {
  jobs: (config) => {
    const validators = config.nodes.filter((n) => n.validator);
    const fleet = new ByNetwork(validators);
    const baselines = baselineObservers(baselineCandidates(validators));
    return perTarget(validators, OBSERVED_ENDPOINT, { extra: true, intervalMs: (n) => n.validator!.intervalMs }).map((job) => ({ ...job, subject: { target: job.subject, fleet, baselines } }));
  },
  probe: async ({ target, fleet, baselines }, ctx) => {
    const at = ctx.now() / 1000;
    const started = performance.now();
    const nodeId = askableNodeId(target, ctx);
    const network = networkOf(target, ctx);
    const endpoint: EndpointObservation = { endpoint: OBSERVED_ENDPOINT, view: 'all', ok: true, durationSeconds: 0, at };
    if (!nodeId) return { observation: observationOf(target, at, [], OBSERVED_ENDPOINT) };
    {
      const observers = firstOthers(fleet.of(network, ctx), target, MAX_OBSERVERS);
      const views = await Promise.all(observers.map((o) => viewOf(o, nodeId, fleet, target.validator!.intervalMs, ctx)));
      const report: ObservedReport = { nodeId, network, stakingPort: target.validator?.stakingPort ?? DEFAULT_STAKING_PORT, views: views.map((v) => v.view) };
      const baselineObserversOf = baselines.of(network, ctx);
      const baseline = baselineViews(network, baselineObserversOf, ctx, at);
      if (baseline) report.baseline = baseline;
      else if (baselineAwaited(target, baselineObserversOf, ctx, at)) report.baselineAwaited = true;
      // Nothing asked and no baseline to carry or await (a lone node with the baseline off): nothing to record.
      if (observers.length === 0 && !baseline && !report.baselineAwaited) return { observation: observationOf(target, at, [], OBSERVED_ENDPOINT) };
      endpoint.detail = report;
      const status = views.findLast((v) => v.status !== undefined)?.status;
      if (status !== undefined) endpoint.httpStatus = status;
      const failed = views.filter((v) => v.reason !== undefined);
      if (failed.length > 0 && failed.length === views.length) {
        endpoint.ok = false;
        endpoint.reason = failed[0]!.reason!;
        endpoint.error = failed.map((v) => `${v.view.observer}: ${v.view.error}`).join('; ');
      }
    }
    endpoint.durationSeconds = (performance.now() - started) / 1000;
    return { observation: observationOf(target, at, [endpoint], OBSERVED_ENDPOINT) };
  },
};

export const baselineProber: Prober<BaselineSubject> = {
  jobs: (config) => {
    const candidates = baselineCandidates(config.nodes);
    const baselines = baselineObservers(candidates);
    return perTarget(candidates, BASELINE_ENDPOINT, { extra: true, intervalMs: (n) => n.validator!.network!.intervalMs }).map((job) => ({ ...job, subject: { target: job.subject, baselines } }));
  },
  probe: async ({ target, baselines }, ctx) => {
    const at = ctx.now() / 1000;
    const network = networkOf(target, ctx);
    // Every candidate has a job; only the first few of its network read the list.
    if (!baselines.of(network, ctx).includes(target)) return { observation: observationOf(target, at, [], BASELINE_ENDPOINT) };
    const started = performance.now();
    const answer = await call(target, {}, ctx, parseSeenValidators);
    const endpoint: EndpointObservation = { endpoint: BASELINE_ENDPOINT, view: 'all', ok: answer.ok, durationSeconds: (performance.now() - started) / 1000, at };
    if (answer.status !== undefined) endpoint.httpStatus = answer.status;
    if (answer.ok) {
      endpoint.detail = baselineOf(network, answer.value.seen, knownNodeId(target, ctx).nodeId);
    } else {
      endpoint.reason = answer.reason;
      endpoint.error = answer.error;
    }
    return { observation: observationOf(target, at, [endpoint], BASELINE_ENDPOINT) };
  },
};

function observationOf(target: NodeTarget, at: number, endpoints: EndpointObservation[], source: string): TargetObservation {
  return { target: target.name, kind: 'node', source, network: target.network, at, endpoints };
}

/** When each validator (target object: a reload starts over) was first observed, epoch seconds. */
const firstObserved = new WeakMap<NodeTarget, number>();

/**
 * Whether the network's first baseline is still awaited: a baseline observer of it has not reported
 * yet (one that failed will not answer before its next interval), and less than one baseline
 * interval passed since the validator was first observed (then the scope is decided without one,
 * so a verdict never waits longer than that).
 */
function baselineAwaited(target: NodeTarget, observers: readonly NodeTarget[], ctx: ProbeContext, at: number): boolean {
  const pending = observers.filter((o) => !ctx.store.get(o.name)?.jobs.has(BASELINE_ENDPOINT));
  if (pending.length === 0) return false;
  const first = firstObserved.get(target) ?? at;
  firstObserved.set(target, first);
  const interval = Math.max(...pending.map((o) => o.validator?.network?.intervalMs ?? 0)) / 1000;
  return at - first < interval;
}

/** The fresh baselines of a network, as the store holds them now. */
function baselineViews(network: string, observers: readonly NodeTarget[], ctx: ProbeContext, now: number): NetworkBaselineViews | undefined {
  const views: NetworkBaselineViews['views'] = [];
  for (const observer of observers) {
    const e = ctx.store.get(observer.name)?.jobs.get(BASELINE_ENDPOINT)?.endpoints[0];
    const baseline = baselineReport(e);
    const median = baseline ? medianOf(baseline) : undefined;
    if (!e || !baseline || baseline.network !== network || median === undefined || now - e.at > (FRESH_INTERVALS * observer.validator!.network!.intervalMs) / 1000) continue;
    views.push({ observer: observer.name, medianUptimeRatio: median, connectedStakeRatio: baseline.connectedStakeRatio, at: e.at });
  }
  return views.length > 0 ? { network, views } : undefined;
}

/** A node's NodeID, configured or as learned (undefined while not known), and its validator poll's report. */
function knownNodeId(node: NodeTarget, ctx: ProbeContext): { nodeId?: string; validator?: ReturnType<typeof validatorReport> } {
  const state = ctx.store.get(node.name);
  const validator = validatorReport(state?.jobs.get('validator')?.endpoints[0]);
  const nodeId = node.nodeId ?? state?.nodeId ?? validator?.nodeId;
  return { ...(nodeId ? { nodeId } : {}), ...(validator ? { validator } : {}) };
}

/** The NodeID a validator is asked about by: undefined while not known, or when it is not a Primary Network validator (its own poll says so). */
function askableNodeId(node: NodeTarget, ctx: ProbeContext): string | undefined {
  const { nodeId, validator } = knownNodeId(node, ctx);
  const notValidating = validator !== undefined && !validator.primary && !validator.problems.some((p) => p.call === 'platform.getCurrentValidators');
  return notValidating ? undefined : nodeId;
}

type Seen = { view: ObserverView; reason?: FailureReason; status?: number };

/**
 * What `observer` sees of the validator `nodeId`: from its answer about every own validator of its
 * network, shared for the validator's interval (so a validator's next poll reads a newer one);
 * asked alone when it was not among them (its NodeID learned since).
 */
async function viewOf(observer: NodeTarget, nodeId: string, fleet: ByNetwork, intervalMs: number, ctx: ProbeContext): Promise<Seen> {
  const all = await ctx.shared.get(`${observer.name}\u0000${OBSERVED_ENDPOINT}`, ctx.now(), intervalMs, () => {
    const asked = fleet.of(networkOf(observer, ctx), ctx).filter((v) => v !== observer).map((v) => askableNodeId(v, ctx));
    return viewsOf(observer, asked.filter((id): id is string => id !== undefined), ctx);
  });
  const seen = all.get(nodeId) ?? (await viewsOf(observer, [nodeId], ctx)).get(nodeId)!;
  if (seen.view.connected === undefined) return seen;
  // Whether what it says counts (./witness.ts): judged now, from its own latest polls and this answer.
  return { ...seen, view: new WitnessedView(seen.view, witnessOf(observer.name, nodeId, saidIn(all), ctx)) };
}

/**
 * A view with whether its observer is a witness: the view's fields, then the witness's, as a spread
 * of the two made them. An instance of a class, so that V8 makes room for all of them in the object
 * itself; a spread literal kept the witness's in a second, out-of-object store (one such view per
 * observer of each validator is kept for the validator's interval: 16,000 at 1,000 validators).
 */
class WitnessedView {
  declare observer: string;

  constructor(view: ObserverView, witness: Witness) {
    Object.assign(this, view, witness);
  }
}

/**
 * What an answer says of each NodeID, as witnessOf reads it: a view of the answer, one per answer
 * (a copy per validator it serves was a million entries a minute at 1,000 validators).
 */
const said = new WeakMap<Map<string, Seen>, SaidOf>();
function saidIn(all: Map<string, Seen>): SaidOf {
  let views = said.get(all);
  if (!views) {
    const made: SaidOf = {
      get: (nodeId) => all.get(nodeId)?.view,
      values: function* () {
        for (const seen of all.values()) yield seen.view;
      },
    };
    said.set(all, (views = made));
  }
  return views;
}

/**
 * What `observer` sees of each of `nodeIds`, NODE_IDS_PER_CALL of them a call, one call at a time:
 * the answers are large, and a node is not handed a burst of them. A failed call is the view of each
 * NodeID it asked about and of each not asked yet (an observer that did not answer one call is not
 * kept waiting on for the others).
 */
async function viewsOf(observer: NodeTarget, asked: readonly string[], ctx: ProbeContext): Promise<Map<string, Seen>> {
  const views = new Map<string, Seen>();
  // Two targets may share one NodeID (a node behind two URLs): AvalancheGo takes the NodeIDs as a set
  // (service.go `set.Of(args.NodeIDs...)`), so a duplicate counts once and must not hide a lone NodeID.
  const nodeIds = [...new Set(asked)];
  for (let i = 0; i < nodeIds.length; i += NODE_IDS_PER_CALL) {
    const chunk = nodeIds.slice(i, i + NODE_IDS_PER_CALL);
    // With one NodeID (after the set) the answer would carry its whole delegators list; a second (empty) one leaves it out.
    const nodeIDs = chunk.length === 1 ? [...chunk, EMPTY_NODE_ID] : chunk;
    const answer = await call(observer, { nodeIDs }, ctx, parseSeenValidators);
    const status = answer.status;
    if (!answer.ok) {
      const failed: Seen = status !== undefined ? { view: { observer: observer.name, error: answer.error }, reason: answer.reason, status } : { view: { observer: observer.name, error: answer.error }, reason: answer.reason };
      for (const nodeId of nodeIds.slice(i)) views.set(nodeId, failed);
      break;
    }
    const seen = new Map(answer.value.seen.map((v) => [v.nodeId, v]));
    for (const nodeId of chunk) {
      const v = seen.get(nodeId);
      const view: ObserverView = v ? viewFrom(observer.name, v.uptimeRatio, v.connected) : { observer: observer.name, error: 'not in its current validator set' };
      views.set(nodeId, status !== undefined ? { view, status } : { view });
    }
  }
  return views;
}

/**
 * An observer's view as one literal of exactly its fields, in the order they always had: one such
 * view per own validator per observer is kept for an interval (≈ 17,000 at 1,000 validators), and
 * fields added to a smaller literal afterwards cost each view a second, out-of-object store.
 */
function viewFrom(observer: string, uptimeRatio: number | undefined, connected: boolean | undefined): ObserverView {
  if (uptimeRatio === undefined) return connected === undefined ? { observer } : { observer, connected };
  return connected === undefined ? { observer, uptimeRatio } : { observer, uptimeRatio, connected };
}

type Answer<T> = ({ ok: true; value: T } | { ok: false; reason: FailureReason; error: string }) & { status?: number };

/** One platform.getCurrentValidators call to a fleet node, classified. */
async function call<T>(node: NodeTarget, params: Record<string, unknown>, ctx: ProbeContext, parse: (result: unknown) => ParseOutcome<T>): Promise<Answer<T>> {
  try {
    const { status, answer } = await callNode(node, '/ext/bc/P', 'platform.getCurrentValidators', params, ctx);
    switch (answer.kind) {
      case 'disabled':
        return { ok: false, reason: 'http_status', error: redact(`the P-Chain API is off: ${answer.detail}`, node.secrets), status };
      case 'failure':
        return { ok: false, reason: answer.reason, error: redact(answer.error, node.secrets), status };
      case 'error':
        return { ok: false, reason: 'rpc_error', error: redact(`JSON-RPC error: ${answer.message}`, node.secrets), status };
      case 'result': {
        const parsed = parse(answer.result);
        return parsed.ok ? { ok: true, value: parsed.value, status } : { ok: false, reason: 'bad_shape', error: parsed.error, status };
      }
    }
  } catch (err) {
    const failure = err instanceof ProbeError ? err : new ProbeError('connect', String(err));
    return { ok: false, reason: failure.reason, error: redact(failure.message, node.secrets) };
  }
}
