import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { Deployment, StatefulSet } from 'kubernetes-models/apps/v1';
import { ConfigMap, PersistentVolumeClaim, Service, ServiceAccount } from 'kubernetes-models/v1';
import { Role, RoleBinding } from 'kubernetes-models/rbac.authorization.k8s.io/v1';
import { NetworkPolicy } from 'kubernetes-models/networking.k8s.io/v1';
import { PodMonitor, PrometheusRule, ServiceMonitor } from '@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1';
import { describe, expect, it } from 'vitest';
import { parse, parseAllDocuments, stringify } from 'yaml';
import { ALERTS_GROUP, ruleGroups, type RuleGroup } from '../../deploy/prometheus/rules.js';
import { RULES } from '../../src/alerts/rules/index.js';
import { AVAHEALTH_JOB } from '../../deploy/prometheus/self-monitoring.js';
import { pagingCheck } from '../../src/alerts/paging.js';
import { parseConfig } from '../../src/config/load.js';
import { parseShard } from '../../src/shard.js';
import { hashSync } from 'bcryptjs';
import { request } from 'undici';
import { imageCommand, imageNodeOptions, sidecarNodeOptions } from '../../bench/lib.js';
import { ROOT, startCli } from '../helpers/cli.js';
import { startSim } from '../helpers/harness.js';
import { requireTool } from '../helpers/tools.js';

const kubectl = requireTool('kubectl', 'the kustomize builds');
/** The sidecar component's NODE_OPTIONS (its ConfigMap avahealth-node, the avahealth container's envFrom). */
const SIDECAR_NODE_OPTIONS = sidecarNodeOptions();
const MODELS: Record<string, new (value: never) => { validate(): void }> = {
  'apps/v1/Deployment': Deployment,
  'apps/v1/StatefulSet': StatefulSet,
  'v1/ConfigMap': ConfigMap,
  'v1/Service': Service,
  'v1/PersistentVolumeClaim': PersistentVolumeClaim,
  'v1/ServiceAccount': ServiceAccount,
  'rbac.authorization.k8s.io/v1/Role': Role,
  'rbac.authorization.k8s.io/v1/RoleBinding': RoleBinding,
  'networking.k8s.io/v1/NetworkPolicy': NetworkPolicy,
  'monitoring.coreos.com/v1/PodMonitor': PodMonitor,
  'monitoring.coreos.com/v1/ServiceMonitor': ServiceMonitor,
  'monitoring.coreos.com/v1/PrometheusRule': PrometheusRule,
};

type K8sObject = { apiVersion: string; kind: string; metadata: { name: string; labels?: Record<string, string> }; spec?: Record<string, any>; data?: Record<string, string> };
type Container = { name: string; image?: string; livenessProbe?: any; readinessProbe?: any; securityContext?: any; resources?: any; volumeMounts: Array<{ name: string; mountPath: string }> };

function build(dir: string): K8sObject[] {
  const out = execFileSync(kubectl!, ['kustomize', dir], { encoding: 'utf8' });
  return parseAllDocuments(out).map((d) => d.toJS() as K8sObject);
}
const overlay = (name: string) => join(ROOT, 'deploy/kubernetes/overlays', name);
const avahealthOf = (workload: K8sObject): Container => workload.spec!.template.spec.containers.find((c: Container) => c.name === 'avahealth');

/** Every `url:` value in a config, `${VAR:-default}` taken at its default. */
function urlsIn(value: unknown): string[] {
  if (Array.isArray(value)) return value.flatMap(urlsIn);
  if (value && typeof value === 'object')
    return Object.entries(value).flatMap(([k, v]) => (k === 'url' && typeof v === 'string' ? [v.replace(/\$\{[A-Z0-9_]+:-([^}]*)\}/g, '$1')] : urlsIn(v)));
  return [];
}

