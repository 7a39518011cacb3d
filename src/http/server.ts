/** The daemon's HTTP server: metrics, liveness/readiness of avahealth itself, reload, status. */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Routes {
  metrics: () => Promise<{ contentType: string; body: string }>;
  ready: () => boolean;
  reload?: () => Promise<{ ok: boolean; error?: string }>;
  statusJson: () => unknown;
  landingPage: () => string;
}

const SECURITY_HEADERS = {
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
};

export function createHttpServer(routes: Routes, onError: (err: unknown) => void): Server {
  const server = createServer((req, res) => {
    handle(routes, req, res).catch((err: unknown) => {
      onError(err);
      if (!res.headersSent) send(res, 500, 'text/plain; charset=utf-8', 'internal error\n');
      else res.destroy();
    });
  });
  server.keepAliveTimeout = 65_000;
  server.headersTimeout = 10_000;
  server.requestTimeout = 30_000;
  return server;
}

async function handle(routes: Routes, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const path = (req.url ?? '/').split('?')[0]!;
  const method = req.method ?? 'GET';
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
    case '/api/v1/status':
      return send(res, 200, 'application/json; charset=utf-8', `${JSON.stringify(routes.statusJson())}\n`, { 'cache-control': 'no-store' });
    case '/':
      return send(res, 200, 'text/html; charset=utf-8', routes.landingPage(), {
        'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'; img-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
        'cache-control': 'no-store',
      });
    default:
      return send(res, 404, 'text/plain; charset=utf-8', 'not found\n');
  }
}

function send(res: ServerResponse, status: number, contentType: string, body: string, headers: Record<string, string> = {}): void {
  res.writeHead(status, { ...SECURITY_HEADERS, 'content-type': contentType, 'content-length': Buffer.byteLength(body), ...headers });
  res.end(res.req.method === 'HEAD' ? undefined : body);
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
