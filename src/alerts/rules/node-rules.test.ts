import { describe, expect, it } from 'vitest';
import type { ChainExecution, EndpointObservation, TargetObservation } from '../../model/observation.js';
import type { UnknownUpgrade } from '../../model/schedule.js';
import AvalancheNodeExecutionStalled from './AvalancheNodeExecutionStalled.js';
import AvalancheNodeHeightLag from './AvalancheNodeHeightLag.js';
import AvalancheNodeUpgradeUnknown from './AvalancheNodeUpgradeUnknown.js';
import { formatBytes, formatDuration, listNames } from './format.js';
import { ruleSettings, UNKNOWN, type AnyRule, type RuleTuning } from './index.js';
import type { RuleContext } from './rule.js';

const NOW = Date.UTC(2026, 11, 7, 12) / 1000;

function ctx(rule: AnyRule, tuning?: RuleTuning): RuleContext {
  return { target: 'node-1', settings: ruleSettings(rule, [tuning], 0), enabled: () => true, now: NOW * 1000, label: (v) => v };
}

/** A healthy node whose C check reports its last accepted height, with what else the poll learnt. */
function nodeAt(accepted: number | undefined, more: Partial<TargetObservation> = {}, endpoints: EndpointObservation[] = []): TargetObservation {
  const chain = accepted === undefined ? {} : { lastAcceptedHeight: accepted };
  return {
    target: 'node-1',
    kind: 'node',
    at: NOW,
    endpoints: [
      { endpoint: 'health', view: 'all', ok: true, durationSeconds: 0, at: NOW, report: { healthy: true, checks: [{ name: 'C', passing: true, notYetRun: false, durationSeconds: 0, contiguousFailures: 0, chain }] } },
      ...endpoints,
    ],
    ...more,
  };
}

describe('the words and numbers alerts share (rules/format.ts)', () => {
  it('lists names the way a sentence does', () => {
    expect(listNames([])).toBe('');
    expect(listNames(['C'])).toBe('C');
    expect(listNames(['C', 'P'])).toBe('C and P');
    expect(listNames(['C', 'P', 'X', 'network'])).toBe('C, P, X and network');
  });

  it('says a duration in the largest unit that still reads as at least two of it', () => {
    expect(formatDuration(0)).toBe('0s');
    expect(formatDuration(119.4)).toBe('119s');
    expect(formatDuration(120)).toBe('2m');
    expect(formatDuration(2 * 3600 - 1)).toBe('120m');
    expect(formatDuration(2 * 3600)).toBe('2h');
    expect(formatDuration(2 * 86_400 - 1)).toBe('48h');
    expect(formatDuration(2 * 86_400)).toBe('2d');
    expect(formatDuration(45 * 86_400)).toBe('45d');
  });

  it('says a size in binary units with one decimal, up to TiB', () => {
    expect(formatBytes(undefined)).toBe('unknown');
    expect(formatBytes(0)).toBe('0.0 B');
    expect(formatBytes(1023)).toBe('1023.0 B');
    expect(formatBytes(1024)).toBe('1.0 KiB');
    expect(formatBytes(1.5 * 1024 ** 3)).toBe('1.5 GiB');
    expect(formatBytes(1024 ** 4)).toBe('1.0 TiB');
    expect(formatBytes(2048 * 1024 ** 4)).toBe('2048.0 TiB');
  });
});

