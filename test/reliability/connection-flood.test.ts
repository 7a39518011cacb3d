/**
 * Connections cannot lock anyone out (issue 25, 3): 512 sockets that each sent one request and
 * idled held every connection the server would take for up to the 65 s keep-alive timeout, and
 * /-/healthy and /metrics got connection resets. Real sockets against a real daemon: 600 idle
 * keep-alive connections and 200 that ask for /metrics and never read it, then a new client must
 * be answered (with a client timeout of 1 s); an idle keep-alive connection is closed by the server
 * on its own; a reader too slow for its reply is cut off; over TLS, a slow reader is not taken for idle.
 *
 * Issue 35, 1 and 2: a slow TLS reader crashed the daemon when the write deadline reset it
 * (resetAndDestroy() on a TLS socket throws ERR_INVALID_HANDLE_TYPE), and requests pipelined
 * without reading were each answered into memory (2,000 of them: +400 MB). The built daemon over
 * TLS, with real clients that pipeline and never read; and the server in-process, counting how many
 * of 2,000 pipelined requests it handles.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect as connectTls, type TLSSocket } from 'node:tls';
import { Gatekeeper } from '../../src/http/gate.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IDLE_EVICTION_AT, MAX_ACTIVE, MAX_CONNECTIONS, MAX_WAITING } from '../../src/http/connections.js';
import { createHttpServer, closeServer, listen } from '../../src/http/server.js';
import { text } from '../../src/http/route.js';
import type { SimServer } from '../../src/sim/server.js';
import { Agent, request } from 'undici';
import { startCli } from '../helpers/cli.js';
import { parseExposition, sample, startDaemon, startSim, waitFor, waitForRounds, writeConfig, type RunningDaemon } from '../helpers/harness.js';

const NODES = 150;

/** A GET on a new connection that must be answered within `timeoutMs` (connect, headers and body). */
function getWithin(port: number, path: string, timeoutMs: number): Promise<{ status: number; length: number }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, path, agent: false, timeout: timeoutMs }, (res) => {
      let length = 0;
      res.on('data', (c: Buffer) => (length += c.length));
      res.on('end', () => resolve({ status: res.statusCode!, length }));
    });
    const timer = setTimeout(() => req.destroy(new Error(`no answer to ${path} within ${timeoutMs} ms`)), timeoutMs);
    req.on('close', () => clearTimeout(timer));
    req.on('timeout', () => req.destroy(new Error(`${path} timed out`)));
    req.on('error', reject);
    req.end();
  });
}

/**
 * A raw keep-alive socket that has sent `GET path`; resolves once the answer has begun to arrive.
 * `read: false` takes in no more than its first buffer: the rest piles up in the kernel's buffers,
 * then in the server's.
 */
function rawGet(port: number, path: string, read: boolean): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port });
    socket.on('error', () => undefined);
    socket.once('connect', () => socket.write(`GET ${path} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n\r\n`));
    if (read) socket.once('data', () => resolve(socket));
    else socket.once('readable', () => resolve(socket));
    socket.once('close', () => reject(new Error('closed before an answer')));
  });
}

