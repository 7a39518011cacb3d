/**
 * Probes one AvalancheGo node: every configured endpoint (and tag-filtered view of /ext/health),
 * over plain GET or JSON-RPC 2.0, each exchange classified into success or one failure reason.
 */
import type { Config, NodeTarget, NodeView } from '../config/load.js';
import { ProbeError, type HttpRequest, type HttpResponse } from '../transport/client.js';
import { isPrimaryChainCheck, lostConnectedStake, type EndpointObservation, type HealthReport, type NodeEndpoint, type TargetObservation } from '../model/observation.js';
import { parseHealthReport, unwrapJsonRpc } from '../parse/avalanchego.js';
import { keepRaw, observe, parseJson, readHealthBody, statusError } from './exchange.js';
import { deadlineCleared, missedUpgrade } from './missed-upgrade.js';
import { readSchedule } from './schedule.js';
import { EXECUTION_READ_SECONDS, readExecution } from './execution.js';
import { FleetScheduleIndex, unknownUpgrades, type FleetSchedule, type NodeSchedule, type UnknownUpgrade } from '../model/schedule.js';
import { baselineBeside, fleetBaselines, type ByNetwork } from './observed.js';
import { perTarget, type ProbeContext, type Prober } from './types.js';

/** One job per node: its health endpoints and views (side by side, so one timeout bounds the poll), on the node's interval or cron schedule. */
export const nodeProber: Prober<NodeTarget> = {
  jobs: (config) => {
    const baselines = fleetBaselines(config.nodes);
    for (const node of config.nodes) {
      executionEvery.set(node, executionReadSeconds(config, node.name));
      baselinesOf.set(node, baselines);
    }
    return perTarget(config.nodes, 'node', { cron: (n) => n.schedule, deadlineMs: (n) => n.timeoutMs });
  },
  probe: async (target, ctx) => ({ observation: await probeNode(target, ctx) }),
  decidesReachability: true,
};

const GET_PATHS: Record<NodeEndpoint, string> = {
  health: '/ext/health',
  readiness: '/ext/health/readiness',
  liveness: '/ext/health/liveness',
};

let nextRpcId = 1;

/** Seconds between two eth_blockNumber calls per target (readExecution), from the config its jobs were made of. */
const executionEvery = new WeakMap<NodeTarget, number>();

/** The baseline observers of the config a target's jobs were made of. */
const baselinesOf = new WeakMap<NodeTarget, ByNetwork>();

/** EXECUTION_READ_SECONDS, or an eighth of AvalancheNodeExecutionStalled's threshold for the target when that is longer. */
export function executionReadSeconds(config: Config, target: string): number {
  const rule = 'AvalancheNodeExecutionStalled';
  const threshold = config.alerts.targetRules[target]?.[rule]?.threshold ?? config.alerts.rules[rule]?.threshold;
  return Math.max(EXECUTION_READ_SECONDS, (threshold ?? 0) / 8);
}

/** One exchange of a node's poll, worked out once per target config (URL, cache key, request options). */
interface PlannedExchange {
  endpoint: NodeEndpoint;
  view: NodeView;
  /** ParseCache key. */
  key: string;
  /** The GET request (unused for JSON-RPC, whose body carries a fresh id each time). */
  get: HttpRequest;
  keepRaw: boolean;
  /** The NodeID this exchange saw last: an unchanged header keeps that string (no new copy per poll). */
  nodeId?: string;
}

/** Plans by target config object: a reload brings new objects, so a plan never outlives its config. */
const plans = new WeakMap<NodeTarget, PlannedExchange[]>();

function planOf(target: NodeTarget): PlannedExchange[] {
  let plan = plans.get(target);
  if (!plan) {
    plan = [];
    for (const endpoint of target.endpoints) {
      // Tag views filter /ext/health; readiness and liveness are polled unfiltered.
      for (const view of endpoint === 'health' ? target.views : target.views.slice(0, 1)) {
        const query = view.tags.map((tag) => `tag=${encodeURIComponent(tag)}`).join('&');
        plan.push({
          endpoint,
          view,
          key: `${target.name}\u0000${endpoint}\u0000${view.name}`,
          get: { url: `${target.baseUrl}${GET_PATHS[endpoint]}${query ? `?${query}` : ''}`, headers: target.headers, timeoutMs: target.timeoutMs, tls: target.tls, secrets: target.secrets },
          keepRaw: endpoint === 'health' && view.tags.length === 0,
        });
      }
    }
    plans.set(target, plan);
  }
  return plan;
}

