/**
 * Nothing a user sees changes when the exposition's machinery does: the demo fleet's /metrics at a
 * fixed clock (test/helpers/demo-exposition.ts) has the same family headers and the same series,
 * labels and values, order aside, as the golden one taken from the exposition before the memory
 * work of issue 47 (test/fixtures/exposition/demo.*), in Prometheus text and in OpenMetrics.
 * `UPDATE_GOLDEN=1` writes the files anew: only for a change of the series that is meant.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { demoExposition, exposedSet, type DemoExposition } from '../helpers/demo-exposition.js';

const FILES: Record<keyof DemoExposition, URL> = {
  text: new URL('../fixtures/exposition/demo.prom', import.meta.url),
  openmetrics: new URL('../fixtures/exposition/demo.openmetrics', import.meta.url),
};

describe('the demo fleet exposition against the golden one', () => {
  it('has the same headers, series, labels and values in both formats', async () => {
    const now = await demoExposition();
    for (const format of ['text', 'openmetrics'] as const) {
      if (process.env.UPDATE_GOLDEN === '1' || !existsSync(FILES[format])) writeFileSync(FILES[format], now[format]);
      const golden = exposedSet(readFileSync(FILES[format], 'utf8'));
      const actual = exposedSet(now[format]);
      expect(actual.headers, `${format} headers`).toEqual(golden.headers);
      expect(actual.samples, `${format} samples`).toEqual(golden.samples);
    }
    // the fleet's every role is in it (a golden of nothing would prove nothing)
    expect(now.text).toContain('avahealth_l1_validator_balance_avax{');
    expect(now.text).toContain('avahealth_validator_observed_uptime_ratio{');
    expect(now.text).toContain('avahealth_node_check_passing{');
    expect(now.openmetrics.endsWith('# EOF\n')).toBe(true);
  });
});
