/**
 * Connections cannot lock anyone out (issue 25, 3): 512 sockets that each sent one request and
 * idled held every connection the server would take for up to the 65 s keep-alive timeout, and
 * /-/healthy and /metrics got connection resets. Real sockets against a real daemon: 600 idle
 * keep-alive connections and 200 that ask for /metrics and never read it, then a new client must
 * be answered (with a client timeout of 1 s); an idle keep-alive connection is closed by the server
 * on its own; a reader too slow for its reply is cut off; over TLS, a slow reader is not taken for idle.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect as connectTls, type TLSSocket } from 'node:tls';
import { Gatekeeper } from '../../src/http/gate.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IDLE_EVICTION_AT, MAX_CONNECTIONS } from '../../src/http/connections.js';
import { createHttpServer, closeServer, listen } from '../../src/http/server.js';
import { text } from '../../src/http/route.js';
import type { SimServer } from '../../src/sim/server.js';
import { startDaemon, startSim, waitFor, waitForRounds, type RunningDaemon } from '../helpers/harness.js';

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
    const server = createHttpServer([{ methods: ['GET'], path: '/big', handle: () => text(200, 'x'.repeat(size)) }, { methods: ['GET'], path: '/small', handle: () => text(200, 'ok') }], () => undefined, gate);
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
