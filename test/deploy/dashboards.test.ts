import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { requireTool } from '../helpers/tools.js';
import { dashboards } from '../../dashboards/dashboards.js';

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
