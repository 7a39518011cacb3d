/** Builds store states from real parsed payloads, for tests that drive the alert engine directly. */
import { join } from 'node:path';
import type { EndpointObservation, HealthReport, ServiceReport } from '../../src/model/observation.js';
import type { SourceUpdate } from '../../src/alerts/rules/index.js';
import type { NodeTarget, ServiceTarget } from '../../src/config/load.js';
import type { TargetState } from '../../src/store.js';
import { OWN_FIXTURES, report, SHARED_FIXTURES } from './fixtures.js';

export const HEALTHY = () => report(join(SHARED_FIXTURES, 'avalanchego', 'health-healthy-mainnet.json'));
export const BOOTSTRAPPING = () => report(join(SHARED_FIXTURES, 'avalanchego', 'health-unhealthy-bootstrapping.json'));
export const fixtureReport = (name: string) => report(join(OWN_FIXTURES, 'avalanchego', name));

/** A healthy report with the named checks failing (contiguousFailures as given). */
export function failing(checks: Record<string, number>, base: HealthReport = HEALTHY()): HealthReport {
  return {
    healthy: Object.keys(checks).length === 0,
    checks: base.checks.map((c) => (c.name in checks ? { ...c, passing: false, error: `${c.name} is failing`, contiguousFailures: checks[c.name]! } : c)),
  };
}

export function nodeState(target: string, health: HealthReport | { reason: 'connect' | 'timeout'; error: string }, readiness?: boolean): TargetState {
  const endpoints: EndpointObservation[] = [];
  if ('reason' in health) endpoints.push({ endpoint: 'health', view: 'all', ok: false, reason: health.reason, error: health.error, durationSeconds: 0.01, at: 0 });
  else endpoints.push({ endpoint: 'health', view: 'all', ok: true, httpStatus: health.healthy ? 200 : 503, durationSeconds: 0.01, at: 0, report: health });
  if (readiness !== undefined) {
    endpoints.push({ endpoint: 'readiness', view: 'all', ok: true, durationSeconds: 0.01, at: 0, report: { healthy: readiness, checks: [] } });
  }
  const observation = { target, kind: 'node' as const, at: 0, endpoints };
  return { observation, lastSuccessAt: new Map(), history: [], rounds: 1, jobs: new Map([['node', observation]]), latest: observation };
}

export function serviceState(target: string, reports: ServiceReport | { reason: 'rate_limited' | 'connect'; error: string }): TargetState {
  const endpoints: EndpointObservation[] = ['health-check', 'live-check'].map((endpoint) =>
    'reason' in reports
      ? { endpoint, view: 'all', ok: false, reason: reports.reason, error: reports.error, durationSeconds: 0.01, at: 0 }
      : { endpoint, view: 'all', ok: true, httpStatus: reports.healthy ? 200 : 503, durationSeconds: 0.01, at: 0, service: reports },
  );
  const observation = { target, kind: 'service' as const, at: 0, endpoints };
  return { observation, lastSuccessAt: new Map(), history: [], rounds: 1, jobs: new Map([['service', observation]]), latest: observation };
}

/** What the engine is handed when `source` reported on a target (app: AlertEngine.attach builds it from the store). */
export function update(source: string, target: NodeTarget | ServiceTarget, state?: TargetState, extra: Partial<SourceUpdate> = {}): SourceUpdate {
  return {
    source,
    target: target.name,
    kind: target.kind,
    ...(target.kind === 'node' ? { network: target.network } : {}),
    ...(state ? { observation: state.observation } : {}),
    jobs: state?.jobs ?? new Map(),
    lags: () => [],
    ...extra,
  };
}
