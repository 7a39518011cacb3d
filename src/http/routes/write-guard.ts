/**
 * Guards of the write endpoints against requests a web page makes on a visitor's behalf: a form
 * or a `fetch` with `text/plain` needs no CORS preflight, so without these checks any page an
 * operator opens could create silences or reload the config of an avahealth it can reach.
 */
import type { IncomingHttpHeaders } from 'node:http';
import { json, type Reply } from '../route.js';

/** A 403 when the request comes from another site (Sec-Fetch-Site, or an Origin that is not this host). */
export function refuseCrossSite(headers: IncomingHttpHeaders): Reply | undefined {
  const site = headers['sec-fetch-site'];
  if (site !== undefined && site !== 'same-origin' && site !== 'none') return json(403, { error: `cross-site request refused (Sec-Fetch-Site: ${site})` });
  const origin = headers.origin;
  if (origin === undefined) return undefined; // not sent by a browser page (curl, amtool-like clients)
  let host: string | undefined;
  try {
    host = new URL(origin).host;
  } catch {
    host = undefined;
  }
  if (host === undefined || host !== headers.host) return json(403, { error: `cross-origin request refused (Origin: ${origin.slice(0, 200)})` });
  return undefined;
}

/** A 415 unless the body is declared `application/json` (which a page cannot send cross-origin without a preflight). */
export function requireJson(headers: IncomingHttpHeaders): Reply | undefined {
  const type = (headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
  if (type === 'application/json') return undefined;
  return json(415, { error: 'Content-Type must be application/json' }, { accept: 'application/json' });
}
