/** The policy stage alone: silences, maintenance and flap holds decide what is told now; a held change is told when the hold ends. */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { step, type StepContext } from '../../../src/alerts/incidents.js';
import { Policy } from '../../../src/alerts/policy.js';
import { Silences } from '../../../src/alerts/silences.js';
import type { AlertState, Condition } from '../../../src/alerts/types.js';
import { parseConfig } from '../../../src/config/load.js';
import { createLogger } from '../../../src/log.js';

const T0 = Date.UTC(2026, 10, 22, 12);
const MIN = 60_000;

function setup(alerts: string) {
  const dir = mkdtempSync(join(tmpdir(), 'avahealth-policy-'));
  const config = parseConfig(`state_dir: ${dir}\nalerts:\n${alerts}`, join(dir, 'c.yaml'), {});
  const log = createLogger({ level: 'silent', format: 'json' });
  const policy = new Policy(config.alerts, new Silences(config.alerts, dir, log), log, { flaps: {}, held: [] });
  const incidents = new Map<string, AlertState>();
  const ctx: Omit<StepContext, 'now'> = { settings: () => ({ disabled: false, forMs: 0, severity: 'warning' }), forPolls: 1, resolvePolls: 1, targetLabels: {} };
  const condition: Condition = { alertname: 'AvalancheCheckFailing', target: 'v1', identity: { check: 'C' }, severity: 'warning', summary: 's', description: 'd' };
  /** One evaluation (failing or not) through the incidents stage, then the policy: what is told. */
  const poll = (fails: boolean, now: number) => {
    const conditions = fails ? [condition] : [];
    const { transitions } = step(incidents, { target: 'v1', covers: ['AvalancheCheckFailing'], unknown: [], conditions }, conditions, { ...ctx, now });
    policy.recordTransitions(transitions, incidents, now);
    const told = policy.decide(incidents, now, 'http://avahealth', {}).map((n) => n.kind);
    policy.endFlapHolds('v1', incidents, now);
    return told;
  };
  return { policy, incidents, poll };
}

