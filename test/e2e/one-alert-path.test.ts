/**
 * The default central overlay pages once per incident (issue 26, point 1): its rendered config and
 * PrometheusRules, run for real — the daemon (dist/cli.js) watching simulated nodes and sending to
 * a real Alertmanager, a real Prometheus scraping it with every rule of the render (each `for:` cut
 * to 0s, so a Prometheus copy of an alert would fire at once) and alerting to the same
 * Alertmanager. Alertmanager's API must then hold exactly one alert per incident.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse, parseAllDocuments, stringify } from 'yaml';
import { SimServer } from '../../src/sim/server.js';
import { ROOT, startCli, type LongRunning, stopCli } from '../helpers/cli.js';
import { closedPort, get, setScenario, waitFor } from '../helpers/harness.js';
import { requireTool } from '../helpers/tools.js';

const kubectl = requireTool('kubectl', 'the one-alert-path test (it renders the central overlay)');
const prometheusBin = requireTool('prometheus', 'the one-alert-path test against a real Prometheus');
const alertmanagerBin = requireTool('prometheus-alertmanager', 'the one-alert-path test against a real Alertmanager', ['prometheus-alertmanager', 'alertmanager']);

type K8sObject = { kind: string; data?: Record<string, string>; spec?: { groups: Array<{ name: string; rules: Array<Record<string, unknown>> }> } };
type AmAlert = { labels: Record<string, string>; status: { state: string } };
type PromRules = { data: { groups: Array<{ rules: Array<{ lastEvaluation: string; type: string }> }> } };

describe.skipIf(!kubectl || !prometheusBin || !alertmanagerBin)('the default central overlay, run for real', () => {
  let sim: SimServer;
  let daemon: LongRunning;
  let prometheus: ChildProcess;
  let alertmanager: ChildProcess;
  let amUrl: string;
  let promUrl: string;

  beforeAll(async () => {
    const objects = parseAllDocuments(execFileSync(kubectl!, ['kustomize', join(ROOT, 'deploy/kubernetes/overlays/central')], { encoding: 'utf8' })).map((d) => d.toJS() as K8sObject);
    const dir = mkdtempSync(join(tmpdir(), 'avahealth-one-path-'));

    // The overlay's config, pointed at loopback: its nodes at the simulator, its Alertmanager here.
    const config = parse(objects.find((o) => o.kind === 'ConfigMap')!.data!['avahealth.yaml']!) as {
      listen: string; state_dir: string; defaults: { interval: string }; nodes: Array<{ name: string; url: string }>;
      services?: unknown; chain_data?: unknown; alerts: { receivers: Array<{ name: string; alertmanager?: { url: string } }> };
    };
    sim = new SimServer(config.nodes.map((n) => ({ name: n.name, scenario: 'healthy' as const, periodMs: 1000 })));
    await sim.listen(0);
    const [amPort, promPort, daemonPort] = [await closedPort(), await closedPort(), await closedPort()];
    amUrl = `http://127.0.0.1:${amPort}`;
    promUrl = `http://127.0.0.1:${promPort}`;
    for (const node of config.nodes) node.url = sim.nodeUrl(node.name);
    delete config.services; // the hosted APIs are on the internet: not from a test
    delete config.chain_data;
    config.listen = `127.0.0.1:${daemonPort}`;
    config.state_dir = join(dir, 'state');
    config.defaults.interval = '1s';
    const receivers = config.alerts.receivers;
    expect(receivers.map((r) => r.name)).toEqual(['alertmanager']);
    receivers[0]!.alertmanager!.url = amUrl;
    writeFileSync(join(dir, 'avahealth.yaml'), stringify(config));

    // Every rule the overlay ships to Prometheus, at once.
    const groups = objects.filter((o) => o.kind === 'PrometheusRule').flatMap((o) => o.spec!.groups);
    for (const rule of groups.flatMap((g) => g.rules)) if (rule.for) rule.for = '0s';
    writeFileSync(join(dir, 'rules.yml'), stringify({ groups }));

    writeFileSync(join(dir, 'alertmanager.yml'), stringify({ route: { receiver: 'nowhere', group_wait: '1s' }, receivers: [{ name: 'nowhere' }] }));
    alertmanager = spawn(alertmanagerBin!, [`--config.file=${join(dir, 'alertmanager.yml')}`, `--storage.path=${join(dir, 'am')}`, `--web.listen-address=127.0.0.1:${amPort}`, '--cluster.listen-address='], { stdio: 'ignore' });

    writeFileSync(
      join(dir, 'prometheus.yml'),
      stringify({
        global: { scrape_interval: '1s', evaluation_interval: '1s' },
        rule_files: [join(dir, 'rules.yml')],
        alerting: { alertmanagers: [{ static_configs: [{ targets: [`127.0.0.1:${amPort}`] }] }] },
        scrape_configs: [{ job_name: 'avahealth', static_configs: [{ targets: [`127.0.0.1:${daemonPort}`] }] }],
      }),
    );
    // Firing alerts are sent again at every evaluation (not once a minute), so one more send can be awaited.
    prometheus = spawn(prometheusBin!, [`--config.file=${join(dir, 'prometheus.yml')}`, `--storage.tsdb.path=${join(dir, 'prom')}`, `--web.listen-address=127.0.0.1:${promPort}`, '--rules.alert.resend-delay=1s'], { stdio: 'ignore' });

    daemon = startCli(['run', '--config', join(dir, 'avahealth.yaml')]);
    await waitFor('the daemon to be ready', async () => (await get(`http://127.0.0.1:${daemonPort}/-/ready`).catch(() => ({ status: 0 }))).status === 200, 60_000).catch((err: Error) => {
      throw new Error(`${err.message}\n${daemon.output()}`);
    });
    await waitFor('Alertmanager and Prometheus to be ready', async () => {
      const [am, prom] = await Promise.all([get(`${amUrl}/-/ready`).catch(() => ({ status: 0 })), get(`${promUrl}/-/ready`).catch(() => ({ status: 0 }))]);
      return am.status === 200 && prom.status === 200;
    }, 60_000);
  }, 120_000);

  afterAll(async () => {
    await stopCli(daemon);
    prometheus?.kill('SIGTERM');
    alertmanager?.kill('SIGTERM');
    await sim?.close();
  });

  it('holds exactly one alert per incident in Alertmanager', async () => {
    await setScenario(sim, 'avalanchego-0', 'network-down');
    const alerts = async () => JSON.parse((await get(`${amUrl}/api/v2/alerts`)).body) as AmAlert[];
    await waitFor('the check alert of avalanchego-0 in Alertmanager', async () => (await alerts()).some((a) => a.labels.alertname === 'AvalancheCheckFailing' && a.labels.target === 'avalanchego-0'), 60_000);
    // Prometheus has evaluated every rule after that, several times: a Prometheus copy would be there.
    const since = Date.now() + 3000;
    await waitFor('Prometheus to evaluate every rule a few more times', async () => {
      const rules = JSON.parse((await get(`${promUrl}/api/v1/rules`)).body) as PromRules;
      return rules.data.groups.flatMap((g) => g.rules).every((r) => Date.parse(r.lastEvaluation) > since);
    }, 30_000);
    // Whatever Prometheus fires for the node has reached Alertmanager: one more of its sends has completed.
    const promFiring = (JSON.parse((await get(`${promUrl}/api/v1/alerts`)).body) as { data: { alerts: Array<{ state: string; labels: Record<string, string> }> } }).data.alerts.filter((a) => a.state === 'firing');
    if (promFiring.length > 0) {
      const sent = async () => sumOf((await get(`${promUrl}/metrics`)).body, 'prometheus_notifications_sent_total');
      const before = await sent();
      await waitFor('one more Prometheus → Alertmanager send', async () => (await sent()) > before, 30_000);
    }

    const held = (await alerts()).filter((a) => a.labels.target === 'avalanchego-0');
    expect(held.length).toBeGreaterThan(0);
    // one alert per incident: per alert name and identity, whatever labels each path adds
    const incidents = held.map((a) => [a.labels.alertname!.replace(/Critical$/, ''), a.labels.check ?? '', a.labels.chain ?? ''].join('|'));
    expect(incidents.length, JSON.stringify(held.map((a) => a.labels))).toBe(new Set(incidents).size);
    expect(held.every((a) => a.labels.job === undefined), 'no Prometheus copy (it would carry job="avahealth")').toBe(true);
  }, 120_000);
});

/** The sum of a metric's samples in a Prometheus exposition. */
function sumOf(exposition: string, name: string): number {
  return exposition
    .split('\n')
    .filter((line) => line.startsWith(`${name}{`) || line.startsWith(`${name} `))
    .reduce((sum, line) => sum + Number(line.slice(line.lastIndexOf(' ') + 1)), 0);
}
