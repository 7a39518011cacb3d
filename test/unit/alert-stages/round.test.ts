/**
 * The one-round mode of the stages (`avahealth check`, docs/alerting.md, "Only the verdict stage runs
 * the rules"): for_polls and resolve_polls count as 1, a `for` duration cannot pass (the incident
 * stays pending), the policy's inhibition marks what a root cause holds back.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { oneRound } from '../../../src/alerts/round.js';
import { parseConfig } from '../../../src/config/load.js';
import { createLogger } from '../../../src/log.js';
import type { TargetObservation } from '../../../src/model/observation.js';
import { Store } from '../../../src/store.js';
import { failing, HEALTHY, nodeState } from '../../helpers/states.js';

const T0 = Date.UTC(2026, 10, 22, 12);

function round(alerts: string, observations: TargetObservation[]) {
  const dir = mkdtempSync(join(tmpdir(), 'avahealth-round-'));
  const yaml = `state_dir: ${dir}\nnodes:\n  - {name: v1, url: "http://127.0.0.1:1", labels: {env: mainnet}}\n  - {name: v2, url: "http://127.0.0.1:1"}\n  - {name: v3, url: "http://127.0.0.1:1"}\nalerts:\n${alerts}`;
  const config = parseConfig(yaml, join(dir, 'c.yaml'), {});
  const store = new Store();
  for (const observation of observations) store.record(observation);
  const { incidents, unknown } = oneRound(config, store, createLogger({ level: 'silent', format: 'json' }), T0);
  return { incidents: incidents.map((s) => `${s.target} ${s.alertname}${s.labels.check ? `/${s.labels.check}` : ''} ${s.state}${s.inhibitedBy ? ` held by ${s.inhibitedBy}` : ''}`), states: incidents, unknown };
}

describe('one round of the stages', () => {
  it('fires what holds now though for_polls is 3 and the node counted one failure; a root cause marks its symptom held', () => {
    const { incidents, states } = round('  for_polls: 3\n', [nodeState('v1', failing({ C: 1 })).observation, nodeState('v2', HEALTHY()).observation]);
    expect(incidents).toEqual(['v1 AvalancheNodeUnhealthy firing held by AvalancheCheckFailing', 'v1 AvalancheCheckFailing/C firing']);
    expect(states[1]!.labels).toEqual({ alertname: 'AvalancheCheckFailing', target: 'v1', check: 'C', env: 'mainnet' });
  });

  it('a `for` duration cannot pass in one round: that incident stays pending, the others fire', () => {
    const { incidents } = round('  rules:\n    AvalancheNodeUnreachable: {for: 5m}\n', [nodeState('v2', { reason: 'connect', error: 'refused' }).observation, nodeState('v3', failing({ P: 1 })).observation]);
    expect(incidents).toEqual(['v2 AvalancheNodeUnreachable pending', 'v3 AvalancheNodeUnhealthy firing held by AvalancheCheckFailing', 'v3 AvalancheCheckFailing/P firing']);
  });

  it('a disabled rule, and a target the store knows nothing of, have no incident', () => {
    const { incidents } = round('  rules:\n    AvalancheCheckFailing: {disabled: true}\n', [nodeState('v1', failing({ C: 1 })).observation]);
    expect(incidents).toEqual(['v1 AvalancheNodeUnhealthy firing']);
  });

  it('says per target what the round could not know, and why: the validator poll that failed', () => {
    const failedPoll: TargetObservation = { target: 'v1', kind: 'node', source: 'validator', at: 0, endpoints: [{ endpoint: 'validator', view: 'all', ok: false, reason: 'timeout', error: 'no answer in 10s', durationSeconds: 10, at: 0 }] };
    const { unknown } = round('  rules:\n    AvalancheValidatorDowntimeBudgetLow: {disabled: true}\n', [nodeState('v1', HEALTHY()).observation, failedPoll, nodeState('v2', HEALTHY()).observation]);
    expect([...unknown.keys()]).toEqual(['v1']);
    const said = unknown.get('v1')!.map((u) => `${u.what}: ${u.because}`);
    expect(said).toContain('AvalancheValidatorRewardAtRisk: the validator poll failed (timeout: no answer in 10s)');
    expect(said.some((line) => line.startsWith('AvalancheValidatorDowntimeBudgetLow'))).toBe(false);
  });
});
