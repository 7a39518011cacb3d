/**
 * `--web.config.file`, in the Prometheus exporter-toolkit format: TLS (with client certificates),
 * basic auth with bcrypt hashes, extra response headers. Protects every route, /metrics included.
 * The file and the certificates it names are re-read when they change, so certificate rotation
 * needs no restart.
 */
import { createHash } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import type { IncomingMessage } from 'node:http';
import { dirname, resolve } from 'node:path';
import type { SecureContextOptions, TLSSocket } from 'node:tls';
import { z } from 'zod';
import { ConfigError } from '../config/errors.js';
import { BcryptWorker } from './bcrypt-worker.js';
import { nodeAt, parseYaml } from '../config/load.js';

const CLIENT_AUTH = ['NoClientCert', 'RequestClientCert', 'RequireAnyClientCert', 'VerifyClientCertIfGiven', 'RequireAndVerifyClientCert'] as const;
const TLS_VERSIONS = { TLS10: 'TLSv1', TLS11: 'TLSv1.1', TLS12: 'TLSv1.2', TLS13: 'TLSv1.3' } as const;

const webConfigSchema = z.strictObject({
  tls_server_config: z
    .strictObject({
      cert_file: z.string(),
      key_file: z.string(),
      client_ca_file: z.string().optional(),
      client_auth_type: z.enum(CLIENT_AUTH).optional(),
      min_version: z.enum(['TLS10', 'TLS11', 'TLS12', 'TLS13']).optional(),
      max_version: z.enum(['TLS10', 'TLS11', 'TLS12', 'TLS13']).optional(),
    })
    .optional(),
  basic_auth_users: z.record(z.string(), z.string().regex(/^\$2[aby]?\$\d{2}\$[./A-Za-z0-9]{53}$/, 'must be a bcrypt hash ($2y$10$…), e.g. from htpasswd -nBC 10 "" | tr -d \':\\n\'')).optional(),
  http_server_config: z.strictObject({ headers: z.record(z.string(), z.string()).optional(), http2: z.boolean().optional() }).optional(),
});

export interface WebSecurity {
  /** TLS options for https.createServer / setSecureContext; undefined means plain HTTP. */
  tls?: SecureContextOptions & { requestCert: boolean; rejectUnauthorized: boolean; minVersion: string; maxVersion?: string };
  clientAuth: (typeof CLIENT_AUTH)[number];
  users: Map<string, string>;
  headers: Record<string, string>;
  /** Files whose change means the web config must be read again. */
  files: string[];
  /** The file sets nothing at all (empty, or only comments). */
  empty: boolean;
}

/**
 * Why `next` must not replace `current` when the file changed under a running daemon, or
 * undefined. A file caught empty (mid-write, or truncated by mistake) or one that drops basic auth
 * would silently open every route: turning protection off takes a restart, as does switching
 * between HTTP and HTTPS.
 */
export function reloadProblem(current: WebSecurity, next: WebSecurity): string | undefined {
  if (next.empty) return 'the web config file is empty';
  if (Boolean(next.tls) !== Boolean(current.tls)) return 'the web config switches between HTTP and HTTPS: restart avahealth to apply it';
  if (current.users.size > 0 && next.users.size === 0) return 'the web config no longer has basic_auth_users: restart avahealth to turn basic auth off';
  if (current.clientAuth !== 'NoClientCert' && next.clientAuth === 'NoClientCert') return 'the web config no longer asks for client certificates: restart avahealth to turn that off';
  return undefined;
}

export function loadWebConfig(file: string): WebSecurity {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new ConfigError([{ file, line: 1, col: 1, message: `cannot read web config: ${(err as Error).message}` }]);
  }
  const { data, doc, at } = parseYaml(text, file, webConfigSchema, {});
  const base = dirname(resolve(file));
  const files = [resolve(file)];
  const read = (path: (string | number)[], name: string): string => {
    const full = resolve(base, name);
    files.push(full);
    try {
      return readFileSync(full, 'utf8');
    } catch (err) {
      throw new ConfigError([at(nodeAt(doc, path)?.range?.[0], `cannot read ${String(path.at(-1))}: ${(err as Error).message}`)]);
    }
  };
  const t = data.tls_server_config;
  const clientAuth = t?.client_auth_type ?? 'NoClientCert';
  let tls: WebSecurity['tls'];
  if (t) {
    if (clientAuth !== 'NoClientCert' && clientAuth !== 'RequestClientCert' && clientAuth !== 'RequireAnyClientCert' && !t.client_ca_file) {
      throw new ConfigError([at(nodeAt(doc, ['tls_server_config', 'client_auth_type'])?.range?.[0], `client_auth_type ${clientAuth} needs client_ca_file`)]);
    }
    tls = {
      cert: read(['tls_server_config', 'cert_file'], t.cert_file),
      key: read(['tls_server_config', 'key_file'], t.key_file),
      ...(t.client_ca_file ? { ca: read(['tls_server_config', 'client_ca_file'], t.client_ca_file) } : {}),
      requestCert: clientAuth !== 'NoClientCert',
      rejectUnauthorized: clientAuth === 'RequireAndVerifyClientCert',
      minVersion: TLS_VERSIONS[t.min_version ?? 'TLS12'],
      ...(t.max_version ? { maxVersion: TLS_VERSIONS[t.max_version] } : {}),
    };
  }
  const empty = data === null || data === undefined || Object.keys(data).length === 0;
  return { ...(tls ? { tls } : {}), clientAuth, users: new Map(Object.entries(data?.basic_auth_users ?? {})), headers: data?.http_server_config?.headers ?? {}, files, empty };
}

/** Modification times of the files, to notice a rotated certificate or an edited web config. */
export function fingerprintFiles(files: string[]): string {
  return files
    .map((f) => {
      try {
        const s = statSync(f);
        return `${f}:${s.mtimeMs}:${s.size}`;
      } catch {
        return `${f}:missing`;
      }
    })
    .join('|');
}

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
 * of the same cost, so timing does not tell which users exist. A client with repeated failures is
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

  /** bcrypt against the stored hash, or against a dummy hash of the same cost for an unknown user. */
  private async compare(password: string, hash: string | undefined): Promise<boolean> {
    const against = hash ?? (await this.dummyHash(this.costOfUsers()));
    return BCRYPT.compare(password, against);
  }

  private costOfUsers(): number {
    const first = this.security.users.values().next().value;
    return first ? Number(first.slice(4, 6)) : 10;
  }

  private dummyHash(cost: number): Promise<string> {
    let hash = this.dummyHashes.get(cost);
    if (!hash) this.dummyHashes.set(cost, (hash = BCRYPT.hash('avahealth: no such user', cost)));
    return hash;
  }
}

const UNAUTHORIZED: Denial = { status: 401, message: 'authentication required', headers: { 'www-authenticate': 'Basic realm="avahealth", charset="UTF-8"' } };

/** One worker for the process; it starts (and bcryptjs loads) on first use: only deployments with basic auth need it. */
const BCRYPT = new BcryptWorker();
