/**
 * A proxy in front of the simulator that rewrites its answers as a hostile node or hosted API
 * would: the test says which JSON answer to change and how (by JSON-RPC method, or by path).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { request } from 'undici';
import { startFixtureServer } from './harness.js';

/** Changes a parsed JSON answer in place, or returns a new one; `path` is the request's path, `method` a JSON-RPC method when there is one. */
export type Rewrite = (answer: Record<string, unknown>, exchange: { path: string; method?: string }) => unknown;

export async function startHostileProxy(upstream: string, rewrite: Rewrite) {
  let current = rewrite;
  const server = await startFixtureServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      void (async () => {
        const body = Buffer.concat(chunks);
        const headers = Object.fromEntries(Object.entries(req.headers).filter(([k]) => !['host', 'connection', 'content-length', 'transfer-encoding'].includes(k))) as Record<string, string>;
        const answer = await request(`${upstream}${req.url ?? '/'}`, { method: (req.method ?? 'GET') as 'GET', headers, ...(body.length > 0 ? { body } : {}) });
        const text = await answer.body.text();
        let out = text;
        try {
          const json = JSON.parse(text) as Record<string, unknown>;
          let method: string | undefined;
          try {
            const sent = JSON.parse(body.toString('utf8')) as { method?: unknown };
            if (typeof sent.method === 'string') method = sent.method;
          } catch {
            // not a JSON-RPC request
          }
          const changed = current(json, { path: new URL(req.url ?? '/', 'http://proxy').pathname, ...(method ? { method } : {}) });
          out = JSON.stringify(changed === undefined ? json : changed);
        } catch {
          // not JSON: passed on as it is
        }
        const keep: Record<string, string> = {};
        for (const [k, v] of Object.entries(answer.headers)) if (typeof v === 'string' && !['content-length', 'transfer-encoding', 'connection', 'keep-alive'].includes(k)) keep[k] = v;
        res.writeHead(answer.statusCode, keep);
        res.end(out);
      })().catch(() => res.destroy());
    });
  });
  return { ...server, rewrite: (next: Rewrite) => (current = next) };
}