export async function probeNode(target: NodeTarget, ctx: ProbeContext): Promise<TargetObservation> {
  const at = ctx.now() / 1000;
  const plan = planOf(target);
  const previous = ctx.store.get(target.name)?.jobs.get('node');
  const networks = ctx.store.networksVersion();
  // The schedule is read beside the health endpoints (its own calls never fail the poll), so one timeout bounds both.
  const [firstRead, execution, ...endpoints] = await Promise.all([
    readSchedule(target, ctx, previous, at),
    readExecution(target, ctx, previous, at, executionEvery.get(target)),
    ...plan.map((exchange) => ctx.limit(() => probeEndpoint(target, exchange, ctx))),
  ]);
  const nodeId = endpoints.find((e) => e.nodeId)?.nodeId;
  let schedule = firstRead;
  let unknown = firstRead ? unknownOf(target.name, firstRead, ctx.store) : [];
  // News: an upgrade this node's reading lacks, from a node read after it; or the futureupgrade check
  // no longer names the deadline it named. A running node's schedule changes only with a restart,
  // which this daemon may have missed: it is read again before it is judged.
  const news = firstRead !== undefined && unknown.some((u) => !previous?.unknownUpgrades?.some((p) => p.key === u.key) && firstRead.readAt < (ctx.store.get(u.from)?.jobs.get('node')?.schedule?.readAt ?? 0));
  const rebuilt = firstRead !== undefined && unknown.length > 0 && firstRead.readAt < at && deadlineCleared(previous, endpoints);
  if (firstRead && (news || rebuilt)) {
    schedule = await readSchedule(target, ctx, previous, at, { force: true });
    unknown = schedule ? unknownOf(target.name, schedule, ctx.store) : [];
  }
  // A node left (or changed networks) while this poll ran: the index is built again from the store next time.
  if (ctx.store.networksVersion() !== networks) fleets.delete(ctx.store);
  // A Primary Network chain that lost connected stake: did the network lose it too (a dip)?
  const baselines = baselinesOf.get(target);
  const health = endpoints.find((e) => e.endpoint === 'health' && e.view === 'all' && e.report);
  const networkBaseline = baselines && health?.report!.checks.some((c) => isPrimaryChainCheck(c) && lostConnectedStake(c)) ? baselineBeside(target, baselines, ctx, at) : undefined;
  const remembered = ctx.memory.missedUpgrades.get(target.name);
  const { missed, remember } = missedUpgrade(previous, remembered, endpoints, at, { ...(schedule ? { schedule } : {}), unknown });
  // Written when the deadline changes, not for every reading of the stake share.
  if (remember?.deadline !== remembered?.deadline || (remember === undefined) !== (remembered === undefined)) ctx.memory.missedUpgrades.set(target.name, remember);
  else if (remember) ctx.memory.missedUpgrades.set(target.name, remember, false);
  return {
    target: target.name,
    kind: 'node',
    network: target.network,
    at,
    endpoints,
    ...(nodeId ? { nodeId } : {}),
    ...(missed ? { missedUpgrade: missed } : {}),
    ...(schedule ? { schedule } : {}),
    ...(unknown.length > 0 ? { unknownUpgrades: unknown } : {}),
    ...(execution ? { cChainExecution: execution } : {}),
    ...(target.validator ? { fleetObserves: true as const } : {}),
    ...(networkBaseline ? { networkBaseline } : {}),
  };
}

/** The fleet's schedules by store, and the store's networksVersion they were built at. */
const fleets = new WeakMap<ProbeContext['store'], { index: FleetScheduleIndex; version: number }>();

/**
 * The fleet's schedules for the comparison (model/schedule.ts FleetScheduleIndex): each node's own
 * poll sets its schedule as it reads it (nothing to do while it stays the same object), so a poll
 * looks at no other node, and a start's first readings cost each its own upgrade keys, not a scan of
 * the fleet. Built again from what the store recorded when a node left or changed networks
 * (networksVersion moves then): removals are rare, and a removed node never polls again.
 */
