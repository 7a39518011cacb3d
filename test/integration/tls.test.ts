import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SimNode } from '../../src/sim/node.js';
import { goJson } from '../../src/sim/go-format.js';
import { sample, scrape, startDaemon, waitForRounds } from '../helpers/harness.js';

/** A self-signed certificate for 127.0.0.1, made fresh for the run. */
function selfSigned(): { dir: string; cert: string; key: string } {
  const dir = mkdtempSync(join(tmpdir(), 'avahealth-tls-'));
  execFileSync('openssl', [
    'req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '2',
    '-subj', '/CN=avahealth-test', '-addext', 'subjectAltName=IP:127.0.0.1',
    '-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem'),
  ], { stdio: 'ignore' });
  return { dir, cert: readFileSync(join(dir, 'cert.pem'), 'utf8'), key: readFileSync(join(dir, 'key.pem'), 'utf8') };
}

describe('https nodes', () => {
  let server: Server;
  let url: string;
  let certDir: string;

  beforeAll(async () => {
    const tls = selfSigned();
    certDir = tls.dir;
    const node = new SimNode({ name: 'tls-node' });
    server = createServer({ cert: tls.cert, key: tls.key }, (req, res) => {
      req.resume();
      const reply = node.health(undefined);
      res.writeHead(reply.healthy ? 200 : 503, { 'content-type': 'application/json', 'node-id': node.nodeId });
      res.end(`${goJson(reply)}\n`);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('verifies with ca_file, fails as tls without it, and insecure_skip_verify skips verification', async () => {
    const d = await startDaemon(`
defaults: {endpoints: [health], interval: 1s}
nodes:
  - {name: with-ca, url: "${url}", ca_file: "${join(certDir, 'cert.pem')}"}
  - {name: without-ca, url: "${url.replace('127.0.0.1', 'localhost')}"}
  - {name: skip-verify, url: "${url.replace('127.0.0.1', 'localhost')}", insecure_skip_verify: true}
`);
    try {
      await Promise.all(['with-ca', 'without-ca', 'skip-verify'].map((t) => waitForRounds(d, t, 1)));
      const m = await scrape(d.url);
      expect(sample(m, 'avahealth_probe_success', { target: 'with-ca', endpoint: 'health' })).toBe(1);
      expect(sample(m, 'avahealth_node_healthy', { target: 'with-ca' })).toBe(1);
      expect(sample(m, 'avahealth_probe_success', { target: 'without-ca', endpoint: 'health' })).toBe(0);
      expect(sample(m, 'avahealth_probe_failures_total', { target: 'without-ca', endpoint: 'health', reason: 'tls' })).toBeGreaterThanOrEqual(1);
      expect(sample(m, 'avahealth_probe_success', { target: 'skip-verify', endpoint: 'health' })).toBe(1);
    } finally {
      await d.stop();
    }
  });
});

describe('churn scenario', () => {
  it('checks fail and recover, and a temporary L1 chain comes and goes', () => {
    const node = new SimNode({ name: 'churny', scenario: 'churn', seed: 7, periodMs: 1000 });
    const start = Date.now();
    const names = new Set<number>();
    let sawFailure = false;
    let sawRecovery = false;
    let wasFailing = false;
    for (let i = 1; i <= 200; i++) {
      const reply = node.health(undefined, start + i * 1000);
      names.add(Object.keys(reply.checks).length);
      if (!reply.healthy) sawFailure = true;
      if (wasFailing && reply.healthy) sawRecovery = true;
      wasFailing = !reply.healthy;
    }
    expect(sawFailure && sawRecovery).toBe(true);
    expect([...names].sort()).toEqual([10, 11]); // the temporary chain appeared and vanished
  });
});