describe.skipIf(!kubectl).each(['sidecar', 'central', 'sharded'])('kustomize overlay %s', (name) => {
  const objects = kubectl ? build(overlay(name)) : [];
  const workload = objects.find((o) => o.kind === 'StatefulSet' || o.kind === 'Deployment')!;
  const pod = workload?.spec?.template.spec;
  const container = workload && avahealthOf(workload);

  it('builds, and every object validates against its schema', () => {
    expect(objects.length).toBeGreaterThan(3);
    for (const object of objects) {
      const Model = MODELS[`${object.apiVersion}/${object.kind}`];
      expect(Model, `a schema for ${object.apiVersion} ${object.kind}`).toBeDefined();
      expect(() => new Model!(object as never).validate(), `${object.kind}/${object.metadata.name}`).not.toThrow();
    }
  });

  it('runs avahealth locked down: non-root, read-only root, no capabilities, RuntimeDefault seccomp, limits, liveness on /-/healthy', () => {
    expect(container.securityContext).toEqual({
      runAsNonRoot: true,
      runAsUser: 1000,
      runAsGroup: 1000,
      readOnlyRootFilesystem: true,
      allowPrivilegeEscalation: false,
      capabilities: { drop: ['ALL'] },
      seccompProfile: { type: 'RuntimeDefault' },
    });
    expect(container.resources.limits.memory).toBe(name === 'sharded' ? '512Mi' : '256Mi');
    expect(container.livenessProbe.httpGet.path).toBe('/-/healthy');
    // our own pods own their state volume; the sidecar leaves the node's pod-wide settings alone
    if (name === 'sidecar') expect(pod.securityContext).toBeUndefined();
    else expect(pod.securityContext.fsGroup).toBe(1000);
  });

  it('keeps state on a volume and mounts the generated config', () => {
    const stateMount = container.volumeMounts.find((m: { name: string }) => m.name === 'avahealth-state')!;
    expect(stateMount.mountPath).toBe('/var/lib/avahealth');
    const stateVolume = pod.volumes.find((v: { name: string }) => v.name === 'avahealth-state');
    if (name === 'sidecar') expect(stateVolume.emptyDir).toEqual({ sizeLimit: '64Mi' });
    else if (name === 'sharded') {
      // our own StatefulSet: a volume per shard from a claim template
      expect(stateVolume).toBeUndefined();
      expect(workload.spec!.volumeClaimTemplates.map((t: K8sObject) => t.metadata.name)).toEqual(['avahealth-state']);
    } else expect(stateVolume.persistentVolumeClaim.claimName).toBe(objects.find((o) => o.kind === 'PersistentVolumeClaim')!.metadata.name);
    const configMap = objects.find((o) => o.kind === 'ConfigMap' && o.metadata.name.startsWith('avahealth-config'))!;
    expect(pod.volumes.find((v: { name: string }) => v.name === 'avahealth-config').configMap.name).toBe(configMap.metadata.name);
    const config = parseConfig(configMap.data!['avahealth.yaml']!, 'avahealth.yaml', { DATA_API_KEY: 'k' });
    expect(config.stateDir).toBe('/var/lib/avahealth');
    if (name === 'sidecar') expect(config.nodes.map((n) => n.baseUrl)).toEqual(['http://127.0.0.1:9650']);
    else expect(config.nodes.length).toBeGreaterThan(1);
  });

  it('is scraped by the Prometheus Operator as job "avahealth" and carries the same rules as deploy/prometheus', () => {
    const monitor = objects.find((o) => o.kind === (name === 'central' ? 'ServiceMonitor' : 'PodMonitor'))!;
    const endpoint = (monitor.spec!.podMetricsEndpoints ?? monitor.spec!.endpoints)[0];
    expect(endpoint).toMatchObject({ port: 'avahealth', path: '/metrics' });
    expect(endpoint.relabelings).toContainEqual({ targetLabel: 'job', replacement: AVAHEALTH_JOB, action: 'replace' });
    const selected = name === 'central' ? objects.find((o) => o.kind === 'Service')!.metadata.labels : workload.spec!.template.metadata.labels;
    expect(selected).toMatchObject(monitor.spec!.selector.matchLabels);
    const groups = objects.filter((o) => o.kind === 'PrometheusRule').flatMap((o) => o.spec!.groups);
    const expected = name === 'sidecar' ? ruleGroups : ruleGroups.filter((g) => g.name !== ALERTS_GROUP);
    expect(groups.sort((a, b) => a.name.localeCompare(b.name))).toEqual(JSON.parse(JSON.stringify(expected)).sort((a: RuleGroup, b: RuleGroup) => a.name.localeCompare(b.name)));
  });

  it('has one alert path: the daemon\'s receivers or the Prometheus alerts, never both', () => {
    const configMap = objects.find((o) => o.kind === 'ConfigMap' && o.metadata.name.startsWith('avahealth-config'))!;
    const config = parseConfig(configMap.data!['avahealth.yaml']!, 'avahealth.yaml', { DATA_API_KEY: 'k' });
    const prometheusAlerts = new Set(objects.filter((o) => o.kind === 'PrometheusRule').flatMap((o) => o.spec!.groups.flatMap((g: RuleGroup) => g.rules.map((r) => r.alert))));
    const engineAlerts = RULES.flatMap((r) => [r.name, ...r.prometheus.map((p) => p.alert)]);
    // …and says which, so it starts without the "nothing pages" warning (alerts/paging.ts)
    expect(pagingCheck(config).problem).toBeUndefined();
    if (name === 'sidecar') {
      expect(config.alerts.receivers).toEqual([]);
      expect(config.alerts.paging).toBe('prometheus');
      for (const alert of engineAlerts) expect(prometheusAlerts, alert).toContain(alert);
    } else {
      expect(config.alerts.receivers.map((r) => r.kind)).toEqual(['alertmanager']);
      for (const alert of engineAlerts) expect(prometheusAlerts, alert).not.toContain(alert);
      expect(prometheusAlerts).toContain('AvahealthDown');
    }
  });
});

