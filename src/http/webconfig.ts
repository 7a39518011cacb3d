/**
 * `--web.config.file`, in the Prometheus exporter-toolkit format: TLS (with client certificates),
 * basic auth with bcrypt hashes, extra response headers. Protects every route, /metrics included.
 * The file and the certificates it names are re-read when they change, so certificate rotation
 * needs no restart.
 */
import { readFileSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import type { SecureContextOptions } from 'node:tls';
import { z } from 'zod';
import { ConfigError } from '../config/errors.js';
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
