/**
 * The status model shared by `/api/v1/status`, the status page and `avahealth check`: the store's
 * latest observations summarised per target, with error text (never shown as a label) included.
 */
import type { ChainDataSnapshot } from '../model/chaindata.js';
import type { Target } from '../config/load.js';
import type { CheckResult, EndpointObservation } from '../model/observation.js';
import type { FailureReason } from '../model/failure.js';
import { displayUrl, prefixWithin } from '../util/text.js';
import { endpointKey, type Change, type Store } from '../store.js';
import { PANELS, type Panel, type Panels } from './panels.js';
import { decidesReachability } from '../probes/registry.js';
import type { Severity } from '../alerts/rules/index.js';

export type TargetState = 'healthy' | 'warning' | 'unhealthy' | 'unreachable' | 'pending';

export interface CheckStatus {
  name: string;
  passing: boolean;
  notYetRun: boolean;
  error?: string;
  contiguousFailures: number;
  failingSince?: number;
  lastRun?: number;
  durationSeconds: number;
  /** The check's `message` as JSON text (depth- and size-limited). */
  message?: string;
}

function checkStatus(c: CheckResult): CheckStatus {
  const check: CheckStatus = { name: c.name, passing: c.passing, notYetRun: c.notYetRun, contiguousFailures: c.contiguousFailures, durationSeconds: c.durationSeconds };
  if (c.error !== undefined) check.error = c.error;
  if (c.failingSince !== undefined) check.failingSince = c.failingSince;
  if (c.lastRun !== undefined) check.lastRun = c.lastRun;
  if (c.message !== undefined) check.message = safeJson(c.message);
  return check;
}

/**
 * JSON text of an untrusted value, never failing: nesting beyond 8 levels and output beyond 4 KB
 * are cut (JSON.stringify itself would overflow the stack on a deeply nested body).
 */
export function safeJson(value: unknown, maxDepth = 8, maxLength = 4096): string {
  const limit = (v: unknown, depth: number): unknown => {
    if (v === null || typeof v !== 'object') return v;
    if (depth >= maxDepth) return '…';
    if (Array.isArray(v)) return v.slice(0, 100).map((x) => limit(x, depth + 1));
    return Object.fromEntries(Object.entries(v).slice(0, 100).map(([k, x]) => [k, limit(x, depth + 1)]));
  };
  const text = JSON.stringify(limit(value, 0), null, 2) ?? 'null';
  return text.length > maxLength ? `${prefixWithin(text, maxLength)}\n…` : text;
}

export interface ComponentStatus {
  name: string;
  up: boolean;
  status: string;
  message?: string;
}

export interface EndpointStatus {
  endpoint: string;
  view: string;
  ok: boolean;
  reason?: string;
  error?: string;
  httpStatus?: number;
  durationSeconds: number;
  at: number;
  lastSuccessAt?: number;
  healthy?: boolean;
  checks?: CheckStatus[];
  /** Services: the report's status, components and message. */
  status?: string;
  components?: ComponentStatus[];
  message?: string;
}

/** Besides what every target has, each source's panel under its name (status/panels.ts), e.g. `validator`. */
export interface TargetStatus extends Panels {
  name: string;
  kind: 'node' | 'service';
  url: string;
  labels: Record<string, string>;
  state: TargetState;
  /**
   * With state `unreachable`: the failure when the target did answer, but wrongly (`bad_json`,
   * `http_status`, …), so that a garbage answer is not shown as a node that cannot be reached.
   */
  failure?: FailureReason;
  /**
   * The target answered 429 and nothing is asked until its back-off ends: our quota, not its
   * health, so the state is its last answer's (pending if none), raised by its open incidents.
   */
  rateLimited?: string;
  summary: string;
  nodeId?: string;
  lastPollAt?: number;
  /** Last successful poll of the main health endpoint. */
  lastSuccessAt?: number;
  /** Readiness (nodes polling /ext/health/readiness). */
  ready?: boolean;
  failingChecks: string[];
  /** The failing checks of the main health endpoint, with their facts. */
  failing: CheckStatus[];
  heights: Record<string, number>;
  /** Blocks behind the network per chain (with chain_data). */
  lag: Record<string, number>;
  history: Change[];
  endpoints: EndpointStatus[];
  /** The incidents open for the target (status/verdict.ts): what its state follows. */
  incidents?: ShownIncident[];
  /** What cannot be known now, and why ("version drift unknown: the Data API could not be read (…)"). */
  unknown?: string[];
}

