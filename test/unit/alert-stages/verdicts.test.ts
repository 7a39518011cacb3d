/** The rules stage alone: a store update becomes verdicts; it keeps no incidents. */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { RuleStage } from '../../../src/alerts/verdicts.js';
import { parseConfig } from '../../../src/config/load.js';
import { createLogger } from '../../../src/log.js';
import { failing, nodeState, update } from '../../helpers/states.js';

const T0 = Date.UTC(2026, 10, 22, 12);

function stage(alerts = '') {
  const dir = mkdtempSync(join(tmpdir(), 'avahealth-verdicts-'));
  const config = parseConfig(`state_dir: ${dir}\nnodes:\n  - {name: v1, url: "http://127.0.0.1:1"}\n  - {name: v2, url: "http://127.0.0.1:1"}\n${alerts}`, join(dir, 'c.yaml'), {});
  return { config, rules: new RuleStage(config, createLogger({ level: 'silent', format: 'json' })) };
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
});