describe('idle and slow-reading connections', () => {
  let sim: SimServer;
  let d: RunningDaemon;
  let port: number;
  const sockets: Socket[] = [];

  beforeAll(async () => {
    sim = await startSim(Array.from({ length: NODES }, (_, i) => ({ name: `n${i}`, scenario: 'healthy' as const })));
    const nodes = Array.from({ length: NODES }, (_, i) => `  - {name: n${i}, url: "${sim.nodeUrl(`n${i}`)}"}`).join('\n');
    d = await startDaemon(`listen: 127.0.0.1:0\ndefaults: {interval: 1h, timeout: 10s, validator: false}\nnodes:\n${nodes}\n`);
    port = Number(new URL(d.url).port);
    for (let i = 0; i < NODES; i++) await waitForRounds(d, `n${i}`, 1);
  }, 60_000);

  afterAll(async () => {
    for (const socket of sockets) socket.destroy();
    await d?.stop();
    await sim?.close();
  });

  it('/-/healthy answers within 1 s with 600 idle and 200 slow-reading connections open', { timeout: 120_000 }, async () => {
    const metrics = await getWithin(port, '/metrics', 10_000);
    expect(metrics.status).toBe(200);
    // larger than what loopback buffers take from a reader that never reads: the slow readers hold their replies
    expect(metrics.length).toBeGreaterThan(1024 * 1024);
    expect(IDLE_EVICTION_AT + 200 + 1).toBeLessThan(MAX_CONNECTIONS);

    // (an attacker's socket the server refuses outright is simply not counted)
    const opened = (all: Array<Socket | undefined>) => all.filter((s): s is Socket => s !== undefined);
    let closedByServer = 0;
    for (let i = 0; i < 600; i += 50) {
      const batch = opened(await Promise.all(Array.from({ length: 50 }, () => rawGet(port, '/-/healthy', true).catch(() => undefined))));
      for (const socket of batch) socket.once('close', () => closedByServer++);
      sockets.push(...batch);
    }
    sockets.push(...opened(await Promise.all(Array.from({ length: 200 }, () => rawGet(port, '/metrics', false).catch(() => undefined)))));
    for (let i = 0; i < 5; i++) expect((await getWithin(port, '/-/healthy', 1_000)).status).toBe(200);
    expect((await getWithin(port, '/metrics', 10_000)).status).toBe(200);
    // the oldest idle connections made room
    expect(closedByServer).toBeGreaterThan(0);
  });

  it('closes an idle keep-alive connection on its own', { timeout: 30_000 }, async () => {
    const socket = await rawGet(port, '/-/ready', true);
    sockets.push(socket);
    let closed = false;
    socket.once('close', () => (closed = true));
    await waitFor('the server to close the idle connection', () => closed, 20_000);
  });
});

describe('a reader too slow for its reply', () => {
  it('is cut off by the write deadline, connection and all', { timeout: 30_000 }, async () => {
    const body = Buffer.alloc(32 * 1024 * 1024, 'x');
    const server = createHttpServer([{ methods: ['GET'], path: '/big', handle: () => text(200, body.toString()) }], () => undefined, undefined, { writeTimeoutMs: 500 });
    const { port } = (await listen(server, '127.0.0.1', 0)) as AddressInfo;
    let serverSide: Socket | undefined;
    let serverClosed = false;
    server.on('connection', (socket: Socket) => {
      serverSide = socket;
      socket.once('close', () => (serverClosed = true));
    });
    try {
      const socket = await rawGet(port, '/big', false);
      await waitFor('the server to cut the reader off', () => serverClosed, 20_000);
      expect(serverSide!.destroyed).toBe(true);
      let received = 0;
      let clientClosed = false;
      socket.on('data', (c: Buffer) => (received += c.length));
      socket.once('close', () => (clientClosed = true));
      socket.resume();
      await waitFor('the client to see the end', () => clientClosed, 10_000);
      expect(received).toBeLessThan(body.length);
    } finally {
      await closeServer(server);
    }
  });
});