/** An incident as views show it beside its target, with the state it gives the target. */
export interface ShownIncident {
  alertname: string;
  severity: Severity;
  scope?: string;
  summary: string;
  /** What this incident alone makes of the target. */
  state: Extract<TargetState, 'warning' | 'unhealthy'>;
  /** The root cause whose incident holds this one's notifications back (inhibition). */
  heldBy?: string;
}

/** Failures where no answer came back: only these make a target "unreachable" on the page and in `check`. */
const NOT_REACHED = new Set<FailureReason>(['timeout', 'connect', 'dns', 'tls']);

/**
 * Every health endpoint of a node answering 404: the URL is not the node's API root (a path
 * prefix too many or missing) or its health API is switched off. Said with where to look, once.
 */
function notFoundSummary(endpoints: ReadonlyArray<{ endpoint: string; view: string; error?: string }>): string {
  const names = [...new Set(endpoints.map((e) => `${e.endpoint}${e.view === 'all' ? '' : `[${e.view}]`}`))];
  const listed = names.length === 1 ? names[0]! : `${names.slice(0, -1).join(', ')} and ${names.at(-1)!}`;
  const body = endpoints[0]!.error?.replace(/^HTTP 404:?\s*/, '');
  return `HTTP 404 at ${listed}${body ? ` (${body})` : ''}: is the URL the node's API root (no /ext/… path; a proxy's own prefix if any)? else its health API is off (--api-health-enabled=false)`;
}

/** Failing checks that only warn: the node's own disk warning, and checks it has not run yet. */
function isWarningOnly(check: CheckResult): boolean {
  return check.notYetRun || check.name === 'diskspace';
}

export function targetStatus(target: Target, store: Store): TargetStatus {
  const state = store.get(target.name);
  const base = { name: target.name, kind: target.kind, url: displayUrl(target.baseUrl), labels: target.labels };
  // Another job (the validator poll) may report before the target's own poll: still pending.
  if (!state || state.rounds === 0) return { ...base, state: 'pending', summary: 'not polled yet', failingChecks: [], failing: [], heights: {}, lag: {}, history: [], endpoints: [] };
  const endpoints = state.observation.endpoints.map((e) => endpointStatus(e, state.lastSuccessAt.get(endpointKey(e))));
  // Only the jobs whose prober decides reachability (the target's own poll): the others have panels.
  const failed = [...state.jobs].flatMap(([source, o]) => (decidesReachability(source) ? o.endpoints.filter((e) => !e.ok) : []));
  // A 429 is our quota, not the target's health: nothing is known of it until the back-off ends, and
  // its alerts stay as they are (the rules' UNKNOWN), so its open incidents decide (status/verdict.ts).
  const rateLimited = failed.filter((e) => e.reason === 'rate_limited');
  const unreachable = failed.filter((e) => e.reason !== 'rate_limited');
  const health = state.observation.endpoints.find((e) => e.endpoint === 'health' && e.view === 'all' && e.report) ??
    state.observation.endpoints.find((e) => e.report);
  const failing = health?.report?.checks.filter((c) => !c.passing) ?? [];
  const unhealthyEndpoints = state.observation.endpoints.filter((e) => e.report && !e.report.healthy);
  const unhealthyServices = state.observation.endpoints.filter((e) => e.service && !e.service.healthy);
  const heights: Record<string, number> = {};
  for (const check of health?.report?.checks ?? []) {
    if (check.chain?.lastAcceptedHeight !== undefined) heights[check.name] = check.chain.lastAcceptedHeight;
  }

  let status: TargetState;
  let summary: string;
  let failure: FailureReason | undefined;
  let rateLimitedNote: string | undefined;
  if (unreachable.length > 0) {
    status = 'unreachable';
    summary = unreachable.map((e) => `${e.endpoint}${e.view === 'all' ? '' : `[${e.view}]`}: ${e.reason} (${e.error ?? ''})`).join('; ');
    if (unreachable.every((e) => e.reason && !NOT_REACHED.has(e.reason))) failure = unreachable[0]!.reason;
    if (target.kind === 'node' && unreachable.every((e) => e.httpStatus === 404)) summary = notFoundSummary(unreachable);
  } else if (unhealthyServices.length > 0) {
    status = 'unhealthy';
    summary = unhealthyServices.map((e) => `${e.endpoint}: ${e.service!.status}${e.service!.message ? ` (${e.service!.message})` : ''}`).join('; ');
  } else if (rateLimited.length > 0 && unhealthyEndpoints.length === 0) {
    // Healthy at its last answer (its open incidents raise it, verdict.ts), pending if it never answered.
    const answered = rateLimited.some((e) => state.lastSuccessAt.has(endpointKey(e)));
    status = answered ? 'healthy' : 'pending';
    rateLimitedNote = rateLimited[0]!.error ?? 'rate limited';
    summary = `${rateLimitedNote}: its health is not known meanwhile`;
  } else if (unhealthyEndpoints.length === 0) {
    status = 'healthy';
    summary = 'healthy';
  } else {
    const failingAll = unhealthyEndpoints.flatMap((e) => e.report!.checks.filter((c) => !c.passing));
    status = failingAll.every(isWarningOnly) ? 'warning' : 'unhealthy';
    summary = `failing: ${[...new Set(failingAll.map((c) => c.name))].join(', ')}`;
  }
  const main = state.observation.endpoints.find((e) => (e.endpoint === 'health' || e.endpoint === 'health-check') && e.view === 'all');
  const lastSuccessAt = main ? state.lastSuccessAt.get(endpointKey(main)) : undefined;
  const readiness = state.observation.endpoints.find((e) => e.endpoint === 'readiness' && e.report);
  const panels: Record<string, unknown> = {};
  for (const [name, panel] of Object.entries(PANELS)) {
    const model = (panel as Panel<unknown>).model(target, state, store);
    if (model !== undefined) panels[name] = model;
  }
  return {
    ...base,
    state: status,
    ...(failure ? { failure } : {}),
    ...(rateLimitedNote ? { rateLimited: rateLimitedNote } : {}),
    summary,
    ...(state.nodeId ? { nodeId: state.nodeId } : {}),
    lastPollAt: state.observation.at,
    ...(lastSuccessAt !== undefined ? { lastSuccessAt } : {}),
    ...(readiness ? { ready: readiness.report!.healthy } : {}),
    failing: failing.map(checkStatus),
    lag: {},
    history: state.history,
    failingChecks: [
      ...failing.map((c) => c.name),
      ...new Set(unhealthyServices.flatMap((e) => e.service!.components.filter((c) => !c.up).map((c) => c.name))),
    ],
    heights,
    endpoints,
    ...panels,
  };
}

