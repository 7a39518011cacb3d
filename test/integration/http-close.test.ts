/**
 * Closing the daemon's HTTP server (src/http/server.ts closeServer) while a request is in flight on
 * a keep-alive connection: the reply is still sent, with `connection: close`, and the close then
 * completes instead of waiting for the connection's keep-alive timeout (65 s).
 */
import { Agent, request } from 'undici';
import { describe, expect, it } from 'vitest';
import { closeServer, createHttpServer, listen } from '../../src/http/server.js';
import { text, type Route } from '../../src/http/route.js';

describe('closing the HTTP server', () => {
  it('answers the request in flight with connection: close and finishes closing', async () => {
    let entered!: () => void;
    const inHandler = new Promise<void>((resolve) => (entered = resolve));
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    const routes: Route[] = [{ path: '/slow', methods: ['GET'], handle: async () => (entered(), await released, text(200, 'done\n')) }];
    const server = createHttpServer(routes, (err) => { throw err; });
    const { port } = await listen(server, '127.0.0.1', 0);
    const agent = new Agent({ keepAliveTimeout: 600_000 });
    try {
      const reply = request(`http://127.0.0.1:${port}/slow`, { dispatcher: agent });
      await inHandler;
      const closed = closeServer(server);
      release();
      const res = await reply;
      expect(res.statusCode).toBe(200);
      expect(res.headers.connection).toBe('close');
      expect(await res.body.text()).toBe('done\n');
      await closed;
      expect(server.listening).toBe(false);
    } finally {
      await agent.close();
    }
  });
});
