/**
 * What a route is: a method list, a path and a handler that turns a request into a reply. The
 * server (http/server.ts) matches, reads bodies under a cap, writes replies; the route modules
 * (http/routes/*, status/routes.ts) only compute them. Lives below both so the status page can hand
 * its routes in without http/ knowing the page.
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { StreamedBody } from '../metrics/endpoint.js';

export type { StreamedBody };

export interface RouteRequest {
  method: string;
  path: string;
  /** The path's capture groups, percent-decoded (a malformed encoding is a 400 before any handler runs). */
  params: string[];
  query: URLSearchParams;
  headers: IncomingHttpHeaders;
  /** The body parsed as JSON (capped in size); throws BadRequest when it is not JSON or too large. */
  json: () => Promise<unknown>;
}

export interface Reply {
  status: number;
  contentType: string;
  body: string | Buffer | Buffer[] | StreamedBody;
  headers?: Record<string, string>;
}

export function isStreamed(body: Reply['body']): body is StreamedBody {
  return typeof body === 'object' && !Buffer.isBuffer(body) && !Array.isArray(body);
}

export interface Route {
  /** Methods served; `*` takes every method (the handler answers the ones it refuses). */
  methods: readonly string[];
  /** An exact path, or a pattern whose capture groups become `params`. */
  path: string | RegExp;
  handle: (request: RouteRequest) => Reply | Promise<Reply>;
}

/** A client error: the server answers it with its status and message, never a 500. */
export class BadRequest extends Error {
  constructor(
    message: string,
    readonly status = 400,
  ) {
    super(message);
  }
}

export const GET = ['GET', 'HEAD'] as const;

export function text(status: number, body: string, headers?: Record<string, string>): Reply {
  return { status, contentType: 'text/plain; charset=utf-8', body, ...(headers ? { headers } : {}) };
}

export function json(status: number, value: unknown, headers?: Record<string, string>): Reply {
  return { status, contentType: 'application/json; charset=utf-8', body: `${JSON.stringify(value)}\n`, ...(headers ? { headers } : {}) };
}

export const NO_STORE = { 'cache-control': 'no-store' };
