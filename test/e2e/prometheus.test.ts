/**
 * End to end against a real Prometheus: it scrapes the daemon (watching the simulated demo fleet)
 * every second with the shipped rules; every dashboard query and rule must parse, dashboard panels
 * must return data (or be listed below with the reason they legitimately cannot), and a failing
 * node must show up as a Prometheus alert.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dashboards } from '../../dashboards/dashboards.js';
import { ruleGroups } from '../../deploy/prometheus/rules.js';
import { NOTIFICATION_FAILURE_REASONS } from '../../src/metrics/registry.js';
import { demoFleet, fleetConfigYaml } from '../../src/sim/fleet.js';
import { SimServer } from '../../src/sim/server.js';
import { startCapture } from '../helpers/capture.js';
import { ROOT } from '../helpers/cli.js';
import { closedPort, get, setScenario, startDaemon, waitFor, type RunningDaemon } from '../helpers/harness.js';
import { requireTool } from '../helpers/tools.js';

const prometheusBin = requireTool('prometheus', 'the end-to-end test against a real Prometheus');
const promtool = requireTool('promtool', 'promtool check metrics');

/** Panels whose query may rightly return nothing in this scenario, and why. */
const MAY_BE_EMPTY: Record<string, string> = {
  'Pending alerts': 'alerts pass through pending between polls; none may be pending at the moment of the query',
  'Failures by reason': 'the simulated hosted APIs answer every probe',
  'Last period paid?': "no simulated validation period ends while the test runs (a period's end is test/e2e/validation-periods.test.ts)",
  'Last period reward': "no simulated validation period ends while the test runs (a period's end is test/e2e/validation-periods.test.ts)",
};

type PromResult = { status: string; data: { resultType: string; result: unknown[] }; error?: string };

