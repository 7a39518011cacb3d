/** A real local HTTP server that records every request and answers as the test says. */
import { isUtf8 } from 'node:buffer';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { startFixtureServer } from './harness.js';

export interface Captured {
  method: string;
  path: string;
  headers: IncomingMessage['headers'];
  body: string;
  /** The body's bytes are valid UTF-8. */
  utf8: boolean;
  json: unknown;
  at: number;
}

/** One alert of a webhook body (docs/alerting.md, the webhook receiver). */
export interface ToldAlert {
  status: string;
  labels: Record<string, string>;
  annotations: Record<string, string>;
  startsAt: string;
  endsAt: string;
  fingerprint: string;
  generatorURL?: string;
}

/** Which alerts `told()` keeps: the request's path, the alert's status, and any labels, each equal. */
export type ToldMatch = { path?: string; status?: string } & Record<string, string | undefined>;

/** Every alert of the webhook bodies among `requests`, in the order they were heard; `match` keeps some. */
export function toldAlerts(requests: readonly Captured[], { path, status, ...labels }: ToldMatch = {}): ToldAlert[] {
  return requests
    .filter((r) => path === undefined || r.path === path)
    .flatMap((r) => (r.json as { alerts?: ToldAlert[] } | undefined)?.alerts ?? [])
    .filter((a) => (status === undefined || a.status === status) && Object.entries(labels).every(([k, v]) => v === undefined || a.labels[k] === v));
}

export type Answer = { status: number; headers?: Record<string, string>; body?: string };
/** An answer now, or later (a long poll held open). */
export type Responder = (req: Captured, index: number) => Answer | Promise<Answer>;

export async function startCapture(respond: Responder = () => ({ status: 200 })) {
  const requests: Captured[] = [];
  let responder = respond;
  const server = await startFixtureServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const bytes = Buffer.concat(chunks);
      const body = bytes.toString('utf8');
      let json: unknown;
      try {
        json = JSON.parse(body);
      } catch {
        json = undefined;
      }
      const captured: Captured = { method: req.method ?? 'GET', path: req.url ?? '/', headers: req.headers, body, utf8: isUtf8(bytes), json, at: Date.now() };
      const answer = responder(captured, requests.length);
      requests.push(captured);
      const write = (a: Answer) => {
        if (res.destroyed) return;
        res.writeHead(a.status, { 'content-type': 'application/json', ...a.headers });
        res.end(a.body ?? '{}');
      };
      if (answer instanceof Promise) void answer.then(write);
      else write(answer);
    });
  });
  return {
    ...server,
    requests,
    on: (path: string) => requests.filter((r) => r.path === path),
    /** The alerts webhook bodies carried (every path unless `match.path`), in the order heard. */
    told: (match?: ToldMatch) => toldAlerts(requests, match),
    respond: (next: Responder) => (responder = next),
  };
}
