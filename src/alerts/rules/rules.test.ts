import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { CheckResult, TargetObservation } from '../../model/observation.js';
import AvalancheCheckFailing from './AvalancheCheckFailing.js';
import AvalancheDiskLow, { secondsUntil } from './AvalancheDiskLow.js';
import AvalancheNodeUnhealthy from './AvalancheNodeUnhealthy.js';
import { readFileSync } from 'node:fs';
import { ALERT_NAMES, INHIBITIONS, RULES, ruleNamed, ruleSettings, rulesOf, ruleTuningSchema, type AnyRule } from './index.js';
import type { RuleContext } from './rule.js';

describe('the rule registry', () => {
  it('names each rule once, and every rule has a Prometheus twin named after it', () => {
    expect(new Set(ALERT_NAMES).size).toBe(RULES.length);
    for (const rule of RULES) {
      expect(rule.prometheus.map((p) => p.alert), rule.name).toContain(rule.name);
      for (const twin of rule.prometheus) expect(twin.alert.startsWith(rule.name), twin.alert).toBe(true);
      expect(ruleNamed(rule.name)).toBe(rule);
      for (const teller of rule.toldBy ?? []) expect(ruleNamed(teller), `${rule.name} toldBy ${teller}`).toBeDefined();
    }
    expect(rulesOf('service').map((r) => r.name)).toEqual(['AvalancheServiceUnhealthy', 'AvalancheServiceComponentDown']);
  });

  it('root causes name real symptoms, and docs/alerting.md\'s root-cause table shows each relationship', () => {
    const table = readFileSync(new URL('../../../docs/alerting.md', import.meta.url), 'utf8').split('\n').filter((line) => line.startsWith('| `Avalanche'));
    expect(INHIBITIONS.length).toBeGreaterThan(0);
    for (const i of INHIBITIONS) {
      expect(ruleNamed(i.alertname), `${i.source} inhibits ${i.alertname}`).toBeDefined();
      const symptom = `\`${i.alertname}${Object.entries(i.labels ?? {}).map(([k, v]) => `{${k}="${v}"}`).join('')}\``;
      expect(table.some((line) => line.startsWith(`| \`${i.source}`) && line.includes(symptom)), `${i.source} → ${symptom}`).toBe(true);
    }
  });

  it("builds the tuning schema from each rule's own keys: a threshold only where a rule has one", () => {
    const schema = ruleTuningSchema({ disabled: z.boolean().optional() });
    expect(schema.safeParse({ AvalancheDiskLow: { threshold: 0.2, disabled: true } }).success).toBe(true);
    const wrong = schema.safeParse({ AvalancheNodeUnreachable: { threshold: 3 } });
    expect(wrong.success).toBe(false);
    expect(JSON.stringify(wrong.error?.issues)).toContain('threshold');
    expect(schema.safeParse({ AvalancheNoSuchRule: {} }).success).toBe(false);
    const json = JSON.stringify(z.toJSONSchema(schema as z.ZodType, { io: 'input' }));
    expect(json).toContain('"default":0.15'); // DiskLow's default is visible to editors
  });

  it('merges defaults, global tuning and per-target tuning, in that order', () => {
    const rule = ruleNamed('AvalancheNodeHeightLag')!;
    expect(ruleSettings(rule, [], 0)).toEqual({ disabled: false, severity: 'warning', threshold: 50, criticalThreshold: 500, forMs: 0 });
    expect(ruleSettings(rule, [{ threshold: 10, severity: 'critical' }, { threshold: 20 }], 0)).toMatchObject({ threshold: 20, severity: 'critical', criticalThreshold: 500 });
    expect(ruleSettings(ruleNamed('AvalancheNodeNotReady')!, [], 1_800_000).forMs).toBe(1_800_000);
  });
});

