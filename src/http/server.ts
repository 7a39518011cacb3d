/**
 * The daemon's HTTP server: matches a request to the routes handed in (http/routes/*, the status
 * page's own), applies the web config's gate and headers, reads bodies under a cap and writes the
 * replies. It knows no route by itself.
 */
import type { IncomingHttpHeaders, IncomingMessage, Server, ServerResponse } from 'node:http';
import { createServer as createTlsServer } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import { ConnectionGuard } from './connections.js';
import { BadRequest, isStreamed, text, type Reply, type Route, type StreamedBody } from './route.js';
import type { Denial, Gatekeeper } from './gate.js';
import type { WebSecurity } from './webconfig.js';

/**
 * `http` as CommonJS exports, not `import … from 'node:http'`: from Node.js 22 on, the ES module
 * of `http` reads every export, and its lazy `WebSocket`, `CloseEvent` and `MessageEvent` load
 * Node's own copy of undici (fetch and WebSocket), which avahealth never uses (its cost in RSS:
 * bench/RESULTS.md).
 */
const { createServer } = process.getBuiltinModule('node:http');

const MAX_REQUEST_BODY = 64 * 1024;
export const TLS_HANDSHAKE_TIMEOUT_MS = 10_000;
/** An idle keep-alive connection is closed after this long (clients open a new one when they need it). */
export const KEEP_ALIVE_TIMEOUT_MS = 5_000;
/** A reply not written out (read by the client) within this long is cut off with its connection. */
export const WRITE_TIMEOUT_MS = 30_000;

export interface ServerLimits {
  writeTimeoutMs?: number;
  /** Open connections from which a new one closes the oldest idle or stalled ones (connections.ts). */
  evictionAt?: number;
}

/** The body, up to MAX_REQUEST_BODY; a larger one is not kept (the rest is drained by the server). */
async function readBody(req: IncomingMessage): Promise<{ body: Buffer; tooLarge: boolean }> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_REQUEST_BODY) return { body: Buffer.alloc(0), tooLarge: true };
    chunks.push(chunk as Buffer);
  }
  return { body: Buffer.concat(chunks), tooLarge: false };
}

function parseJsonBody({ body, tooLarge }: { body: Buffer; tooLarge: boolean }): unknown {
  if (tooLarge) throw new BadRequest('request body too large');
  try {
    return JSON.parse(body.toString('utf8') || 'null');
  } catch (err) {
    throw new BadRequest((err as Error).message);
  }
}

/** What a route sees of a request. */
interface RequestHead {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
}

function headOf(req: IncomingMessage): RequestHead {
  return { method: req.method ?? 'GET', url: req.url ?? '/', headers: req.headers };
}

/** The reply to a handler's failure: a BadRequest's own status, anything else a 500 (and reported). */
function failureReply(err: unknown, onError: (err: unknown) => void): Reply {
  if (err instanceof BadRequest) return text(err.status, `${err.message}\n`);
  onError(err);
  return text(500, 'internal error\n');
}

const SECURITY_HEADERS = {
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
};

/** Plain HTTP, or HTTPS when the web config has TLS; with a gatekeeper, every route needs to pass it. */
export function createHttpServer(routes: readonly Route[], onError: (err: unknown) => void, gate?: Gatekeeper, limits: ServerLimits = {}): Server {
  const writeTimeoutMs = limits.writeTimeoutMs ?? WRITE_TIMEOUT_MS;
  let connections: ConnectionGuard | undefined;
  const send = (res: ServerResponse, reply: Reply) => sendReply(res, reply, writeTimeoutMs, (socket) => connections?.cutOff(socket));
  // at most a few requests of one connection at a time: a pipelining client that does not read its
  // replies is stopped reading (connections.ts)
  const handler = (req: IncomingMessage, res: ServerResponse) => (connections ? connections.admit(req, res, () => handle(req, res)) : handle(req, res));
  const handle = (req: IncomingMessage, res: ServerResponse) => {
    for (const [name, value] of Object.entries(gate?.current.headers ?? {})) res.setHeader(name, value);
    const denied = gate?.deny(req);
    if (denied instanceof Promise) {
      // a bcrypt check is running (asynchronously: other requests are served meanwhile)
      denied.then((answer) => (answer ? refuse(answer) : serve()), (err: unknown) => {
        onError(err);
        send(res, text(500, 'internal error\n'));
      });
      return;
    }
    if (denied) return refuse(denied);
    serve();
    function refuse(denial: Denial): void {
      req.resume();
      send(res, text(denial.status, `${denial.message}\n`, denial.headers));
    }
    function serve(): void {
      dispatch(routes, headOf(req), () => readBody(req))
        .catch((err: unknown) => failureReply(err, onError))
        .then((reply) => {
          req.resume();
          send(res, reply);
        })
        .catch((err: unknown) => {
          onError(err);
          res.destroy();
        });
    }
  };
  const tls = gate?.current.tls;
  // headersTimeout is enforced only as often as connections are checked (30 s by default).
  const checks = { connectionsCheckingInterval: 1_000 };
  const server: Server = tls ? (createTlsServer({ ...tls, ...checks, handshakeTimeout: TLS_HANDSHAKE_TIMEOUT_MS }, handler) as unknown as Server) : createServer(checks, handler);
  // Sockets that connect and never finish a TLS handshake or send a request are not held for long,
  // idle keep-alive ones neither, and the oldest idle ones make room for new connections long
  // before the cap (connections.ts): Prometheus, a browser and probes always get in.
  connections = new ConnectionGuard(server, limits.evictionAt);
  server.keepAliveTimeout = KEEP_ALIVE_TIMEOUT_MS;
  server.headersTimeout = 10_000;
  server.requestTimeout = 30_000;
  return server;
}