describe('policy stage', () => {
  it('a silence holds the firing; once it ends the still-firing incident is told, and re-sent from then on', () => {
    const { policy, incidents, poll } = setup(`  silences:\n    - {matchers: {target: v1}, ends_at: "${new Date(T0 + 10 * MIN).toISOString()}"}\n`);
    expect(poll(true, T0)).toEqual([]);
    expect(policy.resendable(incidents.values(), T0, '')).toEqual([]);
    expect(poll(true, T0 + 11 * MIN)).toEqual(['firing']);
    expect(policy.resendable(incidents.values(), T0 + 11 * MIN, '').map((n) => n.labels.check)).toEqual(['C']);
  });

  it('flapping: changes past the threshold are held (state flapping), then the current state is told once', () => {
    const { incidents, poll } = setup('  flap_threshold: 2\n  flap_window: 10m\n');
    expect([poll(true, T0), poll(false, T0 + 1000), poll(true, T0 + 2000)]).toEqual([['firing'], ['resolved'], []]);
    expect([...incidents.values()].map((s) => s.state)).toEqual(['flapping']);
    expect(poll(true, T0 + 11 * MIN)).toEqual(['firing']);
    expect([...incidents.values()].map((s) => s.state)).toEqual(['firing']);
  });

  it('a target that left: nothing holds its resolve, not even a silence', () => {
    const { incidents, poll, policy } = setup('  for_polls: 1\n');
    poll(true, T0);
    for (const s of incidents.values()) s.phase = 'resolved';
    policy.silences.add({ matchers: { target: 'v1' }, endsAt: T0 + 60 * MIN }, T0);
    expect(policy.decide(incidents, T0 + MIN, '', {})).toEqual([]);
    expect(policy.decide(incidents, T0 + MIN, '', { gone: ['AvalancheCheckFailing'] }).map((n) => n.kind)).toEqual(['resolved']);
    expect(incidents.size).toBe(0);
  });

  it('a source that left frees only its own alerts: the target\'s other firing alerts stay silenced', () => {
    // A node that is no validator: its validator poll reports nothing to judge, and the validator
    // rules' alerts resolve at once; its disk, low under a silence, must still page nobody.
    const { incidents, poll, policy } = setup('  for_polls: 1\n');
    policy.silences.add({ matchers: { target: 'v1' }, endsAt: T0 + 60 * MIN }, T0);
    expect(poll(true, T0)).toEqual([]);
    expect(policy.decide(incidents, T0 + 1000, '', { gone: ['AvalancheValidatorRewardAtRisk', 'AvalancheValidatorEndingSoon'] })).toEqual([]);
    // told once the silence ends, as any held firing is
    expect(policy.decide(incidents, T0 + 61 * MIN, '', {}).map((n) => n.kind)).toEqual(['firing']);
  });

  it('a root cause holds back its symptoms on the same target (rules declare inhibits); a symptom told before is still resolved', () => {
    const { policy, incidents } = setup('  for_polls: 1\n');
    const ctx = { settings: () => ({ disabled: false, forMs: 0, severity: 'warning' as const }), forPolls: 1, resolvePolls: 1, targetLabels: {} };
    const of = (alertname: Condition['alertname'], identity: Record<string, string> = {}): Condition => ({ alertname, target: 'v1', identity, severity: 'warning', summary: alertname, description: 'd' });
    const poll = (conditions: Condition[], now: number) => {
      step(incidents, { target: 'v1', covers: ['AvalancheNodeUnhealthy', 'AvalancheCheckFailing', 'AvalancheDiskLow'], unknown: [], conditions }, conditions, { ...ctx, now });
      return policy.decide(incidents, now, '', {}).map((n) => `${n.kind} ${n.labels.alertname}${n.labels.check ? `/${n.labels.check}` : ''}`);
    };
    expect(poll([of('AvalancheNodeUnhealthy')], T0)).toEqual(['firing AvalancheNodeUnhealthy']); // nothing more specific: it pages
    // the disk turns out to be the cause: what Unhealthy would tell now (a reminder, an update) waits; its resolve does not
    expect(poll([of('AvalancheNodeUnhealthy'), of('AvalancheDiskLow'), of('AvalancheCheckFailing', { check: 'diskspace' })], T0 + MIN)).toEqual(['firing AvalancheDiskLow']);
    expect([...incidents.values()].map((s) => `${s.alertname} ${s.inhibitedBy ?? '-'}`)).toEqual(['AvalancheNodeUnhealthy AvalancheCheckFailing', 'AvalancheDiskLow -', 'AvalancheCheckFailing AvalancheDiskLow']);
    expect(poll([of('AvalancheDiskLow'), of('AvalancheCheckFailing', { check: 'diskspace' })], T0 + 2 * MIN)).toEqual(['resolved AvalancheNodeUnhealthy']);
    // another check is its own problem: not held back by the disk
    expect(poll([of('AvalancheDiskLow'), of('AvalancheCheckFailing', { check: 'diskspace' }), of('AvalancheCheckFailing', { check: 'C' })], T0 + 3 * MIN)).toEqual(['firing AvalancheCheckFailing/C']);
  });

  it('a root cause still pending holds back a symptom that fires before it', () => {
    const { policy, incidents } = setup('  for_polls: 3\n');
    const ctx = { settings: () => ({ disabled: false, forMs: 0, severity: 'warning' as const }), forPolls: 3, resolvePolls: 1, targetLabels: {} };
    const disk: Condition = { alertname: 'AvalancheDiskLow', target: 'v1', identity: {}, severity: 'warning', summary: 'disk', description: 'd' };
    // The node's own contiguousFailures fire the diskspace check at once; the disk verdict needs its three polls.
    const symptom: Condition = { alertname: 'AvalancheCheckFailing', target: 'v1', identity: { check: 'diskspace' }, severity: 'warning', summary: 'diskspace failing', description: 'd', nodeFailures: 5 };
    const poll = (now: number) => {
      step(incidents, { target: 'v1', covers: ['AvalancheCheckFailing', 'AvalancheDiskLow'], unknown: [], conditions: [disk, symptom] }, [disk, symptom], { ...ctx, now });
      return policy.decide(incidents, now, '', {}).map((n) => n.labels.alertname);
    };
    expect(poll(T0)).toEqual([]);
    expect([...incidents.values()].map((s) => `${s.alertname} ${s.phase} ${s.inhibitedBy ?? '-'}`)).toEqual(['AvalancheDiskLow pending -', 'AvalancheCheckFailing firing AvalancheDiskLow']);
    expect(poll(T0 + MIN)).toEqual([]);
    expect(poll(T0 + 2 * MIN)).toEqual(['AvalancheDiskLow']); // one page, the cause's
  });

  it("a chain's lag is held back by that chain's failing check only", () => {
    const { policy, incidents } = setup('  for_polls: 1\n');
    const ctx = { settings: () => ({ disabled: false, forMs: 0, severity: 'warning' as const }), forPolls: 1, resolvePolls: 1, targetLabels: {} };
    const of = (alertname: Condition['alertname'], identity: Record<string, string>): Condition => ({ alertname, target: 'v1', identity, severity: 'warning', summary: alertname, description: 'd' });
    const conditions = [of('AvalancheCheckFailing', { check: 'C' }), of('AvalancheNodeHeightLag', { chain: 'C' }), of('AvalancheNodeHeightLag', { chain: 'X' })];
    step(incidents, { target: 'v1', covers: ['AvalancheCheckFailing', 'AvalancheNodeHeightLag'], unknown: [], conditions }, conditions, { ...ctx, now: T0 });
    const told = policy.decide(incidents, T0, '', {}).map((n) => `${n.labels.alertname}/${n.labels.check ?? n.labels.chain}`);
    expect(told).toEqual(['AvalancheCheckFailing/C', 'AvalancheNodeHeightLag/X']);
    expect([...incidents.values()].map((s) => s.inhibitedBy ?? '-')).toEqual(['-', 'AvalancheCheckFailing', '-']);
  });

  it("a validator's reward risk is held back by its own failing network check, not by another failing check", () => {
    const { policy, incidents } = setup('  for_polls: 1\n');
    const ctx = { settings: () => ({ disabled: false, forMs: 0, severity: 'warning' as const }), forPolls: 1, resolvePolls: 1, targetLabels: {} };
    const of = (alertname: Condition['alertname'], identity: Record<string, string> = {}): Condition => ({ alertname, target: 'v1', identity, severity: 'warning', summary: alertname, description: 'd' });
    const covers: Condition['alertname'][] = ['AvalancheCheckFailing', 'AvalancheValidatorRewardAtRisk', 'AvalancheValidatorDowntimeBudgetLow'];
    const poll = (conditions: Condition[], now: number) => {
      step(incidents, { target: 'v1', covers, unknown: [], conditions }, conditions, { ...ctx, now });
      return policy.decide(incidents, now, '', {}).map((n) => `${n.kind} ${n.labels.alertname}${n.labels.check ? `/${n.labels.check}` : ''}`);
    };
    const risk = [of('AvalancheValidatorRewardAtRisk'), of('AvalancheValidatorDowntimeBudgetLow')];
    // cut off: one page, the network check's; the uptime its peers measure falls because of it
    expect(poll([of('AvalancheCheckFailing', { check: 'network' }), ...risk], T0)).toEqual(['firing AvalancheCheckFailing/network']);
    // back on the network with the reward still at risk: that is told now (the budget low stays under the reward alert)
    expect(poll(risk, T0 + MIN)).toEqual(['resolved AvalancheCheckFailing/network', 'firing AvalancheValidatorRewardAtRisk']);
    // a failing chain alone is no cut-off: the reward risk beside it is its own page
    incidents.clear();
    expect(poll([of('AvalancheCheckFailing', { check: 'C' }), ...risk], T0 + 2 * MIN)).toEqual(['firing AvalancheCheckFailing/C', 'firing AvalancheValidatorRewardAtRisk']);
  });

  it('what a silence holds, for a receiver that mutes it: the pipeline\'s notices with the silence, never a symptom its cause holds back, even before the policy ran after a restart', () => {
    const { policy, incidents } = setup('  for_polls: 1\n');
    const ctx = { settings: () => ({ disabled: false, forMs: 0, severity: 'warning' as const }), forPolls: 1, resolvePolls: 1, targetLabels: {} };
    const of = (alertname: Condition['alertname'], identity: Record<string, string> = {}): Condition => ({ alertname, target: 'v1', identity, severity: 'warning', summary: alertname, description: 'd' });
    const conditions = [of('AvalancheNodeUnhealthy'), of('AvalancheCheckFailing', { check: 'C' })];
    const silence = policy.silences.add({ matchers: { target: 'v1' }, endsAt: T0 + 60 * MIN }, T0);
    step(incidents, { target: 'v1', covers: ['AvalancheNodeUnhealthy', 'AvalancheCheckFailing'], unknown: [], conditions }, conditions, { ...ctx, now: T0 });
    // as restored from alert states (inhibitedBy is not kept): the policy has not decided yet
    for (const s of incidents.values()) delete s.inhibitedBy;
    const held = policy.silenced([incidents], T0 + MIN, 'http://avahealth');
    expect(held.map((h) => [h.silence, h.notice.kind, h.notice.labels.alertname, h.notice.generatorURL])).toEqual([[silence.id, 'firing', 'AvalancheCheckFailing', 'http://avahealth/targets/v1']]);
    expect(policy.decide(incidents, T0 + MIN, '', {})).toEqual([]);
  });

  it('what a silence holds goes on after the problem ends under it: a told incident, as resolved, until the silence is gone', () => {
    const { policy, incidents, poll } = setup('  for_polls: 1\n');
    expect(poll(true, T0)).toEqual(['firing']);
    const silence = policy.silences.add({ matchers: { target: 'v1' }, endsAt: T0 + 60 * MIN }, T0 + MIN);
    const held = (now: number) => policy.silenced([incidents], now, '').map((h) => `${h.silence === silence.id ? 'the silence' : h.silence} ${h.notice.kind} ${h.notice.status}`);
    expect(held(T0 + 2 * MIN)).toEqual(['the silence firing firing']);
    expect(poll(false, T0 + 3 * MIN)).toEqual([]); // its resolve is held by the silence
    expect(held(T0 + 4 * MIN)).toEqual(['the silence resolved resolved']);
    // once the silence is gone nothing holds it: nothing is left to mirror, and the resolve is told
    policy.silences.expire(silence.id);
    expect(held(T0 + 5 * MIN)).toEqual([]);
    expect(poll(false, T0 + 6 * MIN)).toEqual(['resolved']);
    expect(held(T0 + 7 * MIN)).toEqual([]);
  });

  it('a root cause that is over holds nothing back, even while its own resolve waits under a silence', () => {
    const { policy, incidents } = setup('  for_polls: 1\n');
    const ctx = { settings: () => ({ disabled: false, forMs: 0, severity: 'warning' as const }), forPolls: 1, resolvePolls: 1, targetLabels: {} };
    const disk: Condition = { alertname: 'AvalancheDiskLow', target: 'v1', identity: {}, severity: 'warning', summary: 'disk', description: 'd' };
    const symptom: Condition = { alertname: 'AvalancheCheckFailing', target: 'v1', identity: { check: 'diskspace' }, severity: 'warning', summary: 'diskspace failing', description: 'd' };
    const poll = (conditions: Condition[], now: number) => {
      step(incidents, { target: 'v1', covers: ['AvalancheCheckFailing', 'AvalancheDiskLow'], unknown: [], conditions }, conditions, { ...ctx, now });
      return policy.decide(incidents, now, '', {}).map((n) => `${n.kind} ${n.labels.alertname}`);
    };
    expect(poll([disk, symptom], T0)).toEqual(['firing AvalancheDiskLow']);
    policy.silences.add({ matchers: { alertname: 'AvalancheDiskLow' }, endsAt: T0 + 60 * MIN }, T0);
    // the disk is fine again (its resolve is held by the silence), the check still fails: its own problem now
    expect(poll([symptom], T0 + MIN)).toEqual(['firing AvalancheCheckFailing']);
    expect([...incidents.values()].map((s) => `${s.alertname} ${s.phase} ${s.inhibitedBy ?? '-'}`)).toEqual(['AvalancheDiskLow resolved -', 'AvalancheCheckFailing firing -']);
  });
});
