/**
 * Sharding a fleet across replicas (`--shard I/N`): a target belongs to the shard its name hashes
 * to, stable across replicas and restarts. Prometheus scrapes every replica; Alertmanager
 * deduplicates their alerts.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { get as httpsGet } from 'node:https';
import { join } from 'node:path';

export interface Shard {
  index: number;
  count: number;
}

export function inShard(name: string, shard: Shard | undefined): boolean {
  if (!shard || shard.count <= 1) return true;
  return createHash('sha256').update(name).digest().readUInt32BE(0) % shard.count === shard.index;
}

/** `I/N`, or `auto/N` taking I from a hostname ending in `-<ordinal>` (a StatefulSet pod). */
export function parseShard(text: string, hostname = process.env.HOSTNAME ?? ''): Shard {
  const m = /^(auto|\d+)\/(\d+)$/.exec(text);
  if (!m) throw new Error('--shard must be I/N (e.g. 0/3), auto/N, or auto (N from the pod\'s StatefulSet)');
  const count = Number(m[2]);
  const index = m[1] === 'auto' ? Number(/-(\d+)$/.exec(hostname)?.[1] ?? NaN) : Number(m[1]);
  if (Number.isNaN(index)) throw new Error(`--shard auto/N needs a hostname ending in -<ordinal> (got "${hostname}")`);
  if (count < 1 || index >= count) throw new Error(`--shard ${text}: I must be below N`);
  return { index, count };
}

/** Where Kubernetes mounts a pod's service account (token, ca.crt, namespace). */
const SERVICE_ACCOUNT_DIR = '/var/run/secrets/kubernetes.io/serviceaccount';
const MAX_BODY = 1 << 20;

/** The pod's own StatefulSet in the Kubernetes API, as `--shard auto` reads its replicas. */
export interface StatefulSetSource {
  url: string;
  token: string;
  ca: string;
  /** The shard index: the pod's ordinal. */
  index: number;
}

/**
 * `--shard auto` in a StatefulSet pod: the index from the pod's name (`<statefulset>-<ordinal>`, its
 * HOSTNAME), N read from that StatefulSet's `spec.replicas` through the in-cluster API with the
 * pod's service account (RBAC: get on that StatefulSet), as kube-state-metrics reads its own.
 */
export function statefulSetSource(env: NodeJS.ProcessEnv = process.env): StatefulSetSource {
  const hostname = env.HOSTNAME ?? '';
  const m = /^(.+)-(\d+)$/.exec(hostname);
  if (!m) throw new Error(`--shard auto needs the pod's name, <statefulset>-<ordinal>, in HOSTNAME (got "${hostname}")`);
  const host = env.KUBERNETES_SERVICE_HOST;
  const port = env.KUBERNETES_SERVICE_PORT ?? '443';
  if (!host) throw new Error('--shard auto reads N from the pod\'s StatefulSet through the Kubernetes API, but KUBERNETES_SERVICE_HOST is not set (not in a pod?): use --shard I/N or auto/N');
  const dir = env.AVAHEALTH_SERVICE_ACCOUNT_DIR ?? SERVICE_ACCOUNT_DIR;
  const read = (file: string) => {
    try {
      return readFileSync(join(dir, file), 'utf8').trim();
    } catch (err) {
      throw new Error(`--shard auto needs the pod's service account token (automountServiceAccountToken: true): cannot read ${join(dir, file)}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
    }
  };
  const namespace = env.POD_NAMESPACE ?? read('namespace');
  const hostPart = host.includes(':') ? `[${host}]` : host;
  return {
    url: `https://${hostPart}:${port}/apis/apps/v1/namespaces/${encodeURIComponent(namespace)}/statefulsets/${encodeURIComponent(m[1]!)}`,
    token: read('token'),
    ca: read('ca.crt'),
    index: Number(m[2]),
  };
}

/** The StatefulSet's `spec.replicas`; rejects with a message that says what went wrong. */
export function readReplicas(source: StatefulSetSource, timeoutMs = 5000): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = httpsGet(source.url, { ca: source.ca, headers: { authorization: `Bearer ${source.token}`, accept: 'application/json' }, timeout: timeoutMs }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        body += chunk;
        if (body.length > MAX_BODY) req.destroy(new Error('StatefulSet answer too large'));
      });
      res.on('end', () => {
        if (res.statusCode !== 200) return reject(new Error(`GET ${source.url}: HTTP ${res.statusCode}${res.statusCode === 403 ? ' (the service account may get this StatefulSet: see the sharded overlay\'s Role)' : ''}`));
        try {
          const replicas = (JSON.parse(body) as { spec?: { replicas?: unknown } }).spec?.replicas ?? 1;
          if (typeof replicas !== 'number' || !Number.isInteger(replicas) || replicas < 0) throw new Error(`spec.replicas is ${JSON.stringify(replicas)}`);
          resolve(replicas);
        } catch (err) {
          reject(new Error(`GET ${source.url}: ${(err as Error).message}`));
        }
      });
    });
    req.on('timeout', () => req.destroy(new Error(`GET ${source.url}: no answer within ${timeoutMs} ms`)));
    req.on('error', reject);
  });
}
