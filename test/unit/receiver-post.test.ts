/**
 * The one request every receiver sends (src/alerts/receivers/post.ts), against a local server on
 * port 0: what counts as delivered, what the outbox tries again (and after how long), and what it
 * gives up on, with the receiver's answer kept for senders that read it and secrets redacted.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { poster } from '../../src/alerts/receivers/post.js';
import { DeliveryError } from '../../src/alerts/receivers/receiver.js';
import { HttpClient } from '../../src/transport/client.js';

let server: Server;
let base = '';
const seen: Array<{ method: string; path: string; body: string; type: string | undefined }> = [];
const http = new HttpClient({ maxResponseBytes: 1 << 20 });
const post = poster(http);

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      seen.push({ method: req.method!, path: req.url!, body, type: req.headers['content-type'] });
      const [status, ...headerPairs] = req.url!.slice(1).split('/');
      const headers: Record<string, string> = {};
      for (let i = 0; i + 1 < headerPairs.length; i += 2) headers[headerPairs[i]!] = decodeURIComponent(headerPairs[i + 1]!);
      res.writeHead(Number(status), headers);
      res.end(`answer ${status} for token-abcdef ${'x'.repeat(5000)}`);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await http.close();
  await new Promise((resolve) => server.close(resolve));
});

const failure = async (path: string): Promise<DeliveryError> => {
  const err = await post({ url: `${base}${path}`, headers: { 'content-type': 'application/json' }, body: '{}', secrets: ['token-abcdef'] }).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(DeliveryError);
  return err as DeliveryError;
};

describe('a delivery request', () => {
  it('is a POST of the body with its headers unless it says otherwise; any 2xx is delivered, with the answer', async () => {
    expect(await post({ url: `${base}/200`, headers: { 'content-type': 'application/json' }, body: '{"a":1}' })).toMatch(/^answer 200 for/);
    expect(await post({ url: `${base}/204`, headers: {} })).toBe('');
    expect(await post({ url: `${base}/299`, method: 'DELETE', headers: {} })).toMatch(/^answer 299/);
    expect(seen.slice(-3).map((s) => `${s.method} ${s.path} ${s.body} ${s.type ?? '-'}`)).toEqual(['POST /200 {"a":1} application/json', 'POST /204  -', 'DELETE /299  -']);
  });

  it('a 3xx or 4xx is given up on, with the status, the answer capped and the secret redacted from the message', async () => {
    for (const status of [400, 404, 409, 300]) {
      const err = await failure(`/${status}`);
      expect(err, String(status)).toMatchObject({ retryable: false, reason: 'http_4xx', status, retryAfterMs: undefined });
      expect(err.message.startsWith(`HTTP ${status}: answer ${status} for `)).toBe(true);
      expect(err.message).not.toContain('token-abcdef');
      expect(err.body).toHaveLength(4096);
    }
  });

  it('429 is tried again after what the receiver asks (its Retry-After), 408 and 5xx too, after it only when it says', async () => {
    expect(await failure('/429/retry-after/7')).toMatchObject({ retryable: true, reason: 'rate_limited', retryAfterMs: 7000, status: 429 });
    expect((await failure('/429')).retryAfterMs).toBe(60_000); // no Retry-After: a minute (transport/rate-limit.ts)
    expect(await failure('/503/retry-after/3')).toMatchObject({ retryable: true, reason: 'http_5xx', retryAfterMs: 3000, status: 503 });
    expect(await failure('/500')).toMatchObject({ retryable: true, reason: 'http_5xx', retryAfterMs: undefined, status: 500 });
    expect(await failure('/408')).toMatchObject({ retryable: true, reason: 'timeout', retryAfterMs: undefined, status: 408 });
    expect(await failure('/499')).toMatchObject({ retryable: false, reason: 'http_4xx' });
  });

  it('a receiver that cannot be reached is tried again', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const err = await post({ url: `http://127.0.0.1:${port}/`, headers: {} }).catch((e: unknown) => e as DeliveryError);
    expect(err).toMatchObject({ retryable: true, reason: 'network' });
    expect((err as DeliveryError).message).toMatch(/ECONNREFUSED|connect/i);
  });
});