describe.skipIf(!kubectl)('the opt-in Prometheus alerts component', () => {
  it('on the central overlay adds the node, service and validator alerts as a PrometheusRule', () => {
    const dir = mkdtempSync(join(tmpdir(), 'avahealth-kustomize-'));
    const deploy = relative(dir, join(ROOT, 'deploy/kubernetes'));
    writeFileSync(join(dir, 'kustomization.yaml'), stringify({ resources: [`${deploy}/overlays/central`], components: [`${deploy}/components/prometheus-alerts`] }));
    const rules = build(dir).filter((o) => o.kind === 'PrometheusRule');
    expect(rules.map((r) => r.metadata.name).sort()).toEqual(['avahealth', 'avahealth-alerts']);
    expect(rules.find((r) => r.metadata.name === 'avahealth-alerts')!.spec!.groups.map((g: RuleGroup) => g.name)).toEqual([ALERTS_GROUP]);
  });
});

describe.skipIf(!kubectl).each(['central', 'sharded'])('your own kustomization on the %s overlay (README)', (name) => {
  it('replaces the config and labels the monitors and rules for the Prometheus Operator', () => {
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    const transformer = (parse(/```yaml\n(# kustomization\.yaml next to your StatefulSet[\s\S]*?)```/.exec(readme)![1]!) as { transformers: string[] }).transformers;
    const top = mkdtempSync(join(tmpdir(), 'avahealth-kustomize-top-'));
    writeFileSync(join(top, 'avahealth.yaml'), 'listen: 0.0.0.0:9660\nstate_dir: /var/lib/avahealth\nnodes:\n  - {name: mine, url: "http://mine.avalanche.svc:9650"}\nalerts:\n  receivers:\n    - {name: am, alertmanager: {url: "http://alertmanager-operated.monitoring.svc:9093"}}\n');
    writeFileSync(join(top, 'kustomization.yaml'), stringify({ resources: [relative(top, overlay(name))], configMapGenerator: [{ name: 'avahealth-config', behavior: 'replace', files: ['avahealth.yaml'] }], transformers: transformer }));
    const objects = build(top);
    const configMap = objects.find((o) => o.kind === 'ConfigMap' && o.metadata.name.startsWith('avahealth-config'))!;
    expect(configMap.data!['avahealth.yaml']).toContain('name: mine');
    const workload = objects.find((o) => o.kind === 'StatefulSet' || o.kind === 'Deployment')!;
    expect(workload.spec!.template.spec.volumes.find((v: { name: string }) => v.name === 'avahealth-config').configMap.name).toBe(configMap.metadata.name);
    const monitoring = objects.filter((o) => o.apiVersion.startsWith('monitoring.coreos.com/'));
    expect(monitoring.length).toBe(2);
    for (const object of monitoring) expect(object.metadata.labels, object.kind).toMatchObject({ release: 'kube-prometheus-stack' });
    expect(workload.metadata.labels?.release).toBeUndefined();
  });
});

