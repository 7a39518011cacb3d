/**
 * The web config's gate on every request: client certificates and basic auth (bcrypt in a worker
 * thread: bcrypt.ts). webconfig.ts reads and validates the file.
 */
import { createHash } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { TLSSocket } from 'node:tls';
import { bcryptCost, BcryptWorker, type Lane } from './bcrypt.js';
import { LoginLimits, networkOf } from './login-limits.js';
import type { WebSecurity } from './webconfig.js';

export interface Denial {
  status: 401 | 403 | 429;
  message: string;
  headers?: Record<string, string>;
}

const MAX_CACHED_RESULTS = 1024;
/** bcrypt checks waiting for the worker, all networks together, beyond which a login is refused at once. */
const MAX_QUEUED_CHECKS = 1024;
const TOO_MANY = 'too many authentication attempts; try again later';

/**
 * Checks a request against the client-certificate and basic-auth rules; answers why not, or
 * undefined. bcrypt runs in a worker thread (bcrypt.ts), never on the event loop, and only for
 * credentials not seen before: results are cached as exporter-toolkit does, keyed by a hash of
 * user, password and stored hash, and kept across web config reloads (a changed hash or a removed
 * user no longer matches its entries). Every failed check costs the same bcrypt work, that of the
 * highest cost among the users: an unknown user is checked against a dummy hash of that cost, and
 * a cheaper user's failure is padded with dummy hashes of its cost up to it (2^c + 2^c + … +
 * 2^(max−1) = 2^max), so timing tells neither which users exist nor what they cost. Who may try
 * how often: login-limits.ts.
 */
export class Gatekeeper {
  private readonly results = new Map<string, boolean>();
  private readonly limits = new LoginLimits();
  /** Checks under way, by credentials: the same credentials at once wait for the one check. */
  private readonly running = new Map<string, Promise<Denial | undefined>>();
  private readonly dummyHashes = new Map<number, Promise<string>>();

  constructor(private security: WebSecurity) {}

  update(security: WebSecurity): void {
    this.security = security;
  }

  get current(): WebSecurity {
    return this.security;
  }

  /** bcrypt work done by login checks so far (2^cost summed over every hash compared), for every gate of the process. */
  static get bcryptWork(): number {
    return BCRYPT.compareWork;
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
    const running = this.running.get(key);
    if (running) return running; // the same credentials, sent on several connections at once (a browser)
    const network = networkOf(req.socket.remoteAddress ?? '');
    const refused = this.limits.refusal(network, user);
    if (refused) return tooMany(refused.retryAfter);
    if (known === false) {
      this.limits.fail(network, user);
      return UNAUTHORIZED;
    }
    if (!this.limits.hasRoom(network) || BCRYPT.queued >= MAX_QUEUED_CHECKS) return tooMany(1);
    const lane = this.limits.laneOf(network);
    const succeeded = this.limits.begin(network, user);
    const answer = this.check(password, hash, lane)
      .then((ok) => {
        this.remember(key, ok);
        if (!ok) return UNAUTHORIZED;
        succeeded();
        return undefined;
      })
      .finally(() => {
        this.limits.end(network);
        this.running.delete(key);
      });
    this.running.set(key, answer);
    return answer;
  }

  private remember(key: string, ok: boolean): void {
    if (this.results.size >= MAX_CACHED_RESULTS) this.results.delete(this.results.keys().next().value!);
    this.results.set(key, ok);
  }

  /**
   * bcrypt against the stored hash, or against the dummy hash of the highest cost for an unknown
   * user; a failure against a cheaper hash also runs the dummy hashes that bring it up to that cost.
   */
  private async check(password: string, hash: string | undefined, lane: Lane): Promise<boolean> {
    const highest = this.highestCost();
    if (hash === undefined) return BCRYPT.compare(password, await this.dummyHash(highest), [], lane).then(() => false);
    const pads = await Promise.all(Array.from({ length: Math.max(0, highest - bcryptCost(hash)) }, (_, i) => this.dummyHash(bcryptCost(hash) + i)));
    return BCRYPT.compare(password, hash, pads, lane);
  }

  private highestCost(): number {
    const costs = [...this.security.users.values()].map(bcryptCost);
    return costs.length > 0 ? Math.max(...costs) : 10;
  }

  /** What an unknown user's password is checked against: a hash of the highest cost among the users. */
  unknownUserHash(): Promise<string> {
    return this.dummyHash(this.highestCost());
  }

  private dummyHash(cost: number): Promise<string> {
    let hash = this.dummyHashes.get(cost);
    if (!hash) this.dummyHashes.set(cost, (hash = BCRYPT.hash('avahealth: no such user', cost)));
    return hash;
  }
}

export { bcryptCost };

function tooMany(retryAfter: number): Denial {
  return { status: 429, message: TOO_MANY, headers: { 'retry-after': String(retryAfter) } };
}

const UNAUTHORIZED: Denial = { status: 401, message: 'authentication required', headers: { 'www-authenticate': 'Basic realm="avahealth", charset="UTF-8"' } };

/** One worker for the process; it starts (and bcryptjs loads) on first use: only deployments with basic auth need it. */
const BCRYPT = new BcryptWorker();
