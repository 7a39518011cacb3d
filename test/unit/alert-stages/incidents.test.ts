/** The incidents stage alone: a pure state machine over plain values (no clock, no files, no receivers). */
import { describe, expect, it } from 'vitest';
import { dueNotice, fingerprint, keyOf, markTold, noticeOf, step, type StepContext } from '../../../src/alerts/incidents.js';
import type { RuleSettings } from '../../../src/alerts/rules/index.js';
import type { AlertState, Condition, Evaluation } from '../../../src/alerts/types.js';

const T0 = Date.UTC(2026, 10, 22, 12);
const settings: RuleSettings = { disabled: false, forMs: 0, severity: 'warning', criticalAfterMs: 10 * 60_000 };
const ctx = (now: number, extra: Partial<StepContext> = {}): StepContext => ({ now, settings: () => settings, forPolls: 2, resolvePolls: 1, targetLabels: { env: 'mainnet' }, ...extra });
const check = (name: string, extra: Partial<Condition> = {}): Condition => ({ alertname: 'AvalancheCheckFailing', target: 'v1', identity: { check: name }, severity: 'warning', summary: `${name} failing`, description: 'x', ...extra });
const evaluation = (conditions: Condition[]): Evaluation => ({ target: 'v1', covers: ['AvalancheCheckFailing'], unknown: [], conditions });
const run = (incidents: Map<string, AlertState>, conditions: Condition[], now: number, extra: Partial<StepContext> = {}) => step(incidents, evaluation(conditions), conditions, ctx(now, extra));

