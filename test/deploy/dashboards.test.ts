import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { requireTool } from '../helpers/tools.js';
import { dashboards } from '../../dashboards/dashboards.js';
import { REWARD_LIKELY_STAKE_RATIO, REWARD_LOST_STAKE_RATIO } from '../../src/model/reward-vote.js';

type Panel = { type: string; title: string; description?: string; fieldConfig?: { defaults?: { unit?: string } }; targets?: Array<{ expr: string; datasource?: { uid: string } }>; datasource?: { uid: string } };

describe.each(dashboards().map((d) => [d.uid, d] as const))('dashboard %s', (_uid, dashboard) => {
  const panels = (dashboard.panels as Panel[]).filter((p) => p.type !== 'row');
  const variables = (dashboard.templating as { list: Array<{ type: string; name: string }> }).list;

  it('has a datasource variable, an ad-hoc filter, and uses them everywhere', () => {
    expect(variables.find((v) => v.type === 'datasource')?.name).toBe('datasource');
    expect(variables.some((v) => v.type === 'adhoc')).toBe(true);
    for (const panel of panels) {
      expect(panel.datasource?.uid, panel.title).toBe('${datasource}');
      for (const target of panel.targets ?? []) expect(target.datasource?.uid).toBe('${datasource}');
    }
  });

  it('puts a unit on every panel and hard-codes no job', () => {
    for (const panel of panels) {
      expect(panel.fieldConfig?.defaults?.unit, panel.title).toBeTruthy();
      for (const target of panel.targets ?? []) expect(target.expr).not.toMatch(/\bjob\s*=/);
    }
  });

  it('describes every panel for on-call readers', () => {
    for (const panel of panels) expect(panel.description?.length ?? 0, panel.title).toBeGreaterThan(10);
  });
});

const promtool = requireTool('promtool', 'the dashboard query unit test');

describe.skipIf(!promtool)('"Failures by reason" in promtool', () => {
  it("counts a target's first failure (its counter appears at 1), and later ones", () => {
    const panel = dashboards()
      .flatMap((d) => d.panels as Array<{ title: string; targets?: Array<{ expr: string }> }>)
      .find((p) => p.title === 'Failures by reason')!;
    const expr = panel.targets![0]!.expr.replaceAll('$__rate_interval', '1m').replaceAll('$service', '.*');
    const dir = mkdtempSync(join(tmpdir(), 'avahealth-panel-'));
    try {
      writeFileSync(join(dir, 'rules.yml'), stringify({ groups: [{ name: 'panel', rules: [{ record: 'panel', expr }] }] }));
      const series = 'avahealth_probe_failures_total{target="data-api",endpoint="health-check",reason="timeout"}';
      writeFileSync(
        join(dir, 'test.yml'),
        stringify({
          rule_files: ['rules.yml'],
          evaluation_interval: '15s',
          tests: [
            {
              interval: '15s',
              // absent for a minute, then created at 1 by the first failure; a second failure at 3m
              input_series: [{ series, values: '_ _ _ _ 1 1 1 1 1 1 1 1 2 2 2 2 2 2 2 2' }],
              alert_rule_test: [],
              promql_expr_test: [
                { expr: 'panel', eval_time: '1m15s', exp_samples: [{ labels: 'panel{target="data-api",endpoint="health-check",reason="timeout"}', value: 1 }] },
                { expr: 'panel', eval_time: '1m45s', exp_samples: [{ labels: 'panel{target="data-api",endpoint="health-check",reason="timeout"}', value: 1 }] },
                { expr: 'panel', eval_time: '3m', exp_samples: [{ labels: 'panel{target="data-api",endpoint="health-check",reason="timeout"}', value: 1 }] },
                { expr: 'panel', eval_time: '4m30s', exp_samples: [{ labels: 'panel{target="data-api",endpoint="health-check",reason="timeout"}', value: 0 }] },
              ],
            },
          ],
        }),
      );
      const out = execFileSync(promtool!, ['test', 'rules', join(dir, 'test.yml')], { encoding: 'utf8' });
      expect(out).toContain('SUCCESS');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('the validators dashboard tells the reward story of the alerts (docs/validators.md, "The reward vote")', () => {
  const validators = dashboards().find((d) => d.uid === 'avahealth-validators')!;
  const panel = (validators.panels as Array<Panel & { fieldConfig: { defaults: { thresholds?: { steps: Array<{ value: number | null; color: string }> }; custom?: { thresholdsStyle?: { mode: string } } } } }>).find((p) => p.title === 'Rewarding stake')!;

  it('shades rewarding stake where the reward is likely lost, uncertain, still likely and safe', () => {
    expect(panel.fieldConfig.defaults.thresholds!.steps).toEqual([
      { value: null, color: 'red' },
      { value: REWARD_LOST_STAKE_RATIO, color: 'orange' },
      { value: REWARD_LIKELY_STAKE_RATIO, color: 'yellow' },
      { value: 0.8, color: 'green' },
    ]);
    expect(panel.fieldConfig.defaults.custom!.thresholdsStyle!.mode).toBe('line+area');
  });

  it('says a stake majority decides, with the alert thresholds, and never that a majority is not enough', () => {
    expect(panel.description).toContain('likely at 60 % or more, uncertain between 40 % and 60 %, likely lost below 40 %');
    expect(panel.description).toContain('avahealth warns below 80 %, critical below 60 %');
    expect(panel.description).not.toMatch(/below a majority/i);
  });
});

describe('the validators dashboard answers "is it my validator or the network?" (docs/validators.md)', () => {
  const validators = dashboards().find((d) => d.uid === 'avahealth-validators')!;
  const panels = validators.panels as Array<Panel & { transformations?: Array<{ id: string; options: Record<string, string> }> }>;

  it('shows own validators against the network quantiles in one panel', () => {
    const panel = panels.find((p) => p.title === 'Observed uptime against the network')!;
    expect(panel.targets!.map((t) => t.expr)).toEqual(['avg by (target) (avahealth_validator_observed_uptime_ratio{target=~"$target"})', 'avg by (network, quantile) (avahealth_network_observed_uptime_ratio)']);
  });

  it('shows the observer matrix: a row per validator, a column per observer', () => {
    const panel = panels.find((p) => p.title === 'Observer matrix (connected)')!;
    expect(panel.targets![0]!.expr).toBe('avahealth_validator_observed_connected{target=~"$target"}');
    expect(panel.transformations).toEqual([{ id: 'groupingToMatrix', options: { columnField: 'observer', rowField: 'target', valueField: 'Value' } }]);
  });
});