describe('AvalancheDiskLow keeps its own trend', () => {
  const observation = (ratio: number): TargetObservation => ({
    target: 'v1',
    kind: 'node',
    at: 0,
    endpoints: [
      {
        endpoint: 'health',
        view: 'all',
        ok: true,
        durationSeconds: 0,
        at: 0,
        report: { healthy: true, checks: [{ name: 'diskspace', passing: true, notYetRun: false, durationSeconds: 0, contiguousFailures: 0, disk: { availableBytes: ratio * 1e12, availableRatio: ratio } }] },
      },
    ],
  });
  const ctx = (now: number): RuleContext => ({
    target: 'v1',
    settings: ruleSettings(AvalancheDiskLow, [], 0),
    enabled: () => true,
    now,
    label: (v) => v,
  });

  it('fires on the runway at 30% free when the disk falls a point every two minutes', () => {
    const state = AvalancheDiskLow.newState!();
    let result: unknown = [];
    for (let i = 0; i <= 10; i++) result = AvalancheDiskLow.evaluate(observation(0.3 - i * 0.01), ctx(i * 120_000), state);
    expect(state).toHaveLength(11);
    expect(secondsUntil(state, 0.1)).toBeCloseTo(20 * 60, 0);
    expect(result).toMatchObject([{ severity: 'critical', summary: 'v1: disk 20% free' }]);
  });

  it('a steady disk above the threshold does not fire, and old readings leave the window', () => {
    const state = AvalancheDiskLow.newState!();
    for (let i = 0; i < 40; i++) expect(AvalancheDiskLow.evaluate(observation(0.5), ctx(i * 5 * 60_000), state)).toEqual([]);
    expect(state.length).toBeLessThanOrEqual(13); // one hour of 5-minute readings
  });

  it('a node polled every second keeps readings spread over the whole hour, so its trend still shows', () => {
    const state = AvalancheDiskLow.newState!();
    // falls a point every two minutes, polled every second for 20 minutes
    let result: unknown = [];
    for (let s = 0; s <= 20 * 60; s++) result = AvalancheDiskLow.evaluate(observation(0.3 - (s / 120) * 0.01), ctx(s * 1000), state);
    expect(state.length).toBe(81); // one reading per 15 s
    expect(secondsUntil(state, 0.1)).toBeCloseTo(20 * 60, 0);
    expect(result).toMatchObject([{ severity: 'critical', summary: 'v1: disk 20% free' }]);
    for (let s = 20 * 60 + 1; s <= 2 * 3600; s++) AvalancheDiskLow.evaluate(observation(0.5), ctx(s * 1000), state);
    expect(state.length).toBe(240);
  });
});

