/**
 * A streamed reply (src/http/server.ts, the plain `/metrics` body): sent chunked, piece by piece,
 * each piece handed over only after the last was written; a client that goes away mid-body ends
 * the writing (the body's writer, and the metrics snapshot it holds, do not wait on it).
 */
import { connect } from 'node:net';
import { request } from 'undici';
import { describe, expect, it } from 'vitest';
import { closeServer, createHttpServer, listen } from '../../src/http/server.js';
import type { Route, StreamedBody } from '../../src/http/route.js';

const PIECE = 1 << 20;

/** A body of `pieces` pieces from one buffer, refilled with the next letter only when its last piece was taken. */
function letters(pieces: number): StreamedBody & { started: Promise<void>; written: Promise<unknown> } {
  let done!: (outcome: unknown) => void;
  const written = new Promise((resolve) => (done = resolve));
  let start!: () => void;
  const started = new Promise<void>((resolve) => (start = resolve));
  return {
    started,
    written,
    write: async (take) => {
      const buffer = Buffer.alloc(PIECE);
      try {
        for (let i = 0; i < pieces; i++) {
          buffer.fill(97 + (i % 26));
          const taken = take(buffer);
          start();
          await taken;
        }
        done('all written');
      } catch (err) {
        done(err);
        throw err;
      }
    },
  };
}

describe('a streamed reply', () => {
  it('arrives whole and chunked, each piece as it was when taken', async () => {
    const body = letters(5);
    const routes: Route[] = [{ path: '/big', methods: ['GET', 'HEAD'], handle: () => ({ status: 200, contentType: 'text/plain', body }) }];
    const server = createHttpServer(routes, (err) => { throw err; });
    const { port } = await listen(server, '127.0.0.1', 0);
    try {
      const res = await request(`http://127.0.0.1:${port}/big`);
      expect(res.headers['transfer-encoding']).toBe('chunked');
      expect(res.headers['content-length']).toBeUndefined();
      const received = Buffer.from(await res.body.arrayBuffer());
      expect(received.length).toBe(5 * PIECE);
      for (let i = 0; i < 5; i++) expect(received.subarray(i * PIECE, (i + 1) * PIECE).every((b) => b === 97 + i)).toBe(true);
      expect(await body.written).toBe('all written');
      const head = await request(`http://127.0.0.1:${port}/big`, { method: 'HEAD' });
      expect([head.statusCode, (await head.body.arrayBuffer()).byteLength]).toEqual([200, 0]);
    } finally {
      await closeServer(server);
    }
  });

  it('ends the writing when the client goes away without reading', async () => {
    // far more than the socket buffers hold: the writer is waiting on a piece when the client leaves
    const body = letters(400);
    const routes: Route[] = [{ path: '/big', methods: ['GET'], handle: () => ({ status: 200, contentType: 'text/plain', body }) }];
    const server = createHttpServer(routes, (err) => { throw err; });
    const { port } = await listen(server, '127.0.0.1', 0);
    try {
      const socket = connect(port, '127.0.0.1');
      socket.pause(); // reads nothing
      await new Promise<void>((resolve) => socket.once('connect', resolve));
      socket.write('GET /big HTTP/1.1\r\nHost: x\r\n\r\n');
      await body.started;
      socket.destroy();
      const outcome = await body.written;
      expect(outcome).toBeInstanceOf(Error);
    } finally {
      await closeServer(server);
    }
  });
});
