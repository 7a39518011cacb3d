import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config/load.js';
import { COLLECTORS, FAMILIES } from '../../src/metrics/collectors/index.js';
import { MetricsView } from '../../src/metrics/view.js';
import type { EndpointObservation, TargetObservation } from '../../src/model/observation.js';
import { Store } from '../../src/store.js';
import { parseExposition, sample } from '../helpers/harness.js';
import { HEALTHY } from '../helpers/states.js';

const config = parseConfig(`nodes:\n  - {name: n1, url: "http://127.0.0.1:1", labels: {role: validator}}\n`, 'test.yaml');
const endpoint = (name: string, extra: Partial<EndpointObservation> = {}): EndpointObservation => ({ endpoint: name, view: 'all', ok: true, durationSeconds: 0.01, at: 0, ...extra });

describe('metric collectors', () => {
  it('each family is owned by exactly one collector', () => {
    const names = FAMILIES.map((f) => f.name);
    expect(new Set(names).size).toBe(names.length);
    expect(COLLECTORS.map((c) => c.name)).toEqual(['probe', 'node', 'checks', 'node-details', 'chain', 'validator', 'service', 'scheduler']);
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
});