function fleetIndex(store: ProbeContext['store']): FleetScheduleIndex {
  let fleet = fleets.get(store);
  const version = store.networksVersion();
  if (!fleet || fleet.version !== version) {
    fleet = { index: new FleetScheduleIndex(), version };
    for (const { target, schedule } of fleetSchedules(store)) fleet.index.set(target, schedule);
    fleets.set(store, fleet);
  }
  return fleet.index;
}

/** unknownUpgrades of a node's schedule (read in this poll) against the rest of the fleet's. */
function unknownOf(target: string, schedule: NodeSchedule, store: ProbeContext['store']): UnknownUpgrade[] {
  const index = fleetIndex(store);
  index.set(target, schedule);
  return index.unknown(target, schedule);
}

/** Every node's schedule as its own last poll read it. */
function* fleetSchedules(store: ProbeContext['store']): Iterable<FleetSchedule> {
  for (const [target, state] of store.entries()) {
    const schedule = state.jobs.get('node')?.schedule;
    if (schedule) yield { target, schedule };
  }
}

function probeEndpoint(target: NodeTarget, planned: PlannedExchange, ctx: ProbeContext): Promise<EndpointObservation> {
  const { endpoint, view } = planned;
  return observe(endpoint, view.name, target.secrets, async (observation) => {
    let response: HttpResponse;
    if (target.protocol === 'jsonrpc') {
      const id = nextRpcId++;
      const body = JSON.stringify({ jsonrpc: '2.0', id, method: `health.${endpoint}`, params: view.tags.length > 0 ? { tags: view.tags } : {} });
      response = await ctx.http.request({
        url: `${target.baseUrl}/ext/health`,
        method: 'POST',
        headers: { ...target.headers, 'content-type': 'application/json' },
        body,
        timeoutMs: target.timeoutMs,
        tls: target.tls,
        secrets: target.secrets,
      });
      observation.httpStatus = response.status;
      if (planned.keepRaw) keepRaw(observation, response);
      observation.report = readJsonRpc(response, id);
    } else {
      response = await ctx.http.request(planned.get);
      observation.httpStatus = response.status;
      try {
        observation.report = ctx.parsed.parse(planned.key, response, () => readHealthBody(response, parseHealthReport));
      } finally {
        // after the cache: an unchanged body is the string kept last time (the new copy dies young)
        if (planned.keepRaw) keepRaw(observation, response);
      }
    }
    const nodeId = headerNodeId(response.headers['node-id']);
    if (nodeId) observation.nodeId = nodeId === planned.nodeId ? planned.nodeId : (planned.nodeId = nodeId);
  });
}

/** JSON-RPC answers 200 for everything, errors included: check `error`, then the echoed id, then `result`. */
function readJsonRpc(response: HttpResponse, id: number): HealthReport {
  if (response.status !== 200) throw statusError(response);
  if (response.body.trim() === '') throw new ProbeError('bad_json', 'empty JSON-RPC response body');
  const json = parseJson(response);
  const unwrapped = unwrapJsonRpc(json, id);
  if (!unwrapped.ok) throw new ProbeError(unwrapped.reason, unwrapped.error);
  const parsed = parseHealthReport(unwrapped.result);
  if (!parsed.ok) throw new ProbeError('bad_shape', `JSON-RPC result is not a health report: ${parsed.error}`);
  return parsed.value;
}

const NODE_ID = /^NodeID-[1-9A-HJ-NP-Za-km-z]{20,60}$/;
function headerNodeId(value: string | string[] | undefined): string | undefined {
  const text = Array.isArray(value) ? value[0] : value;
  return text && NODE_ID.test(text) ? text : undefined;
}

/**
 * The nodes whose recorded comparison with the fleet's schedules differs from what the store holds
 * now: in one round (`avahealth check`) a node may be polled before the others' schedules were
 * recorded; polled again, it compares with all of them.
 */
export function comparedTooEarly(store: ProbeContext['store']): string[] {
  const fleet = [...fleetSchedules(store)];
  const stale: string[] = [];
  for (const { target, schedule } of fleet) {
    const recorded = store.get(target)?.jobs.get('node')?.unknownUpgrades ?? [];
    const now = unknownUpgrades({ target, schedule }, fleet);
    if (JSON.stringify(now) !== JSON.stringify(recorded)) stale.push(target);
  }
  return stale;
}
