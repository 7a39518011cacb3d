/**
 * A Primary Network chain's lost connected stake, read against the fleet's network baseline
 * (src/alerts/rules/node-facts.ts networkLostStake), through the rules and the incidents stage.
 */
import { describe, expect, it } from 'vitest';
import type { CheckResult, TargetObservation } from '../../src/model/observation.js';
import AvalancheCheckFailing from '../../src/alerts/rules/AvalancheCheckFailing.js';
import AvalancheNodeUnhealthy from '../../src/alerts/rules/AvalancheNodeUnhealthy.js';
import { ruleSettings, type AnyRule } from '../../src/alerts/rules/index.js';
import { UNKNOWN, type RuleContext } from '../../src/alerts/rules/rule.js';
import { step } from '../../src/alerts/incidents.js';
import type { AlertState, Condition } from '../../src/alerts/types.js';
import type { DipMemory } from '../../src/alerts/rules/node-facts.js';

describe("a Primary Network chain's lost stake: the node's own, or the network's dip", () => {
  const LOST = 'not connected to enough stake: connected to 62.000000%; required at least 80.000000%';
  // snow/networking/handler/health.go: a chain below 80 % connected fails with these words; the check
  // runs on the node's health interval (lastRun), timeOfFirstFailure is when it began (failingSince).
  const chain = (name: string, failing: boolean, lastRun: number, failingSince = 100): CheckResult => ({
    name,
    passing: !failing,
    notYetRun: false,
    durationSeconds: 0,
    contiguousFailures: failing ? 9 : 0,
    lastRun,
    ...(failing ? { error: LOST, failingSince } : {}),
  });
  const L1 = '2q9e4r6Mu3U68nU1fYjgbR6JvwrRx36CohpAX5UQxse55x1Q5';
  /** v4's poll at `at`: its chains as given, its network check passing unless `cutOff`, the baseline as read by v1 and v2 (excluding v4's own). */
  const poll = (at: number, options: { failing?: string[]; lastRun?: number; failingSince?: number; baseline?: Array<[number, number]>; awaited?: boolean; cutOff?: boolean; networkFailures?: number }): TargetObservation => {
    const checks = ['C', 'P', 'X', L1].map((name) => chain(name, options.failing?.includes(name) ?? false, options.lastRun ?? at, options.failingSince));
    checks.push({ name: 'network', passing: !options.cutOff, notYetRun: false, durationSeconds: 0, contiguousFailures: options.cutOff ? (options.networkFailures ?? 9) : 0, ...(options.cutOff ? { error: 'network layer is unhealthy reason: not connected to a minimum of 1 peer(s) only 0' } : {}) });
    return {
      target: 'v4',
      kind: 'node',
      at,
      endpoints: [{ endpoint: 'health', view: 'all', ok: true, durationSeconds: 0, at, report: { healthy: false, checks } }],
      ...(options.awaited ? { networkBaseline: { network: 'mainnet', views: [], awaited: true as const } } : {}),
      ...(options.baseline
        ? { networkBaseline: { network: 'mainnet', views: options.baseline.map(([ratio, seenAt], i) => ({ observer: `v${i + 1}`, medianUptimeRatio: 0.99, connectedStakeRatio: ratio, at: seenAt })) } }
        : {}),
    };
  };
  const ctx = (rule: AnyRule, now: number): RuleContext => ({ target: 'v4', settings: ruleSettings(rule, [], 0), enabled: () => true, now: now * 1000, label: (v) => v });
  const checks = (result: ReturnType<typeof AvalancheCheckFailing.evaluate>) => (Array.isArray(result) ? result.map((f) => `${f.identity.check}${f.settling ? ' (settling)' : ''}`) : result);

  it('pages its chains when most of the baseline sees the network normal, read after they began failing', () => {
    const state = AvalancheCheckFailing.newState!();
    expect(checks(AvalancheCheckFailing.evaluate(poll(200, { failing: ['C', 'P', 'X'], baseline: [[0.99, 150], [0.98, 160]] }), ctx(AvalancheCheckFailing as AnyRule, 200), state))).toEqual(['C', 'P', 'X']);
    // with no baseline beside it, as before: the node's word alone
    expect(checks(AvalancheCheckFailing.evaluate(poll(200, { failing: ['C'] }), ctx(AvalancheCheckFailing as AnyRule, 200), AvalancheCheckFailing.newState!()))).toEqual(['C']);
  });

  it('holds them pending while a baseline reading predates the failure, until its observer reads again, however late (seed 37)', () => {
    const state = AvalancheCheckFailing.newState!();
    const at = (t: number, baseline: Array<[number, number]>) => checks(AvalancheCheckFailing.evaluate(poll(t, { failing: ['C', 'P', 'X'], baseline }), ctx(AvalancheCheckFailing as AnyRule, t), state));
    expect(at(130, [[0.99, 90], [0.99, 95]])).toEqual(['C (settling)', 'P (settling)', 'X (settling)']);
    // a busy machine: the observers' next readings are late; one has come, the other is on its way
    expect(at(190, [[0.62, 150], [0.99, 95]])).toEqual(['C (settling)', 'P (settling)', 'X (settling)']);
    // both read after the failure began: the network lost it (a dip), nothing to page
    expect(at(191, [[0.62, 150], [0.6, 160]])).toEqual([]);
    // the same late readings seeing the network normal: its own
    const own = AvalancheCheckFailing.newState!();
    AvalancheCheckFailing.evaluate(poll(130, { failing: ['C'], baseline: [[0.99, 90], [0.99, 95]] }), ctx(AvalancheCheckFailing as AnyRule, 130), own);
    expect(checks(AvalancheCheckFailing.evaluate(poll(191, { failing: ['C'], baseline: [[0.99, 150], [0.98, 160]] }), ctx(AvalancheCheckFailing as AnyRule, 191), own))).toEqual(['C']);
  });

  it("counts the onset on the daemon's clock: a node whose clock runs an hour ahead is held until the observers read again, not for an hour", () => {
    // api/health/worker.go: timeOfFirstFailure is the node's own time.Now() at the failing run.
    const state = AvalancheCheckFailing.newState!();
    const ahead = (t: number, baseline: Array<[number, number]>) => checks(AvalancheCheckFailing.evaluate(poll(t, { failing: ['C'], failingSince: 130 + 3600, baseline }), ctx(AvalancheCheckFailing as AnyRule, t), state));
    expect(ahead(130, [[0.99, 90], [0.99, 95]])).toEqual(['C (settling)']);
    expect(ahead(140, [[0.99, 135], [0.99, 138]])).toEqual(['C']);
  });

  it('does not page them while most of the baseline sees the stake cut off too (a dip), nor for a check last run before the network was seen normal again', () => {
    const state = AvalancheCheckFailing.newState!();
    expect(checks(AvalancheCheckFailing.evaluate(poll(200, { failing: ['C', 'P', 'X'], baseline: [[0.62, 150], [0.99, 160], [0.6, 170]] }), ctx(AvalancheCheckFailing as AnyRule, 200), state))).toEqual([]);
    // the dip ends: the baseline (read at 260) says normal, the chains' last run (250) was inside the dip
    expect(checks(AvalancheCheckFailing.evaluate(poll(265, { failing: ['C', 'P', 'X'], lastRun: 250, baseline: [[0.99, 255], [0.99, 260], [0.99, 258]] }), ctx(AvalancheCheckFailing as AnyRule, 265), state))).toEqual([]);
    // still failing when they ran again after it: the node's own
    expect(checks(AvalancheCheckFailing.evaluate(poll(300, { failing: ['C'], lastRun: 280, baseline: [[0.99, 255], [0.99, 290], [0.99, 258]] }), ctx(AvalancheCheckFailing as AnyRule, 300), state))).toEqual(['C']);
  });

  it('reads exactly 80 % connected as normal, as AvalancheGo does (health.go: percentConnected < minPercentConnected fails)', () => {
    expect(checks(AvalancheCheckFailing.evaluate(poll(200, { failing: ['C'], baseline: [[0.8, 150], [0.8, 160]] }), ctx(AvalancheCheckFailing as AnyRule, 200), AvalancheCheckFailing.newState!()))).toEqual(['C']);
  });

  it('a check that ran no later than the newest reading which first saw the network normal again reports the dip', () => {
    const at = (state: DipMemory, t: number, lastRun: number) => checks(AvalancheCheckFailing.evaluate(poll(t, { failing: ['C'], lastRun, baseline: lastRun < 200 ? [[0.6, 150], [0.6, 160]] : [[0.99, 255], [0.99, 260]] }), ctx(AvalancheCheckFailing as AnyRule, t), state));
    for (const lastRun of [257, 260]) {
      const state = AvalancheCheckFailing.newState!();
      expect(at(state, 170, 165)).toEqual([]);
      expect(at(state, 265, lastRun)).toEqual([]);
    }
    const state = AvalancheCheckFailing.newState!();
    at(state, 170, 165);
    expect(at(state, 265, 261)).toEqual(['C']);
  });

  it("waits from a chain's failure, not from an earlier poll that saw it passing, and starts over once it passes again", () => {
    const state = AvalancheCheckFailing.newState!();
    const at = (t: number, failing: string[], failingSince?: number) =>
      checks(AvalancheCheckFailing.evaluate(poll(t, { failing, ...(failingSince ? { failingSince } : {}), baseline: [[0.99, 150], [0.99, 160]] }), ctx(AvalancheCheckFailing as AnyRule, t), state));
    expect(at(100, [])).toEqual([]);
    expect(at(200, ['C'], 199)).toEqual(['C (settling)']);
    expect(at(210, [])).toEqual([]);
    expect(at(300, ['C'], 299)).toEqual(['C (settling)']);
    // the same while another chain keeps failing: C passing in between starts its own wait over
    const both = AvalancheCheckFailing.newState!();
    const step = (t: number, failing: string[], failingSince: number) =>
      checks(AvalancheCheckFailing.evaluate(poll(t, { failing, failingSince, baseline: [[0.99, 150], [0.99, 160]] }), ctx(AvalancheCheckFailing as AnyRule, t), both));
    expect(step(100, ['C', 'P'], 99)).toEqual(['C', 'P']);
    expect(step(110, ['P'], 99)).toEqual(['P']);
    expect(step(200, ['C', 'P'], 199)).toEqual(['C (settling)', 'P']);
  });

  it('an unanswered health poll is not known: nothing is judged, nothing breaks', () => {
    const down: TargetObservation = { target: 'v4', kind: 'node', at: 200, endpoints: [{ endpoint: 'health', view: 'all', ok: false, reason: 'timeout', error: 'no answer', durationSeconds: 10, at: 200 }] };
    expect(AvalancheCheckFailing.evaluate(down, ctx(AvalancheCheckFailing as AnyRule, 200), AvalancheCheckFailing.newState!())).toBe(UNKNOWN);
    expect(AvalancheNodeUnhealthy.evaluate(down, ctx(AvalancheNodeUnhealthy as AnyRule, 200), AvalancheNodeUnhealthy.newState!())).toBe(UNKNOWN);
  });

  it("pages in a dip when its own network check says it is cut off, and never holds an L1's chain (its stake is the L1's)", () => {
    const dip: Array<[number, number]> = [[0.6, 150], [0.6, 160]];
    expect(checks(AvalancheCheckFailing.evaluate(poll(200, { failing: ['C', 'P', 'X'], baseline: dip, cutOff: true }), ctx(AvalancheCheckFailing as AnyRule, 200), AvalancheCheckFailing.newState!()))).toEqual(['C', 'P', 'X', 'network']);
    expect(checks(AvalancheCheckFailing.evaluate(poll(200, { failing: ['C', L1], baseline: dip }), ctx(AvalancheCheckFailing as AnyRule, 200), AvalancheCheckFailing.newState!()))).toEqual([L1]);
  });

  it("holds them pending while a start's first baseline is on its way, then reads it", () => {
    // A daemon started inside a dip: every node's chains already fail (failingSince long before), no
    // observer has reported since the start (probes/observed.ts baselineAwaited, one interval at most).
    const state = AvalancheCheckFailing.newState!();
    expect(checks(AvalancheCheckFailing.evaluate(poll(200, { failing: ['C', 'P', 'X', L1], awaited: true }), ctx(AvalancheCheckFailing as AnyRule, 200), state))).toEqual(['C (settling)', 'P (settling)', 'X (settling)', L1]);
    expect(checks(AvalancheCheckFailing.evaluate(poll(202, { failing: ['C', 'P', 'X'], baseline: [[0.6, 201], [0.62, 201]] }), ctx(AvalancheCheckFailing as AnyRule, 202), state))).toEqual([]);
    // cut off meanwhile: its own
    expect(checks(AvalancheCheckFailing.evaluate(poll(200, { failing: ['C'], awaited: true, cutOff: true }), ctx(AvalancheCheckFailing as AnyRule, 200), AvalancheCheckFailing.newState!()))).toEqual(['C', 'network']);
  });

  it("a chain held pending in a dip pages with the node's own network check once that fails, not ahead of it", () => {
    // AvalancheGo runs every check on the same health run: the chains failed (for the dip) before the
    // network check did, so their own count is ahead; what they now say is the network check's.
    const state = AvalancheCheckFailing.newState!();
    const incidents = new Map<string, AlertState>();
    const stepAt = (at: number, options: Parameters<typeof poll>[1]) => {
      const result = AvalancheCheckFailing.evaluate(poll(at, { failing: ['C', 'P', 'X'], failingSince: 128, baseline: [[0.99, 90], [0.99, 95]], ...options }), ctx(AvalancheCheckFailing as AnyRule, at), state);
      const conditions: Condition[] = (Array.isArray(result) ? result : []).map((f) => ({ ...f, alertname: 'AvalancheCheckFailing', target: 'v4' }));
      const settings = ruleSettings(AvalancheCheckFailing as AnyRule, [], 0);
      const { transitions } = step(incidents, { target: 'v4', covers: ['AvalancheCheckFailing'], unknown: [], conditions }, conditions, { now: at * 1000, settings: () => settings, forPolls: 2, resolvePolls: 1, targetLabels: {} });
      return transitions.map((key) => incidents.get(key)!.labels.check);
    };
    expect(stepAt(130, {})).toEqual([]); // settling: the baseline predates the failure
    expect(stepAt(132, {})).toEqual([]);
    expect(stepAt(134, { cutOff: true, networkFailures: 1 })).toEqual([]);
    expect(stepAt(136, { cutOff: true, networkFailures: 2 })).toEqual(['C', 'P', 'X', 'network']);
  });

  it('AvalancheNodeUnhealthy reads it the same way', () => {
    const unhealthy = (observation: TargetObservation) => AvalancheNodeUnhealthy.evaluate(observation, ctx(AvalancheNodeUnhealthy as AnyRule, observation.at), AvalancheNodeUnhealthy.newState!());
    expect(unhealthy(poll(200, { failing: ['C', 'P', 'X'], baseline: [[0.6, 150], [0.6, 160]] }))).toEqual([]);
    expect(unhealthy(poll(130, { failing: ['C'], baseline: [[0.99, 90], [0.99, 95]] }))).toMatchObject([{ settling: true, summary: 'v4 is unhealthy: C failing' }]);
    expect(unhealthy(poll(200, { failing: ['C', L1], baseline: [[0.6, 150], [0.6, 160]] }))).toMatchObject([{ summary: `v4 is unhealthy: ${L1} failing` }]);
  });
});