// AvalancheGo v1.15's SAE C-Chain accepts a block and executes it after (vms/saevm/sae/consensus.go);
// eth_blockNumber answers the last executed block (vms/saevm/blocks/access.go ResolveRPCNumber), the C
// health check the last accepted one, and SAE's health check reports nothing (vms/saevm/sae/health.go).
describe('AvalancheNodeExecutionStalled: accepted blocks wait while the executed height stands still', () => {
  const rule = AvalancheNodeExecutionStalled as AnyRule;
  const stalled = (seconds: number, executed = 1_000, extra: Partial<ChainExecution> = {}): ChainExecution => ({ executedHeight: executed, since: NOW - seconds, at: NOW, ...extra });
  const WHY = "AvalancheGo v1.15 accepts C-Chain blocks and executes them after (SAE, vms/saevm): eth_blockNumber answers the last executed block, the C health check the last accepted one. Its health passes: SAE's health check reports nothing about execution.";

  it('an RPC node: its answers for "latest" are that many blocks old, and what its users see', () => {
    expect(rule.evaluate(nodeAt(1_040, { cChainExecution: stalled(300) }), ctx(rule), undefined)).toEqual([
      {
        identity: { chain: 'C' },
        severity: 'warning',
        summary: 'node-1: C-Chain execution stalled at block 1000 for 5m, 40 accepted blocks not executed: its RPC answers for "latest" are 40 blocks old',
        description: `${WHY} Users of this RPC node read balances, eth_call results, receipts and gas estimates at block 1000; transactions sent through it are accepted by the network, but their receipts do not appear here. Check its logs and disk; avalanche_C_sae_execution_queue_blocks on its /ext/metrics shows the queue. Take it out of the load balancer until it executes again.`,
      },
    ]);
  });

  it('a validator (its poll found a primary validation): it cannot follow the chain for long', () => {
    const validator: EndpointObservation = { endpoint: 'validator', view: 'all', ok: true, durationSeconds: 0, at: NOW, detail: { l1: [], problems: [], primary: { startTime: NOW - 86_400, endTime: NOW + 86_400 } } };
    const [finding] = rule.evaluate(nodeAt(1_002, { cChainExecution: stalled(150) }, [validator]), ctx(rule), undefined) as Array<{ summary: string; description: string }>;
    expect(finding!.summary).toBe('node-1: C-Chain execution stalled at block 1000 for 3m, 2 accepted blocks not executed: it cannot follow the chain for long');
    expect(finding!.description).toBe(
      `${WHY} Consensus keeps accepting blocks without waiting for their execution, but AvalancheGo warns that verification fails once acceptance runs too far ahead of it (vms/saevm/sae/consensus.go): a validator whose execution stays stuck stops following the C-Chain and loses uptime. Check its logs and disk (execution writes the state); avalanche_C_sae_execution_queue_blocks on its /ext/metrics shows the queue. A restart re-executes from the last committed state.`,
    );
    // A validator poll without a validation is an RPC node's words.
    const none: EndpointObservation = { ...validator, detail: { l1: [], problems: [] } };
    expect((rule.evaluate(nodeAt(1_002, { cChainExecution: stalled(150) }, [none]), ctx(rule), undefined) as Array<{ summary: string }>)[0]!.summary).toContain('its RPC answers for "latest" are 2 blocks old');
  });

  it('fires once the height stood still for the threshold (120 s, tunable), only with blocks waiting', () => {
    const fires = (seconds: number, accepted: number, tuning?: RuleTuning) => (rule.evaluate(nodeAt(accepted, { cChainExecution: stalled(seconds) }), ctx(rule, tuning), undefined) as unknown[]).length;
    expect(fires(119, 1_010)).toBe(0);
    expect(fires(120, 1_010)).toBe(1);
    expect(fires(120, 1_001)).toBe(1);
    // Executed up to the accepted height (pre-Helicon coreth, or caught up): nothing waits.
    expect(fires(3_600, 1_000)).toBe(0);
    expect(fires(3_600, 999)).toBe(0);
    expect(fires(299, 1_010, { threshold: 300 })).toBe(0);
    expect(fires(300, 1_010, { threshold: 300 })).toBe(1);
  });

  it('nothing to say without a reading or an accepted height; unknown while the EVM API or the health poll does not answer', () => {
    const run = (o: TargetObservation) => rule.evaluate(o, ctx(rule), undefined);
    expect(run(nodeAt(1_040))).toEqual([]);
    expect(run(nodeAt(undefined, { cChainExecution: stalled(600) }))).toEqual([]);
    expect(run(nodeAt(1_040, { cChainExecution: stalled(600, 1_000, { unanswered: true }) }))).toBe(UNKNOWN);
    const failed: TargetObservation = { target: 'node-1', kind: 'node', at: NOW, endpoints: [{ endpoint: 'health', view: 'all', ok: false, durationSeconds: 0, at: NOW, reason: 'timeout', error: 'timed out' }], cChainExecution: stalled(600) };
    expect(run(failed)).toBe(UNKNOWN);
    expect(run({ ...failed, endpoints: [] })).toEqual([]);
  });

  it('resolves with the block it executes now', () => {
    const recovered = rule.recovered!(nodeAt(1_050, { cChainExecution: stalled(0, 1_050) }), ctx(rule), {}, undefined);
    expect(recovered).toBe('C executes again: block 1050');
    expect(rule.recovered!(nodeAt(1_050), ctx(rule), {}, undefined)).toBeUndefined();
  });
});

