import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HttpClient, ProbeError } from '../../src/transport/client.js';
import { startFixtureServer } from '../helpers/harness.js';

/** The exchange reads bodies straight from undici's dispatch API: what a response stream used to do for us is checked here. */
describe('HttpClient exchange', () => {
  let server: Awaited<ReturnType<typeof startFixtureServer>>;
  const closed: string[] = [];
  const client = new HttpClient({ maxResponseBytes: 64 * 1024, userAgent: 'avahealth-test' });

  beforeAll(async () => {
    server = await startFixtureServer((req, res) => {
      req.resume();
      res.on('close', () => closed.push(req.url!));
      if (req.url === '/chunks') {
        res.writeHead(200, { 'content-type': 'application/json', 'x-seen-agent': req.headers['user-agent'] ?? '' });
        res.write(Buffer.from([0xef, 0xbb, 0xbf]));
        res.write('{"healthy":');
        setTimeout(() => res.end(' true, "name": "n\u00e9ud"}'), 20);
      } else if (req.url === '/pieces') {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.write('{"healthy":true,"took":"3');
        // a character of two bytes split across pieces, then one of three and one of four
        res.write(Buffer.from([0xc2]));
        setTimeout(() => res.end(Buffer.concat([Buffer.from([0xb5]), Buffer.from('s","x":"\u2713\u{1f600}"}')])), 20);
      } else if (req.url === '/early-hints') {
        res.writeEarlyHints({ link: '</style.css>; rel=preload' });
        res.writeHead(503, { 'content-type': 'application/json' });
        res.end('{"healthy":false}');
      } else if (req.url === '/endless') {
        // no content-length: only the bytes read can tell it is too large
        res.writeHead(200, { 'content-type': 'application/json' });
        const pump = () => {
          while (!res.destroyed && res.write(Buffer.alloc(16 * 1024, 0x20)));
          if (!res.destroyed) res.once('drain', pump);
        };
        pump();
      } else if (req.url === '/stalls') {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.write('{"healthy":');
      } else if (req.url === '/declared-large') {
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(1024 * 1024) });
        res.write('{');
      } else {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end('{}');
      }
    });
  });

  afterAll(async () => {
    await client.close();
    await server.close();
  });

  it('joins a body sent in pieces, as UTF-8 without the byte-order mark, with status and headers', async () => {
    const response = await client.request({ url: `${server.url}/chunks`, timeoutMs: 2000 });
    expect(response.status).toBe(200);
    expect(response.headers['x-seen-agent']).toBe('avahealth-test');
    expect(response.body).toBe('{"healthy": true, "name": "n\u00e9ud"}');
  });

  it('tells whether a body is a given text from its bytes, across pieces, without decoding it', async () => {
    const response = await client.request({ url: `${server.url}/pieces`, timeoutMs: 2000 });
    const text = '{"healthy":true,"took":"3\u00b5s","x":"\u2713\u{1f600}"}';
    expect(response.size).toBe(Buffer.byteLength(text));
    expect(response.sameAs!(text)).toBe(true);
    expect(response.sameAs!(text.replace('3', '4'))).toBe(false);
    expect(response.sameAs!(text.replace('\u00b5', '\u00b6'))).toBe(false);
    expect(response.sameAs!(text.replace('\u{1f600}', '\u{1f601}'))).toBe(false);
    expect(response.sameAs!(text.slice(0, -1))).toBe(false);
    expect(response.sameAs!(`${text} `)).toBe(false);
    expect(response.body).toBe(text);
    expect(response.sameAs!(text)).toBe(true); // decoded since: compared as text
    // a byte-order mark: not told from the bytes (the caller compares the text)
    const other = await client.request({ url: `${server.url}/chunks`, timeoutMs: 2000 });
    expect(other.sameAs!('{"healthy": true, "name": "n\u00e9ud"}')).toBe(false);
    expect(other.body).toBe('{"healthy": true, "name": "n\u00e9ud"}');
  });

  it('skips an informational 1xx response and returns the final one', async () => {
    const response = await client.request({ url: `${server.url}/early-hints`, timeoutMs: 2000 });
    expect(response).toMatchObject({ status: 503, body: '{"healthy":false}' });
  });

  it('refuses a body that grows past the cap without a content-length, and drops the connection', async () => {
    const failure = await client.request({ url: `${server.url}/endless`, timeoutMs: 5000 }).catch((err: unknown) => err);
    expect(failure).toBeInstanceOf(ProbeError);
    expect((failure as ProbeError).reason).toBe('too_large');
    await expect.poll(() => closed.includes('/endless')).toBe(true);
  });

  it('refuses a declared content-length over the cap before reading the body', async () => {
    const failure = await client.request({ url: `${server.url}/declared-large`, timeoutMs: 5000 }).catch((err: unknown) => err);
    expect(failure).toMatchObject({ reason: 'too_large', message: 'response body of 1048576 bytes exceeds the size limit' });
    await expect.poll(() => closed.includes('/declared-large')).toBe(true);
  });

  it('gives up at the deadline when the body stops coming, and drops the connection', async () => {
    const failure = await client.request({ url: `${server.url}/stalls`, timeoutMs: 300 }).catch((err: unknown) => err);
    expect(failure).toMatchObject({ reason: 'timeout', message: 'no complete response within 300 ms' });
    await expect.poll(() => closed.includes('/stalls')).toBe(true);
    // the client is still usable afterwards
    expect((await client.request({ url: `${server.url}/plain`, timeoutMs: 2000 })).body).toBe('{}');
  });
});
