/**
 * What the rule registry derives for the pipeline (src/alerts/rules/index.ts): a rule's settings
 * for a target from its defaults and the config's layers, what a resolve says, which rules a source
 * feeds; and docs/alerting.md's table of alerts held to the rules' defaults.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { INHIBITIONS, resolveSummary, ruleNamed, RULES, rulesOf, ruleSettings, type AnyRule } from '../../src/alerts/rules/index.js';
import { defineRule, NO_TUNING, type Finding } from '../../src/alerts/rules/rule.js';
import { ROOT } from '../helpers/cli.js';

const HOUR = 3_600_000;
/** A rule of the registry's shape whose defaults set every common key (no shipped rule sets a numeric `forMs`). */
const tuned = defineRule({
  name: 'TestRuleWithEveryDefault',
  source: 'node',
  fires: 'never',
  defaults: { severity: 'warning', forPolls: 3, forMs: 10 * 60_000, criticalAfterMs: HOUR, threshold: 0.5, criticalThreshold: 0.1 },
  tuning: NO_TUNING,
  prometheus: [],
  evaluate: (): Finding[] => [],
}) as unknown as AnyRule;

describe("a rule's settings for a target", () => {
  it('are its defaults when nothing is tuned', () => {
    expect(ruleSettings(tuned, [], 0)).toEqual({ disabled: false, severity: 'warning', forPolls: 3, forMs: 600_000, criticalAfterMs: HOUR, threshold: 0.5, criticalThreshold: 0.1 });
    expect(ruleSettings(tuned, [undefined, {}], 0)).toEqual(ruleSettings(tuned, [], 0));
  });

  it('take each key from the last layer that sets it (alerts.rules, then the target), one key at a time', () => {
    const fleet = { for_polls: 1, severity: 'critical' as const, threshold: 0.7, for: 60_000 };
    const target = { disabled: true, critical_after: 2 * HOUR, critical_threshold: 0.2, threshold: 0.9 };
    expect(ruleSettings(tuned, [fleet, target], 0)).toEqual({ disabled: true, severity: 'critical', forPolls: 1, forMs: 60_000, criticalAfterMs: 2 * HOUR, threshold: 0.9, criticalThreshold: 0.2 });
    expect(ruleSettings(tuned, [{ disabled: true }, { disabled: false }], 0).disabled).toBe(false);
  });

  it("wait the config's bootstrap_grace where the rule says so, and nothing when it sets no time", () => {
    const notReady = ruleNamed('AvalancheNodeNotReady')!;
    expect(ruleSettings(notReady, [], 5 * 60_000).forMs).toBe(5 * 60_000);
    expect(ruleSettings(notReady, [{ for: 1000 }], 5 * 60_000).forMs).toBe(1000);
    expect(ruleSettings(ruleNamed('AvalancheCheckFailing')!, [], 5 * 60_000).forMs).toBe(0);
  });
});

describe('what a resolve says', () => {
  const labels = { check: 'C', chain: 'X' };
  it("the rule's account of what is true now, else its resolved words with their subject, else the alert's name", () => {
    expect(resolveSummary('AvalancheCheckFailing', 'v1', labels, 'C passes again after 3 failures')).toBe('v1: C passes again after 3 failures');
    expect(resolveSummary('AvalancheCheckFailing', 'v1', labels)).toBe('v1: C recovered');
    expect(resolveSummary('AvalancheNodeUnreachable', 'v1', labels)).toBe('v1: reachable again');
    expect(resolveSummary('SomethingElse', 'v1', labels)).toBe('v1: SomethingElse resolved');
  });

  it('one no evaluation decided (the target or its source left) says it is no longer watched, and why', () => {
    expect(resolveSummary('AvalancheCheckFailing', 'v1', labels, 'ignored', 'target removed from the config')).toBe('v1: C failing: no longer watched (target removed from the config)');
    expect(resolveSummary('AvalancheNodeHeightLag', 'v1', labels, undefined, 'gone')).toBe('v1: X behind: no longer watched (gone)');
    expect(resolveSummary('SomethingElse', 'v1', labels, undefined, 'gone')).toBe('v1: SomethingElse: no longer watched (gone)');
  });
});

describe('the registry', () => {
  it('lists the rules of each source, every rule in exactly one', () => {
    const sources = ['node', 'service', 'lag', 'chain', 'validator', 'observed', 'fleet'] as const;
    const listed = sources.flatMap((s) => rulesOf(s).map((r) => r.name));
    expect(listed.sort()).toEqual(RULES.map((r) => r.name).sort());
    expect(rulesOf('fleet').map((r) => r.name)).toEqual(['AvalancheNetworkDegraded']);
  });

  it('gathers every inhibition a rule declares, with the rule that declares it', () => {
    const declared = RULES.flatMap((r) => ((r as AnyRule).inhibits ?? []).map((i) => `${r.name} holds ${i.alertname}`));
    expect(INHIBITIONS.map((i) => `${i.source} holds ${i.alertname}`)).toEqual(declared);
    expect(INHIBITIONS.filter((i) => i.source === 'AvalancheNetworkDegraded').map((i) => i.alertname)).toEqual([
      'AvalancheValidatorRewardAtRisk',
      'AvalancheValidatorDowntimeBudgetLow',
      'AvalancheValidatorUnreachableByPeers',
    ]);
  });
});

describe("docs/alerting.md's table of alerts", () => {
  const text = readFileSync(join(ROOT, 'docs', 'alerting.md'), 'utf8');
  const table = text.slice(text.indexOf('| alert | fires when | severity |')).split('\n\n')[0]!.split('\n').slice(2);
  const rows = new Map(table.map((line) => [line.slice(3, line.indexOf('`', 3)), line.split(' | ').at(-1)!.replace(/ \|$/, '')] as const));
  const span = (ms: number) => (ms % HOUR === 0 ? `${ms / HOUR}h` : `${ms / 60_000}m`);

  it("has a row for every rule, whose severity is the rule's default and escalates as the rule does", () => {
    expect([...rows.keys()].sort()).toEqual(RULES.map((r) => r.name).sort());
    for (const rule of RULES) {
      const said = rows.get(rule.name)!;
      const { severity, criticalAfterMs } = rule.defaults;
      if (criticalAfterMs !== undefined) expect(said, rule.name).toBe(`${severity}; critical after ${span(criticalAfterMs)}`);
      else if (severity === 'critical') expect(said, rule.name).toBe('critical');
      // a warning that turns critical by its value says at what value
      else expect(said, rule.name).toMatch(/^(?:warning(?: \(chat\))?|critical (?:at|within|below) .+)$/);
    }
  });
});
