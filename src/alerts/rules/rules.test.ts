import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { CheckResult, TargetObservation } from '../../model/observation.js';
import AvalancheDiskLow, { secondsUntil } from './AvalancheDiskLow.js';
import { readFileSync } from 'node:fs';
import { ALERT_NAMES, INHIBITIONS, RULES, ruleNamed, ruleSettings, rulesOf, ruleTuningSchema } from './index.js';
import { NO_INBOUND_ERROR } from './node-facts.js';
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

/** A check failing `contiguousFailures` 3 times, with what else it carries. */
const failingCheck = (name: string, extra: Partial<CheckResult> = {}): CheckResult => ({ name, passing: false, notYetRun: false, durationSeconds: 0, contiguousFailures: 3, ...extra });
/** A node's health poll of these checks (unhealthy while one fails), observed by the fleet unless said otherwise. */
const healthOf = (checks: CheckResult[], fleetObserves = true): TargetObservation => ({
  target: 'v1',
  kind: 'node',
  at: 0,
  ...(fleetObserves ? { fleetObserves } : {}),
  endpoints: [{ endpoint: 'health', view: 'all', ok: true, durationSeconds: 0, at: 0, report: { healthy: checks.every((c) => c.passing), checks } }],
});

describe('AvalancheCheckFailing speaks for a failing check only where no other rule on the target does', () => {
  const rule = ruleNamed('AvalancheCheckFailing')!;
  const checksPaged = (observation: TargetObservation, off: string[] = []) => {
    const ctx: RuleContext = { target: 'v1', settings: ruleSettings(rule, [], 0), enabled: (name) => !off.includes(name), now: 0, label: (v) => v };
    const result = rule.evaluate(observation, ctx, rule.newState!());
    return Array.isArray(result) ? result.map((f) => `${f.identity.check}: ${f.description}`) : result;
  };

  it("the disk check with its free ratio known is AvalancheDiskLow's, unless that rule is off for the target", () => {
    const disk = healthOf([failingCheck('diskspace', { error: 'disk low', disk: { availableBytes: 1e9, availableRatio: 0.03 } }), failingCheck('C')]);
    expect(checksPaged(disk)).toEqual(['C: failing']);
    expect(checksPaged(disk, ['AvalancheDiskLow'])).toEqual(['diskspace: disk low', 'C: failing']);
    // without a free ratio (an older node: bytes only) it is this rule's whatever DiskLow does
    expect(checksPaged(healthOf([failingCheck('diskspace', { error: 'disk low' })]))).toEqual(['diskspace: disk low']);
  });

  it("the network check failing for no inbound connection alone is AvalancheValidatorUnreachableByPeers', unless that rule is off or nothing observes the validator", () => {
    const inbound = failingCheck('network', { error: NO_INBOUND_ERROR, network: { primaryNetworkValidator: true, ingressConnections: 0 } });
    expect(checksPaged(healthOf([inbound]))).toEqual([]);
    expect(checksPaged(healthOf([inbound]), ['AvalancheValidatorUnreachableByPeers'])).toEqual([`network: ${NO_INBOUND_ERROR}`]);
    expect(checksPaged(healthOf([inbound], false))).toEqual([`network: ${NO_INBOUND_ERROR}`]);
  });
});

describe('AvalancheNodeUnhealthy: one alert for the checks no other rule speaks for', () => {
  const rule = ruleNamed('AvalancheNodeUnhealthy')!;
  const found = (observation: TargetObservation, off: string[] = []) => {
    const ctx: RuleContext = { target: 'v1', settings: ruleSettings(rule, [], 0), enabled: (name) => !off.includes(name), now: 0, label: (v) => v };
    return rule.evaluate(observation, ctx, rule.newState!());
  };
  const inbound = failingCheck('network', { error: NO_INBOUND_ERROR, network: { primaryNetworkValidator: true, ingressConnections: 0 } });
  const upgrade = failingCheck('futureupgrade', { error: 'upgrade at 2026-12-10', upgrade: { deadline: Date.UTC(2026, 11, 10) / 1000 } as CheckResult['upgrade'] });

  it('names every failing check, with its error, as a warning', () => {
    expect(found(healthOf([failingCheck('C', { error: 'C is behind' }), failingCheck('P')]))).toEqual([
      { identity: {}, severity: 'warning', summary: 'v1 is unhealthy: C and P failing', description: 'C: C is behind\nP: failing' },
    ]);
    expect(found(healthOf([]))).toEqual([]);
    expect(found(healthOf([]), ['AvalancheNodeUpgradeRequired'])).toEqual([]);
  });

  it("a closed staking port alone is AvalancheValidatorUnreachableByPeers', with another failing check or that rule off it is this one", () => {
    expect(found(healthOf([inbound]))).toEqual([]);
    expect(found(healthOf([inbound]), ['AvalancheValidatorUnreachableByPeers'])).toMatchObject([{ summary: 'v1 is unhealthy: network failing' }]);
    expect(found(healthOf([inbound, failingCheck('C')]))).toMatchObject([{ summary: 'v1 is unhealthy: network and C failing' }]);
  });

  it("an upgrade the build does not know is AvalancheNodeUpgradeRequired's while every failing check is its symptom", () => {
    expect(found(healthOf([upgrade]))).toEqual([]);
    expect(found(healthOf([upgrade]), ['AvalancheNodeUpgradeRequired'])).toMatchObject([{ summary: 'v1 is unhealthy: futureupgrade failing' }]);
    expect(found(healthOf([upgrade, failingCheck('C')]))).toMatchObject([{ summary: 'v1 is unhealthy: futureupgrade and C failing' }]);
  });
});

describe('AvalancheNodeNotReady: still bootstrapping, with how many subnets', () => {
  const rule = ruleNamed('AvalancheNodeNotReady')!;
  const ctx: RuleContext = { target: 'v1', settings: ruleSettings(rule, [], 0), enabled: () => true, now: 0, label: (v) => v };
  const bootstrapping = (subnets?: string[]) => healthOf([failingCheck('bootstrapped', subnets ? { bootstrappingSubnets: subnets } : {})], false);

  it('says it and how many subnets are still bootstrapping; nothing once ready; unknown while the health poll fails', () => {
    const finding = (subnets?: string[]) => rule.evaluate(bootstrapping(subnets), ctx, undefined);
    expect(finding()).toEqual([{ identity: {}, severity: 'warning', summary: 'v1 is not ready (still bootstrapping)', description: 'readiness reports not bootstrapped' }]);
    expect(finding(['11111111111111111111111111111111LpoYY'])).toMatchObject([{ description: 'readiness reports not bootstrapped (1 subnet bootstrapping)' }]);
    expect(finding(['a', 'b'])).toMatchObject([{ description: 'readiness reports not bootstrapped (2 subnets bootstrapping)' }]);
    expect(finding([])).toMatchObject([{ description: 'readiness reports not bootstrapped' }]);
    const ready = healthOf([], false);
    expect(rule.evaluate(ready, ctx, undefined)).toEqual([]);
    const down: TargetObservation = { ...bootstrapping(), endpoints: [{ endpoint: 'health', view: 'all', ok: false, reason: 'connect', error: 'ECONNREFUSED', durationSeconds: 0, at: 0 }] };
    expect(rule.evaluate(down, ctx, undefined)).toBe('unknown');
  });
});
