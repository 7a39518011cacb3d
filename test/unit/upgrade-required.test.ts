// AvalancheNodeUpgradeRequired reads the node's futureupgrade check: AvalancheGo's futureUpgradeCheck
// in node/node.go (v1.14.1+) sends localUpgradeTime, modeUpgradeTime, modeUpgradeWeightPercentage and
// fails by itself only within 3 days of the deadline ("unknown network upgrade detected").
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import AvalancheCheckFailing from '../../src/alerts/rules/AvalancheCheckFailing.js';
import AvalancheNodeUpgradeRequired from '../../src/alerts/rules/AvalancheNodeUpgradeRequired.js';
import { ruleSettings, type AnyRule } from '../../src/alerts/rules/index.js';
import type { RuleContext } from '../../src/alerts/rules/rule.js';
import type { HealthReport, TargetObservation } from '../../src/model/observation.js';
import { parseConfig } from '../../src/config/load.js';
import { MetricsView } from '../../src/metrics/view.js';
import { Store } from '../../src/store.js';
import { OWN_FIXTURES, report, utc } from '../helpers/fixtures.js';
import { parseExposition, sample, series } from '../helpers/harness.js';

const own = (name: string) => report(join(OWN_FIXTURES, 'avalanchego', name));
const DEADLINE = utc(2026, 11, 22, 20, 0, 0); // modeUpgradeTime of futureupgrade-unknown-upgrade.json
const DAY = 86_400;

function observation(r: HealthReport | undefined): TargetObservation {
  return {
    target: 'validator-1',
    kind: 'node',
    at: 0,
    endpoints: [{ endpoint: 'health', view: 'all', ok: r !== undefined, durationSeconds: 0, at: 0, ...(r ? { report: r } : { reason: 'timeout' as const }) }],
  };
}

function ctx(rule: AnyRule, nowSeconds: number, enabled = true): RuleContext {
  return { target: 'validator-1', settings: ruleSettings(rule, [], 0), enabled: () => enabled, now: nowSeconds * 1000, label: (v) => v };
}

const evaluate = (r: HealthReport | undefined, nowSeconds: number) => AvalancheNodeUpgradeRequired.evaluate(observation(r), ctx(AvalancheNodeUpgradeRequired as AnyRule, nowSeconds), undefined);

describe('AvalancheNodeUpgradeRequired', () => {
  const unknown = own('futureupgrade-unknown-upgrade.json');

  it('is quiet more than 7 days ahead, warns within 7 days, turns critical within 1 day', () => {
    expect(evaluate(unknown, DEADLINE - 8 * DAY)).toEqual([]);
    const week = evaluate(unknown, DEADLINE - 5 * DAY);
    expect(week).toEqual([
      {
        identity: {},
        severity: 'warning',
        summary: 'validator-1: upgrade AvalancheGo before 2026-11-22 20:00 UTC (in 5d): 71.3 % of the stake switches then to an upgrade this node does not know',
        description:
          "71.3 % of the stake (by weight, as the node's peers advertise it) switches to a network upgrade at 2026-11-22 20:00 UTC. This node's build knows upgrades up to 2025-11-19 16:00 UTC only. A node left behind stops following the network, and a validator loses its uptime. The node's own futureupgrade check passes until 3 days before (AvalancheGo logs a warning meanwhile).",
      },
    ]);
    // AvalancheGo's own escalation (node/node.go, #4474), in the node's own words once its check fails
    expect(evaluate(unknown, DEADLINE - 2 * 3600)).toMatchObject([{ severity: 'critical', summary: expect.stringContaining('(in 2h)'), description: expect.stringContaining('fails: "unknown network upgrade detected - update as soon as possible"') }]);
    expect(evaluate(unknown, DEADLINE - 2 * DAY)).toMatchObject([{ severity: 'warning' }]);
    expect(evaluate(unknown, DEADLINE + 600)).toMatchObject([{ severity: 'critical', summary: expect.stringContaining('(10m ago)') }]);
  });

  it('says nothing when the node knows the upgrade, when no stake majority agrees, or without the check', () => {
    expect(evaluate(own('futureupgrade-scheduled.json'), DEADLINE - DAY)).toEqual([]);
    expect(evaluate(own('futureupgrade-no-validators.json'), DEADLINE - DAY)).toEqual([]);
    expect(evaluate({ healthy: true, checks: [] }, DEADLINE - DAY)).toEqual([]);
  });

  it('a missed upgrade stays critical while the check passes again, until the build knows it', () => {
    // past the time: peers dropped the node, the mode fell back to its own time (node/node.go, network/peer/peer.go)
    const fellBack: HealthReport = { healthy: true, checks: [{ name: 'futureupgrade', passing: true, notYetRun: false, durationSeconds: 0, contiguousFailures: 0, upgrade: { modeWeightRatio: 0.2849, localTime: utc(2025, 11, 19, 16, 0, 0), modeTime: utc(2025, 11, 19, 16, 0, 0) } }] };
    const missed = { ...observation(fellBack), missedUpgrade: { deadline: DEADLINE, modeWeightRatio: 0.7125 } };
    const [alert] = AvalancheNodeUpgradeRequired.evaluate(missed, ctx(AvalancheNodeUpgradeRequired as AnyRule, DEADLINE + 3600), undefined) as Array<{ severity: string; summary: string; description: string }>;
    expect(alert).toMatchObject({ severity: 'critical', summary: 'validator-1: missed the network upgrade of 2026-11-22 20:00 UTC (60m ago): upgrade AvalancheGo now, it is cut off from the upgraded stake' });
    expect(alert!.description).toContain('its futureupgrade check passes again: that is not a recovery');
  });

  it('keeps its alert as it is while the node cannot be asked', () => {
    expect(evaluate(undefined, DEADLINE - DAY)).toBe('unknown');
  });

  it('speaks for the failing futureupgrade check, so AvalancheCheckFailing does not page for it twice', () => {
    const obs = observation(unknown);
    const checkFailing = (enabled: boolean) => AvalancheCheckFailing.evaluate(obs, ctx(AvalancheCheckFailing as AnyRule, DEADLINE - 3600, enabled), AvalancheCheckFailing.newState!());
    expect(checkFailing(true)).toEqual([]);
    expect(checkFailing(false)).toMatchObject([{ identity: { check: 'futureupgrade' } }]);
  });

  it('exports the deadline as avahealth_node_upgrade_deadline_timestamp_seconds, only while there is one', async () => {
    const config = parseConfig(`nodes:\n  - {name: validator-1, url: "http://127.0.0.1:1"}\n`, 'test.yaml');
    const store = new Store();
    const view = new MetricsView(config, { defaultMetrics: false });
    view.attach(store);
    store.record(observation(unknown));
    expect(sample(parseExposition(await view.render()), 'avahealth_node_upgrade_deadline_timestamp_seconds', { target: 'validator-1' })).toBe(DEADLINE);
    store.record(observation(own('futureupgrade-scheduled.json')));
    expect(series(parseExposition(await view.render()), 'avahealth_node_upgrade_deadline_timestamp_seconds', { target: 'validator-1' })).toHaveLength(0);
  });
});
