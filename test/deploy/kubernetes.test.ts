import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { Deployment, StatefulSet } from 'kubernetes-models/apps/v1';
import { ConfigMap, PersistentVolumeClaim, Service } from 'kubernetes-models/v1';
import { NetworkPolicy } from 'kubernetes-models/networking.k8s.io/v1';
import { PodMonitor, PrometheusRule, ServiceMonitor } from '@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1';
import { describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { ruleGroups } from '../../deploy/prometheus/rules.js';
import { parseConfig } from '../../src/config/load.js';
import { ROOT } from '../helpers/cli.js';
import { requireTool } from '../helpers/tools.js';

const kubectl = requireTool('kubectl', 'the kustomize builds');
const MODELS: Record<string, new (value: never) => { validate(): void }> = {
  'apps/v1/Deployment': Deployment,
  'apps/v1/StatefulSet': StatefulSet,
  'v1/ConfigMap': ConfigMap,
  'v1/Service': Service,
  'v1/PersistentVolumeClaim': PersistentVolumeClaim,
  'networking.k8s.io/v1/NetworkPolicy': NetworkPolicy,
  'monitoring.coreos.com/v1/PodMonitor': PodMonitor,
  'monitoring.coreos.com/v1/ServiceMonitor': ServiceMonitor,
  'monitoring.coreos.com/v1/PrometheusRule': PrometheusRule,
};

type K8sObject = { apiVersion: string; kind: string; metadata: { name: string }; spec?: Record<string, any>; data?: Record<string, string> };

function build(overlay: string): K8sObject[] {
  const out = execFileSync(kubectl!, ['kustomize', join(ROOT, 'deploy/kubernetes/overlays', overlay)], { encoding: 'utf8' });
  return parseAllDocuments(out).map((d) => d.toJS() as K8sObject);
}

describe.skipIf(!kubectl).each(['sidecar', 'central'])('kustomize overlay %s', (overlay) => {
  const objects = kubectl ? build(overlay) : [];
  const workload = objects.find((o) => o.kind === 'StatefulSet' || o.kind === 'Deployment')!;
  const pod = workload?.spec?.template.spec;
  const container = pod?.containers.find((c: { name: string }) => c.name === 'avahealth');

  it('builds, and every object validates against its schema', () => {
    expect(objects.length).toBeGreaterThan(3);
    for (const object of objects) {
      const Model = MODELS[`${object.apiVersion}/${object.kind}`];
      expect(Model, `a schema for ${object.apiVersion} ${object.kind}`).toBeDefined();
      expect(() => new Model!(object as never).validate(), `${object.kind}/${object.metadata.name}`).not.toThrow();
    }
  });

  it('runs avahealth locked down: non-root, read-only root, no capabilities, RuntimeDefault seccomp, limits, probes', () => {
    expect(container.securityContext).toEqual({
      runAsNonRoot: true,
      runAsUser: 1000,
      runAsGroup: 1000,
      readOnlyRootFilesystem: true,
      allowPrivilegeEscalation: false,
      capabilities: { drop: ['ALL'] },
      seccompProfile: { type: 'RuntimeDefault' },
    });
    expect(container.resources.limits.memory).toBe('256Mi');
    expect(container.livenessProbe.httpGet.path).toBe('/-/healthy');
    expect(container.readinessProbe.httpGet.path).toBe('/-/ready');
  });

  it('keeps state on a volume and mounts the generated config', () => {
    const stateMount = container.volumeMounts.find((m: { name: string }) => m.name === 'avahealth-state');
    expect(stateMount.mountPath).toBe('/var/lib/avahealth');
    const fromClaims = workload.kind === 'StatefulSet' && workload.spec!.volumeClaimTemplates.some((t: K8sObject) => t.metadata.name === 'avahealth-state');
    const fromPvc = pod.volumes?.some((v: { name: string; persistentVolumeClaim?: unknown }) => v.name === 'avahealth-state' && v.persistentVolumeClaim);
    expect(fromClaims || fromPvc).toBe(true);
    const configMap = objects.find((o) => o.kind === 'ConfigMap')!;
    expect(pod.volumes.find((v: { name: string }) => v.name === 'avahealth-config').configMap.name).toBe(configMap.metadata.name);
    const config = parseConfig(configMap.data!['avahealth.yaml']!, 'avahealth.yaml', { DATA_API_KEY: 'k' });
    expect(config.stateDir).toBe('/var/lib/avahealth');
    if (overlay === 'sidecar') expect(config.nodes.map((n) => n.baseUrl)).toEqual(['http://127.0.0.1:9650']);
    else expect(config.nodes.length).toBeGreaterThan(1);
  });

  it('is scraped by the Prometheus Operator and carries the same rules as deploy/prometheus', () => {
    const monitor = objects.find((o) => o.kind === (overlay === 'sidecar' ? 'PodMonitor' : 'ServiceMonitor'))!;
    const endpoint = (monitor.spec!.podMetricsEndpoints ?? monitor.spec!.endpoints)[0];
    expect(endpoint).toMatchObject({ port: 'avahealth', path: '/metrics' });
    expect(objects.find((o) => o.kind === 'PrometheusRule')!.spec!.groups).toEqual(JSON.parse(JSON.stringify(ruleGroups)));
  });
});