describe('no placeholder receiver URLs in what ships', () => {
  it('no manifest or config under deploy/ falls back to a made-up URL when a Secret is missing', () => {
    const files = (dir: string): string[] =>
      readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? files(join(dir, e.name)) : /\.ya?ml$/.test(e.name) ? [join(dir, e.name)] : []));
    const shipped = files(join(ROOT, 'deploy'));
    expect(shipped.length).toBeGreaterThan(20);
    for (const file of shipped) {
      const text = readFileSync(file, 'utf8');
      expect(text, file).not.toMatch(/\$\{[A-Z0-9_]+:-https?:/);
      expect(text, file).not.toMatch(/CHANGE\/ME|hooks\.slack\.com\/services\//);
    }
  });
});

describe.skipIf(!kubectl)('the sidecar never gates the node', () => {
  it("every overlay starts node as the Dockerfile does; only the sidecar brings NODE_OPTIONS of its own, in a ConfigMap", () => {
    for (const name of ['sidecar', 'central', 'sharded']) {
      const objects = build(overlay(name));
      const container = avahealthOf(objects.find((o) => o.kind === 'StatefulSet' || o.kind === 'Deployment')!) as { command?: string[]; env?: Array<{ name: string }>; envFrom?: Array<{ configMapRef?: { name: string; optional?: boolean } }> };
      expect(container.command, name).toBeUndefined();
      expect(container.env?.map((e) => e.name), name).not.toContain('NODE_OPTIONS');
      expect(container.envFrom, name).toEqual([{ configMapRef: { name: 'avahealth-node', optional: true } }]);
      const nodeEnv = objects.find((o) => o.kind === 'ConfigMap' && o.metadata.name === 'avahealth-node');
      expect(nodeEnv?.data, name).toEqual(name === 'sidecar' ? { NODE_OPTIONS: SIDECAR_NODE_OPTIONS } : undefined);
    }
  });

  it('the avahealth sidecar has no readinessProbe (only the central Deployment waits for its first round)', () => {
    const sidecar = build(overlay('sidecar')).find((o) => o.kind === 'StatefulSet')!;
    expect(avahealthOf(sidecar).readinessProbe).toBeUndefined();
    const sharded = build(overlay('sharded')).find((o) => o.kind === 'StatefulSet')!;
    expect(avahealthOf(sharded).readinessProbe).toBeUndefined();
    const central = build(overlay('central')).find((o) => o.kind === 'Deployment')!;
    expect(avahealthOf(central).readinessProbe.httpGet.path).toBe('/-/ready');
  });
});

