/**
 * Fault injection: one running daemon polls a healthy fleet beside targets that each misbehave in
 * one way. Every fault must be classified, the daemon must keep answering /metrics, the healthy
 * targets must keep their schedule, nothing may reject unhandled, memory and series stay bounded.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer as createHttp, type Server } from 'node:http';
import { createServer as createHttps } from 'node:https';
import { createServer as createTcp, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LIMITS } from '../../src/parse/avalanchego.js';
import { SimServer } from '../../src/sim/server.js';
import { OWN_FIXTURES } from '../helpers/fixtures.js';
import { closedPort, get, parseExposition, sample, scrape, series, startDaemon, waitFor, waitForRounds, type RunningDaemon } from '../helpers/harness.js';

type Closer = () => Promise<void>;

async function listenOn(server: Server | ReturnType<typeof createTcp>): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

function closer(server: Server | ReturnType<typeof createTcp>, sockets: Set<Socket>): Closer {
  return () =>
    new Promise<void>((resolve) => {
      for (const s of sockets) s.destroy();
      server.close(() => resolve());
    });
}

/** An HTTP server for one fault; sockets are tracked so the test can end them. */
async function faultServer(handle: (req: import('node:http').IncomingMessage, res: import('node:http').ServerResponse, socket: Socket) => void): Promise<{ url: string; close: Closer }> {
  const sockets = new Set<Socket>();
  const server = createHttp((req, res) => {
    req.resume();
    handle(req, res, req.socket);
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
    s.on('error', () => undefined);
  });
  return { url: `http://127.0.0.1:${await listenOn(server)}`, close: closer(server, sockets) };
}