describe("a resolve's words for the node rules", () => {
  const ctx: RuleContext = { target: 'v1', settings: ruleSettings(ruleNamed('AvalancheNodeHeightLag')!, [], 0), enabled: () => true, now: 0, label: (v) => v };
  it('a chain that caught up says how far behind it is now; a disk says how much is free', () => {
    const lag = ruleNamed('AvalancheNodeHeightLag')!;
    const node: TargetObservation = { target: 'v1', kind: 'node', at: 0, endpoints: [] };
    expect(lag.recovered!({ lags: [{ chain: 'C', lagBlocks: 3 }, { chain: 'P', lagBlocks: 0 }], node }, ctx, { chain: 'C' })).toBe('C caught up: 3 blocks behind the network');
    expect(lag.recovered!({ lags: [{ chain: 'P', lagBlocks: 0 }], node }, ctx, { chain: 'P' })).toBe('P caught up: at the network height');
    const disk: TargetObservation = {
      ...node,
      endpoints: [{ endpoint: 'health', view: 'all', ok: true, durationSeconds: 0, at: 0, report: { healthy: true, checks: [{ name: 'diskspace', passing: true, notYetRun: false, durationSeconds: 0, contiguousFailures: 0, disk: { availableBytes: 412 * 2 ** 30, availableRatio: 0.41 } }] } }],
    };
    expect(AvalancheDiskLow.recovered!(disk, ctx, {})).toBe('disk space recovered: 41% free (412.0 GiB)');
  });
});


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
  const poll = (at: number, options: { failing?: string[]; lastRun?: number; baseline?: Array<[number, number]>; cutOff?: boolean }): TargetObservation => {
    const checks = ['C', 'P', 'X', L1].map((name) => chain(name, options.failing?.includes(name) ?? false, options.lastRun ?? at));
    checks.push({ name: 'network', passing: !options.cutOff, notYetRun: false, durationSeconds: 0, contiguousFailures: options.cutOff ? 9 : 0, ...(options.cutOff ? { error: 'network layer is unhealthy reason: not connected to a minimum of 1 peer(s) only 0' } : {}) });
    return {
      target: 'v4',
      kind: 'node',
      at,
      endpoints: [{ endpoint: 'health', view: 'all', ok: true, durationSeconds: 0, at, report: { healthy: false, checks } }],
      ...(options.baseline
        ? { networkBaseline: { network: 'mainnet', refreshSeconds: 60, views: options.baseline.map(([ratio, seenAt], i) => ({ observer: `v${i + 1}`, medianUptimeRatio: 0.99, connectedStakeRatio: ratio, at: seenAt })) } }
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

  it('holds them pending while the baseline predates the failure, for one refresh at most', () => {
    const state = AvalancheCheckFailing.newState!();
    expect(checks(AvalancheCheckFailing.evaluate(poll(130, { failing: ['C', 'P', 'X'], baseline: [[0.99, 90], [0.99, 95]] }), ctx(AvalancheCheckFailing as AnyRule, 130), state))).toEqual(['C (settling)', 'P (settling)', 'X (settling)']);
    // one refresh (60 s) after the onset, an old baseline no longer holds them
    expect(checks(AvalancheCheckFailing.evaluate(poll(161, { failing: ['C', 'P', 'X'], baseline: [[0.99, 90], [0.99, 95]] }), ctx(AvalancheCheckFailing as AnyRule, 161), state))).toEqual(['C', 'P', 'X']);
  });

  it('does not page them while most of the baseline sees the stake cut off too (a dip), nor for a check last run before the network was seen normal again', () => {
    const state = AvalancheCheckFailing.newState!();
    expect(checks(AvalancheCheckFailing.evaluate(poll(200, { failing: ['C', 'P', 'X'], baseline: [[0.62, 150], [0.99, 160], [0.6, 170]] }), ctx(AvalancheCheckFailing as AnyRule, 200), state))).toEqual([]);
    // the dip ends: the baseline (read at 260) says normal, the chains' last run (250) was inside the dip
    expect(checks(AvalancheCheckFailing.evaluate(poll(265, { failing: ['C', 'P', 'X'], lastRun: 250, baseline: [[0.99, 255], [0.99, 260], [0.99, 258]] }), ctx(AvalancheCheckFailing as AnyRule, 265), state))).toEqual([]);
    // still failing when they ran again after it: the node's own
    expect(checks(AvalancheCheckFailing.evaluate(poll(300, { failing: ['C'], lastRun: 280, baseline: [[0.99, 255], [0.99, 290], [0.99, 258]] }), ctx(AvalancheCheckFailing as AnyRule, 300), state))).toEqual(['C']);
  });

  it("pages in a dip when its own network check says it is cut off, and never holds an L1's chain (its stake is the L1's)", () => {
    const dip: Array<[number, number]> = [[0.6, 150], [0.6, 160]];
    expect(checks(AvalancheCheckFailing.evaluate(poll(200, { failing: ['C', 'P', 'X'], baseline: dip, cutOff: true }), ctx(AvalancheCheckFailing as AnyRule, 200), AvalancheCheckFailing.newState!()))).toEqual(['C', 'P', 'X', 'network']);
    expect(checks(AvalancheCheckFailing.evaluate(poll(200, { failing: ['C', L1], baseline: dip }), ctx(AvalancheCheckFailing as AnyRule, 200), AvalancheCheckFailing.newState!()))).toEqual([L1]);
  });

  it('AvalancheNodeUnhealthy reads it the same way', () => {
    const unhealthy = (observation: TargetObservation) => AvalancheNodeUnhealthy.evaluate(observation, ctx(AvalancheNodeUnhealthy as AnyRule, observation.at), AvalancheNodeUnhealthy.newState!());
    expect(unhealthy(poll(200, { failing: ['C', 'P', 'X'], baseline: [[0.6, 150], [0.6, 160]] }))).toEqual([]);
    expect(unhealthy(poll(130, { failing: ['C'], baseline: [[0.99, 90], [0.99, 95]] }))).toMatchObject([{ settling: true, summary: 'v4 is unhealthy: C failing' }]);
    expect(unhealthy(poll(200, { failing: ['C', L1], baseline: [[0.6, 150], [0.6, 160]] }))).toMatchObject([{ summary: `v4 is unhealthy: ${L1} failing` }]);
  });
});