describe.skipIf(!kubectl)("the README's sidecar kustomization, applied to a user's own StatefulSet", () => {
  // A StatefulSet as a user has it: its own name, labels, volumeClaimTemplates and security context.
  const own = {
    apiVersion: 'apps/v1',
    kind: 'StatefulSet',
    metadata: { name: 'validator-mainnet', namespace: 'avalanche', labels: { app: 'validator', 'avahealth.dev/inject': 'true' } },
    spec: {
      serviceName: 'validator',
      replicas: 2,
      selector: { matchLabels: { app: 'validator' } },
      template: {
        metadata: { labels: { app: 'validator' } },
        spec: {
          securityContext: { runAsUser: 10001, fsGroup: 10001 },
          containers: [{ name: 'node', image: 'avaplatform/avalanchego:v1.14.2', volumeMounts: [{ name: 'db', mountPath: '/data' }] }],
        },
      },
      volumeClaimTemplates: [{ metadata: { name: 'db' }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Ti' } } } }],
    },
  };

  /** The README's kustomization in a new directory with the user's StatefulSet and config; returns the directory. */
  function userDir(): string {
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    const block = /```yaml\n(# kustomization\.yaml next to your StatefulSet[\s\S]*?)```/.exec(readme)?.[1];
    expect(block, 'README shows the kustomization for your own StatefulSet').toBeDefined();
    const dir = mkdtempSync(join(tmpdir(), 'avahealth-kustomize-'));
    const component = relative(dir, join(ROOT, 'deploy/kubernetes/components/sidecar'));
    const kustomization = parse(block!) as { resources: string[]; components: string[]; configMapGenerator: Array<{ files: string[] }> };
    expect(kustomization.components).toEqual([expect.stringMatching(/deploy\/kubernetes\/components\/sidecar$/)]);
    kustomization.components = [component];
    writeFileSync(join(dir, 'kustomization.yaml'), stringify(kustomization));
    writeFileSync(join(dir, kustomization.resources[0]!), stringify(own));
    writeFileSync(join(dir, kustomization.configMapGenerator[0]!.files[0]!), readFileSync(join(ROOT, 'deploy/kubernetes/overlays/sidecar/avahealth.yaml')));
    return dir;
  }

  it('adds the sidecar after the node\'s container and changes nothing pod-wide', () => {
    const objects = build(userDir());
    const patched = objects.find((o) => o.kind === 'StatefulSet')!;
    expect(patched.metadata.name).toBe('validator-mainnet');
    // Mutable on an existing StatefulSet: the pod template (and replicas, update strategy…); the rest must be as it was.
    const { template, ...rest } = patched.spec!;
    const { template: ownTemplate, ...ownRest } = own.spec;
    expect(rest).toEqual(ownRest);
    expect(patched.spec!.volumeClaimTemplates).toEqual(own.spec.volumeClaimTemplates);
    // the node's container stays first: kubectl logs/exec default to it
    expect(template.spec.containers.map((c: Container) => c.name)).toEqual(['node', 'avahealth']);
    expect(template.spec.containers[0]).toEqual(ownTemplate.spec.containers[0]);
    expect(template.spec.securityContext).toEqual({ runAsUser: 10001, fsGroup: 10001 });
    expect(template.metadata.labels).toMatchObject(ownTemplate.metadata.labels);
    const sidecar = avahealthOf(patched);
    expect(sidecar.securityContext).toMatchObject({ runAsUser: 1000, runAsGroup: 1000, runAsNonRoot: true });
    expect(sidecar.readinessProbe).toBeUndefined();
    expect(sidecar.livenessProbe.httpGet.path).toBe('/-/healthy');
    expect(template.spec.volumes.find((v: { name: string }) => v.name === 'avahealth-state').emptyDir).toEqual({ sizeLimit: '64Mi' });
    expect(sidecar.volumeMounts.map((m) => m.name).sort()).toEqual(['avahealth-config', 'avahealth-state']);
    const configMap = objects.find((o) => o.kind === 'ConfigMap' && o.metadata.name.startsWith('avahealth-config'))!;
    expect(template.spec.volumes.find((v: { name: string }) => v.name === 'avahealth-config').configMap.name).toBe(configMap.metadata.name);
    expect(configMap.metadata.name).toMatch(/^avahealth-config-/);
    expect(sidecar.image).toBe('registry.example/avahealth:0.1.0');
    for (const object of objects) expect(() => new MODELS[`${object.apiVersion}/${object.kind}`]!(object as never).validate()).not.toThrow();
    const podMonitor = objects.find((o) => o.kind === 'PodMonitor')!;
    expect(template.metadata.labels).toMatchObject(podMonitor.spec!.selector.matchLabels);
  });

  it('puts the Prometheus Operator selector label on the monitors and rules only, from one place', () => {
    const objects = build(userDir());
    const monitoring = objects.filter((o) => o.apiVersion.startsWith('monitoring.coreos.com/'));
    expect(monitoring.map((o) => o.kind).sort()).toEqual(['PodMonitor', 'PrometheusRule', 'PrometheusRule']);
    for (const object of monitoring) expect(object.metadata.labels, `${object.kind}/${object.metadata.name}`).toMatchObject({ release: 'kube-prometheus-stack' });
    for (const object of objects.filter((o) => !o.apiVersion.startsWith('monitoring.coreos.com/'))) expect(object.metadata.labels?.release, object.kind).toBeUndefined();
  });

  it('fails the build, naming the ConfigMap, when the kustomization generates no avahealth config', () => {
    const dir = userDir();
    const kustomization = parse(readFileSync(join(dir, 'kustomization.yaml'), 'utf8')) as Record<string, unknown>;
    delete kustomization.configMapGenerator;
    writeFileSync(join(dir, 'kustomization.yaml'), stringify(kustomization));
    expect(() => execFileSync(kubectl!, ['kustomize', dir], { encoding: 'utf8', stdio: 'pipe' })).toThrow(/nothing selected by ConfigMap.*avahealth-config/);
  });

  it('fails the build, naming the label, when the StatefulSet lacks avahealth.dev/inject; "false" leaves another one out', () => {
    const dir = userDir();
    const file = join(dir, (parse(readFileSync(join(dir, 'kustomization.yaml'), 'utf8')) as { resources: string[] }).resources[0]!);
    const unlabelled = { ...own, metadata: { ...own.metadata, labels: { app: 'validator' } } };
    writeFileSync(file, stringify(unlabelled));
    expect(() => execFileSync(kubectl!, ['kustomize', dir], { encoding: 'utf8', stdio: 'pipe' })).toThrow(/components\/sidecar.*\/metadata\/labels\/avahealth\.dev~1inject/);
    // The README quotes the label as the error names it, so that a user can find what it means.
    expect(readFileSync(join(ROOT, 'README.md'), 'utf8')).toContain('its error naming the label as `/metadata/labels/avahealth.dev~1inject`');
    // Another StatefulSet of the same kustomization, labelled "false", is left as it is.
    const database = { ...own, metadata: { name: 'postgres', namespace: 'avalanche', labels: { app: 'db', 'avahealth.dev/inject': 'false' } } };
    writeFileSync(file, `${stringify(own)}---\n${stringify(database)}`);
    const objects = build(dir);
    const names = (o: (typeof objects)[number]) => o.spec!.template.spec.containers.map((c: Container) => c.name);
    expect(names(objects.find((o) => o.metadata.name === 'validator-mainnet')!)).toEqual(['node', 'avahealth']);
    expect(names(objects.find((o) => o.metadata.name === 'postgres')!)).toEqual(['node']);
  });

  it("starts the sidecar with the image's command, and an overlay on top can change its NODE_OPTIONS", () => {
    const objects = build(userDir());
    const patched = objects.find((o) => o.kind === 'StatefulSet')!;
    const sidecar = avahealthOf(patched) as Container & { command?: string[]; args?: string[] };
    expect(sidecar.command).toBeUndefined();
    expect(sidecar.args).toEqual(['run', '--config', '/etc/avahealth/avahealth.yaml']);
    expect(patched.spec!.template.spec.containers.map((c: Container) => c.name)).toEqual(['node', 'avahealth']);
    expect(objects.find((o) => o.kind === 'ConfigMap' && o.metadata.name === 'avahealth-node')?.data).toEqual({ NODE_OPTIONS: SIDECAR_NODE_OPTIONS });
    // docs/scaling.md: a pod that wants the image's young generation patches the ConfigMap
    const top = mkdtempSync(join(tmpdir(), 'avahealth-kustomize-node-options-'));
    writeFileSync(
      join(top, 'kustomization.yaml'),
      stringify({ resources: [relative(top, userDir())], patches: [{ target: { kind: 'ConfigMap', name: 'avahealth-node' }, patch: stringify([{ op: 'replace', path: '/data/NODE_OPTIONS', value: imageNodeOptions() }]) }] }),
    );
    expect(build(top).find((o) => o.kind === 'ConfigMap' && o.metadata.name === 'avahealth-node')?.data).toEqual({ NODE_OPTIONS: imageNodeOptions() });
  });

  it('lets an overlay on top replace the config with configMapGenerator behavior: replace', () => {
    const base = userDir();
    const top = mkdtempSync(join(tmpdir(), 'avahealth-kustomize-top-'));
    writeFileSync(join(top, 'avahealth.yaml'), 'listen: 0.0.0.0:9660\nstate_dir: /var/lib/avahealth\nnodes:\n  - {name: mine, url: "http://127.0.0.1:9650"}\n');
    writeFileSync(join(top, 'kustomization.yaml'), stringify({ resources: [relative(top, base)], configMapGenerator: [{ name: 'avahealth-config', behavior: 'replace', files: ['avahealth.yaml'] }] }));
    const objects = build(top);
    const configMaps = objects.filter((o) => o.kind === 'ConfigMap' && o.metadata.name.startsWith('avahealth-config'));
    expect(configMaps).toHaveLength(1);
    expect(configMaps[0]!.data!['avahealth.yaml']).toContain('name: mine');
    const pod = objects.find((o) => o.kind === 'StatefulSet')!.spec!.template.spec;
    expect(pod.volumes.find((v: { name: string }) => v.name === 'avahealth-config').configMap.name).toBe(configMaps[0]!.metadata.name);
  });
});

describe.skipIf(!kubectl).each(['central', 'sharded'])('the %s NetworkPolicy', (name) => {
  const objects = kubectl ? build(overlay(name)) : [];
  const policy = objects.find((o) => o.kind === 'NetworkPolicy')!;
  const allows = (port: number, protocol = 'TCP') =>
    (policy.spec!.egress as Array<{ to?: unknown; ports: Array<{ port: number; protocol: string }> }>).some((rule) => !rule.to && rule.ports.some((p) => p.port === port && p.protocol === protocol));

  it('lets avahealth reach DNS, Alertmanager (9093) and HTTPS receivers and APIs (443)', () => {
    expect(allows(53, 'UDP') && allows(53, 'TCP')).toBe(true);
    expect(allows(9093)).toBe(true);
    expect(allows(443)).toBe(true);
    expect(policy.spec!.podSelector.matchLabels).toEqual(objects.find((o) => o.kind === 'Deployment' || o.kind === 'StatefulSet')!.spec!.template.metadata.labels);
  });

  it('allows every node, service and receiver URL of the shipped config, Alertmanager among them', () => {
    const configMap = objects.find((o) => o.kind === 'ConfigMap' && o.metadata.name.startsWith('avahealth-config'))!;
    const urls = urlsIn(parse(configMap.data!['avahealth.yaml']!)).map((u) => new URL(u));
    expect(urls.some((u) => u.port === '9093')).toBe(true);
    for (const url of urls) expect(allows(Number(url.port || (url.protocol === 'https:' ? 443 : 80))), url.href).toBe(true);
  });
});

describe.skipIf(!kubectl)('the sharded overlay', () => {
  const objects = kubectl ? build(overlay('sharded')) : [];
  const statefulSet = objects.find((o) => o.kind === 'StatefulSet')!;

  const argsOf = (set: K8sObject) => (avahealthOf(set) as unknown as { args: string[] }).args;

  it('runs --shard auto: the index from the pod name, N from its own StatefulSet, which its service account may get', () => {
    const args = argsOf(statefulSet);
    expect(args[args.indexOf('--shard') + 1]).toBe('auto');
    expect(args.join(' ')).not.toMatch(/auto\/\d/); // N is rendered nowhere: one source, the StatefulSet
    const pod = statefulSet.spec!.template.spec;
    const env = (avahealthOf(statefulSet) as unknown as { env: Array<{ name: string; valueFrom?: { fieldRef?: { fieldPath: string } } }> }).env;
    expect(env.find((e) => e.name === 'HOSTNAME')!.valueFrom!.fieldRef!.fieldPath).toBe('metadata.name');
    expect(pod.automountServiceAccountToken).toBe(true);
    const binding = objects.find((o) => o.kind === 'RoleBinding') as unknown as { roleRef: { kind: string; name: string }; subjects: Array<{ kind: string; name: string }> };
    expect(binding.subjects).toEqual([{ kind: 'ServiceAccount', name: pod.serviceAccountName }]);
    expect(objects.find((o) => o.kind === 'ServiceAccount')!.metadata.name).toBe(pod.serviceAccountName);
    const role = objects.find((o) => o.kind === binding.roleRef.kind && o.metadata.name === binding.roleRef.name) as unknown as { rules: Array<{ apiGroups: string[]; resources: string[]; verbs: string[] }> };
    expect(role.rules).toEqual([{ apiGroups: ['apps'], resources: ['statefulsets'], verbs: ['get'] }]);
    // pods of a StatefulSet are named <name>-<ordinal>: the index --shard auto takes
    expect(parseShard('auto/3', `${statefulSet.metadata.name}-2`).index).toBe(2);
  });

  it('rescales from an overlay on top with replicas:, nothing else to change', () => {
    const top = mkdtempSync(join(tmpdir(), 'avahealth-sharded-top-'));
    writeFileSync(join(top, 'kustomization.yaml'), stringify({ resources: [relative(top, overlay('sharded'))], replicas: [{ name: 'avahealth-shard', count: 5 }] }));
    const rebuilt = build(top).find((o) => o.kind === 'StatefulSet')!;
    expect(rebuilt.spec!.replicas).toBe(5);
    expect(argsOf(rebuilt)).toEqual(argsOf(statefulSet)); // every pod reads 5 from the StatefulSet itself
  });

  it('lets the shards reach the Kubernetes API server (443 or 6443)', () => {
    const policy = objects.find((o) => o.kind === 'NetworkPolicy')!;
    const ports = (policy.spec!.egress as Array<{ ports: Array<{ port: number }> }>).flatMap((r) => r.ports.map((p) => p.port));
    expect(ports).toEqual(expect.arrayContaining([443, 6443]));
  });

  it('sends its alerts to Alertmanager and only there (HA pairs deduplicate in it)', () => {
    const configMap = objects.find((o) => o.kind === 'ConfigMap' && o.metadata.name.startsWith('avahealth-config'))!;
    const config = parseConfig(configMap.data!['avahealth.yaml']!, 'avahealth.yaml', {});
    expect(config.alerts.receivers.map((r) => r.kind)).toEqual(['alertmanager']);
    expect(config.nodes.length).toBeGreaterThan(statefulSet.spec!.replicas as number);
  });
});

describe("the sidecar's command, run for real", () => {
  it("starts the image's command with the sidecar's NODE_OPTIONS on this runtime: the daemon polls its node, and a basic-auth scrape is let in", async () => {
    expect(imageCommand()).toEqual(['node', 'dist/cli.js']);
    const sim = await startSim([{ name: 'n1', scenario: 'healthy' }]);
    const dir = mkdtempSync(join(tmpdir(), 'avahealth-sidecar-flags-'));
    writeFileSync(join(dir, 'avahealth.yaml'), `state_dir: ${join(dir, 'state')}\nnodes:\n  - {name: n1, url: "${sim.nodeUrl('n1')}"}\n`);
    writeFileSync(join(dir, 'web.yaml'), `basic_auth_users:\n  prometheus: ${hashSync('scrape-secret', 10)}\n`);
    const daemon = startCli(['run', '--config', join(dir, 'avahealth.yaml'), '--listen', '127.0.0.1:0', '--web.config.file', join(dir, 'web.yaml')], { NODE_OPTIONS: SIDECAR_NODE_OPTIONS });
    try {
      const port = (await daemon.waitForOutput(/"address":"127\.0\.0\.1:(\d+)"/, 30_000))[1];
      await daemon.waitForOutput(/first poll round complete/, 30_000);
      const authorization = `Basic ${Buffer.from('prometheus:scrape-secret').toString('base64')}`;
      const res = await request(`http://127.0.0.1:${port}/metrics`, { headers: { authorization } });
      const text = await res.body.text();
      expect(res.statusCode).toBe(200);
      expect(text).toMatch(/^avahealth_probe_success\{target="n1",endpoint="health",view="all"\} 1$/m);
    } finally {
      daemon.child.kill('SIGTERM');
      await daemon.exit;
      await sim.close();
    }
  });
});