function matchPath(pattern: string | RegExp, path: string): string[] | undefined {
  if (typeof pattern === 'string') return pattern === path ? [] : undefined;
  const m = pattern.exec(path);
  return m ? m.slice(1).map((p) => p ?? '') : undefined;
}

function decodeParams(params: string[]): string[] {
  try {
    return params.map((p) => decodeURIComponent(p));
  } catch {
    throw new BadRequest('malformed percent-encoding in the URL');
  }
}

/** Matches the request to a route and runs it; `body` is read only when the route asks for JSON. */
async function dispatch(routes: readonly Route[], head: RequestHead, body: () => Promise<{ body: Buffer; tooLarge: boolean }>): Promise<Reply> {
  const [path = '/', query = ''] = head.url.split('?');
  const { method, headers } = head;
  const allowed = new Set<string>();
  for (const route of routes) {
    const params = matchPath(route.path, path);
    if (!params) continue;
    if (!route.methods.includes(method) && !route.methods.includes('*')) {
      for (const m of route.methods) allowed.add(m);
      continue;
    }
    return route.handle({ method, path, params: decodeParams(params), query: new URLSearchParams(query), headers, json: async () => parseJsonBody(await body()) });
  }
  if (allowed.size > 0) return text(405, 'method not allowed\n', { allow: [...allowed].join(', ') });
  if (method !== 'GET' && method !== 'HEAD') return text(405, 'method not allowed\n', { allow: 'GET, HEAD' });
  return text(404, 'not found\n');
}

/** Servers being closed: their replies end their connections (closeServer). */
const closing = new WeakSet<Server>();

function sendReply(res: ServerResponse, reply: Reply, writeTimeoutMs: number, cutOff: (socket: Socket) => void): void {
  const { body } = reply;
  // A client that reads slowly or not at all must not hold the reply for long: a reset, not a
  // close, so the kernel drops what it still buffers for that client too (connections.ts).
  const deadline = setTimeout(() => (res.socket ? cutOff(res.socket) : res.destroy()), writeTimeoutMs);
  deadline.unref();
  res.once('close', () => clearTimeout(deadline));
  // a reply finished after close() would leave its keep-alive connection open until keepAliveTimeout
  const server = (res.socket as { server?: Server } | null)?.server;
  if (server && closing.has(server)) res.shouldKeepAlive = false;
  if (isStreamed(body)) {
    res.writeHead(reply.status, { ...SECURITY_HEADERS, 'content-type': reply.contentType, ...reply.headers });
    if (res.req.method === 'HEAD') return void res.end();
    return void stream(res, body);
  }
  const length = typeof body === 'string' ? Buffer.byteLength(body) : Buffer.isBuffer(body) ? body.length : body.reduce((n, chunk) => n + chunk.length, 0);
  res.writeHead(reply.status, { ...SECURITY_HEADERS, 'content-type': reply.contentType, 'content-length': length, ...reply.headers });
  if (res.req.method === 'HEAD') return void res.end();
  if (!Array.isArray(body)) return void res.end(body);
  res.cork();
  for (const chunk of body) res.write(chunk);
  res.end();
}

/**
 * Writes a streamed body piece by piece, each after the last was handed to the socket. A client
 * gone meanwhile (closed, or reset at the write deadline) fails the write, which ends the writing.
 */
async function stream(res: ServerResponse, body: StreamedBody): Promise<void> {
  try {
    await body.write((piece) => new Promise<void>((resolve, reject) => res.write(piece, (err) => (err ? reject(err) : resolve()))));
    res.end();
  } catch {
    res.destroy();
  }
}

/** A reloaded web config's certificates, for the connections to come. */
export function applyTls(server: Server, security: WebSecurity): void {
  if (security.tls) (server as unknown as { setSecureContext(o: object): void }).setSecureContext(security.tls);
}

export async function listen(server: Server, host: string, port: number): Promise<AddressInfo> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  return server.address() as AddressInfo;
}

/** Stops accepting, closes idle connections and ends the others with the reply in flight. */
export async function closeServer(server: Server): Promise<void> {
  closing.add(server);
  await new Promise<void>((resolve) => {
    server.close(() => resolve());
    server.closeIdleConnections();
  });
}
