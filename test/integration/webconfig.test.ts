import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect } from 'node:tls';
import bcrypt from 'bcryptjs';
import { Agent, request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/config/errors.js';
import { loadWebConfig } from '../../src/http/webconfig.js';
import { startDaemon, waitFor, type RunningDaemon } from '../helpers/harness.js';

const openssl = (...args: string[]) => execFileSync('openssl', args, { stdio: 'ignore' });

/** A CA, two server certificates for 127.0.0.1 signed by it (the second for rotation), a client certificate. */
function makePki(dir: string) {
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
  openssl('req', '-x509', ...ec, '-days', '2', '-subj', '/CN=avahealth-test-ca', '-keyout', join(dir, 'ca.key'), '-out', join(dir, 'ca.crt'));
  const issue = (name: string, ext: string) => {
    openssl('req', ...ec, '-subj', `/CN=${name}`, '-keyout', join(dir, `${name}.key`), '-out', join(dir, `${name}.csr`));
    writeFileSync(join(dir, `${name}.ext`), ext);
    openssl('x509', '-req', '-in', join(dir, `${name}.csr`), '-CA', join(dir, 'ca.crt'), '-CAkey', join(dir, 'ca.key'), '-CAcreateserial', '-days', '2', '-extfile', join(dir, `${name}.ext`), '-out', join(dir, `${name}.crt`));
  };
  issue('server-a', 'subjectAltName=IP:127.0.0.1\n');
  issue('server-b', 'subjectAltName=IP:127.0.0.1\n');
  issue('client', 'extendedKeyUsage=clientAuth\n');
}

function peerFingerprint(port: number, ca: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port, ca }, () => {
      resolve(socket.getPeerCertificate().fingerprint256);
      socket.end();
    });
    socket.on('error', reject);
  });
}

describe('--web.config.file: TLS, basic auth, headers', () => {
  const dir = mkdtempSync(join(tmpdir(), 'avahealth-web-'));
  let d: RunningDaemon;
  let ca: string;
  const hash = bcrypt.hashSync('correct horse', 4).replace(/^\$2b\$/, '$2y$');

  beforeAll(async () => {
    makePki(dir);
    ca = readFileSync(join(dir, 'ca.crt'), 'utf8');
    copyFileSync(join(dir, 'server-a.crt'), join(dir, 'server.crt'));
    copyFileSync(join(dir, 'server-a.key'), join(dir, 'server.key'));
    writeFileSync(
      join(dir, 'web.yml'),
      `tls_server_config:\n  cert_file: server.crt\n  key_file: server.key\nbasic_auth_users:\n  prometheus: ${hash}\nhttp_server_config:\n  headers:\n    X-Frame-Options: DENY\n`,
    );
    d = await startDaemon('nodes: []\n', { webConfigFile: join(dir, 'web.yml') });
  });
  afterAll(() => d?.stop());

  const get = async (path: string, headers: Record<string, string> = {}) => {
    const res = await request(`${d.url}${path}`, { dispatcher: new Agent({ connect: { ca } }), headers });
    return { status: res.statusCode, headers: res.headers, body: await res.body.text() };
  };
  const auth = { authorization: `Basic ${Buffer.from('prometheus:correct horse').toString('base64')}` };

  it('serves HTTPS only, with the configured certificate', async () => {
    expect(d.url).toMatch(/^https:/);
    await expect(request(d.url.replace('https:', 'http:') + '/metrics').then((r) => r.body.text())).rejects.toThrow();
  });

  it('every route needs the password, /metrics included; wrong passwords get 401', async () => {
    for (const path of ['/metrics', '/-/healthy', '/-/ready', '/', '/api/v1/status', '/api/v1/alerts']) {
      const res = await get(path);
      expect([path, res.status]).toEqual([path, 401]);
      expect(res.headers['www-authenticate']).toBe('Basic realm="avahealth", charset="UTF-8"');
    }
    expect((await get('/metrics', { authorization: `Basic ${Buffer.from('prometheus:wrong').toString('base64')}` })).status).toBe(401);
    expect((await get('/metrics', { authorization: `Basic ${Buffer.from('nobody:correct horse').toString('base64')}` })).status).toBe(401);
    const ok = await get('/metrics', auth);
    expect(ok.status).toBe(200);
    expect(ok.body).toContain('avahealth_build_info');
    expect(ok.headers['x-frame-options']).toBe('DENY');
  });

  it('a rotated certificate is served without a restart', async () => {
    const port = d.daemon.address!.port;
    const before = await peerFingerprint(port, ca);
    copyFileSync(join(dir, 'server-b.key'), join(dir, 'server.key'));
    copyFileSync(join(dir, 'server-b.crt'), join(dir, 'server.crt'));
    await waitFor('the new certificate', async () => (await peerFingerprint(port, ca)) !== before, 10_000);
    expect((await get('/metrics', auth)).status).toBe(200);
    expect(d.logs()).toContain('web config reloaded');
  });
});

describe('client certificates', () => {
  it('RequireAndVerifyClientCert rejects a client without a certificate and accepts one signed by the CA', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'avahealth-mtls-'));
    makePki(dir);
    writeFileSync(join(dir, 'web.yml'), 'tls_server_config:\n  cert_file: server-a.crt\n  key_file: server-a.key\n  client_ca_file: ca.crt\n  client_auth_type: RequireAndVerifyClientCert\n  min_version: TLS13\n');
    const d = await startDaemon('nodes: []\n', { webConfigFile: join(dir, 'web.yml') });
    try {
      const ca = readFileSync(join(dir, 'ca.crt'), 'utf8');
      await expect(request(`${d.url}/metrics`, { dispatcher: new Agent({ connect: { ca } }) }).then((r) => r.body.text())).rejects.toThrow();
      const withCert = new Agent({ connect: { ca, cert: readFileSync(join(dir, 'client.crt')), key: readFileSync(join(dir, 'client.key')) } });
      const res = await request(`${d.url}/metrics`, { dispatcher: withCert });
      expect(res.statusCode).toBe(200);
      await res.body.dump();
    } finally {
      await d.stop();
    }
  });
});

describe('web config errors', () => {
  it('are reported as FILE:LINE:COL', () => {
    const dir = mkdtempSync(join(tmpdir(), 'avahealth-webbad-'));
    const file = join(dir, 'web.yml');
    writeFileSync(file, 'basic_auth_users:\n  admin: hunter2\n');
    expect(() => loadWebConfig(file)).toThrow(ConfigError);
    expect(() => loadWebConfig(file)).toThrow(/web\.yml:2:10: basic_auth_users\.admin: must be a bcrypt hash/);
    writeFileSync(file, 'tls_server_config:\n  cert_file: nope.crt\n  key_file: nope.key\n');
    expect(() => loadWebConfig(file)).toThrow(/web\.yml:2:14: cannot read cert_file: ENOENT/);
    writeFileSync(file, 'tls_server_config:\n  cert_file: a\n  key_file: b\n  client_auth_type: RequireAndVerifyClientCert\n');
    expect(() => loadWebConfig(file)).toThrow(/client_auth_type RequireAndVerifyClientCert needs client_ca_file/);
  });
});
