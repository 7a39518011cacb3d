import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ruleGroups } from '../../deploy/prometheus/rules.js';
import { AVAHEALTH_JOB } from '../../deploy/prometheus/self-monitoring.js';
import { ALERT_NAMES } from '../../src/alerts/rules/index.js';
import { ROOT } from '../helpers/cli.js';
import { requireTool } from '../helpers/tools.js';

const promtool = requireTool('promtool', 'the Prometheus rule checks');
const TESTS_DIR = join(ROOT, 'deploy/prometheus/tests');
const testFiles = readdirSync(TESTS_DIR).filter((f) => f.endsWith('.test.yml')).map((f) => join(TESTS_DIR, f));

describe.skipIf(!promtool)('Prometheus rules', () => {
  it('pass promtool check rules', () => {
    const out = execFileSync(promtool!, ['check', 'rules', join(ROOT, 'deploy/prometheus/avahealth.rules.yml')], { encoding: 'utf8' });
    expect(out).toMatch(/SUCCESS: \d+ rules found/);
  });

  it('pass their unit tests (firing and not firing for each alert)', () => {
    expect(testFiles.length).toBeGreaterThan(1);
    const out = execFileSync(promtool!, ['test', 'rules', ...testFiles], { encoding: 'utf8' });
    expect(out.match(/SUCCESS/g)).toHaveLength(testFiles.length);
  });
});

describe('rule coverage', () => {
  it('every built-in alert has a Prometheus rule, and every alert rule has a unit test', () => {
    const alerts = ruleGroups.flatMap((g) => g.rules.map((r) => r.alert)).filter((a): a is string => a !== undefined);
    for (const name of ALERT_NAMES) expect(alerts, name).toContain(name);
    const tests = testFiles.map((f) => readFileSync(f, 'utf8')).join('\n');
    for (const name of alerts) expect(tests, `a test for ${name}`).toContain(`alertname: ${name}\n`);
  });
});

describe('avahealth watched by Prometheus', () => {
  it('alerts when avahealth is down or not scraped at all, for the job every shipped scrape config uses', () => {
    const rules = ruleGroups.flatMap((g) => g.rules);
    expect(rules.find((r) => r.alert === 'AvahealthDown')!.expr).toBe(`up{job="${AVAHEALTH_JOB}"} == 0`);
    expect(rules.find((r) => r.alert === 'AvahealthNotScraped')!.expr).toBe(`absent(up{job="${AVAHEALTH_JOB}"})`);
    const compose = readFileSync(join(ROOT, 'deploy/compose/prometheus.yml'), 'utf8');
    expect(compose).toContain(`job_name: ${AVAHEALTH_JOB}\n`);
    // The Kubernetes monitors relabel their job to AVAHEALTH_JOB: test/deploy/kubernetes.test.ts builds them.
  });
});
