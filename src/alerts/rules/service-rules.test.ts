import { describe, expect, it } from 'vitest';
import type { EndpointObservation, ServiceReport, TargetObservation } from '../../model/observation.js';
import AvalancheServiceComponentDown from './AvalancheServiceComponentDown.js';
import AvalancheServiceUnhealthy from './AvalancheServiceUnhealthy.js';
import { ruleSettings, UNKNOWN, type AnyRule } from './index.js';
import type { RuleContext } from './rule.js';

const ctx = (rule: AnyRule): RuleContext => ({ target: 'data-api', settings: ruleSettings(rule, [], 0), enabled: () => true, now: 0, label: (v) => v.toUpperCase() });

/** One answered poll of an endpoint, as the service prober records NestJS Terminus's `{status, details}`. */
const answered = (endpoint: string, service: ServiceReport): EndpointObservation => ({ endpoint, view: 'all', ok: true, durationSeconds: 0, at: 0, httpStatus: service.healthy ? 200 : 503, service });
const failed = (endpoint: string, reason: EndpointObservation['reason'], error?: string): EndpointObservation => ({ endpoint, view: 'all', ok: false, durationSeconds: 0, at: 0, reason, ...(error !== undefined ? { error } : {}) });
const poll = (...endpoints: EndpointObservation[]): TargetObservation => ({ target: 'data-api', kind: 'service', at: 0, endpoints });

const OK: ServiceReport = { status: 'ok', healthy: true, components: [{ name: 'database', up: true, status: 'up' }] };
// ../shared/fixtures/data-api/health-check-503-terminus.json: the cache down, the database up.
const CACHE_DOWN: ServiceReport = {
  status: 'error',
  healthy: false,
  message: 'Connection is closed.',
  components: [
    { name: 'database', up: true, status: 'up' },
    { name: 'cache', up: false, status: 'down', message: 'Connection is closed.' },
  ],
};

describe('AvalancheServiceUnhealthy: one alert per service, each bad endpoint a line of it', () => {
  const rule = AvalancheServiceUnhealthy as AnyRule;
  const run = (o: TargetObservation) => rule.evaluate(o, ctx(rule), undefined);

  it("names each endpoint not ok: the service's own status and message, or why it could not be reached", () => {
    expect(run(poll(answered('health-check', CACHE_DOWN), failed('live-check', 'timeout', 'no answer in 5s'), answered('latest-blocks', CACHE_DOWN)))).toEqual([
      { identity: {}, severity: 'warning', summary: 'data-api is unhealthy', description: 'health-check: error (Connection is closed.)\nlive-check: timeout (no answer in 5s)' },
    ]);
    const noMessage = run(poll(answered('live-check', { status: 'shutting_down', healthy: false, components: [] }), failed('health-check', 'connect')));
    expect(noMessage).toEqual([expect.objectContaining({ description: 'live-check: shutting_down\nhealth-check: connect ()' })]);
  });

  it('nothing while both answer ok; unknown while our own polls are rate limited (the service is not at fault)', () => {
    expect(run(poll(answered('health-check', OK), answered('live-check', OK)))).toEqual([]);
    expect(run(poll())).toEqual([]);
    expect(run(poll(answered('health-check', CACHE_DOWN), failed('live-check', 'rate_limited', 'HTTP 429')))).toBe(UNKNOWN);
    // An API probe (its name is the operator's) is not this rule's.
    expect(run(poll(answered('health-check', OK), failed('latest-blocks', 'rate_limited')))).toEqual([]);
  });
});

describe('AvalancheServiceComponentDown: one alert per component down, once however many endpoints report it', () => {
  const rule = AvalancheServiceComponentDown as AnyRule;
  const run = (o: TargetObservation) => rule.evaluate(o, ctx(rule), undefined);

  it('a component down on both endpoints is one alert, labelled as the label policy says, with its message', () => {
    const twoDown: ServiceReport = { ...CACHE_DOWN, components: [...CACHE_DOWN.components, { name: 'queue', up: false, status: 'down' }] };
    expect(run(poll(answered('health-check', CACHE_DOWN), answered('live-check', twoDown)))).toEqual([
      { identity: { component: 'CACHE' }, severity: 'warning', summary: 'data-api: component cache is down', description: 'Connection is closed.' },
      { identity: { component: 'QUEUE' }, severity: 'warning', summary: 'data-api: component queue is down', description: 'down' },
    ]);
  });

  it('nothing while every component is up or none is reported; unknown while rate limited', () => {
    expect(run(poll(answered('health-check', OK), failed('live-check', 'timeout')))).toEqual([]);
    expect(run(poll(answered('health-check', CACHE_DOWN), failed('health-check', 'rate_limited')))).toBe(UNKNOWN);
    expect(run(poll(answered('latest-blocks', CACHE_DOWN)))).toEqual([]);
  });
});