describe('over TLS', () => {
  it('a connection whose reply is being read slowly is not taken for idle; idle ones make room', { timeout: 60_000 }, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'avahealth-flood-tls-'));
    execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '1', '-subj', '/CN=127.0.0.1', '-keyout', join(dir, 'k.pem'), '-out', join(dir, 'c.pem')], { stdio: 'ignore' });
    const gate = new Gatekeeper({ tls: { cert: readFileSync(join(dir, 'c.pem')), key: readFileSync(join(dir, 'k.pem')), requestCert: false, rejectUnauthorized: false, minVersion: 'TLSv1.2' }, clientAuth: 'NoClientCert', users: new Map(), headers: {}, files: [], empty: false });
    const size = 4 * 1024 * 1024;
    const server = createHttpServer([{ methods: ['GET'], path: '/big', handle: () => text(200, 'x'.repeat(size)) }, { methods: ['GET'], path: '/small', handle: () => text(200, 'ok') }], () => undefined, gate, {
      writeTimeoutMs: 600_000, // the slow readers take their time on a busy machine: not what this is about
    });
    const { port } = (await listen(server, '127.0.0.1', 0)) as AddressInfo;
    const open = (path: string) =>
      new Promise<TLSSocket>((resolve, reject) => {
        const socket = connectTls({ host: '127.0.0.1', port, rejectUnauthorized: false }, () => socket.write(`GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`));
        socket.on('error', () => undefined);
        socket.once('readable', () => resolve(socket));
        socket.once('close', () => reject(new Error('closed before an answer')));
      });
    const slow: TLSSocket[] = [];
    const idle: TLSSocket[] = [];
    try {
      for (let i = 0; i < 100; i++) slow.push(await open('/big'));
      let idleClosed = 0;
      for (let i = 0; i < IDLE_EVICTION_AT; i++) {
        const socket = await open('/small');
        socket.once('close', () => idleClosed++);
        socket.resume();
        idle.push(socket);
      }
      await waitFor('the oldest idle connections closed to make room', () => idleClosed > 0, 10_000);
      // every slow reader still gets its whole reply
      const received = await Promise.all(
        slow.map(
          (socket) =>
            new Promise<number>((resolve) => {
              let n = 0;
              socket.on('data', (c: Buffer) => {
                n += c.length;
                if (n > size) resolve(n);
              });
              socket.once('close', () => resolve(n));
              socket.resume();
            }),
        ),
      );
      expect(received.filter((n) => n > size)).toHaveLength(100);
    } finally {
      for (const socket of [...slow, ...idle]) socket.destroy();
      await closeServer(server);
    }
  });
});

/** A self-signed certificate for 127.0.0.1 in a new directory. */
function selfSigned(): { dir: string; cert: Buffer; key: Buffer } {
  const dir = mkdtempSync(join(tmpdir(), 'avahealth-flood-tls-'));
  execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '1', '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1', '-keyout', join(dir, 'tls.key'), '-out', join(dir, 'tls.crt')], { stdio: 'ignore' });
  return { dir, cert: readFileSync(join(dir, 'tls.crt')), key: readFileSync(join(dir, 'tls.key')) };
}

/**
 * Whether the server has ended a connection its client does not read. Such a client does not see a
 * reset either: this writes an empty line (which HTTP ignores before a request) to find out, as a
 * write to a reset connection fails.
 */
function watchClosed(socket: Socket): () => boolean {
  let closed = false;
  socket.once('close', () => (closed = true));
  return () => {
    if (!closed && socket.writable && socket.readyState === 'open') socket.write('\r\n');
    return closed;
  };
}

/** A TLS socket that sends `count` pipelined GETs of `path` at once and never reads. */
function pipelineTls(port: number, path: string, count: number): { socket: TLSSocket; closedByServer: () => boolean } {
  const socket = connectTls({ host: '127.0.0.1', port, rejectUnauthorized: false }, () => socket.write(`GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`.repeat(count)));
  socket.on('error', () => undefined);
  socket.pause();
  return { socket, closedByServer: watchClosed(socket) };
}

