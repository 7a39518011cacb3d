/**
 * Guards of the write endpoints against requests a web page makes on a visitor's behalf: a form
 * or a `fetch` with `text/plain` needs no CORS preflight, so without these checks any page an
 * operator opens could create silences or reload the config of an avahealth it can reach. DNS
 * rebinding goes further: a page on attacker.example whose name is re-pointed at this host is
 * same-origin with itself (Origin and Host both say attacker.example), so a write must also name
 * a host that is this avahealth's.
 */
import type { IncomingHttpHeaders } from 'node:http';
import { isIP } from 'node:net';
import { json, type Reply } from '../route.js';

/** The host name of a `Host` header or an origin's `host` (`[::1]:9660` → `::1`), lowercased; undefined if it is none. */
export function hostNameOf(host: string | undefined): string | undefined {
  if (host === undefined || host === '' || /[\s/?#@\\]/.test(host) || !URL.canParse(`http://${host}`)) return undefined;
  return new URL(`http://${host}`).hostname.replace(/^\[(.*)\]$/, '$1').replace(/\.$/, '');
}

/**
 * A host a write may name: `localhost`, an IP address (a rebinding page cannot make a browser
 * send one in Host: it names its own domain), or one of `allowed` (the listen address, the
 * external URL's host, `allowed_hosts`).
 */
export function isWriteHost(host: string, allowed: Iterable<string>): boolean {
  if (host === 'localhost' || isIP(host) !== 0) return true;
  for (const name of allowed) if (hostNameOf(name) === host || name.toLowerCase() === host) return true;
  return false;
}

/**
 * A 403 when the request names a host that is not this avahealth's (Host, and Origin when sent),
 * comes from another site (Sec-Fetch-Site), or from an Origin other than the Host it was sent to.
 */
export function refuseForeignWrite(headers: IncomingHttpHeaders, allowedHosts: Iterable<string>): Reply | undefined {
  const allowed = [...allowedHosts];
  const host = hostNameOf(headers.host);
  if (host === undefined || !isWriteHost(host, allowed)) {
    return json(403, { error: `Host ${JSON.stringify((headers.host ?? '').slice(0, 200))} is not one of this avahealth's: writes need localhost, an IP address, the host of external_url or one in allowed_hosts` });
  }
  const site = headers['sec-fetch-site'];
  if (site !== undefined && site !== 'same-origin' && site !== 'none') return json(403, { error: `cross-site request refused (Sec-Fetch-Site: ${site})` });
  const origin = headers.origin;
  if (origin === undefined) return undefined; // not sent by a browser page (curl, amtool-like clients)
  const originHost = URL.canParse(origin) ? new URL(origin).host : undefined;
  const originName = hostNameOf(originHost);
  if (originHost !== headers.host || originName === undefined || !isWriteHost(originName, allowed)) return json(403, { error: `cross-origin request refused (Origin: ${origin.slice(0, 200)})` });
  return undefined;
}

/** A 415 unless the body is declared `application/json` (which a page cannot send cross-origin without a preflight). */
export function requireJson(headers: IncomingHttpHeaders): Reply | undefined {
  const type = (headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
  if (type === 'application/json') return undefined;
  return json(415, { error: 'Content-Type must be application/json' }, { accept: 'application/json' });
}