// info.upgrades is the build's upgrade.Config (api/info/service.go Upgrades, upgrade/upgrade.go); a
// build reads an upgrade it has no date for as 9999-12-01 (UnscheduledActivationTime) or, older than
// it, has no field at all (upgrade/new_upgrade_checklist.md).
describe("AvalancheNodeUpgradeUnknown: the network schedules an upgrade this node's build does not know", () => {
  const rule = AvalancheNodeUpgradeUnknown as AnyRule;
  const upgrade = (at: number, own: UnknownUpgrade['own'] = 'unscheduled', key = 'graniteTime'): UnknownUpgrade => ({ key, at, from: 'node-2', own });
  const run = (unknown: UnknownUpgrade[] | undefined) => rule.evaluate(nodeAt(1, unknown ? { unknownUpgrades: unknown } : {}), ctx(rule), undefined) as Array<{ severity: string; summary: string; description: string; identity: object }>;

  it('before its time: upgrade before the date, how long is left, who schedules it and how the build reads it', () => {
    expect(run([upgrade(NOW + 10 * 86_400)])).toEqual([
      {
        identity: {},
        severity: 'warning',
        summary: "node-1: upgrade AvalancheGo before 2026-12-17 12:00 UTC (in 10d): the network schedules Granite then, and this node's build does not know it",
        description:
          "node-2, a node of the same network, schedules Granite (graniteTime) for 2026-12-17 12:00 UTC; this node's info.upgrades reads it unscheduled (9999-12-01). A node left behind stops following the network at that time, and a validator loses its uptime. AvalancheGo's own futureupgrade check fails only in the last 3 days, once most of the stake advertises the upgrade.",
      },
    ]);
  });

  it('past its time: active since when, and a build with no field for it', () => {
    const [finding] = run([upgrade(NOW - 3 * 3600, 'absent'), upgrade(NOW + 30 * 86_400, 'absent', 'heliconTime'), upgrade(NOW + 60 * 86_400, 'unscheduled', 'fooTime')]);
    expect(finding!.summary).toBe('node-1: its build does not know Granite, active since 2026-12-07 09:00 UTC (3h ago): upgrade AvalancheGo');
    expect(finding!.description).toBe(
      "node-2, a node of the same network, schedules Granite (graniteTime) for 2026-12-07 09:00 UTC; this node's info.upgrades has no field for it (a build older than the upgrade). Also unknown to its build: Helicon at 2027-01-06 12:00 UTC, Foo at 2027-02-05 12:00 UTC. A node left behind stops following the network at that time, and a validator loses its uptime. AvalancheGo's own futureupgrade check fails only in the last 3 days, once most of the stake advertises the upgrade.",
    );
    // At the very second it activates it is already past.
    expect(run([upgrade(NOW)])[0]!.summary).toBe('node-1: its build does not know Granite, active since 2026-12-07 12:00 UTC (0s ago): upgrade AvalancheGo');
  });

  it('nothing while the build knows every upgrade the network schedules', () => {
    expect(run(undefined)).toEqual([]);
    expect(run([])).toEqual([]);
  });
});

describe('AvalancheNodeHeightLag: a chain behind the best-known height, per chain', () => {
  const rule = AvalancheNodeHeightLag as AnyRule;
  const node = nodeAt(1);
  const labelled: RuleContext = { ...ctx(rule), label: (v) => `chain-${v}` };
  const run = (lags: Array<{ chain: string; lagBlocks: number }>, tuning?: RuleTuning, at: RuleContext = ctx(rule, tuning)) => rule.evaluate({ lags, node }, at, undefined);

  it('warns from 50 blocks, critical from 500, one alert per chain with its label as the label policy says', () => {
    expect(run([{ chain: 'C', lagBlocks: 49 }, { chain: 'P', lagBlocks: 50 }, { chain: 'X', lagBlocks: 500 }], undefined, labelled)).toEqual([
      { identity: { chain: 'chain-P' }, severity: 'warning', summary: 'node-1: P is 50 blocks behind the network', description: 'lastAcceptedHeight trails the best-known height of P by 50 blocks' },
      { identity: { chain: 'chain-X' }, severity: 'critical', summary: 'node-1: X is 500 blocks behind the network', description: 'lastAcceptedHeight trails the best-known height of X by 500 blocks' },
    ]);
    expect((run([{ chain: 'C', lagBlocks: 499 }]) as Array<{ severity: string }>)[0]!.severity).toBe('warning');
  });

  it('follows tuning of both thresholds', () => {
    const severities = (lagBlocks: number) => (run([{ chain: 'C', lagBlocks }], { threshold: 10, critical_threshold: 100 }) as Array<{ severity: string }>).map((f) => f.severity);
    expect(severities(9)).toEqual([]);
    expect(severities(10)).toEqual(['warning']);
    expect(severities(100)).toEqual(['critical']);
  });

  it('unknown while readiness fails (bootstrapping: AvalancheNodeNotReady speaks for it)', () => {
    const readiness: EndpointObservation = { endpoint: 'readiness', view: 'all', ok: true, durationSeconds: 0, at: NOW, report: { healthy: false, checks: [] } };
    expect(rule.evaluate({ lags: [{ chain: 'C', lagBlocks: 900 }], node: nodeAt(1, {}, [readiness]) }, ctx(rule), undefined)).toBe(UNKNOWN);
    expect(rule.evaluate({ lags: [{ chain: 'C', lagBlocks: 900 }], node: nodeAt(1, {}, [{ ...readiness, report: { healthy: true, checks: [] } }]) }, ctx(rule), undefined)).toHaveLength(1);
  });

  it('resolves with the lag now, one block in the singular, the chain found by its label', () => {
    expect(rule.recovered!({ lags: [{ chain: 'C', lagBlocks: 1 }], node }, labelled, { chain: 'chain-C' }, undefined)).toBe('C caught up: 1 block behind the network');
    expect(rule.recovered!({ lags: [{ chain: 'C', lagBlocks: -2 }], node }, labelled, { chain: 'chain-C' }, undefined)).toBe('C caught up: at the network height');
    expect(rule.recovered!({ lags: [{ chain: 'C', lagBlocks: 1 }], node }, labelled, { chain: 'C' }, undefined)).toBeUndefined();
  });
});
