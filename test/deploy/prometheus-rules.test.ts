import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ruleGroups } from '../../deploy/prometheus/rules.js';
import { ALERT_NAMES } from '../../src/alerts/rules/index.js';
import { ROOT } from '../helpers/cli.js';
import { requireTool } from '../helpers/tools.js';

const promtool = requireTool('promtool', 'the Prometheus rule checks');

describe.skipIf(!promtool)('Prometheus rules', () => {
  it('pass promtool check rules', () => {
    const out = execFileSync(promtool!, ['check', 'rules', join(ROOT, 'deploy/prometheus/avahealth.rules.yml')], { encoding: 'utf8' });
    expect(out).toMatch(/SUCCESS: \d+ rules found/);
  });

  it('pass their unit tests (firing and not firing for each alert)', () => {
    const out = execFileSync(promtool!, ['test', 'rules', join(ROOT, 'deploy/prometheus/tests/avahealth.rules.test.yml')], { encoding: 'utf8' });
    expect(out).toContain('SUCCESS');
  });
});

describe('rule coverage', () => {
  it('every built-in alert has a Prometheus rule, and every alert rule has a unit test', async () => {
    const alerts = ruleGroups.flatMap((g) => g.rules.map((r) => r.alert)).filter((a): a is string => a !== undefined);
    for (const name of ALERT_NAMES) expect(alerts, name).toContain(name);
    const { readFileSync } = await import('node:fs');
    const tests = readFileSync(join(ROOT, 'deploy/prometheus/tests/avahealth.rules.test.yml'), 'utf8');
    for (const name of alerts) expect(tests, `a test for ${name}`).toContain(`alertname: ${name}\n`);
  });
});