describe('incidents stage', () => {
  it('pending, then firing after for_polls, then resolved: each real change of state reported once', () => {
    const incidents = new Map<string, AlertState>();
    expect(run(incidents, [check('C')], T0)).toEqual({ changed: true, transitions: [] });
    const key = 'AvalancheCheckFailing|v1|C||';
    expect(incidents.get(key)).toMatchObject({ phase: 'pending', fingerprint: fingerprint(key), labels: { alertname: 'AvalancheCheckFailing', target: 'v1', check: 'C', env: 'mainnet' } });
    expect(run(incidents, [check('C')], T0 + 1000)).toEqual({ changed: true, transitions: [key] });
    expect(dueNotice(incidents.get(key)!, 0, T0 + 1000)).toBe('firing');
    markTold(incidents.get(key)!, T0 + 1000);
    expect(run(incidents, [check('C')], T0 + 2000)).toEqual({ changed: false, transitions: [] });
    expect(run(incidents, [], T0 + 3000).transitions).toEqual([key]);
    expect(incidents.get(key)!.phase).toBe('resolved');
    expect(noticeOf(incidents.get(key)!, 'resolved', T0 + 3000, 'http://x')).toMatchObject({ status: 'resolved', startsAt: new Date(T0 + 1000).toISOString(), endsAt: new Date(T0 + 3000).toISOString() });
  });

  it("the node's own contiguousFailures fire at once; a severity change is told as such, not as a new incident", () => {
    const incidents = new Map<string, AlertState>();
    const key = keyOf('AvalancheCheckFailing', 'v1', { check: 'P' });
    run(incidents, [check('P', { nodeFailures: 5 })], T0);
    const state = incidents.get(key)!;
    expect(state.phase).toBe('firing');
    markTold(state, T0);
    run(incidents, [check('P', { nodeFailures: 6 })], T0 + 11 * 60_000); // critical_after 10m
    expect([state.severity, dueNotice(state, 0, T0 + 11 * 60_000), incidents.size]).toEqual(['critical', 'severity_changed', 1]);
    expect(noticeOf(state, 'severity_changed', T0 + 11 * 60_000, 'http://x').previousLabels).toMatchObject({ severity: 'warning', check: 'P' });
  });

  it('a reminder is due exactly at repeat_interval after it was told, not a poll later', () => {
    const incidents = new Map<string, AlertState>();
    run(incidents, [check('C', { nodeFailures: 3 })], T0);
    const state = incidents.get(keyOf('AvalancheCheckFailing', 'v1', { check: 'C' }))!;
    markTold(state, T0);
    const HOUR = 3_600_000;
    expect(dueNotice(state, HOUR, T0 + HOUR - 1)).toBeUndefined();
    expect(dueNotice(state, HOUR, T0 + HOUR)).toBe('reminder');
    expect(dueNotice(state, 0, T0 + 10 * HOUR)).toBeUndefined(); // repeat_interval 0: no reminders
  });

  it('an unknown rule keeps its incidents as they are; a rule the evaluation does not cover is not touched', () => {
    const incidents = new Map<string, AlertState>();
    run(incidents, [check('C', { nodeFailures: 3 })], T0);
    expect(step(incidents, { target: 'v1', covers: ['AvalancheCheckFailing'], unknown: ['AvalancheCheckFailing'], conditions: [] }, [], ctx(T0 + 1000)).changed).toBe(false);
    expect(step(incidents, { target: 'v1', covers: ['AvalancheNodeUnhealthy'], unknown: [], conditions: [] }, [], ctx(T0 + 2000)).changed).toBe(false);
    expect([...incidents.values()].map((s) => s.phase)).toEqual(['firing']);
  });

  it("a resolve says what ended and how: the rule's words for what is true now, else its resolved phrase; never the firing's summary", () => {
    const resolveWith = (recovered: Evaluation['recovered'], extra: Partial<StepContext> = {}) => {
      const incidents = new Map<string, AlertState>();
      run(incidents, [check('C', { nodeFailures: 3, summary: 'v1: C is 164 blocks behind the network' })], T0);
      markTold([...incidents.values()][0]!, T0);
      step(incidents, { ...evaluation([]), ...(recovered ? { recovered } : {}) }, [], ctx(T0 + 1000, extra));
      return [...incidents.values()][0]!.annotations.summary;
    };
    expect(resolveWith((alertname, labels) => `${labels.check} caught up: 3 blocks behind the network (${alertname})`)).toBe('v1: C caught up: 3 blocks behind the network (AvalancheCheckFailing)');
    expect(resolveWith(() => undefined)).toBe('v1: C recovered');
    expect(resolveWith(undefined)).toBe('v1: C recovered');
    // resolved at once (the target left): no facts, and it says so
    expect(resolveWith(() => 'never asked', { resolveAtOnce: true, gone: 'target removed from the config' })).toBe('v1: C failing: no longer watched (target removed from the config)');
  });

  it('an acknowledged incident gets no reminder until it escalates past what was acknowledged', () => {
    const incidents = new Map<string, AlertState>();
    run(incidents, [check('C', { nodeFailures: 3 })], T0);
    const state = [...incidents.values()][0]!;
    markTold(state, T0);
    state.acknowledged = { by: 'telegram:1', at: T0, severity: 'warning' };
    expect(dueNotice(state, 60_000, T0 + 120_000)).toBeUndefined();
    run(incidents, [check('C', { nodeFailures: 4 })], T0 + 11 * 60_000); // critical_after 10m
    expect(state.acknowledged).toBeUndefined();
    expect(dueNotice(state, 60_000, T0 + 11 * 60_000)).toBe('severity_changed');
    markTold(state, T0 + 11 * 60_000);
    expect(dueNotice(state, 60_000, T0 + 13 * 60_000)).toBe('reminder');
  });

  it("fires when the node's own contiguousFailures reach for_polls, not one short of it", () => {
    const phase = (nodeFailures: number) => {
      const incidents = new Map<string, AlertState>();
      run(incidents, [check('C', { nodeFailures })], T0);
      return incidents.get(keyOf('AvalancheCheckFailing', 'v1', { check: 'C' }))!.phase;
    };
    expect([phase(1), phase(2)]).toEqual(['pending', 'firing']); // for_polls 2
  });

  it('a `for` duration: fires at the first poll once the condition has held that long, not a poll later', () => {
    const incidents = new Map<string, AlertState>();
    const withFor = (now: number) => step(incidents, evaluation([check('C')]), [check('C')], ctx(now, { settings: () => ({ ...settings, forMs: 60_000 }) }));
    const phase = () => incidents.get(keyOf('AvalancheCheckFailing', 'v1', { check: 'C' }))!.phase;
    withFor(T0);
    withFor(T0 + 30_000);
    expect(phase()).toBe('pending'); // for_polls held, `for` not yet
    withFor(T0 + 59_999);
    expect(phase()).toBe('pending');
    withFor(T0 + 60_000);
    expect(phase()).toBe('firing');
  });

  it('escalates at critical_after after it began firing, not before; a rule whose severity is critical fires critical', () => {
    const incidents = new Map<string, AlertState>();
    run(incidents, [check('C', { nodeFailures: 2 })], T0);
    const state = incidents.get(keyOf('AvalancheCheckFailing', 'v1', { check: 'C' }))!;
    run(incidents, [check('C', { nodeFailures: 3 })], T0 + 10 * 60_000 - 1);
    expect(state.severity).toBe('warning');
    run(incidents, [check('C', { nodeFailures: 4 })], T0 + 10 * 60_000); // critical_after 10m
    expect(state.severity).toBe('critical');
    const critical = new Map<string, AlertState>();
    run(critical, [check('C', { nodeFailures: 2 })], T0, { settings: () => ({ ...settings, severity: 'critical' }) });
    expect([...critical.values()].map((s) => `${s.phase} ${s.severity}`)).toEqual(['firing critical']);
  });

  it("a reload that changes a target's static labels is told as an update, a label added or removed included, with the labels it was told under", () => {
    const incidents = new Map<string, AlertState>();
    run(incidents, [check('C', { nodeFailures: 3 })], T0);
    const state = [...incidents.values()][0]!;
    markTold(state, T0);
    run(incidents, [check('C', { nodeFailures: 4 })], T0 + 1000, { targetLabels: { env: 'mainnet', team: 'infra' } });
    expect(dueNotice(state, 0, T0 + 1000)).toBe('updated');
    expect(noticeOf(state, 'updated', T0 + 1000, 'http://x').previousLabels).toEqual({ alertname: 'AvalancheCheckFailing', target: 'v1', check: 'C', env: 'mainnet', severity: 'warning' });
    markTold(state, T0 + 1000);
    expect(dueNotice(state, 0, T0 + 2000)).toBeUndefined();
    run(incidents, [check('C', { nodeFailures: 5 })], T0 + 2000, { targetLabels: { team: 'infra' } });
    expect(dueNotice(state, 0, T0 + 2000)).toBe('updated');
    expect(state.fingerprint).toBe(fingerprint('AvalancheCheckFailing|v1|C||'));
  });

  it("a notice the network's alert held, untold, that turns the validator's own holds for its own for_polls first; a told one stays one incident", () => {
    const reward = (scope: string): Condition => ({ alertname: 'AvalancheCheckFailing', target: 'v1', identity: { check: 'C', scope }, severity: 'warning', summary: `C failing (${scope})`, description: 'x' });
    const incidents = new Map<string, AlertState>();
    const key = keyOf('AvalancheCheckFailing', 'v1', { check: 'C', scope: 'network' });
    run(incidents, [reward('network')], T0);
    run(incidents, [reward('network')], T0 + 1000);
    expect(incidents.get(key)!.phase).toBe('firing'); // held back under the network's alert, never told
    // the dip ends: the first verdict that calls it the validator's own does not page yet
    expect(run(incidents, [reward('self')], T0 + 2000).transitions).toEqual([]);
    expect(incidents.get(key)).toMatchObject({ phase: 'pending', labels: { scope: 'self' }, activeSince: T0 + 2000 });
    expect(dueNotice(incidents.get(key)!, 0, T0 + 2000)).toBeUndefined();
    expect(run(incidents, [reward('self')], T0 + 3000).transitions).toEqual([key]);
    expect(incidents.get(key)!.firingSince).toBe(T0 + 3000);
    // told as its own, then the network's and back: one incident, updated, never pending again
    markTold(incidents.get(key)!, T0 + 3000);
    run(incidents, [reward('network')], T0 + 4000);
    run(incidents, [reward('self')], T0 + 5000);
    expect(incidents.get(key)).toMatchObject({ phase: 'firing', firingSince: T0 + 3000, labels: { scope: 'self' } });
  });

  it('a pending condition that clears goes back to inactive: nothing is left listed, and it starts over', () => {
    const incidents = new Map<string, AlertState>();
    expect(run(incidents, [check('C')], T0)).toEqual({ changed: true, transitions: [] });
    expect(run(incidents, [], T0 + 1000)).toEqual({ changed: true, transitions: [] });
    expect(incidents.size).toBe(0);
    run(incidents, [check('C')], T0 + 2000);
    expect([...incidents.values()].map((s) => `${s.phase} since ${s.activeSince - T0}`)).toEqual(['pending since 2000']);
  });

  it("an incident's identity does not depend on the order a rule lists its labels in", () => {
    const a = keyOf('AvalancheL1ValidatorInactive', 'v1', { validation_id: '2H7p', subnet_id: 'csu1' });
    const b = keyOf('AvalancheL1ValidatorInactive', 'v1', { subnet_id: 'csu1', validation_id: '2H7p' });
    expect(a).toBe(b);
    expect(a).toBe('AvalancheL1ValidatorInactive|v1||||subnet_id=csu1|validation_id=2H7p');
  });
});