describe('the daemon over TLS, against clients that pipeline and never read', () => {
  it('is not crashed by the write deadline, closes every such connection and stays healthy, its memory bounded', { timeout: 150_000 }, async () => {
    const sim = await startSim(Array.from({ length: NODES }, (_, i) => ({ name: `n${i}`, scenario: 'healthy' as const })));
    const { dir, cert } = selfSigned();
    writeFileSync(join(dir, 'web.yml'), 'tls_server_config:\n  cert_file: tls.crt\n  key_file: tls.key\n');
    const nodes = Array.from({ length: NODES }, (_, i) => `  - {name: n${i}, url: "${sim.nodeUrl(`n${i}`)}"}`).join('\n');
    const file = writeConfig(`listen: 127.0.0.1:0\nstate_dir: ./state\ndefaults: {interval: 1h, timeout: 10s, validator: false}\nnodes:\n${nodes}\n`);
    const daemon = startCli(['run', '--config', file, '--web.config.file', join(dir, 'web.yml')]);
    const dispatcher = new Agent({ connect: { ca: cert } });
    const attackers: TLSSocket[] = [];
    try {
      const [, address] = await daemon.waitForOutput(/"address":"([^"]+)".*avahealth started/);
      const port = Number(address!.slice(address!.lastIndexOf(':') + 1));
      const get = async (path: string) => {
        const res = await request(`https://${address}${path}`, { dispatcher });
        return { status: res.statusCode, body: await res.body.text() };
      };
      const rss = async () => sample(parseExposition((await get('/metrics')).body), 'process_resident_memory_bytes')!;
      await waitFor('every node polled', async () => !(await get('/api/v1/status')).body.includes('"state":"pending"'), 30_000);
      const rssBefore = await rss();
      expect((await get('/metrics')).body.length).toBeGreaterThan(1024 * 1024); // more than loopback buffers take from a reader that never reads

      // Few enough requests to be waited for: the replies pile up until the write deadline resets the
      // connection. That reset used to throw on a TLS socket and end the process.
      const slow = pipelineTls(port, '/metrics', MAX_WAITING / 2);
      // Five that pipeline 2,000 status requests each (the issue: +400 MB each).
      const floods = Array.from({ length: 5 }, () => pipelineTls(port, '/api/v1/status', 2_000));
      attackers.push(slow.socket, ...floods.map((f) => f.socket));
      for (let i = 0; i < 5; i++) expect((await get('/-/healthy')).status).toBe(200);
      await waitFor('the pipelining connections closed by the server', () => floods.every((f) => f.closedByServer()), 30_000); // too far ahead
      await waitFor('the slow reader cut off', () => slow.closedByServer(), 90_000); // by the write deadline (30 s)

      expect(daemon.child.exitCode).toBeNull();
      expect(daemon.output()).not.toMatch(/ERR_INVALID_HANDLE_TYPE|uncaught/i);
      expect((await get('/-/healthy')).status).toBe(200);
      expect(await rss()).toBeLessThan(rssBefore + 100 * 1024 * 1024);
    } finally {
      for (const socket of attackers) socket.destroy();
      daemon.child.kill('SIGKILL');
      await dispatcher.close();
      await sim.close();
    }
  });
});

