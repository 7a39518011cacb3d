/**
 * The HTTP front's worker thread (started by front.ts): it owns the listening socket, runs the web
 * config's gate (TLS, client certificates, basic auth) and answers `/-/healthy` from the main
 * thread's heartbeat; every other request goes to the main thread over the worker's port and its
 * reply comes back the same way. Its own V8 heap collects on its own: a garbage collection of the
 * main thread's large heap never delays what this thread answers by itself.
 */
import type { IncomingMessage, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { parentPort, workerData } from 'node:worker_threads';
import { Gatekeeper } from './gate.js';
import { livenessOf } from './heartbeat.js';
import type { FrontToMain, MainToFront, ReplyMessage, WorkerSettings } from './front-protocol.js';
import { text, type Reply } from './route.js';
import { closeServer, createServerWith, headOf, listen, readBody } from './server.js';

const settings = workerData as WorkerSettings;
const port = parentPort!;
const post = (message: FrontToMain, transfer: ArrayBuffer[] = []) => port.postMessage(message, transfer);

const gate = settings.security ? new Gatekeeper(settings.security) : undefined;
const waiting = new Map<number, (reply: Reply) => void>();
let nextId = 0;

function healthy(): Reply {
  const liveness = livenessOf(settings.heartbeat, Date.now(), settings.staleAfterMs);
  return liveness.alive ? text(200, 'Healthy\n') : text(503, `Unhealthy: ${liveness.reason}\n`);
}

async function forward(req: IncomingMessage): Promise<Reply> {
  const { body, tooLarge } = await readBody(req);
  const id = nextId++;
  return new Promise<Reply>((resolve) => {
    waiting.set(id, resolve);
    post({ type: 'request', id, head: headOf(req), body, tooLarge });
  });
}

function answer(req: IncomingMessage): Promise<Reply> {
  const path = (req.url ?? '/').split('?')[0];
  if (path === '/-/healthy' && (req.method === 'GET' || req.method === 'HEAD')) return Promise.resolve(healthy());
  return forward(req);
}

function replyOf(message: ReplyMessage): Reply {
  const { body } = message;
  return { status: message.status, contentType: message.contentType, body: typeof body === 'string' ? body : Buffer.from(body.buffer, body.byteOffset, body.byteLength), ...(message.headers ? { headers: message.headers } : {}) };
}

const reportError = (err: unknown) => post({ type: 'error', message: err instanceof Error ? err.message : String(err), ...(err instanceof Error && err.stack ? { stack: err.stack } : {}) });

const server: Server = createServerWith(answer, reportError, gate);

port.on('message', (message: MainToFront) => {
  switch (message.type) {
    case 'reply':
      waiting.get(message.id)?.(replyOf(message));
      waiting.delete(message.id);
      return;
    case 'security':
      if (message.security.tls) (server as unknown as { setSecureContext(o: object): void }).setSecureContext(message.security.tls);
      gate?.update(message.security);
      return;
    case 'close':
      void closeServer(server).then(() => {
        post({ type: 'closed' });
        port.close();
      });
      return;
  }
});

listen(server, settings.host, settings.port).then(
  (address: AddressInfo) => post({ type: 'listening', address }),
  (err: NodeJS.ErrnoException) => {
    post({ type: 'listen-failed', message: err.message, ...(err.code ? { code: err.code } : {}) });
    port.close();
  },
);
