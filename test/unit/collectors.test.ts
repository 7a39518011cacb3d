import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config/load.js';
import { COLLECTORS, FAMILIES } from '../../src/metrics/collectors/index.js';
import { MetricsView } from '../../src/metrics/view.js';
import type { EndpointObservation, TargetObservation } from '../../src/model/observation.js';
import { Store } from '../../src/store.js';
import { parseExposition, sample, series } from '../helpers/harness.js';
import { failing, HEALTHY } from '../helpers/states.js';

const config = parseConfig(`nodes:\n  - {name: n1, url: "http://127.0.0.1:1", labels: {role: validator}}\n`, 'test.yaml');
const endpoint = (name: string, extra: Partial<EndpointObservation> = {}): EndpointObservation => ({ endpoint: name, view: 'all', ok: true, durationSeconds: 0.01, at: 0, ...extra });

describe('metric collectors', () => {
  it('each family is owned by exactly one collector', () => {
    const names = FAMILIES.map((f) => f.name);
    expect(new Set(names).size).toBe(names.length);
    const collectors = COLLECTORS.map((c) => c.name);
    expect(new Set(collectors).size).toBe(collectors.length);
    expect(collectors).toEqual(expect.arrayContaining(['probe', 'node', 'checks', 'node-details', 'chain', 'validator', 'observed', 'service', 'scheduler']));
    for (const name of names) expect(name).toMatch(/^avahealth_[a-z0-9_]+$/);
  });

  it("render every job's endpoints of a target; a failure counts once per recorded observation, not per re-render", async () => {
    const store = new Store();
    const view = new MetricsView(config, { defaultMetrics: false });
    view.attach(store);
    const own: TargetObservation = { target: 'n1', kind: 'node', network: 'mainnet', at: 1, endpoints: [endpoint('health', { httpStatus: 200, report: HEALTHY() })] };
    store.record(own);
    store.record({ target: 'n1', kind: 'node', source: 'validator', at: 2, endpoints: [endpoint('validator', { ok: false, reason: 'bad_shape', httpStatus: 200 })] });
    view.countSkippedPoll('n1'); // re-renders the target without a new observation
    store.record({ ...own, at: 3 });
    const m = parseExposition(await view.render());
    const labels = { target: 'n1', role: 'validator' };
    expect(sample(m, 'avahealth_probe_success', { ...labels, endpoint: 'health' })).toBe(1);
    expect(sample(m, 'avahealth_probe_success', { ...labels, endpoint: 'validator' })).toBe(0);
    expect(sample(m, 'avahealth_probe_failures_total', { ...labels, endpoint: 'validator', reason: 'bad_shape' })).toBe(1);
    expect(sample(m, 'avahealth_node_healthy', { ...labels, endpoint: 'health' })).toBe(1);
    expect(sample(m, 'avahealth_scheduler_skipped_polls_total', labels)).toBe(1);
  });

  it('dropping a job (validator turned off by a reload) counts no failure again', async () => {
    const store = new Store();
    const view = new MetricsView(config, { defaultMetrics: false });
    view.attach(store);
    store.record({ target: 'n1', kind: 'node', network: 'mainnet', at: 1, endpoints: [endpoint('health', { ok: false, reason: 'timeout' })] });
    store.record({ target: 'n1', kind: 'node', source: 'validator', at: 2, endpoints: [endpoint('validator', { httpStatus: 200 })] });
    store.dropSource('n1', 'validator');
    const m = parseExposition(await view.render());
    const labels = { target: 'n1', role: 'validator' };
    expect(sample(m, 'avahealth_probe_failures_total', { ...labels, endpoint: 'health', reason: 'timeout' })).toBe(1);
    expect(series(m, 'avahealth_probe_success', { ...labels, endpoint: 'validator' })).toHaveLength(0);
    expect(sample(m, 'avahealth_probe_success', { ...labels, endpoint: 'health' })).toBe(0);
  });

  it('a poll with the same report keeps its check series and still moves the probe series; a changed check or a skip re-renders', async () => {
    const store = new Store();
    const view = new MetricsView(config, { defaultMetrics: false });
    view.attach(store);
    const labels = { target: 'n1', role: 'validator', endpoint: 'health', view: 'all' };
    const healthy = HEALTHY();
    const checkName = healthy.checks[0]!.name;
    const observe = (at: number, durationSeconds: number, report = healthy): TargetObservation => ({
      target: 'n1',
      kind: 'node',
      network: 'mainnet',
      at,
      endpoints: [endpoint('health', { httpStatus: 200, durationSeconds, report })],
    });
    store.record(observe(1, 0.01));
    let m = parseExposition(await view.render());
    const checks = series(m, 'avahealth_node_check_passing', labels).length;
    expect(checks).toBe(healthy.checks.length);

    store.record(observe(2, 0.02)); // the same report object: an unchanged body
    m = parseExposition(await view.render());
    expect(sample(m, 'avahealth_probe_duration_seconds', labels)).toBe(0.02);
    expect(series(m, 'avahealth_node_check_passing', labels)).toHaveLength(checks);
    expect(sample(m, 'avahealth_node_healthy', labels)).toBe(1);

    store.record(observe(3, 0.03, failing({ [checkName]: 2 }, healthy))); // one check changed
    m = parseExposition(await view.render());
    expect(sample(m, 'avahealth_node_check_passing', { ...labels, check: checkName })).toBe(0);
    expect(sample(m, 'avahealth_node_check_contiguous_failures', { ...labels, check: checkName })).toBe(2);
    expect(sample(m, 'avahealth_node_check_passing', { ...labels, check: healthy.checks[1]!.name })).toBe(1);
    expect(sample(m, 'avahealth_node_healthy', labels)).toBe(0);

    view.countSkippedPoll('n1');
    m = parseExposition(await view.render());
    expect(sample(m, 'avahealth_scheduler_skipped_polls_total', { target: 'n1', role: 'validator' })).toBe(1);
    expect(series(m, 'avahealth_node_check_passing', labels)).toHaveLength(checks);

  });

  it('metrics: changed by a reload applies at once: a passing check keeps only its passing series, a denied family is gone', async () => {
    const store = new Store();
    const view = new MetricsView(config, { defaultMetrics: false });
    view.attach(store);
    const healthy = HEALTHY();
    const failingName = healthy.checks[0]!.name;
    const passingName = healthy.checks[1]!.name;
    store.record({ target: 'n1', kind: 'node', network: 'mainnet', at: 1, endpoints: [endpoint('health', { httpStatus: 200, report: failing({ [failingName]: 2 }, healthy) })] });
    const labels = { target: 'n1', role: 'validator', endpoint: 'health', view: 'all' };
    let m = parseExposition(await view.render());
    expect(sample(m, 'avahealth_node_check_duration_seconds', { ...labels, check: passingName })).toBeDefined();
    const cut = parseConfig(`metrics: {check_details: failing, deny: ["avahealth_probe_duration_seconds"]}\nnodes:\n  - {name: n1, url: "http://127.0.0.1:1", labels: {role: validator}}\n`, 'test.yaml');
    view.setConfig(cut); // no poll since
    m = parseExposition(await view.render());
    expect(sample(m, 'avahealth_node_check_passing', { ...labels, check: passingName })).toBe(1);
    for (const family of ['not_yet_run', 'contiguous_failures', 'duration_seconds', 'last_run_timestamp_seconds']) {
      expect(series(m, `avahealth_node_check_${family}`, { ...labels, check: passingName }), family).toHaveLength(0);
    }
    // a failing check keeps every series
    expect(sample(m, 'avahealth_node_check_passing', { ...labels, check: failingName })).toBe(0);
    expect(sample(m, 'avahealth_node_check_contiguous_failures', { ...labels, check: failingName })).toBe(2);
    expect(series(m, 'avahealth_probe_duration_seconds')).toHaveLength(0);
    expect(sample(m, 'avahealth_probe_success', labels)).toBe(1);
    view.setConfig(config);
    m = parseExposition(await view.render());
    expect(sample(m, 'avahealth_node_check_duration_seconds', { ...labels, check: passingName })).toBeDefined();
    expect(series(m, 'avahealth_probe_duration_seconds')).toHaveLength(1);
  });
});
