/** The daemon's HTTP server: metrics, liveness/readiness of avahealth itself, reload, status. */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createTlsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { FAVICON, SCRIPT, STYLESHEET } from '../status/assets.js';
import type { Gatekeeper } from './webconfig.js';

export interface Routes {
  metrics: () => Promise<{ contentType: string; body: Buffer[] }>;
  ready: () => boolean;
  reload?: () => Promise<{ ok: boolean; error?: string }>;
  statusJson: () => unknown;
  /** The status page (`fragment`: only the inner HTML of <main>, for the refresh script). */
  fleetPage: (fragment: boolean) => string;
  targetPage: (name: string, fragment: boolean) => string | undefined;
  targetJson: (name: string) => unknown;
  alertsJson: () => unknown;
  /** Present only with --web.enable-admin-api. */
  silences?: {
    add: (body: unknown) => { ok: true; id: string } | { ok: false; error: string };
    expire: (id: string) => boolean;
  };
}

const MAX_REQUEST_BODY = 64 * 1024;

async function readJsonBody(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_REQUEST_BODY) throw new Error('request body too large');
    chunks.push(chunk as Buffer);
  }
  return JSON.parse(Buffer.concat(chunks).toString('utf8') || 'null');
}

const SECURITY_HEADERS = {
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
};

/** No inline code at all: the page's one stylesheet and one script are served from /static/. */
const PAGE_HEADERS = {
  'content-security-policy': "default-src 'none'; style-src 'self'; script-src 'self'; connect-src 'self'; img-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  'x-frame-options': 'DENY',
  'cache-control': 'no-store',
};

/** Plain HTTP, or HTTPS when the web config has TLS; with a gatekeeper, every route needs to pass it. */
export function createHttpServer(routes: Routes, onError: (err: unknown) => void, gate?: Gatekeeper): Server {
  const handler = (req: IncomingMessage, res: ServerResponse) => {
    for (const [name, value] of Object.entries(gate?.current.headers ?? {})) res.setHeader(name, value);
    const denied = gate?.deny(req);
    if (denied) {
      req.resume();
      return send(res, denied.status, 'text/plain; charset=utf-8', `${denied.message}\n`, denied.status === 401 ? { 'www-authenticate': 'Basic realm="avahealth", charset="UTF-8"' } : {});
    }
    handle(routes, req, res).catch((err: unknown) => {
      onError(err);
      if (!res.headersSent) send(res, 500, 'text/plain; charset=utf-8', 'internal error\n');
      else res.destroy();
    });
  };
  const tls = gate?.current.tls;
  const server: Server = tls ? (createTlsServer(tls, handler) as unknown as Server) : createServer(handler);
  server.keepAliveTimeout = 65_000;
  server.headersTimeout = 10_000;
  server.requestTimeout = 30_000;
  return server;
}