describe.skipIf(!prometheusBin)('a real Prometheus scraping avahealth', () => {
  let sim: SimServer;
  let daemon: RunningDaemon;
  let prometheus: ChildProcess;
  let promUrl: string;
  let capture: Awaited<ReturnType<typeof startCapture>>;

  const query = async (expr: string): Promise<PromResult> => JSON.parse((await get(`${promUrl}/api/v1/query?query=${encodeURIComponent(expr)}`)).body) as PromResult;

  beforeAll(async () => {
    sim = new SimServer(demoFleet());
    await sim.listen(0);
    capture = await startCapture(() => ({ status: 200 }));
    const yaml = fleetConfigYaml(demoFleet(), { baseUrl: sim.baseUrl, listen: '127.0.0.1:0', interval: '1s' });
    daemon = await startDaemon(`${yaml}alerts:\n  for_polls: 1\n  receivers:\n    - {name: oncall, webhook: {url: "${capture.url}/hook"}}\n`);

    const dir = mkdtempSync(join(tmpdir(), 'avahealth-prometheus-'));
    const port = await closedPort();
    promUrl = `http://127.0.0.1:${port}`;
    writeFileSync(
      join(dir, 'prometheus.yml'),
      `global: {scrape_interval: 1s, evaluation_interval: 1s}\nrule_files: ["${join(ROOT, 'deploy/prometheus/avahealth.rules.yml')}"]\nscrape_configs:\n  - job_name: avahealth\n    static_configs: [{targets: ["127.0.0.1:${daemon.daemon.address!.port}"]}]\n`,
    );
    prometheus = spawn(prometheusBin!, [`--config.file=${join(dir, 'prometheus.yml')}`, `--storage.tsdb.path=${join(dir, 'data')}`, `--web.listen-address=127.0.0.1:${port}`], { stdio: 'ignore' });
    await waitFor('Prometheus to have a few scrapes of avahealth', async () => {
      try {
        const r = await query('count_over_time(avahealth_build_info[1m])');
        return Number((r.data.result[0] as { value?: [number, string] } | undefined)?.value?.[1] ?? 0) >= 8;
      } catch {
        return false;
      }
    }, 60_000);
  }, 90_000);

  afterAll(async () => {
    prometheus?.kill('SIGTERM');
    await daemon?.stop();
    await sim?.close();
    await capture?.close();
  });

  const panels = dashboards().flatMap((d) =>
    (d.panels as Array<{ type: string; title: string; targets?: Array<{ expr: string }> }>)
      .filter((p) => p.type !== 'row')
      .flatMap((p) => (p.targets ?? []).map((t) => ({ dashboard: d.uid as string, title: p.title, expr: t.expr }))),
  );

  // Some series come only after a validator round of the fleet as observers, later than the first
  // scrapes on a busy machine: wait for data (a query that does not parse fails at once).
  it.each(panels.map((p) => [`${p.dashboard}: ${p.title}`, p] as const))('dashboard query %s parses and returns data', async (_name, panel) => {
    const expr = panel.expr
      .replaceAll('target="$target"', 'target="validator-1"')
      .replaceAll('$target', '.*')
      .replaceAll('$service', '.*')
      .replaceAll('$__rate_interval', '1m');
    const mayBeEmpty = MAY_BE_EMPTY[panel.title] !== undefined;
    const result = await waitFor(`data for ${expr}`, async () => {
      const r = await query(expr);
      return r.status !== 'success' || mayBeEmpty || r.data.result.length > 0 ? r : undefined;
    }, 60_000);
    expect(result.status, `${expr}: ${result.error ?? ''}`).toBe('success');
    if (!mayBeEmpty) expect(result.data.result.length, `no data for ${expr}`).toBeGreaterThan(0);
  }, 90_000);

  it.each(ruleGroups.flatMap((g) => g.rules).map((r) => [r.alert ?? r.record!, r.expr] as const))('rule %s parses', async (_name, expr) => {
    expect((await query(expr)).status).toBe('success');
  });

  it('a failing node shows up as a pending or firing Prometheus alert', async () => {
    await setScenario(sim, 'validator-1', 'network-down');
    await waitFor('AvalancheCheckFailing for validator-1 in Prometheus', async () => {
      const alerts = JSON.parse((await get(`${promUrl}/api/v1/alerts`)).body) as { data: { alerts: Array<{ labels: Record<string, string>; state: string }> } };
      return alerts.data.alerts.some((a) => a.labels.alertname === 'AvalancheCheckFailing' && a.labels.target === 'validator-1' && a.labels.check === 'network' && ['pending', 'firing'].includes(a.state));
    }, 30_000);
  });

  it('scrapes OpenMetrics with gzip (what Prometheus asks for) without errors, counters present at 0', async () => {
    const targets = JSON.parse((await get(`${promUrl}/api/v1/targets`)).body) as { data: { activeTargets: Array<{ health: string; lastError: string }> } };
    expect(targets.data.activeTargets.map((t) => [t.health, t.lastError])).toEqual([['up', '']]);
    const value = async (expr: string) => (await query(expr)).data.result.map((r) => (r as { value: [number, string] }).value[1]);
    // present from the start (a busy machine may skip a 1 s poll before Prometheus's first scrape, so not necessarily at 0)
    expect(await value('count(avahealth_scheduler_skipped_polls_total{target="validator-1"})')).toEqual(['1']);
    expect(await value('avahealth_notifications_failed_total{receiver="oncall",reason="queue_full"}')).toEqual(['0']);
    // every reason of the receiver present from the start
    expect(await value('count(rate(avahealth_notifications_failed_total[1m]))')).toEqual([String(NOTIFICATION_FAILURE_REASONS.length)]);
  });

  it.skipIf(!promtool)('promtool check metrics finds nothing to report on the whole exposition', { timeout: 90_000 }, async () => {
    // with every family there: the observed uptime comes after a round of the fleet as observers
    const metrics = await waitFor('the observed uptime exported', async () => {
      const body = (await get(`${daemon.url}/metrics`)).body;
      return body.includes('avahealth_network_observed_uptime_ratio{') ? body : undefined;
    }, 60_000);
    const result = await new Promise<string>((resolve) => {
      const p = spawn(promtool!, ['check', 'metrics']);
      let out = '';
      p.stdout.on('data', (c: Buffer) => (out += c.toString()));
      p.stderr.on('data', (c: Buffer) => (out += c.toString()));
      p.on('close', () => resolve(out));
      p.stdin.end(metrics);
    });
    expect(result.trim()).toBe('');
    expect(metrics).toContain('avahealth_network_observed_uptime_ratio{');
  });
});
