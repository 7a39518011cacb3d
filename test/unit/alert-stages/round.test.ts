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
import { economicsOf, type ValidatorReport } from '../../../src/model/validator.js';
import { Store } from '../../../src/store.js';
import { failing, HEALTHY, nodeState } from '../../helpers/states.js';

const T0 = Date.UTC(2026, 10, 22, 12);

function round(alerts: string, observations: TargetObservation[], defaults = '') {
  const dir = mkdtempSync(join(tmpdir(), 'avahealth-round-'));
  const yaml = `state_dir: ${dir}\n${defaults}nodes:\n  - {name: v1, url: "http://127.0.0.1:1", labels: {env: mainnet}}\n  - {name: v2, url: "http://127.0.0.1:1"}\n  - {name: v3, url: "http://127.0.0.1:1"}\nalerts:\n${alerts}`;
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

  it("a target's verdicts from two sources are one book: a failed validator poll keeps the node's own incidents", () => {
    const failedPoll: TargetObservation = { target: 'v1', kind: 'node', source: 'validator', at: 0, endpoints: [{ endpoint: 'validator', view: 'all', ok: false, reason: 'timeout', error: 'no answer in 10s', durationSeconds: 10, at: 0 }] };
    const { incidents, unknown } = round('  for_polls: 1\n', [nodeState('v1', failing({ C: 1 })).observation, failedPoll]);
    expect(incidents).toEqual(['v1 AvalancheNodeUnhealthy firing held by AvalancheCheckFailing', 'v1 AvalancheCheckFailing/C firing']);
    expect([...unknown.keys()]).toEqual(['v1']);
  });

  it("decides a validator's verdict on what came: the fleet's view a daemon waits for is not awaited in the only round", () => {
    // An auto-renewed validator 2 days before its cycle ends, little stake rewarding it: the renewal
    // is in doubt (ACP-236). A daemon holds the verdict until the fleet's view of it is read
    // (rules/sources.ts, scopeAwaited); one round has no later poll to wait for.
    const now = T0 / 1000;
    const report: ValidatorReport = {
      l1: [],
      problems: [],
      nodeId: 'NodeID-A',
      heliconTime: Date.UTC(2026, 8, 22, 15) / 1000,
      version: 'avalanche/1.15.2',
      uptime: { rewardingStakeRatio: 0.3, weightedAverageRatio: 0.6 },
      primary: { startTime: now - 12 * 86400, endTime: now + 2 * 86400, potentialRewardNAvax: 117_431_493_426, autoRenewal: { nextPeriodSeconds: 14 * 86400, renews: true, autoCompoundRatio: 0, authorityAddresses: [] } },
    };
    report.economics = economicsOf(report, now);
    const polled: TargetObservation = { target: 'v1', kind: 'node', source: 'validator', at: now, endpoints: [{ endpoint: 'validator', view: 'all', ok: true, durationSeconds: 0, at: now, detail: report }] };
    const { incidents } = round('  for_polls: 1\n', [nodeState('v1', HEALTHY()).observation, polled], 'defaults: {validator: {network: {observers: 2}}}\n');
    expect(incidents).toContain('v1 AvalancheValidatorEndingSoon firing');
  });
});