describe('what one connection may queue', () => {
  it('of 2,000 requests pipelined without reading, only a few are handled before the connection is stopped', { timeout: 30_000 }, async () => {
    let handled = 0;
    const reply = 'x'.repeat(256 * 1024);
    const server = createHttpServer(
      [
        { methods: ['GET'], path: '/api/v1/status', handle: () => (handled++, text(200, reply)) },
        { methods: ['GET'], path: '/-/healthy', handle: () => text(200, 'ok') },
      ],
      () => undefined,
    );
    const { port } = (await listen(server, '127.0.0.1', 0)) as AddressInfo;
    let serverSide: Socket | undefined;
    server.on('connection', (socket: Socket) => (serverSide ??= socket));
    const client = connect({ host: '127.0.0.1', port });
    client.on('error', () => undefined);
    client.pause(); // never reads
    try {
      client.write(`GET /api/v1/status HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`.repeat(2_000));
      await waitFor('the server to stop reading the connection or close it', () => serverSide && (serverSide.destroyed || serverSide.isPaused()), 10_000);
      expect((await getWithin(port, '/-/healthy', 5_000)).status).toBe(200);
      // at most MAX_ACTIVE at a time, and no more once the client is too far ahead (was every one: 2,000)
      expect(handled).toBeGreaterThan(0);
      expect(handled).toBeLessThanOrEqual(MAX_ACTIVE + MAX_WAITING);
      expect(serverSide!.writableLength).toBeLessThanOrEqual(MAX_ACTIVE * reply.length);
    } finally {
      client.destroy();
      await closeServer(server);
    }
  });

  it('a few pipelined requests wait: the connection is not read while they do, and all are answered once the client reads', { timeout: 30_000 }, async () => {
    let handled = 0;
    const reply = 'y'.repeat(4 * 1024 * 1024);
    const server = createHttpServer([{ methods: ['GET'], path: '/big', handle: () => (handled++, text(200, reply)) }], () => undefined);
    const { port } = (await listen(server, '127.0.0.1', 0)) as AddressInfo;
    let serverSide: Socket | undefined;
    server.on('connection', (socket: Socket) => (serverSide ??= socket));
    const client = connect({ host: '127.0.0.1', port });
    client.on('error', () => undefined);
    client.pause();
    try {
      const count = 10;
      client.write(`GET /big HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`.repeat(count));
      await waitFor('the server to stop reading the connection', () => serverSide?.isPaused(), 10_000);
      // replies wait for the client, a few at most (each is 4 MiB; loopback buffers take less)
      expect(handled).toBeLessThan(count);
      let received = 0;
      client.on('data', (c: Buffer) => (received += c.length));
      client.resume();
      await waitFor('every reply', () => received >= count * reply.length, 20_000);
      expect(handled).toBe(count);
    } finally {
      client.destroy();
      await closeServer(server);
    }
  });

  it('a connection with a request in flight that takes nothing of its reply is closed to make room', { timeout: 60_000 }, async () => {
    const evictionAt = 8;
    const server = createHttpServer(
      [
        { methods: ['GET'], path: '/big', handle: () => text(200, 'z'.repeat(4 * 1024 * 1024)) },
        { methods: ['GET'], path: '/small', handle: () => text(200, 'ok') },
      ],
      () => undefined,
      undefined,
      { writeTimeoutMs: 600_000, evictionAt },
    );
    const { port } = (await listen(server, '127.0.0.1', 0)) as AddressInfo;
    const stalled: Socket[] = [];
    try {
      const probes: Array<() => boolean> = [];
      for (let i = 0; i < evictionAt; i++) {
        const socket = await rawGet(port, '/big', false);
        socket.pause();
        probes.push(watchClosed(socket));
        stalled.push(socket);
      }
      // each new client is answered; once the stalled ones have taken nothing for a while, one goes
      await waitFor(
        'a stalled connection closed for a new one',
        async () => {
          const fresh = await rawGet(port, '/small', true);
          fresh.destroy();
          return probes.filter((closedByServer) => closedByServer()).length > 0;
        },
        45_000,
      );
    } finally {
      for (const socket of stalled) socket.destroy();
      await closeServer(server);
    }
  });
});

describe('a slow TLS reader at the write deadline', () => {
  it('is reset without an exception (the TLS socket has no TCP handle of its own)', { timeout: 30_000 }, async () => {
    const { cert, key } = selfSigned();
    const gate = new Gatekeeper({ tls: { cert, key, requestCert: false, rejectUnauthorized: false, minVersion: 'TLSv1.2' }, clientAuth: 'NoClientCert', users: new Map(), headers: {}, files: [], empty: false });
    const body = 'x'.repeat(32 * 1024 * 1024);
    const server = createHttpServer([{ methods: ['GET'], path: '/big', handle: () => text(200, body) }], () => undefined, gate, { writeTimeoutMs: 500 });
    const { port } = (await listen(server, '127.0.0.1', 0)) as AddressInfo;
    const uncaught: unknown[] = [];
    const onUncaught = (err: unknown) => uncaught.push(err);
    process.on('uncaughtException', onUncaught);
    try {
      let serverSide: TLSSocket | undefined;
      server.once('secureConnection', (socket: TLSSocket) => (serverSide = socket));
      const { socket, closedByServer } = pipelineTls(port, '/big', 1);
      await waitFor('the write deadline to end the connection', () => serverSide?.destroyed, 10_000);
      await waitFor('the client to see the reset', closedByServer, 10_000);
      socket.destroy();
      expect(uncaught).toEqual([]);
    } finally {
      process.off('uncaughtException', onUncaught);
      await closeServer(server);
    }
  });
});
