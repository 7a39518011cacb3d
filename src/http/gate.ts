/**
 * The web config's gate on every request: client certificates and basic auth (bcrypt in a worker
 * thread). webconfig.ts reads and validates the file.
 */
import { createHash } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { TLSSocket } from 'node:tls';
import { BcryptWorker } from './bcrypt-worker.js';
import type { WebSecurity } from './webconfig.js';

export interface Denial {
  status: 401 | 403 | 429;
  message: string;
  headers?: Record<string, string>;
}

/** Failed logins one client may have (running or done) within the window before it is refused without a bcrypt check. */
const MAX_FAILURES_PER_CLIENT = 10;
const FAILURE_WINDOW_MS = 60_000;
/** bcrypt checks waiting for the worker beyond which a login is refused at once. */
const MAX_QUEUED_COMPARES = 64;
const MAX_CACHED_RESULTS = 1024;

/**
 * Checks a request against the client-certificate and basic-auth rules; answers why not, or
 * undefined. bcrypt runs in a worker thread (bcrypt-worker.ts), never on the event loop, and only
 * for credentials not seen before: results are cached as exporter-toolkit does, keyed by a
 * hash of user, password and stored hash. An unknown user costs a bcrypt check against a dummy hash
 * of the highest cost among the users, so timing does not tell which users exist. A client with repeated failures is
 * answered 429 without a check until its window passes.
 */
export class Gatekeeper {
  private readonly results = new Map<string, boolean>();
  private readonly failures = new Map<string, { count: number; since: number }>();
  private readonly dummyHashes = new Map<number, Promise<string>>();

  constructor(private security: WebSecurity) {}

  update(security: WebSecurity): void {
    this.security = security;
    this.results.clear();
  }

  get current(): WebSecurity {
    return this.security;
  }

  /** Synchronous when the answer is known without bcrypt (no auth, cached credentials, throttled client). */
  deny(req: IncomingMessage): Denial | undefined | Promise<Denial | undefined> {
    const { clientAuth, users } = this.security;
    const socket = req.socket as TLSSocket;
    if (this.security.tls && clientAuth !== 'NoClientCert' && clientAuth !== 'RequestClientCert') {
      const peer = typeof socket.getPeerCertificate === 'function' ? socket.getPeerCertificate() : undefined;
      const presented = peer !== undefined && Object.keys(peer).length > 0;
      if (clientAuth === 'RequireAnyClientCert' && !presented) return { status: 403, message: 'a client certificate is required' };
      if (clientAuth === 'VerifyClientCertIfGiven' && presented && !socket.authorized) return { status: 403, message: 'the client certificate is not trusted' };
    }
    if (users.size === 0) return undefined;
    const header = req.headers.authorization ?? '';
    const match = /^Basic\s+([A-Za-z0-9+/=]{1,1024})$/i.exec(header);
    if (!match) return UNAUTHORIZED;
    const decoded = Buffer.from(match[1]!, 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    if (colon < 0) return UNAUTHORIZED;
    const user = decoded.slice(0, colon);
    const password = decoded.slice(colon + 1);
    const hash = users.get(user);
    const key = createHash('sha256').update(`${user}\u0000${password}\u0000${hash ?? ''}`).digest('hex');
    const known = this.results.get(key);
    if (known === true) return undefined;
    const client = req.socket.remoteAddress ?? '';
    const throttled = this.throttled(client);
    if (throttled) return throttled;
    if (known === false) return this.failed(client);
    if (BCRYPT.queued >= MAX_QUEUED_COMPARES) return { status: 429, message: 'too many authentication attempts; try again later', headers: { 'retry-after': '1' } };
    const attempt = this.failures.get(client) ?? { count: 0, since: Date.now() };
    attempt.count++; // counted while it runs, so a burst cannot start more checks than the limit
    this.failures.set(client, attempt);
    return this.compare(password, hash).then((ok) => {
      this.remember(key, ok && hash !== undefined);
      if (!ok || hash === undefined) return UNAUTHORIZED;
      attempt.count--;
      return undefined;
    });
  }

  private throttled(client: string): Denial | undefined {
    const entry = this.failures.get(client);
    if (!entry) return undefined;
    const now = Date.now();
    if (now - entry.since > FAILURE_WINDOW_MS) {
      this.failures.delete(client);
      return undefined;
    }
    if (entry.count < MAX_FAILURES_PER_CLIENT) return undefined;
    const retryAfter = Math.ceil((entry.since + FAILURE_WINDOW_MS - now) / 1000);
    return { status: 429, message: 'too many failed authentication attempts; try again later', headers: { 'retry-after': String(Math.max(1, retryAfter)) } };
  }

  private failed(client: string): Denial {
    const entry = this.failures.get(client) ?? { count: 0, since: Date.now() };
    entry.count++;
    this.failures.set(client, entry);
    if (this.failures.size > 10_000) this.failures.clear(); // bounded whatever the number of clients
    return UNAUTHORIZED;
  }

  private remember(key: string, ok: boolean): void {
    if (this.results.size >= MAX_CACHED_RESULTS) this.results.delete(this.results.keys().next().value!);
    this.results.set(key, ok);
  }

  /** bcrypt against the stored hash, or against the dummy hash for an unknown user. */
  private async compare(password: string, hash: string | undefined): Promise<boolean> {
    return BCRYPT.compare(password, hash ?? (await this.unknownUserHash()));
  }

  /**
   * What an unknown user's password is checked against: a hash of the highest cost among the
   * users, so no known user's check costs more than a made-up name's.
   */
  unknownUserHash(): Promise<string> {
    const costs = [...this.security.users.values()].map(bcryptCost);
    return this.dummyHash(costs.length > 0 ? Math.max(...costs) : 10);
  }

  private dummyHash(cost: number): Promise<string> {
    let hash = this.dummyHashes.get(cost);
    if (!hash) this.dummyHashes.set(cost, (hash = BCRYPT.hash('avahealth: no such user', cost)));
    return hash;
  }
}

/** The cost factor of a bcrypt hash (`$2y$12$…` → 12). */
export function bcryptCost(hash: string): number {
  return Number(/^\$2[abxy]?\$(\d{2})\$/.exec(hash)?.[1] ?? 10);
}

const UNAUTHORIZED: Denial = { status: 401, message: 'authentication required', headers: { 'www-authenticate': 'Basic realm="avahealth", charset="UTF-8"' } };

/** One worker for the process; it starts (and bcryptjs loads) on first use: only deployments with basic auth need it. */
const BCRYPT = new BcryptWorker();
