/**
 * `--shard auto` reads N from the pod's own StatefulSet through the Kubernetes API, as the sharded
 * overlay runs it: a local HTTPS server stands in for the API server (the path, bearer token and
 * CA a pod's service account gives; the answer's shape from k8s.io/api apps/v1 StatefulSet), the
 * built CLI runs with a pod's HOSTNAME. Rescaling (kubectl scale) makes the shard stop, and a
 * restart takes the new split; avahealth_shard_count{shard_index} says N.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inShard } from '../../src/shard.js';
import { fleetConfigYaml, uniformFleet } from '../../src/sim/fleet.js';
import { SimServer } from '../../src/sim/server.js';
import { runCli, startCli } from '../helpers/cli.js';
import { closedPort, get, sample, scrape, series, waitFor, writeConfig } from '../helpers/harness.js';

const FLEET = uniformFleet(12);
const TOKEN = 'service-account-token-of-avahealth-shard';

describe('--shard auto: N from the pod\'s StatefulSet', () => {
  let api: Server;
  let sim: SimServer;
  let env: NodeJS.ProcessEnv;
  let config: string;
  let replicas = 3;
  const asked: string[] = [];

  beforeAll(async () => {
    const dir = mkdtempSync(join(tmpdir(), 'avahealth-serviceaccount-'));
    execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '2', '-subj', '/CN=kubernetes', '-addext', 'subjectAltName=IP:127.0.0.1', '-keyout', join(dir, 'key.pem'), '-out', join(dir, 'ca.crt')], { stdio: 'ignore' });
    writeFileSync(join(dir, 'token'), `${TOKEN}\n`);
    writeFileSync(join(dir, 'namespace'), 'monitoring');
    api = createServer({ cert: readFileSync(join(dir, 'ca.crt')), key: readFileSync(join(dir, 'key.pem')) }, (req, res) => {
      req.resume();
      asked.push(`${req.method} ${req.url}`);
      if (req.headers.authorization !== `Bearer ${TOKEN}`) return void res.writeHead(401).end();
      if (req.url !== '/apis/apps/v1/namespaces/monitoring/statefulsets/avahealth-shard') return void res.writeHead(403, { 'content-type': 'application/json' }).end('{"kind":"Status","reason":"Forbidden"}');
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ apiVersion: 'apps/v1', kind: 'StatefulSet', metadata: { name: 'avahealth-shard', namespace: 'monitoring' }, spec: { replicas, serviceName: 'avahealth-shard' }, status: { replicas } }));
    });
    await new Promise<void>((resolve) => api.listen(0, '127.0.0.1', resolve));
    env = {
      HOSTNAME: 'avahealth-shard-1',
      KUBERNETES_SERVICE_HOST: '127.0.0.1',
      KUBERNETES_SERVICE_PORT: String((api.address() as AddressInfo).port),
      AVAHEALTH_SERVICE_ACCOUNT_DIR: dir,
      AVAHEALTH_SHARD_WATCH_MS: '300',
    };
    sim = new SimServer(FLEET.map((n) => ({ ...n, periodMs: 3_600_000 })));
    await sim.listen(0);
    config = writeConfig(`${fleetConfigYaml(FLEET, { baseUrl: sim.baseUrl, interval: '1s', services: false })}state_dir: \${AVAHEALTH_STATE_DIR}\n`);
  });

  afterAll(async () => {
    await sim?.close();
    api?.close();
  });

  const start = async () => {
    const port = await closedPort();
    const child = startCli(['run', '--config', config, '--listen', `127.0.0.1:${port}`, '--shard', 'auto'], { ...env, AVAHEALTH_STATE_DIR: mkdtempSync(join(tmpdir(), 'avahealth-shard-auto-')) });
    const url = `http://127.0.0.1:${port}`;
    await waitFor('the shard to be ready', async () => (await get(`${url}/-/ready`).catch(() => ({ status: 0 }))).status === 200, 30_000).catch((err: Error) => {
      throw new Error(`${err.message}\n${child.output()}`);
    });
    return { child, url };
  };
  const polled = async (url: string) => series(await scrape(url), 'avahealth_probe_success', { endpoint: 'health', view: 'all' }).map((s) => s.labels.target!).sort();
  const shardOf = (count: number) => FLEET.map((n) => n.name).filter((name) => inShard(name, { index: 1, count })).sort();

  it('polls shard <ordinal> of the StatefulSet\'s replicas, and a rescale restarts it on the new split', { timeout: 60_000 }, async () => {
    replicas = 3;
    const first = await start();
    try {
      expect(sample(await scrape(first.url), 'avahealth_shard_count', { shard_index: '1' })).toBe(3);
      await waitFor('shard 1/3 to poll its targets', async () => (await polled(first.url)).length === shardOf(3).length, 15_000);
      expect(await polled(first.url)).toEqual(shardOf(3));
      expect(asked[0]).toBe('GET /apis/apps/v1/namespaces/monitoring/statefulsets/avahealth-shard');

      replicas = 5; // kubectl scale statefulset avahealth-shard --replicas 5
      expect(await first.child.exit).toBe(0);
      expect(first.child.output()).toContain('the StatefulSet was rescaled');
    } finally {
      first.child.child.kill('SIGKILL');
    }
    const second = await start();
    try {
      expect(sample(await scrape(second.url), 'avahealth_shard_count', { shard_index: '1' })).toBe(5);
      await waitFor('shard 1/5 to poll its targets', async () => (await polled(second.url)).length === shardOf(5).length, 15_000);
      expect(await polled(second.url)).toEqual(shardOf(5));
      expect(shardOf(5)).not.toEqual(shardOf(3));
    } finally {
      second.child.child.kill('SIGTERM');
      await second.child.exit;
    }
  });

  it('refuses to start with a clear message when it cannot know N', async () => {
    replicas = 3;
    const below = await runCli(['run', '--config', config, '--shard', 'auto'], { ...env, HOSTNAME: 'avahealth-shard-4', AVAHEALTH_STATE_DIR: mkdtempSync(join(tmpdir(), 'avahealth-shard-auto-')) });
    expect(below).toMatchObject({ code: 1, stderr: expect.stringContaining("pod ordinal 4 is not below the StatefulSet's 3 replicas") });
    const forbidden = await runCli(['run', '--config', config, '--shard', 'auto'], { ...env, HOSTNAME: 'other-0', AVAHEALTH_STATE_DIR: mkdtempSync(join(tmpdir(), 'avahealth-shard-auto-')) });
    expect(forbidden).toMatchObject({ code: 1, stderr: expect.stringContaining('HTTP 403') });
    const outside = await runCli(['run', '--config', config, '--shard', 'auto'], { ...env, KUBERNETES_SERVICE_HOST: '', AVAHEALTH_STATE_DIR: mkdtempSync(join(tmpdir(), 'avahealth-shard-auto-')) });
    expect(outside).toMatchObject({ code: 1, stderr: expect.stringContaining('KUBERNETES_SERVICE_HOST is not set') });
    expect(forbidden.stderr + below.stderr + outside.stderr).not.toContain(TOKEN);
  });
});
