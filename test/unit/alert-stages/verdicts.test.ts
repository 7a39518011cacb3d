/** The rules stage alone: a store update becomes verdicts; it keeps no incidents. */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PassThrough } from 'node:stream';
import { noteUnknown, RuleStage, sourceUpdate, type UnknownBook } from '../../../src/alerts/verdicts.js';
import { Store } from '../../../src/store.js';
import { emptySnapshot } from '../../../src/model/chaindata.js';
import type { Evaluation } from '../../../src/alerts/types.js';
import type { TargetObservation } from '../../../src/model/observation.js';
import { parseConfig } from '../../../src/config/load.js';
import { createLogger } from '../../../src/log.js';
import { economicsOf, type ValidatorReport } from '../../../src/model/validator.js';
import { failing, HEALTHY, nodeState, update } from '../../helpers/states.js';

const T0 = Date.UTC(2026, 10, 22, 12);

function stage(alerts = '') {
  const dir = mkdtempSync(join(tmpdir(), 'avahealth-verdicts-'));
  const config = parseConfig(`state_dir: ${dir}\nnodes:\n  - {name: v1, url: "http://127.0.0.1:1"}\n  - {name: v2, url: "http://127.0.0.1:1"}\n${alerts}`, join(dir, 'c.yaml'), {});
  const stream = new PassThrough();
  const lines: Array<Record<string, unknown>> = [];
  stream.on('data', (chunk: Buffer) => lines.push(...chunk.toString().trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>)));
  return { config, lines, rules: new RuleStage(config, createLogger({ level: 'info', format: 'json', destination: stream })) };
}

/** A validator poll as the rules read it; `endTime` is taken as given (the parser is bypassed on purpose). */
function validatorInput(endTime: number, now: number) {
  const report: ValidatorReport = {
    problems: [],
    version: 'avalanchego/1.15.2',
    uptime: { rewardingStakeRatio: 0.5, weightedAverageRatio: 0.5 },
    primary: { startTime: now - 10 * 86_400, endTime, potentialRewardNAvax: 117_431_493_426 },
    l1: [{ subnetId: 'csu12v5GV2hVy5gLTGap8zJNX2q6Ka4cKZ4Xfyq6sqh7GtpPB', validationId: '2H7pEcXNnmKpYZ6VxNY2nRZ6Kx1BT2qgcM8J9o8zWLgqDTN5E8', balanceNAvax: 0 }],
  };
  report.economics = economicsOf(report, now);
  return { observation: { endpoint: 'validator', view: 'all', ok: true, durationSeconds: 0, at: now, detail: report } };
}