function certificate(dir: string, name: string, days: number): { cert: string; key: string } {
  const run = (...args: string[]) => execFileSync('openssl', args, { stdio: 'ignore' });
  run('req', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-subj', `/CN=${name}`, '-keyout', join(dir, `${name}.key`), '-out', join(dir, `${name}.csr`));
  writeFileSync(join(dir, `${name}.ext`), 'subjectAltName=IP:127.0.0.1\n');
  run('x509', '-req', '-in', join(dir, `${name}.csr`), '-signkey', join(dir, `${name}.key`), '-days', String(days), '-extfile', join(dir, `${name}.ext`), '-out', join(dir, `${name}.crt`));
  return { cert: readFileSync(join(dir, `${name}.crt`), 'utf8'), key: readFileSync(join(dir, `${name}.key`), 'utf8') };
}

function manyChecks(count: number): string {
  const checks: Record<string, unknown> = {};
  for (let i = 0; i < count; i++) checks[`chk-${i}`] = { error: 'boom', timestamp: '2026-08-22T14:03:41Z', duration: 1, contiguousFailures: 1 };
  return JSON.stringify({ checks, healthy: false });
}

/** [target, reason it must be classified as] */
const EXPECTED: Array<[string, string]> = [
  ['refused', 'connect'],
  ['reset-mid-body', 'connect'],
  ['headers-never-come', 'timeout'],
  ['trickled-body', 'timeout'],
  ['body-50mb', 'too_large'],
  ['gzip-bomb', 'bad_json'],
  ['invalid-utf8', 'bad_json'],
  ['nested-100k', 'bad_shape'],
  ['html-502', 'http_status'],
  ['invalid-host-403', 'http_status'],
  ['rpc-error', 'rpc_error'],
  ['rpc-wrong-id', 'bad_shape'],
  ['no-such-host', 'dns'],
  ['tls-self-signed', 'tls'],
  ['tls-expired', 'tls'],
];

describe('fault injection', () => {
  const closers: Closer[] = [];
  const unhandled: unknown[] = [];
  const onUnhandled = (reason: unknown) => unhandled.push(reason);
  let sim: SimServer;
  let d: RunningDaemon;
  let rssBefore: number;

  beforeAll(async () => {
    process.on('unhandledRejection', onUnhandled);
    sim = new SimServer([
      { name: 'healthy-1', scenario: 'healthy' },
      { name: 'healthy-2', scenario: 'healthy' },
      { name: 'html-502', scenario: 'proxy-error' },
      { name: 'invalid-host-403', scenario: 'forbidden-host' },
      { name: 'rpc-error', scenario: 'rpc-error' },
      { name: 'rpc-wrong-id', scenario: 'wrong-id' },
    ]);
    await sim.listen(0);
    closers.push(() => sim.close());
    const dir = mkdtempSync(join(tmpdir(), 'avahealth-faults-'));
    const urls: Record<string, string> = {};
    const add = async (name: string, server: Promise<{ url: string; close: Closer }>) => {
      const s = await server;
      urls[name] = s.url;
      closers.push(s.close);
    };

    urls.refused = `http://127.0.0.1:${await closedPort()}`;
    await add('reset-mid-body', faultServer((_req, res, socket) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': '10000' });
      res.write('{"checks":{"C":{"timest');
      setTimeout(() => socket.destroy(), 20);
    }));
    {
      const sockets = new Set<Socket>();
      const silent = createTcp((s) => {
        sockets.add(s);
        s.on('error', () => undefined);
        s.on('close', () => sockets.delete(s));
      });
      urls['headers-never-come'] = `http://127.0.0.1:${await listenOn(silent)}`;
      closers.push(closer(silent, sockets));
    }
    await add('trickled-body', faultServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      const timer = setInterval(() => (res.destroyed ? clearInterval(timer) : res.write(' ')), 150);
      res.on('close', () => clearInterval(timer));
    }));
    const chunk = Buffer.alloc(1024 * 1024, 0x20);
    await add('body-50mb', faultServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(50 * chunk.length) });
      let sent = 0;
      const pump = () => {
        while (sent < 50 && !res.destroyed) {
          sent++;
          if (!res.write(chunk)) return void res.once('drain', pump);
        }
        res.end();
      };
      pump();
    }));
    const bomb = gzipSync(Buffer.alloc(64 * 1024 * 1024, 0x20)); // 64 MiB of spaces, ~64 KiB on the wire
    await add('gzip-bomb', faultServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' });
      res.end(bomb);
    }));
    await add('invalid-utf8', faultServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(Buffer.from([0x7b, 0xff, 0xfe, 0xfd, 0x22, 0x63, 0x22, 0x3a, 0x31, 0x7d]));
    }));
    const deep = '['.repeat(100_000) + ']'.repeat(100_000);
    await add('nested-100k', faultServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(deep);
    }));
    const tenThousand = manyChecks(10_000);
    await add('ten-thousand-checks', faultServer((_req, res) => {
      res.writeHead(503, { 'content-type': 'application/json' });
      res.end(tenThousand);
    }));
    const hostile = readFileSync(join(OWN_FIXTURES, 'avalanchego', 'hostile-check-names.json'));
    await add('hostile-names', faultServer((_req, res) => {
      res.writeHead(503, { 'content-type': 'application/json' });
      res.end(hostile);
    }));
    urls['no-such-host'] = 'http://avahealth-fault.invalid:9650';
    for (const [name, days] of [['tls-self-signed', 2], ['tls-expired', -1]] as const) {
      const tls = certificate(dir, name, days);
      const sockets = new Set<Socket>();
      const server = createHttps(tls, (req, res) => {
        req.resume();
        res.end('{"checks":{},"healthy":true}');
      }) as unknown as Server;
      server.on('connection', (s: Socket) => sockets.add(s));
      urls[name] = `https://127.0.0.1:${await listenOn(server)}`;
      closers.push(closer(server, sockets));
    }
    for (const name of ['healthy-1', 'healthy-2', 'html-502', 'invalid-host-403', 'rpc-error', 'rpc-wrong-id']) urls[name] = sim.nodeUrl(name);

    const rpc = new Set(['rpc-error', 'rpc-wrong-id']);
    const nodes = Object.entries(urls)
      .map(([name, url]) => {
        // The healthy nodes' schedule is asserted: their interval leaves room for the stalls of a
        // loaded machine beyond the deadline (800 ms), so only a poll the faults really delay is a skip.
        const extra = name === 'tls-expired' ? `, ca_file: "${join(dir, 'tls-expired.crt')}"` : name.startsWith('healthy-') ? ', interval: 2s' : '';
        return `  - {name: ${name}, url: "${url}"${rpc.has(name) ? ', protocol: jsonrpc' : ''}${extra}}`;
      })
      .join('\n');
    rssBefore = process.memoryUsage().rss;
    d = await startDaemon(`defaults: {interval: 1s, timeout: 800ms, endpoints: [health], validator: false}\nlimits: {max_checks_per_target: 200, max_response_size: 4MiB}\nnodes:\n${nodes}\n`);
    for (const name of Object.keys(urls)) await waitForRounds(d, name, 1);
  }, 60_000);

  afterAll(async () => {
    process.off('unhandledRejection', onUnhandled);
    await d?.stop();
    for (const close of closers) await close();
  });

  // The fault servers share this process with the daemon: on a loaded machine an answer can miss
  // the 800 ms deadline of a round (a timeout, rightly), so each waits for the round that classified it.
  it.each(EXPECTED)('%s is classified as %s', async (target, reason) => {
    const labels = { target, endpoint: 'health', view: 'all' };
    const m = await waitFor(`${target} classified as ${reason}`, async () => {
      const samples = await scrape(d.url);
      return sample(samples, 'avahealth_probe_failures_total', { ...labels, reason }) === undefined ? undefined : samples;
    });
    expect(sample(m, 'avahealth_probe_success', labels)).toBe(0);
    expect(sample(m, 'avahealth_probe_failures_total', { ...labels, reason }), `${target}: ${JSON.stringify(d.daemon.store.get(target)?.observation.endpoints[0])}`).toBeGreaterThanOrEqual(1);
  });

  it('10,000 checks in one body: the probe succeeds, the series stay capped, the excess is counted', async () => {
    const probe = { target: 'ten-thousand-checks', endpoint: 'health', view: 'all' };
    const m = await waitFor('a completed poll of ten-thousand-checks', async () => {
      const samples = await scrape(d.url);
      return sample(samples, 'avahealth_probe_success', probe) === 1 ? samples : undefined;
    });
    expect(sample(m, 'avahealth_probe_success', probe)).toBe(1);
    expect(series(m, 'avahealth_node_check_passing', { target: 'ten-thousand-checks' })).toHaveLength(200);
    // the parser keeps LIMITS.checks of them plus one "(more checks)" fact; /metrics shows 200 and counts the rest
    expect(sample(m, 'avahealth_node_checks_dropped_total', { target: 'ten-thousand-checks' })).toBeGreaterThanOrEqual(LIMITS.checks + 1 - 200);
  });

  it('check names with quotes, newlines, braces and <script> become safe, bounded labels', async () => {
    // the check series exist while the last poll succeeded: wait for a scrape after one that did
    const body = await waitFor('a completed poll of hostile-names', async () => {
      const text = (await get(`${d.url}/metrics`)).body;
      return series(parseExposition(text), 'avahealth_probe_success', { target: 'hostile-names' })[0]?.value === 1 ? text : undefined;
    });
    const names = series(parseExposition(body), 'avahealth_node_check_passing', { target: 'hostile-names' }).map((s) => s.labels.check!);
    expect(names).toHaveLength(5);
    for (const name of names) expect(name).toMatch(/^[A-Za-z0-9_.:\-/ ~]{1,128}$/);
    expect(body).not.toContain('<script>');
  });

  it('meanwhile the healthy targets kept their schedule and /metrics kept answering', async () => {
    const before = d.daemon.store.get('healthy-1')!.rounds;
    await waitForRounds(d, 'healthy-1', before + 2);
    await waitForRounds(d, 'healthy-2', before + 2);
    const m = await scrape(d.url);
    expect(sample(m, 'avahealth_node_healthy', { target: 'healthy-1', endpoint: 'health', view: 'all' })).toBe(1);
    expect(sample(m, 'avahealth_node_healthy', { target: 'healthy-2', endpoint: 'health', view: 'all' })).toBe(1);
    expect(sample(m, 'avahealth_scheduler_skipped_polls_total', { target: 'healthy-1' }) ?? 0).toBe(0);
  });

  it('nothing rejected unhandled, and memory stayed bounded', () => {
    expect(unhandled).toEqual([]);
    // 50 MB bodies, a 64 MiB gzip bomb and 10,000 checks every second must not pile up
    expect(process.memoryUsage().rss - rssBefore).toBeLessThan(300 * 1024 * 1024);
  });
});
