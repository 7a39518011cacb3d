/**
 * The status model shared by `/api/v1/status`, the status page and `avahealth check`: the store's
 * latest observations summarised per target, with error text (never shown as a label) included.
 */
import type { ChainDataSnapshot } from '../chaindata/chaindata.js';
import type { Target } from '../config/load.js';
import type { CheckResult, EndpointObservation } from '../observation.js';
import { displayUrl } from '../probes/exchange.js';
import { endpointKey, type Store } from '../store.js';

export type TargetState = 'healthy' | 'warning' | 'unhealthy' | 'unreachable' | 'pending';

export interface CheckStatus {
  name: string;
  passing: boolean;
  notYetRun: boolean;
  error?: string;
  contiguousFailures: number;
  failingSince?: number;
  lastRun?: number;
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

export interface TargetStatus {
  name: string;
  kind: 'node' | 'service';
  url: string;
  labels: Record<string, string>;
  state: TargetState;
  summary: string;
  nodeId?: string;
  lastPollAt?: number;
  failingChecks: string[];
  heights: Record<string, number>;
  endpoints: EndpointStatus[];
}

/** Failing checks that only warn: the node's own disk warning, and checks it has not run yet. */
function isWarningOnly(check: CheckResult): boolean {
  return check.notYetRun || check.name === 'diskspace';
}

export function targetStatus(target: Target, store: Store): TargetStatus {
  const state = store.get(target.name);
  const base = { name: target.name, kind: target.kind, url: displayUrl(target.baseUrl), labels: target.labels };
  if (!state) return { ...base, state: 'pending', summary: 'not polled yet', failingChecks: [], heights: {}, endpoints: [] };
  const endpoints = state.observation.endpoints.map((e) => endpointStatus(e, state.lastSuccessAt.get(endpointKey(e))));
  const unreachable = state.observation.endpoints.filter((e) => !e.ok);
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
  if (unreachable.length > 0) {
    status = 'unreachable';
    summary = unreachable.map((e) => `${e.endpoint}${e.view === 'all' ? '' : `[${e.view}]`}: ${e.reason} (${e.error ?? ''})`).join('; ');
  } else if (unhealthyServices.length > 0) {
    status = 'unhealthy';
    summary = unhealthyServices.map((e) => `${e.endpoint}: ${e.service!.status}${e.service!.message ? ` (${e.service!.message})` : ''}`).join('; ');
  } else if (unhealthyEndpoints.length === 0) {
    status = 'healthy';
    summary = 'healthy';
  } else {
    const failingAll = unhealthyEndpoints.flatMap((e) => e.report!.checks.filter((c) => !c.passing));
    status = failingAll.every(isWarningOnly) ? 'warning' : 'unhealthy';
    summary = `failing: ${[...new Set(failingAll.map((c) => c.name))].join(', ')}`;
  }
  return {
    ...base,
    state: status,
    summary,
    ...(state.nodeId ? { nodeId: state.nodeId } : {}),
    lastPollAt: state.observation.at,
    failingChecks: [
      ...failing.map((c) => c.name),
      ...new Set(unhealthyServices.flatMap((e) => e.service!.components.filter((c) => !c.up).map((c) => c.name))),
    ],
    heights,
    endpoints,
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
    out.checks = e.report.checks.map((c) => {
      const check: CheckStatus = { name: c.name, passing: c.passing, notYetRun: c.notYetRun, contiguousFailures: c.contiguousFailures };
      if (c.error !== undefined) check.error = c.error;
      if (c.failingSince !== undefined) check.failingSince = c.failingSince;
      if (c.lastRun !== undefined) check.lastRun = c.lastRun;
      return check;
    });
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