describe('rules stage', () => {
  it("a node's report becomes one verdict per source it feeds: what each rule found, and the rules it speaks for", () => {
    const { config, rules } = stage();
    const [verdict, ...more] = rules.updated(update('node', config.nodes[0]!, nodeState('v1', failing({ network: 3 }))), T0);
    expect(more).toEqual([]); // no chain data configured: the lag source has nothing to say
    expect(verdict!.evaluation.covers).toContain('AvalancheCheckFailing');
    expect(verdict!.evaluation.conditions.map((c) => [c.alertname, c.identity, c.nodeFailures])).toEqual([
      ['AvalancheNodeUnhealthy', {}, undefined],
      ['AvalancheCheckFailing', { check: 'network' }, 3],
    ]);
    expect(verdict!.resolveAtOnce).toBeUndefined();
  });

  it('an unreachable node: its check rules cannot know, so they say unknown rather than all clear', () => {
    const { config, rules } = stage();
    const [verdict] = rules.updated(update('node', config.nodes[0]!, nodeState('v1', { reason: 'connect', error: 'refused' })), T0);
    expect(verdict!.evaluation.unknown).toEqual(expect.arrayContaining(['AvalancheCheckFailing', 'AvalancheNodeUnhealthy']));
    expect(verdict!.evaluation.conditions.map((c) => c.alertname)).toEqual(['AvalancheNodeUnreachable']);
  });

  it('a source that stopped reporting (validator job turned off) resolves its rules at once', () => {
    const { config, rules } = stage();
    const verdicts = rules.updated(update('validator', config.nodes[0]!, nodeState('v1', failing({}))), T0);
    expect(verdicts).toHaveLength(1);
    expect(verdicts[0]).toMatchObject({ resolveAtOnce: true, evaluation: { conditions: [] } });
    expect(verdicts[0]!.evaluation.covers).toContain('AvalancheValidatorRewardAtRisk');
  });

  it("settings: a target's own tuning stays its own, the others share the fleet's", () => {
    const { rules } = stage('alerts:\n  rules:\n    AvalancheCheckFailing: {for_polls: 3}\n  targets:\n    v2:\n      rules:\n        AvalancheCheckFailing: {disabled: true}\n');
    expect(rules.settings('AvalancheCheckFailing', 'v1')).toMatchObject({ disabled: false, forPolls: 3 });
    expect(rules.settings('AvalancheCheckFailing', 'v2')).toMatchObject({ disabled: true, forPolls: 3 });
  });

  it('a rule that throws is isolated: it cannot know, the others of its source still find, and it is logged once with its target until it stops', async () => {
    const { rules, lines } = stage();
    const now = T0 / 1000;
    // An end time no Date holds, handed straight to the rules: AvalancheValidatorRewardAtRisk formats it and throws.
    const bad = () => rules.observe('validator', 'v1', validatorInput(9_007_199_254_740_991, now), T0);
    const first = bad();
    expect(first.unknown).toContain('AvalancheValidatorRewardAtRisk');
    expect(first.conditions.map((c) => c.alertname)).toEqual(['AvalancheL1ValidatorInactive']);
    bad();
    // The other target is evaluated as ever.
    expect(rules.observe('validator', 'v2', validatorInput(now + 4 * 86_400, now), T0).conditions.map((c) => c.alertname)).toContain('AvalancheValidatorRewardAtRisk');
    await new Promise((resolve) => setImmediate(resolve));
    const failed = lines.filter((l) => l.msg === 'alert rule failed; its alerts for this target stay as they are');
    expect(failed).toHaveLength(1);
    expect(failed[0]).toMatchObject({ target: 'v1', rule: 'AvalancheValidatorRewardAtRisk', level: 50 });
    expect(String(failed[0]!.error)).toContain('RangeError');

    // It stops throwing: said once; a later throw is logged again.
    expect(rules.observe('validator', 'v1', validatorInput(now + 4 * 86_400, now), T0).unknown).not.toContain('AvalancheValidatorRewardAtRisk');
    bad();
    await new Promise((resolve) => setImmediate(resolve));
    expect(lines.filter((l) => l.msg === 'alert rule evaluates again')).toHaveLength(1);
    expect(lines.filter((l) => l.msg === 'alert rule failed; its alerts for this target stay as they are')).toHaveLength(2);
  });

  it('at most 100 alerts are tracked per target (docs/security.md): the first are kept, warned once until the target is back under', async () => {
    const { config, rules, lines } = stage();
    const many = (n: number) => {
      const base = HEALTHY();
      const template = base.checks[0]!;
      const checks = Array.from({ length: n }, (_, i) => ({ ...template, name: `check-${String(i).padStart(3, '0')}`, passing: false, error: 'failing', contiguousFailures: 1 }));
      return { healthy: false, checks };
    };
    const conditions = (n: number) => rules.updated(update('node', config.nodes[0]!, nodeState('v1', many(n))), T0)[0]!.evaluation.conditions;
    const warned = async () => {
      await new Promise((resolve) => setImmediate(resolve));
      return lines.filter((l) => l.msg === 'too many alert conditions for one target; only the first are tracked').map((l) => `${l.target} ${l.conditions} ${l.kept}`);
    };
    // Unhealthy and 99 checks: exactly the limit, nothing dropped
    expect(conditions(99)).toHaveLength(100);
    expect(await warned()).toEqual([]);
    const capped = conditions(150);
    expect(capped).toHaveLength(100);
    expect(capped.slice(0, 2).map((c) => c.alertname)).toEqual(['AvalancheNodeUnhealthy', 'AvalancheCheckFailing']);
    expect(capped.at(-1)!.identity).toEqual({ check: 'check-098' });
    conditions(150);
    expect(await warned()).toEqual(['v1 151 100']);
    conditions(10);
    conditions(150);
    expect(await warned()).toEqual(['v1 151 100', 'v1 151 100']);
  });

  it("says why the validator rules cannot know when their poll failed, but not for a rule turned off nor for the node's own poll", () => {
    const { config, rules } = stage('alerts:\n  rules:\n    AvalancheValidatorDowntimeBudgetLow: {disabled: true}\n');
    const node = config.nodes[0]!;
    const bare = { endpoint: 'validator', view: 'all', ok: false, reason: 'timeout' as const, durationSeconds: 10, at: 0 };
    const failed = { ...bare, error: 'no answer in 10s' };
    const state = nodeState('v1', failing({}));
    const validatorJob: TargetObservation = { target: 'v1', kind: 'node', at: 0, endpoints: [failed] };
    state.jobs.set('validator', validatorJob);
    const [verdict] = rules.updated(update('validator', node, state), T0);
    const why = verdict!.evaluation.unknownWhy ?? {};
    expect(verdict!.evaluation.unknown).toEqual(expect.arrayContaining(['AvalancheValidatorRewardAtRisk', 'AvalancheValidatorDowntimeBudgetLow']));
    expect(why.AvalancheValidatorRewardAtRisk).toEqual({ what: 'AvalancheValidatorRewardAtRisk', because: 'the validator poll failed (timeout: no answer in 10s)' });
    expect(why.AvalancheValidatorDowntimeBudgetLow).toBeUndefined();
    // without an error text, the reason alone
    validatorJob.endpoints = [bare];
    expect(rules.updated(update('validator', node, state), T0)[0]!.evaluation.unknownWhy?.AvalancheValidatorRewardAtRisk?.because).toBe('the validator poll failed (timeout)');
    // an unreachable node is its own state (AvalancheNodeUnreachable), not a reason given per rule
    const unreachable = rules.updated(update('node', node, nodeState('v1', { reason: 'connect', error: 'refused' })), T0)[0]!;
    expect(unreachable.evaluation.unknown).toContain('AvalancheCheckFailing');
    expect(unreachable.evaluation.unknownWhy).toBeUndefined();
  });

  it("a rule's own reason for not knowing (version drift without the stake per version) is given, unless the rule is turned off", () => {
    const now = T0 / 1000;
    const withVersion = ({ config, rules }: ReturnType<typeof stage>) => {
      const state = nodeState('v1', HEALTHY());
      const input = validatorInput(now + 30 * 86_400, now);
      state.jobs.set('validator', { target: 'v1', kind: 'node', at: now, endpoints: [input.observation] });
      const chainData = { ...emptySnapshot(), errors: ['network mainnet: rate limited'] };
      return rules.updated(update('validator', config.nodes[0]!, state, { chainData }), T0)[0]!.evaluation;
    };
    const on = withVersion(stage());
    expect(on.unknown).toContain('AvalancheNodeVersionBehind');
    expect(on.unknownWhy?.AvalancheNodeVersionBehind).toEqual({ what: 'version drift', because: 'the Data API could not be read (rate limited)' });
    expect(on.unknownOwnOnly).toBeUndefined();
    const off = withVersion(stage('alerts:\n  rules:\n    AvalancheNodeVersionBehind: {disabled: true}\n'));
    expect(off.unknownWhy?.AvalancheNodeVersionBehind).toBeUndefined();
  });

  it("a source whose input cannot be built: each of its rules is unknown (its alerts stay as they are), logged once, not a resolve", () => {
    const { config, rules, lines } = stage();
    const node = config.nodes[0]!;
    const throwing = () => update('node', node, nodeState('v1', HEALTHY()), { chainData: emptySnapshot(), lags: () => { throw new Error('no heights'); } });
    const first = rules.updated(throwing(), T0);
    const lag = first.find((v) => v.evaluation.covers.includes('AvalancheNodeHeightLag'))!;
    expect(lag).toEqual({ evaluation: { target: 'v1', covers: ['AvalancheNodeHeightLag'], unknown: ['AvalancheNodeHeightLag'], conditions: [] }, now: T0 });
    rules.updated(throwing(), T0);
    expect(lines.filter((l) => l.msg === "alert rule failed; its alerts for this target stay as they are").map((l) => [l.rule, l.error])).toEqual([['lag input', 'Error: no heights']]);
  });

  it('what cannot be known is kept per target until an evaluation of that rule knows again; other rules keep theirs', () => {
    const book: UnknownBook = new Map();
    const why = (what: string) => ({ what, because: 'the Data API could not be read (rate limited)' });
    type Name = Evaluation['covers'][number];
    const evaluation = (covers: Name[], unknown: Partial<Record<Name, ReturnType<typeof why>>>): Evaluation => ({
      target: 'v1',
      covers,
      unknown: Object.keys(unknown) as Name[],
      conditions: [],
      unknownWhy: Object.fromEntries(Object.entries(unknown).filter(([, w]) => w !== undefined)),
    });
    const kept = () => [...book].map(([target, byRule]) => `${target}: ${[...byRule.keys()].join(', ')}`);
    noteUnknown(book, evaluation(['AvalancheNodeVersionBehind', 'AvalancheValidatorRewardAtRisk'], { AvalancheNodeVersionBehind: why('version drift'), AvalancheValidatorRewardAtRisk: why('reward') }));
    expect(kept()).toEqual(['v1: AvalancheNodeVersionBehind, AvalancheValidatorRewardAtRisk']);
    expect(book.get('v1')!.get('AvalancheNodeVersionBehind')).toEqual(why('version drift'));
    // unknown without a reason given: nothing to say, and the earlier reason is not kept as if still true
    noteUnknown(book, evaluation(['AvalancheValidatorRewardAtRisk'], { AvalancheValidatorRewardAtRisk: undefined }));
    expect(kept()).toEqual(['v1: AvalancheNodeVersionBehind']);
    // an evaluation that does not cover a rule leaves its reason alone
    noteUnknown(book, evaluation(['AvalancheCheckFailing'], {}));
    expect(kept()).toEqual(['v1: AvalancheNodeVersionBehind']);
    noteUnknown(book, evaluation(['AvalancheNodeVersionBehind'], {}));
    expect(book.size).toBe(0);
  });

  it("a reload's tuning takes effect at once, the fleet's and a target's own, for a rule already evaluated", () => {
    const { rules, config } = stage('alerts:\n  rules:\n    AvalancheCheckFailing: {for_polls: 3}\n');
    expect(rules.settings('AvalancheCheckFailing', 'v1')).toMatchObject({ disabled: false, forPolls: 3 });
    rules.updated(update('node', config.nodes[0]!, nodeState('v1', failing({ C: 1 }))), T0);
    const reloaded = stage('alerts:\n  rules:\n    AvalancheCheckFailing: {for_polls: 5}\n  targets:\n    v2:\n      rules:\n        AvalancheCheckFailing: {disabled: true}\n').config;
    rules.setConfig(reloaded);
    expect(rules.settings('AvalancheCheckFailing', 'v1')).toMatchObject({ disabled: false, forPolls: 5 });
    expect(rules.settings('AvalancheCheckFailing', 'v2')).toMatchObject({ disabled: true, forPolls: 5 });
  });

  it("a target that leaves takes its rules' own state with it: DiskLow's last hour of readings starts over", () => {
    const { config, rules } = stage();
    const withDisk = (ratio: number) => ({ healthy: true, checks: HEALTHY().checks.map((c) => (c.name === 'diskspace' ? { ...c, disk: { availableBytes: ratio * 3e12, availableRatio: ratio } } : c)) });
    const disk = (ratio: number, now: number) => rules.updated(update('node', config.nodes[0]!, nodeState('v1', withDisk(ratio))), now)[0]!.evaluation.conditions.map((c) => c.alertname);
    // 30% free, falling a point every 2 minutes: 10% is 40 minutes away
    for (let i = 0; i < 10; i++) disk(0.3 - i * 0.01, T0 + i * 2 * 60_000);
    expect(disk(0.2, T0 + 20 * 60_000)).toEqual(['AvalancheDiskLow']);
    rules.forgetTarget('v1');
    // back, one reading at 20% free: nothing to draw a trend from
    expect(disk(0.2, T0 + 22 * 60_000)).toEqual([]);
  });

  it("what a source's rules are handed: the target's jobs and observation, whether a configured job has yet to report, chain data only while configured", () => {
    const dir = mkdtempSync(join(tmpdir(), 'avahealth-verdicts-'));
    const yaml = (chainData: string) =>
      `state_dir: ${dir}\n${chainData}nodes:\n  - {name: v1, url: "http://127.0.0.1:1", validator: {}}\n  - {name: rpc, url: "http://127.0.0.1:1", validator: false}\nservices:\n  - {name: data-api, kind: data-api, url: "http://127.0.0.1:2"}\n`;
    const config = parseConfig(yaml('chain_data: {interval: 2m}\n'), join(dir, 'c.yaml'), {});
    const [v1, rpc] = config.nodes;
    const store = new Store();
    const snapshot = { chains: new Map(), networks: new Map(), errors: [], validators: new Map() };
    store.recordChainData(snapshot);
    // before any report: the validator job of v1 is awaited, rpc has none, nothing is held
    const before = sourceUpdate('node', v1!, undefined, store, config);
    expect(before).toMatchObject({ source: 'node', target: 'v1', kind: 'node', network: v1!.network, chainData: snapshot });
    expect(before.observation).toBeUndefined();
    expect(before.jobs.size).toBe(0);
    expect(before.awaits!('validator')).toBe(true);
    expect(before.awaits!('node')).toBe(true);
    expect(before.awaits!('service')).toBe(false);
    expect(sourceUpdate('node', rpc!, undefined, store, config).awaits!('validator')).toBe(false);
    // the node's own poll reported: it is handed, and only the validator job is still awaited
    const state = store.record(nodeState('v1', HEALTHY()).observation);
    const after = sourceUpdate('node', v1!, state, store, config);
    expect(after.observation).toBe(state.observation);
    expect(after.jobs).toBe(state.jobs);
    expect(after.awaits!('node')).toBe(false);
    expect(after.awaits!('validator')).toBe(true);
    store.record({ target: 'v1', kind: 'node', source: 'validator', at: 0, endpoints: [] });
    expect(sourceUpdate('validator', v1!, store.get('v1'), store, config).awaits!('validator')).toBe(false);
    expect(after.lags()).toEqual(store.lagsOf('v1'));
    // a service carries no network; without chain_data, no chain data is handed even when the store holds some
    const service = sourceUpdate('service', config.services[0]!, undefined, store, config);
    expect(service.kind).toBe('service');
    expect('network' in service).toBe(false);
    const withoutChainData = parseConfig(yaml(''), join(dir, 'c.yaml'), {});
    expect(sourceUpdate('node', withoutChainData.nodes[0]!, state, store, withoutChainData).chainData).toBeUndefined();
  });

  it('one round evaluates every report each target holds, and chain data for every target while configured', () => {
    const dir = mkdtempSync(join(tmpdir(), 'avahealth-verdicts-'));
    const config = parseConfig(`state_dir: ${dir}\nchain_data: {interval: 2m}\nnodes:\n  - {name: v1, url: "http://127.0.0.1:1", validator: false}\n  - {name: v2, url: "http://127.0.0.1:1", validator: false}\n`, join(dir, 'c.yaml'), {});
    const rules = new RuleStage(config, createLogger({ level: 'silent', format: 'json' }), { oneRound: true });
    const store = new Store();
    store.record(nodeState('v1', failing({ C: 1 })).observation);
    store.recordChainData({ chains: new Map(), networks: new Map(), errors: [], validators: new Map() });
    const verdicts = rules.round(store, T0);
    // v1: its node report (the node and lag sources) and chain data; v2, which reported nothing: chain data only
    const covers = (v: (typeof verdicts)[number]) => `${v.evaluation.target} ${v.evaluation.covers.includes('AvalancheCheckFailing') ? 'node' : v.evaluation.covers.includes('AvalancheNodeHeightLag') ? 'lag' : 'chain'}`;
    expect(verdicts.map(covers).sort()).toEqual(['v1 chain', 'v1 lag', 'v1 node', 'v2 chain']);
    expect(verdicts.every((v) => v.now === T0)).toBe(true);
    expect(verdicts.find((v) => covers(v) === 'v1 node')!.evaluation.conditions.map((c) => c.alertname)).toContain('AvalancheCheckFailing');
    // without chain_data configured, no chain-data report is evaluated, though the store holds a snapshot
    const bare = parseConfig(`state_dir: ${dir}\nnodes:\n  - {name: v1, url: "http://127.0.0.1:1", validator: false}\n  - {name: v2, url: "http://127.0.0.1:1", validator: false}\n`, join(dir, 'c.yaml'), {});
    expect(new RuleStage(bare, createLogger({ level: 'silent', format: 'json' }), { oneRound: true }).round(store, T0).map(covers)).toEqual(['v1 node']);
  });

  it('a target that leaves is logged again when a rule of it throws once it is back; other targets keep their silence', async () => {
    const { rules, lines } = stage();
    const now = T0 / 1000;
    const bad = (target: string) => rules.observe('validator', target, validatorInput(9_007_199_254_740_991, now), T0);
    bad('v1');
    bad('v2');
    rules.forgetTarget('v1');
    bad('v1');
    bad('v2');
    await new Promise((resolve) => setImmediate(resolve));
    expect(lines.filter((l) => l.msg === 'alert rule failed; its alerts for this target stay as they are').map((l) => l.target)).toEqual(['v1', 'v2', 'v1']);
  });

  it("a resolve's words come from the rule that has them, from what this evaluation saw; a rule without words, or no rule, has none", () => {
    const { config, rules } = stage();
    const withDisk = { healthy: true, checks: HEALTHY().checks.map((c) => (c.name === 'diskspace' ? { ...c, disk: { availableBytes: 1.2e12, availableRatio: 0.4 } } : c)) };
    const [verdict] = rules.updated(update('node', config.nodes[0]!, nodeState('v1', withDisk)), T0);
    const recovered = verdict!.evaluation.recovered!;
    expect(recovered('AvalancheDiskLow', { alertname: 'AvalancheDiskLow', target: 'v1' })).toMatch(/^disk space recovered: 40% free \(/);
    expect(recovered('AvalancheCheckFailing', { alertname: 'AvalancheCheckFailing', target: 'v1', check: 'C' })).toBeUndefined();
    expect(recovered('AvalancheServiceUnhealthy', { alertname: 'AvalancheServiceUnhealthy', target: 'v1' })).toBeUndefined();
  });

  it('a rule name no rule has is taken as turned off', () => {
    const { rules } = stage();
    expect(rules.settings('AvalancheNoSuchRule', 'v1')).toEqual({ disabled: true, forMs: 0, severity: 'warning' });
  });
});

