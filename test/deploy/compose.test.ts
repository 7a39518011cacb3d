import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { ROOT } from '../helpers/cli.js';

const COMPOSE_DIR = join(ROOT, 'deploy/compose');
type Service = { build?: { context: string; dockerfile: string }; command?: string[]; ports?: string[]; volumes?: string[] };
const compose = parse(readFileSync(join(COMPOSE_DIR, 'docker-compose.yml'), 'utf8')) as { services: Record<string, Service> };

/** host path (resolved) → container path, for every bind mount of a service. */
function mounts(service: Service): Array<{ host: string; container: string }> {
  return (service.volumes ?? []).map((v) => {
    const [host, container] = v.split(':');
    return { host: resolve(COMPOSE_DIR, host!), container: container! };
  });
}

describe('deploy/compose', () => {
  it('every file and folder it mounts or builds from exists', () => {
    const { avahealth } = compose.services;
    expect(existsSync(join(resolve(COMPOSE_DIR, avahealth!.build!.context), avahealth!.build!.dockerfile))).toBe(true);
    for (const service of Object.values(compose.services)) for (const m of mounts(service)) expect(existsSync(m.host), m.host).toBe(true);
  });

  it('Prometheus scrapes avahealth where it listens, with the rules where they are mounted', () => {
    const prometheus = parse(readFileSync(join(COMPOSE_DIR, 'prometheus.yml'), 'utf8')) as { rule_files: string[]; scrape_configs: Array<{ static_configs: Array<{ targets: string[] }> }> };
    const listen = compose.services.avahealth!.command![compose.services.avahealth!.command!.indexOf('--listen') + 1]!;
    const port = listen.split(':')[1];
    expect(prometheus.scrape_configs[0]!.static_configs[0]!.targets).toEqual([`avahealth:${port}`]);
    expect(compose.services.avahealth!.ports).toContain(`${port}:${port}`);
    const mounted = mounts(compose.services.prometheus!);
    for (const rules of prometheus.rule_files) expect(mounted.map((m) => m.container)).toContain(rules);
    expect(mounted.find((m) => m.container.endsWith('.rules.yml'))!.host).toBe(join(ROOT, 'deploy/prometheus/avahealth.rules.yml'));
  });

  it('Grafana gets the provisioning and the dashboards at the path the provider reads', () => {
    const mounted = mounts(compose.services.grafana!);
    const provisioning = mounted.find((m) => m.container === '/etc/grafana/provisioning')!;
    const provider = parse(readFileSync(join(provisioning.host, 'dashboards/avahealth.yaml'), 'utf8')) as { providers: Array<{ options: { path: string } }> };
    const dashboardsMount = mounted.find((m) => m.container === provider.providers[0]!.options.path)!;
    expect(dashboardsMount.host).toBe(join(ROOT, 'dashboards'));
    expect(existsSync(join(dashboardsMount.host, 'avahealth-fleet.json'))).toBe(true);
    const datasource = parse(readFileSync(join(provisioning.host, 'datasources/prometheus.yaml'), 'utf8')) as { datasources: Array<{ url: string }> };
    const prometheusPort = compose.services.prometheus!.ports![0]!.split(':')[1];
    expect(datasource.datasources[0]!.url).toBe(`http://prometheus:${prometheusPort}`);
    expect(dirname(provisioning.host)).toBe(join(ROOT, 'dashboards'));
  });
});

describe('deploy/compose Alertmanager', () => {
  it('Prometheus sends to the Alertmanager service, which runs the example config from deploy/alertmanager', () => {
    const prometheus = parse(readFileSync(join(COMPOSE_DIR, 'prometheus.yml'), 'utf8')) as { alerting: { alertmanagers: Array<{ static_configs: Array<{ targets: string[] }> }> } };
    const alertmanager = compose.services.alertmanager!;
    const port = alertmanager.ports![0]!.split(':')[1];
    expect(prometheus.alerting.alertmanagers[0]!.static_configs[0]!.targets).toEqual([`alertmanager:${port}`]);
    const configFlag = alertmanager.command!.find((c) => c.startsWith('--config.file='))!.split('=')[1]!;
    expect(mounts(alertmanager).find((m) => m.container === configFlag)!.host).toBe(join(ROOT, 'deploy/alertmanager/alertmanager.yml'));
  });
});
