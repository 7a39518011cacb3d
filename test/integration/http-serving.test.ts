/**
 * Every route is served by the main thread, for any fleet size: the web config's gate (TLS, basic
 * auth, headers) and its reload, `/metrics` in each format, JSON bodies under a cap, and a clean
 * stop with a keep-alive connection open.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import bcrypt from 'bcryptjs';
import { Agent, request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SimServer } from '../../src/sim/server.js';
import { startCli } from '../helpers/cli.js';
import { startDaemon, startSim, waitFor, writeConfig, type RunningDaemon } from '../helpers/harness.js';

const NODES = 25;

describe('a fleet of 25 nodes behind TLS and basic auth', () => {
  const dir = mkdtempSync(join(tmpdir(), 'avahealth-serving-'));
  let sim: SimServer;
  let d: RunningDaemon;
  let ca: string;
  let agent: Agent;
  const hashOf = (password: string) => bcrypt.hashSync(password, 4).replace(/^\$2b\$/, '$2y$');
  const webConfig = (password: string) =>
    `tls_server_config:\n  cert_file: server.crt\n  key_file: server.key\nbasic_auth_users:\n  prometheus: ${hashOf(password)}\nhttp_server_config:\n  headers:\n    X-Frame-Options: DENY\n`;
  const basic = (password: string) => ({ authorization: `Basic ${Buffer.from(`prometheus:${password}`).toString('base64')}` });
  let auth = basic('correct horse');

  beforeAll(async () => {
    execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '2', '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1', '-keyout', join(dir, 'server.key'), '-out', join(dir, 'server.crt')], { stdio: 'ignore' });
    ca = readFileSync(join(dir, 'server.crt'), 'utf8');
    agent = new Agent({ connect: { ca } });
    writeFileSync(join(dir, 'web.yml'), webConfig('correct horse'));
    sim = await startSim(Array.from({ length: NODES }, (_, i) => ({ name: `node-${i + 1}`, scenario: 'healthy' as const })));
    const nodes = Array.from({ length: NODES }, (_, i) => `  - name: node-${i + 1}\n    url: ${sim.nodeUrl(`node-${i + 1}`)}\n`).join('');
    d = await startDaemon(`defaults:\n  interval: 1s\nnodes:\n${nodes}`, { webConfigFile: join(dir, 'web.yml') });
  });
  afterAll(async () => {
    await d?.stop();
    await sim?.close();
    await agent?.close();
  });

  const call = async (path: string, options: { method?: string; headers?: Record<string, string>; body?: string } = {}) => {
    const res = await request(`${d.url}${path}`, { dispatcher: agent, method: (options.method ?? 'GET') as 'GET', headers: { ...auth, ...options.headers }, ...(options.body !== undefined ? { body: options.body } : {}) });
    return { status: res.statusCode, headers: res.headers, body: Buffer.from(await res.body.arrayBuffer()) };
  };

  it('/-/healthy is behind the gate and carries the configured headers', async () => {
    const refused = await call('/-/healthy', { headers: { authorization: '' } });
    expect(refused.status).toBe(401);
    expect(refused.headers['www-authenticate']).toBe('Basic realm="avahealth", charset="UTF-8"');
    const healthy = await call('/-/healthy');
    expect([healthy.status, healthy.body.toString()]).toEqual([200, 'Healthy\n']);
    expect(healthy.headers['x-frame-options']).toBe('DENY');
    expect(healthy.headers['x-content-type-options']).toBe('nosniff');
    const head = await call('/-/healthy', { method: 'HEAD' });
    expect([head.status, head.body.length]).toEqual([200, 0]);
    const post = await call('/-/healthy', { method: 'POST' });
    expect([post.status, post.headers.allow]).toEqual([405, 'GET, HEAD']);
  });

  it('serves /-/ready, /metrics (plain, gzip, OpenMetrics), the status page and API over TLS', async () => {
    expect(d.url).toMatch(/^https:/);
    await waitFor('ready', async () => (await call('/-/ready')).status === 200, 20_000);
    const plain = await call('/metrics');
    expect(plain.status).toBe(200);
    expect(plain.headers['content-type']).toBe('text/plain; version=0.0.4; charset=utf-8');
    expect(plain.headers['x-frame-options']).toBe('DENY');
    expect(plain.body.toString()).toContain(`target="node-${NODES}"`);
    // streamed as it is assembled: chunked, no length up front
    expect([plain.headers['transfer-encoding'], plain.headers['content-length']]).toEqual(['chunked', undefined]);
    const gzip = await call('/metrics', { headers: { accept: 'application/openmetrics-text;version=1.0.0', 'accept-encoding': 'gzip' } });
    expect(gzip.headers['content-encoding']).toBe('gzip');
    expect(gzip.headers['content-type']).toBe('application/openmetrics-text; version=1.0.0; charset=utf-8');
    const unzipped = gunzipSync(gzip.body).toString();
    expect(unzipped).toContain(`target="node-${NODES}"`);
    expect(unzipped.endsWith('# EOF\n')).toBe(true);
    const head = await call('/metrics', { method: 'HEAD' });
    expect([head.status, head.body.length]).toEqual([200, 0]);
    const status = JSON.parse((await call('/api/v1/status')).body.toString()) as { ready: boolean; targets: unknown[] };
    expect([status.ready, status.targets.length]).toEqual([true, NODES]);
    const page = await call('/');
    expect(page.status).toBe(200);
    expect(page.body.toString()).toContain(`node-${NODES}`);
    expect((await call('/nope')).status).toBe(404);
  });

  it('admin routes take a JSON body, capped in size', async () => {
    const json = { 'content-type': 'application/json' };
    const created = await call('/api/v1/silences', { method: 'POST', headers: json, body: JSON.stringify({ matchers: { target: 'node-1' }, endsAt: new Date(Date.now() + 3_600_000).toISOString(), comment: 'over TLS' }) });
    expect(created.status).toBe(200);
    const { id } = JSON.parse(created.body.toString()) as { id: string };
    const alerts = JSON.parse((await call('/api/v1/alerts')).body.toString()) as { silences: Array<{ id: string; comment: string }> };
    expect(alerts.silences.find((s) => s.id === id)?.comment).toBe('over TLS');
    expect((await call(`/api/v1/silences/${id}`, { method: 'DELETE' })).status).toBe(200);
    const broken = await call('/api/v1/silences', { method: 'POST', headers: json, body: '{"matchers":' });
    expect(broken.status).toBe(400);
    expect(broken.body.toString()).toContain('body must be JSON');
    const huge = await call('/api/v1/silences', { method: 'POST', headers: json, body: JSON.stringify({ comment: 'x'.repeat(100_000) }) });
    expect(JSON.parse(huge.body.toString())).toEqual({ error: 'body must be JSON: request body too large' });
    const reload = await call('/-/reload', { method: 'POST' });
    expect([reload.status, reload.body.toString()]).toEqual([200, 'config reloaded\n']);
  });

  it('a reloaded web config applies to the next requests', async () => {
    writeFileSync(join(dir, 'web.yml'), webConfig('battery staple'));
    await waitFor('the new password', async () => (await call('/-/healthy', { headers: basic('battery staple') })).status === 200, 10_000);
    expect((await call('/-/healthy')).status).toBe(401);
    auth = basic('battery staple');
    expect((await call('/metrics')).status).toBe(200);
    expect(d.logs()).toContain('web config reloaded');
  });
});

describe('avahealth run with 25 nodes', () => {
  it.each(['SIGTERM', 'SIGINT'] as const)('stops cleanly on %s, a keep-alive connection open', async (signal) => {
    const sim = await startSim(Array.from({ length: NODES }, (_, i) => ({ name: `n${i}`, scenario: 'healthy' as const })));
    const file = writeConfig(`listen: 127.0.0.1:0\nnodes:\n${Array.from({ length: NODES }, (_, i) => `  - {name: n${i}, url: "${sim.nodeUrl(`n${i}`)}"}\n`).join('')}`);
    const daemon = startCli(['run', '--config', file]);
    const agent = new Agent({ keepAliveTimeout: 60_000 });
    try {
      const [, port] = await daemon.waitForOutput(/"address":"127\.0\.0\.1:(\d+)"/);
      const res = await request(`http://127.0.0.1:${port}/-/healthy`, { dispatcher: agent });
      expect([res.statusCode, await res.body.text()]).toEqual([200, 'Healthy\n']);
      daemon.child.kill(signal);
      expect(await daemon.exit).toBe(0);
      expect(daemon.output()).toContain('"msg":"stopped"');
    } finally {
      daemon.child.kill('SIGKILL');
      await agent.close();
      await sim.close();
    }
  });
});
