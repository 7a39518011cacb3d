import { createHmac, timingSafeEqual } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { batch, notice, START } from '../../../../test/helpers/notices.js';
import { deliverTo } from '../../../../test/helpers/receivers.js';
import { receiverSchema } from '../schemas.js';
import { sign, webhookPayload } from './send.js';

describe('webhook: config slice and secrets', () => {
  it('resolves url and secret, inline or from files, and lists them and every header value as secrets', () => {
    const dir = mkdtempSync(join(tmpdir(), 'avahealth-webhook-'));
    writeFileSync(join(dir, 'url'), 'https://hooks.example/T0K3N/abc\n');
    writeFileSync(join(dir, 'secret'), 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw\n');
    const receiver = receiverSchema.parse({ name: 'oncall', webhook: { url_file: join(dir, 'url'), secret_file: join(dir, 'secret'), headers: { 'x-team': 'infra' } } });
    expect(receiver).toMatchObject({
      kind: 'webhook',
      settings: { url: 'https://hooks.example/T0K3N/abc', secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', headers: { 'x-team': 'infra' } },
      secrets: ['https://hooks.example/T0K3N/abc', '/T0K3N/abc', 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', 'infra'],
    });
  });

  it('needs an http(s) url, at the field', () => {
    const result = receiverSchema.safeParse({ name: 'x', webhook: { url: 'ftp://nope' } });
    expect(result.error?.issues.map((i) => [i.path.join('.'), i.message])).toEqual([['webhook.url', 'receiver "x": webhook needs an http(s) url (url or url_file)']]);
  });
});

describe('webhook: send (Alertmanager webhook format, version 4)', () => {
  it('has the documented shape', () => {
    expect(webhookPayload(batch([notice('C'), notice('network', 'firing', 'critical')]), 'oncall', 'http://avahealth:9660')).toEqual({
      version: '4',
      groupKey: '{}:{target="validator-1"}',
      truncatedAlerts: 0,
      status: 'firing',
      receiver: 'oncall',
      groupLabels: { target: 'validator-1' },
      commonLabels: { alertname: 'AvalancheCheckFailing', target: 'validator-1', env: 'mainnet' },
      commonAnnotations: {},
      externalURL: 'http://avahealth:9660',
      alerts: [
        { status: 'firing', labels: notice('C').labels, annotations: notice('C').annotations, startsAt: START, endsAt: '0001-01-01T00:00:00Z', generatorURL: 'http://avahealth:9660/targets/validator-1', fingerprint: 'fp-C' },
        { status: 'firing', labels: { ...notice('network').labels, severity: 'critical' }, annotations: notice('network').annotations, startsAt: START, endsAt: '0001-01-01T00:00:00Z', generatorURL: 'http://avahealth:9660/targets/validator-1', fingerprint: 'fp-network' },
      ],
    });
    expect(webhookPayload(batch([notice('C', 'resolved')]), 'oncall', 'x').status).toBe('resolved');
  });

  /** Standard Webhooks verification, written from the spec, independent of the signer. */
  function verify(secret: string, headers: { id: string; timestamp: string; signature: string }, body: string): boolean {
    const key = secret.startsWith('whsec_') ? Buffer.from(secret.split('_')[1]!, 'base64') : Buffer.from(secret);
    const expected = createHmac('sha256', key).update(`${headers.id}.${headers.timestamp}.${body}`).digest();
    return headers.signature.split(' ').some((part) => {
      const [version, value] = part.split(',');
      if (version !== 'v1' || !value) return false;
      const given = Buffer.from(value, 'base64');
      return given.length === expected.length && timingSafeEqual(given, expected);
    });
  }

  it('signs id.timestamp.body with HMAC-SHA256; a whsec_ secret is base64-decoded', () => {
    const body = JSON.stringify({ hello: 'world' });
    for (const secret of ['whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', 'plain-shared-secret']) {
      const signature = sign(secret, 'msg_2Kv1', 1_795_340_000, body);
      expect(signature).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
      expect(verify(secret, { id: 'msg_2Kv1', timestamp: '1795340000', signature }, body)).toBe(true);
      expect(verify(secret, { id: 'msg_2Kv1', timestamp: '1795340000', signature }, `${body} `)).toBe(false);
    }
    // the standard's published example
    expect(sign('whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', 'msg_p5jXN8AQM9LWM0D4loKWxJek', 1614265330, '{"test": 2432232314}')).toBe('v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=');
  });

  it('delivers a signed POST to a real server, with its extra headers', async () => {
    const secret = 'plain-shared-secret';
    const [request] = await deliverTo((url) => ({ name: 'oncall', webhook: { url: `${url}/hook`, secret, headers: { 'x-team': 'infra' } } }), batch([notice('C')]));
    expect(request!.path).toBe('/hook');
    expect(request!.headers['x-team']).toBe('infra');
    expect(request!.headers['webhook-id']).toBe('msg_2Kv1');
    const signature = String(request!.headers['webhook-signature']);
    expect(verify(secret, { id: 'msg_2Kv1', timestamp: String(request!.headers['webhook-timestamp']), signature }, request!.body)).toBe(true);
  });
});