async function handle(routes: Routes, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const [path = '/', query = ''] = (req.url ?? '/').split('?');
  const fragment = new URLSearchParams(query).get('fragment') === 'main';
  const method = req.method ?? 'GET';
  if (path === '/api/v1/silences' || path.startsWith('/api/v1/silences/')) return handleSilences(routes, req, res, method, path);
  req.resume();
  if (path === '/-/reload') {
    if (method !== 'POST' && method !== 'PUT') return send(res, 405, 'text/plain; charset=utf-8', 'use POST\n', { allow: 'POST, PUT' });
    if (!routes.reload) return send(res, 403, 'text/plain; charset=utf-8', 'lifecycle API is not enabled (--web.enable-lifecycle)\n');
    const result = await routes.reload();
    return send(res, result.ok ? 200 : 500, 'text/plain; charset=utf-8', result.ok ? 'config reloaded\n' : `reload failed:\n${result.error}\n`);
  }
  if (method !== 'GET' && method !== 'HEAD') return send(res, 405, 'text/plain; charset=utf-8', 'method not allowed\n', { allow: 'GET, HEAD' });
  switch (path) {
    case '/metrics': {
      const { contentType, body } = await routes.metrics();
      return send(res, 200, contentType, body, { 'cache-control': 'no-store' });
    }
    case '/-/healthy':
      return send(res, 200, 'text/plain; charset=utf-8', 'Healthy\n');
    case '/-/ready':
      return routes.ready() ? send(res, 200, 'text/plain; charset=utf-8', 'Ready\n') : send(res, 503, 'text/plain; charset=utf-8', 'Not ready: first poll round not complete\n');
    case '/api/v1/alerts':
      return send(res, 200, 'application/json; charset=utf-8', `${JSON.stringify(routes.alertsJson())}\n`, { 'cache-control': 'no-store' });
    case '/api/v1/status':
      return send(res, 200, 'application/json; charset=utf-8', `${JSON.stringify(routes.statusJson())}\n`, { 'cache-control': 'no-store' });
    case '/':
      return send(res, 200, 'text/html; charset=utf-8', routes.fleetPage(fragment), PAGE_HEADERS);
    case '/static/avahealth.css':
      return send(res, 200, 'text/css; charset=utf-8', STYLESHEET, { 'cache-control': 'public, max-age=300' });
    case '/static/favicon.svg':
      return send(res, 200, 'image/svg+xml', FAVICON, { 'cache-control': 'public, max-age=86400' });
    case '/favicon.ico':
      return send(res, 204, 'image/svg+xml', '');
    case '/static/avahealth.js':
      return send(res, 200, 'text/javascript; charset=utf-8', SCRIPT, { 'cache-control': 'public, max-age=300' });
  }
  const target = /^\/targets\/([^/]+)$/.exec(path);
  if (target) {
    const html = routes.targetPage(decodeURIComponent(target[1]!), fragment);
    return html === undefined ? send(res, 404, 'text/plain; charset=utf-8', 'no such target\n') : send(res, 200, 'text/html; charset=utf-8', html, PAGE_HEADERS);
  }
  const targetApi = /^\/api\/v1\/targets\/([^/]+)$/.exec(path);
  if (targetApi) {
    const json = routes.targetJson(decodeURIComponent(targetApi[1]!));
    return json === undefined
      ? send(res, 404, 'application/json; charset=utf-8', '{"error":"no such target"}\n')
      : send(res, 200, 'application/json; charset=utf-8', `${JSON.stringify(json)}\n`, { 'cache-control': 'no-store' });
  }
  switch (path) {
    default:
      return send(res, 404, 'text/plain; charset=utf-8', 'not found\n');
  }
}

async function handleSilences(routes: Routes, req: IncomingMessage, res: ServerResponse, method: string, path: string): Promise<void> {
  const json = (status: number, value: unknown) => send(res, status, 'application/json; charset=utf-8', `${JSON.stringify(value)}\n`);
  if (method === 'GET' && path === '/api/v1/silences') {
    req.resume();
    return json(200, (routes.alertsJson() as { silences: unknown }).silences);
  }
  if (!routes.silences) {
    req.resume();
    return json(403, { error: 'the admin API is not enabled (--web.enable-admin-api)' });
  }
  if (method === 'POST' && path === '/api/v1/silences') {
    let body: unknown;
    try {
      body = await readJsonBody(req);
    } catch (err) {
      return json(400, { error: `body must be JSON: ${(err as Error).message}` });
    }
    const result = routes.silences.add(body);
    return result.ok ? json(200, { id: result.id }) : json(400, { error: result.error });
  }
  const id = /^\/api\/v1\/silences\/([^/]+)$/.exec(path)?.[1];
  req.resume();
  if (method === 'DELETE' && id) return routes.silences.expire(decodeURIComponent(id)) ? json(200, { expired: id }) : json(404, { error: 'no such silence' });
  return json(405, { error: 'use GET or POST /api/v1/silences, DELETE /api/v1/silences/{id}' });
}

function send(res: ServerResponse, status: number, contentType: string, body: string | Buffer[], headers: Record<string, string> = {}): void {
  const length = typeof body === 'string' ? Buffer.byteLength(body) : body.reduce((n, chunk) => n + chunk.length, 0);
  res.writeHead(status, { ...SECURITY_HEADERS, 'content-type': contentType, 'content-length': length, ...headers });
  if (res.req.method === 'HEAD') return void res.end();
  if (typeof body === 'string') return void res.end(body);
  res.cork();
  for (const chunk of body) res.write(chunk);
  res.end();
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

export async function closeServer(server: Server): Promise<void> {
  await new Promise<void>((resolve) => {
    server.close(() => resolve());
    server.closeIdleConnections();
  });
}