function endpointStatus(e: EndpointObservation, lastSuccessAt: number | undefined): EndpointStatus {
  const out: EndpointStatus = { endpoint: e.endpoint, view: e.view, ok: e.ok, durationSeconds: e.durationSeconds, at: e.at };
  if (e.reason) out.reason = e.reason;
  if (e.error) out.error = e.error;
  if (e.httpStatus !== undefined) out.httpStatus = e.httpStatus;
  if (lastSuccessAt !== undefined) out.lastSuccessAt = lastSuccessAt;
  if (e.service) {
    out.healthy = e.service.healthy;
    out.status = e.service.status;
    out.components = e.service.components.map((c) => ({ ...c }));
    if (e.service.message) out.message = e.service.message;
  }
  if (e.report) {
    out.healthy = e.report.healthy;
    out.checks = e.report.checks.map(checkStatus);
  }
  return out;
}

export function chainDataStatus(snapshot: ChainDataSnapshot) {
  return {
    refreshedAt: snapshot.refreshedAt,
    chains: [...snapshot.chains.values()],
    validators: [...snapshot.validators.values()],
    networks: Object.fromEntries(snapshot.networks),
    errors: snapshot.errors,
  };
}

export const STATE_SEVERITY: Record<TargetState, number> = { healthy: 0, pending: 0, warning: 1, unhealthy: 2, unreachable: 2 };

/**
 * Active alerts by the state views show (`firing`, `held` back by a root cause, `silenced`,
 * `flapping`, `pending`): the status page's header and /api/v1/status count them alike.
 */
export function alertCounts(alerts: ReadonlyArray<{ state: string }>): { firing: number; held: number; silenced: number; flapping: number; pending: number } {
  const count = (state: string) => alerts.filter((a) => a.state === state).length;
  return { firing: count('firing'), held: count('held'), silenced: count('silenced'), flapping: count('flapping'), pending: count('pending') };
}
