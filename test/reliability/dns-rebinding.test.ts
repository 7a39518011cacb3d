/**
 * Host allow-list for writes (issue 25, 4): a DNS-rebinding page is same-origin with itself, so
 * `Host: rebind.attacker.example:PORT` with a matching `Origin` passed the Origin check and wrote
 * silences and reloaded the config. Every write (POST/DELETE silences, POST /-/reload) now needs a
 * Host that is this avahealth's: localhost, an IP address, the listen address, external_url's host
 * or one in `allowed_hosts` (which a reload changes); an Origin must be such a host too.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDaemon, type RunningDaemon } from '../helpers/harness.js';

/** A raw request to 127.0.0.1 with whatever Host and Origin a browser under DNS rebinding would send. */
function send(port: number, method: string, path: string, headers: Record<string, string>, body?: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, method, path, headers, setHost: false }, (res) => {
      let text = '';
      res.on('data', (c: Buffer) => (text += c.toString()));
      res.on('end', () => resolve({ status: res.statusCode!, body: text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

describe('writes need a Host that is this avahealth', () => {
  let d: RunningDaemon;
  let port: number;
  let file: string;
  const dir = mkdtempSync(join(tmpdir(), 'avahealth-rebind-'));
  const silence = JSON.stringify({ matchers: { target: 'n1' }, endsAt: new Date(Date.now() + 3_600_000).toISOString(), comment: 'rebinding test' });
  const config = (allowed: string[]) => `state_dir: ${join(dir, 'state')}\nexternal_url: http://avahealth.example.com:9660/\nallowed_hosts: [${allowed.join(', ')}]\nnodes: [{name: n1, url: "http://127.0.0.1:1", interval: 1h}]\n`;

  beforeAll(async () => {
    file = join(dir, 'config.yaml');
    d = await startDaemon(config(['avahealth.monitoring.svc']), { file, adminApi: true, lifecycle: true });
    port = Number(new URL(d.url).port);
  });
  afterAll(() => d?.stop());

  const post = (host: string, origin?: string) => send(port, 'POST', '/api/v1/silences', { host, 'content-type': 'application/json', ...(origin ? { origin } : {}) }, silence);

  it('refuses the rebinding page: a foreign Host with a matching Origin, for every write', async () => {
    const attacker = `rebind.attacker.example:${port}`;
    const headers = { host: attacker, origin: `http://${attacker}` };
    const created = await post(attacker, `http://${attacker}`);
    expect(created.status).toBe(403);
    expect(created.body).toContain('is not one of this avahealth');
    expect((await send(port, 'POST', '/-/reload', headers)).status).toBe(403);
    expect((await send(port, 'DELETE', '/api/v1/silences/some-id', headers)).status).toBe(403);
    // the same without an Origin (a form POST need not send one) and without a Host at all
    expect((await post(attacker)).status).toBe(403);
    expect([400, 403]).toContain((await send(port, 'POST', '/-/reload', {})).status); // Node's server refuses HTTP/1.1 without Host itself
    expect(JSON.parse((await send(port, 'GET', '/api/v1/silences', { host: `127.0.0.1:${port}` })).body)).toEqual([]);
    // reads are not writes: they answer whatever the Host (see docs/security.md)
    expect((await send(port, 'GET', '/-/healthy', { host: attacker })).status).toBe(200);
  });

  it('accepts localhost, IP addresses, the external URL host and allowed_hosts; an Origin must be the Host it was sent to', async () => {
    for (const host of [`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`, `10.1.2.3:${port}`, 'avahealth.example.com:9660', 'AVAHEALTH.monitoring.svc:9660', 'avahealth.monitoring.svc.']) {
      expect([host, (await post(host)).status]).toEqual([host, 200]);
    }
    expect((await post(`localhost:${port}`, `http://localhost:${port}`)).status).toBe(200);
    expect((await post(`localhost:${port}`, `http://127.0.0.1:${port}`)).status).toBe(403);
    expect((await post(`localhost:${port}`, `http://rebind.attacker.example:${port}`)).status).toBe(403);
    const id = (JSON.parse((await post('avahealth.monitoring.svc')).body) as { id: string }).id;
    expect((await send(port, 'DELETE', `/api/v1/silences/${id}`, { host: 'avahealth.monitoring.svc' })).status).toBe(200);
  });

  it('allowed_hosts follows a reload', async () => {
    writeFileSync(file, config(['other.monitoring.svc']));
    expect(readFileSync(file, 'utf8')).toContain('other.monitoring.svc');
    expect((await send(port, 'POST', '/-/reload', { host: 'avahealth.monitoring.svc' })).status).toBe(200);
    expect((await post('avahealth.monitoring.svc')).status).toBe(403);
    expect((await post('other.monitoring.svc')).status).toBe(200);
  });
});
