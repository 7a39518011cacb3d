/** status/verdict.ts: what each open incident makes of its target, the one rule every surface follows. */
import { describe, expect, it } from 'vitest';
import type { TargetStatus } from '../../src/status/status.js';
import { renderFleetMain } from '../../src/status/page.js';
import { incidentState, withIncidents, withVerdictChanges } from '../../src/status/verdict.js';

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

  // A validator with no peers (the simulator's network-down: src/sim/scenarios.ts) fails C, P, X and
  // network; C falls behind, a symptom its failing C check holds back (AvalancheCheckFailing's inhibits).
  const cutOff = () => ({ ...status('unhealthy', 'failing: C, P, X, network'), lag: { C: 144 } });
  const checks = ['C', 'P', 'X', 'network'].map((check) => ({ alertname: 'AvalancheCheckFailing', severity: 'warning' as const, summary: `v1: check ${check} failing`, labels: { check } }));
  const lag = { alertname: 'AvalancheNodeHeightLag', severity: 'warning' as const, summary: 'v1: C 144 blocks behind', labels: { chain: 'C' }, inhibitedBy: 'AvalancheCheckFailing' };

  it('a symptom its root cause holds back is not why: a cut-off validator is not "C 144 blocks behind"', () => {
    const verdict = withIncidents(cutOff(), [...checks, lag]);
    expect(verdict.summary).toBe('failing: C, P, X, network');
    expect(verdict.summary).not.toContain('blocks behind');
  });

  it('the root cause the verdicts name leads the summary, before the failing checks it explains', () => {
    const unreachable = { alertname: 'AvalancheValidatorUnreachableByPeers', severity: 'warning' as const, summary: 'v1: unreachable by peers: 3 of 3 witnesses see it disconnected', labels: { scope: 'self' } };
    const held = checks.map((c) => (c.labels.check === 'network' ? { ...c, inhibitedBy: unreachable.alertname } : c));
    const verdict = withIncidents(cutOff(), [...held, lag, unreachable]);
    expect(verdict.summary).toBe('v1: unreachable by peers: 3 of 3 witnesses see it disconnected; failing: C, P, X, network');
    // The fleet page says it under the badge (the failing checks have their own column).
    const html = renderFleetMain({ version: 'test', now: 0, targets: [verdict], alerts: [], silences: [] });
    expect(/<div class="why">([^<]*)<\/div>/.exec(html)?.[1]).toBe('v1: unreachable by peers: 3 of 3 witnesses see it disconnected');
  });

  it('the recent changes list the verdicts\' changes, newest first, with the state one gives where its severity does not say it', () => {
    const at = 1_800_000_000_000;
    const withChanges = withVerdictChanges({ ...status('healthy'), history: [{ at: at / 1000 - 60, text: 'C recovered', good: true }] }, [
      { at: at + 2000, alertname: 'AvalancheValidatorRewardMissed', kind: 'firing', severity: 'critical', labels: {}, summary: 'v1: validation period 2026-11-22 – 2026-12-06 ended unpaid: 117.4 AVAX forfeited' },
      { at: at + 1000, alertname: 'AvalancheValidatorRewardAtRisk', kind: 'resolved', severity: 'warning', labels: {}, summary: 'v1: reward no longer at risk' },
      { at, alertname: 'AvalancheValidatorRewardAtRisk', kind: 'firing', severity: 'warning', labels: {}, summary: 'v1: 20 % of stake…' },
      { at: at - 1000, alertname: 'AvalancheValidatorUnreachableByPeers', kind: 'severity_changed', from: 'warning', severity: 'critical', labels: { scope: 'network' }, summary: 'v1: …' },
    ]);
    expect(withChanges.history.map((h) => [h.text, h.good])).toEqual([
      ['AvalancheValidatorRewardMissed firing (critical) → unhealthy: v1: validation period 2026-11-22 – 2026-12-06 ended unpaid: 117.4 AVAX forfeited', false],
      ['AvalancheValidatorRewardAtRisk resolved: v1: reward no longer at risk', true],
      ['AvalancheValidatorRewardAtRisk firing (warning): v1: 20 % of stake…', false],
      ['AvalancheValidatorUnreachableByPeers warning → critical (warning): v1: …', false],
      ['C recovered', true],
    ]);
  });
});
