import { describe, expect, it } from 'vitest';
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
