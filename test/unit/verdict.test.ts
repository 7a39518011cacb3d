/** status/verdict.ts: what each open incident makes of its target, the one rule every surface follows. */
import { describe, expect, it } from 'vitest';
import type { TargetStatus } from '../../src/status/status.js';
import { incidentState, withIncidents } from '../../src/status/verdict.js';

const status = (state: TargetStatus['state'], summary = state === 'healthy' ? 'healthy' : 'failing: C'): TargetStatus => ({
  name: 'v1',
  kind: 'node',
  url: 'http://v1:9650',
  labels: {},
  state,
  summary,
  failingChecks: [],
  failing: [],
  heights: { C: 100 },
  lag: { C: 120 },
  history: [],
  endpoints: [],
});

describe('one verdict from the open incidents', () => {
  it('critical is unhealthy unless its scope is the whole network; warning is warning', () => {
    expect(incidentState({ severity: 'critical', labels: {} })).toBe('unhealthy');
    expect(incidentState({ severity: 'critical', labels: { scope: 'self' } })).toBe('unhealthy');
    expect(incidentState({ severity: 'critical', labels: { scope: 'network' } })).toBe('warning');
    expect(incidentState({ severity: 'warning', labels: {} })).toBe('warning');
  });

  it('raises a healthy node and says why when the health reply does not (height lag, validator)', () => {
    const lagging = withIncidents(status('healthy'), [{ alertname: 'AvalancheNodeHeightLag', severity: 'warning', summary: 'v1 behind', labels: { chain: 'C' } }]);
    expect(lagging).toMatchObject({ state: 'warning', summary: 'C 120 blocks behind', failingChecks: ['C 120 blocks behind'] });
    expect(lagging.incidents).toEqual([{ alertname: 'AvalancheNodeHeightLag', severity: 'warning', summary: 'v1 behind', state: 'warning' }]);
    const dip = withIncidents(status('healthy'), [{ alertname: 'AvalancheValidatorRewardAtRisk', severity: 'critical', summary: 'v1: every validator looks down from here', labels: { scope: 'network' } }]);
    expect(dip).toMatchObject({ state: 'warning', summary: 'v1: every validator looks down from here', incidents: [{ scope: 'network', state: 'warning' }] });
  });

  it('never lowers a worse state; a node incident adds no words the health reply already says', () => {
    expect(withIncidents(status('unhealthy'), [{ alertname: 'AvalancheNodeUnhealthy', severity: 'warning', summary: 'v1 is unhealthy', labels: {} }])).toMatchObject({ state: 'unhealthy', summary: 'failing: C' });
    expect(withIncidents(status('unreachable', 'health: connect'), [{ alertname: 'AvalancheValidatorRewardAtRisk', severity: 'critical', summary: 'x', labels: { scope: 'self' } }])).toMatchObject({ state: 'unreachable', summary: 'health: connect' });
    expect(withIncidents(status('healthy'), [])).toMatchObject({ state: 'healthy', summary: 'healthy', incidents: [] });
  });
});
