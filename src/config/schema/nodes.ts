/**
 * `nodes[]` and `defaults:`: the settings a node sets itself or inherits, and the merge of the two
 * into the NodeTarget the poller sees.
 */
import { z } from 'zod';
import { ALL_VIEW, NODE_ENDPOINTS } from '../../model/observation.js';
import { duration, fileContent, headers, httpUrl, isCronPattern, labels, secretHeaderValues, secretValue, targetName } from '../primitives.js';

export const NETWORKS = ['mainnet', 'fuji'] as const;
export type Network = (typeof NETWORKS)[number];

const view = z.strictObject({
  name: targetName.describe('Name of the view; becomes the `view` label.').refine((n) => n !== 'all', '"all" is the name of the unfiltered view'),
  tags: z
    .array(z.string().max(128))
    .min(1)
    .describe('Tags to filter /ext/health by (subnet IDs for L1s). Application checks are always included by the node.'),
});

const basicAuth = z.strictObject({
  username: z.string(),
  password: z.string().optional(),
  password_file: fileContent('password_file').optional().describe('Read the password from this file (trailing newline trimmed).'),
});

/** The validator economics poll (docs/validators.md): `false`, or its settings. */
const VALIDATOR_INTERVAL = '60s';
const validatorFields = {
  interval: duration({ ms: 1000, text: '1s' }).describe('How often info.* and platform.* are polled.'),
  subnets: z
    .array(z.string().regex(/^[1-9A-HJ-NP-Za-km-z]{40,60}$/, 'must be a subnet ID (CB58)'))
    .max(32)
    .describe('Subnet IDs of the L1s the node validates: their balances, runway and fee price are polled.'),
  uptime_requirement: z
    .number({ error: (issue) => (typeof issue.input === 'string' ? `must be a ratio from 0.5 to 1${/%\s*$/.test(issue.input) ? ` (write ${Number.parseFloat(issue.input) / 100} for ${issue.input.trim()})` : ''}` : undefined) })
    .min(0.5, { error: 'must be a ratio from 0.5 to 1' })
    .max(1, { error: (issue) => `must be a ratio from 0.5 to 1${typeof issue.input === 'number' && issue.input <= 100 ? ` (write ${issue.input / 100} for ${issue.input}%)` : ''}` })
    .describe("The base uptime requirement (0.8 unless the network runs with another --uptime-requirement, which no API exposes); periods starting at or after Helicon need 0.9 whatever the base (ACP-267)."),
  staking_port: z.number().int().min(1).max(65535).describe("The node's staking port (AvalancheGo --staking-port, default 9651), named when peers cannot reach it."),
};

/** `validator.network`: the network baseline (docs/validators.md); a node's keys refine those under defaults. */
const NETWORK_DESCRIPTION =
  "The network baseline (docs/validators.md): a few fleet nodes per network read every validator's observed uptime, so an alert can say whether a drop is this validator's or everyone's. false turns it off.";
const networkFields = {
  interval: duration({ ms: 1000, text: '1s' }).describe('How often the whole platform.getCurrentValidators list is read (default 5m).'),
  observers: z.number().int().min(1).max(16).describe('Fleet nodes per network that read it (default 3).'),
};
const NETWORK_DEFAULTS = { interval: '5m', observers: 3 };
const nodeNetwork = z.union([z.literal(false), z.strictObject({ interval: networkFields.interval.optional(), observers: networkFields.observers.optional() })]).describe(NETWORK_DESCRIPTION);
const defaultNetwork = z
  .union([z.literal(false), z.strictObject({ interval: networkFields.interval.prefault(NETWORK_DEFAULTS.interval), observers: networkFields.observers.prefault(NETWORK_DEFAULTS.observers) })])
  .describe(NETWORK_DESCRIPTION);

const validatorExtras = {
  subnets: validatorFields.subnets.optional(),
  uptime_requirement: validatorFields.uptime_requirement.optional(),
  staking_port: validatorFields.staking_port.optional(),
};
const nodeValidator = z.union([z.literal(false), z.strictObject({ interval: validatorFields.interval.optional(), ...validatorExtras, network: nodeNetwork.optional() })]);
const defaultValidator = z.union([
  z.literal(false),
  z.strictObject({ interval: validatorFields.interval.prefault(VALIDATOR_INTERVAL), ...validatorExtras, network: defaultNetwork.prefault({}) }),
]);

const PEERS_INTERVAL_MS = 60_000;

/** Settings a node may set itself or inherit from `defaults:`, where their defaults live. */
const nodeSettings = {
  protocol: z.enum(['get', 'jsonrpc']).describe('get: GET /ext/health*; jsonrpc: POST /ext/health health.health|readiness|liveness.'),
  interval: duration({ ms: 1000, text: '1s' }).describe('Poll interval (at least 1s).'),
  schedule: z
    .string()
    .refine(isCronPattern, 'must be a cron pattern such as "*/10 * * * * *" (seconds minutes hours day month weekday)')
    .describe('A cron pattern (seconds field allowed) used instead of interval, e.g. "*/10 * * * * *".'),
  timeout: duration({ ms: 1, text: '1ms' }).describe('Per-request deadline (never longer than the interval).'),
  endpoints: z.array(z.enum(NODE_ENDPOINTS)).min(1).describe('Which of health, readiness, liveness to poll.'),
  headers: headers.describe('Extra request headers.'),
  bearer_token: z.string().describe('Sent as Authorization: Bearer (for nodes behind an authenticating proxy).'),
  bearer_token_file: fileContent('bearer_token_file'),
  basic_auth: basicAuth,
  ca_file: fileContent('ca_file').describe('PEM CA bundle to verify an https:// node.'),
  insecure_skip_verify: z.boolean().describe('Do not verify the TLS certificate (testing only).'),
  network: z.enum(NETWORKS).describe('Network of the node, for chain data (C ↔ 43114 or 43113). Default: chain_data.network.'),
  labels: labels.describe('Static labels added to every series of this target.'),
  validator: nodeValidator.describe('Validator economics (info.* and platform.*): false turns it off. A node\'s own settings refine those under defaults.'),
  peers: z
    .union([z.boolean(), z.strictObject({ interval: duration({ ms: 1000, text: '1s' }).optional().describe('How often info.peers is asked (default 60s).') })])
    .describe('Connected peers by version (info.peers; off by default: the answer lists every peer, about 1 MB on mainnet).'),
};
type Settings = typeof nodeSettings;
const optional = <K extends keyof Settings>(key: K) => nodeSettings[key].optional() as z.ZodOptional<Settings[K]>;

export const defaultsSchema = z.strictObject({
  protocol: nodeSettings.protocol.prefault('get'),
  interval: nodeSettings.interval.prefault('15s'),
  schedule: optional('schedule'),
  timeout: nodeSettings.timeout.prefault('5s'),
  endpoints: nodeSettings.endpoints.prefault([...NODE_ENDPOINTS]),
  headers: nodeSettings.headers.prefault({}),
  bearer_token: optional('bearer_token'),
  bearer_token_file: optional('bearer_token_file'),
  basic_auth: optional('basic_auth'),
  ca_file: optional('ca_file'),
  insecure_skip_verify: nodeSettings.insecure_skip_verify.prefault(false),
  network: optional('network'),
  labels: nodeSettings.labels.prefault({}),
  peers: optional('peers'),
  validator: defaultValidator
    .prefault({})
    .describe('Validator economics (info.* and platform.*), on by default: false turns it off.'),
});

export const nodeSchema = z
  .strictObject({
    name: targetName.describe('Unique target name; the `target` label of every series.'),
    url: httpUrl.describe('Base URL of the node API; may carry a path prefix (reverse proxies) and user:password@ (sent as basic auth).'),
    views: z.array(view).optional().describe('Extra tag-filtered views of /ext/health.'),
    node_id: z
      .string()
      .regex(/^NodeID-[1-9A-HJ-NP-Za-km-z]{20,60}$/, 'must be a NodeID-… string')
      .optional()
      .describe('Expected NodeID; learned from the node-id header when omitted.'),
    ...(Object.fromEntries(Object.keys(nodeSettings).map((key) => [key, optional(key as keyof Settings)])) as { [K in keyof Settings]: z.ZodOptional<Settings[K]> }),
  })
  .superRefine((node, ctx) => {
    const own = (['bearer_token', 'bearer_token_file', 'basic_auth'] as const).filter((key) => node[key] !== undefined);
    if (own.length > 0 && hasCredentials(node.url)) ctx.addIssue({ code: 'custom', path: ['url'], message: `carries user:password@ and ${own.join(', ')} is set too; use one` });
    const base = apiBase(node.url);
    if (base !== undefined) ctx.addIssue({ code: 'custom', path: ['url'], message: `is an AvalancheGo API path, not the node's base URL: avahealth adds /ext/health, /ext/info and the others itself (did you mean "${base}"?)` });
  });

/** The base of a URL copied with an AvalancheGo API path at its end (`…/ext/health`, `…/ext/bc/C/rpc`), or undefined. */
function apiBase(url: string): string | undefined {
  if (!URL.canParse(url)) return undefined;
  const parsed = new URL(url);
  const at = parsed.pathname.search(/\/ext(?:\/|$)/);
  if (at < 0) return undefined;
  parsed.pathname = parsed.pathname.slice(0, at) || '/';
  parsed.search = '';
  parsed.username = parsed.password = '';
  return parsed.href.replace(/\/$/, '');
}

export type NodeSettings = z.output<typeof defaultsSchema>;
type NodeInput = z.output<typeof nodeSchema>;

const hasCredentials = (url: string) => URL.canParse(url) && (new URL(url).username !== '' || new URL(url).password !== '');

/**
 * `http://user:pass@host` → the URL without its credentials and the Basic authorization they stand
 * for (undici would drop them silently). The password (decoded and as written) and the credential are secrets.
 */
export function urlBasicAuth(url: string): { url: string; authorization?: string; secrets: string[] } {
  if (!hasCredentials(url)) return { url, secrets: [] };
  const parsed = new URL(url);
  const password = decodeURIComponent(parsed.password);
  const credential = Buffer.from(`${decodeURIComponent(parsed.username)}:${password}`).toString('base64');
  const secrets = [...new Set([password, parsed.password, credential])].filter((s) => s.length > 0);
  parsed.username = '';
  parsed.password = '';
  return { url: parsed.href, authorization: `Basic ${credential}`, secrets };
}

/** A node's own settings over `defaults:`; `network` falls back to chain_data.network. */
export function resolveNode(node: NodeInput, defaults: NodeSettings, network: Network) {
  const pick = <K extends keyof NodeSettings>(key: K): NodeSettings[K] => (node[key] ?? defaults[key]) as NodeSettings[K];
  const headers: Record<string, string> = { ...defaults.headers, ...node.headers };
  const secrets: string[] = [];
  const bearer = secretValue({ bearer_token: pick('bearer_token'), bearer_token_file: pick('bearer_token_file') }, 'bearer_token');
  if (bearer) {
    headers.authorization = `Bearer ${bearer}`;
    secrets.push(bearer);
  }
  const basic = pick('basic_auth');
  if (basic) {
    const password = basic.password ?? basic.password_file ?? '';
    const credential = Buffer.from(`${basic.username}:${password}`).toString('base64');
    headers.authorization = `Basic ${credential}`;
    if (password) secrets.push(password, credential);
  }
  const credentials = urlBasicAuth(node.url);
  if (credentials.authorization) {
    headers.authorization = credentials.authorization;
    secrets.push(...credentials.secrets);
  }
  // Every configured header value but the harmless ones (Accept, Content-Type…): any may carry a credential.
  secrets.push(...secretHeaderValues(headers));
  const intervalMs = pick('interval');
  const schedule = pick('schedule');
  const ca = pick('ca_file');
  const validator = resolveValidator(node.validator, defaults.validator);
  const peers = pick('peers');
  return {
    kind: 'node' as const,
    name: node.name,
    /** Base URL without a trailing slash or credentials; may carry a path prefix. */
    baseUrl: credentials.url.replace(/\/+$/, ''),
    protocol: pick('protocol'),
    intervalMs,
    ...(schedule ? { schedule } : {}),
    timeoutMs: Math.min(pick('timeout'), intervalMs),
    endpoints: [...new Set(pick('endpoints'))],
    /** `all` first, then the configured tag views; only the health endpoint is polled per view. */
    views: [{ name: ALL_VIEW, tags: [] as string[] }, ...(node.views ?? [])],
    headers,
    labels: { ...defaults.labels, ...node.labels },
    tls: { insecureSkipVerify: pick('insecure_skip_verify'), ...(ca !== undefined ? { ca } : {}) } as TlsSettings,
    network: pick('network') ?? network,
    ...(node.node_id ? { nodeId: node.node_id } : {}),
    /** Header and auth values that must never be shown (redacted from logs and status). */
    secrets: secrets.filter((s) => s.length > 0),
    /** The validator economics poll; absent when turned off. */
    ...(validator ? { validator } : {}),
    /** The info.peers poll; absent when off. */
    ...(peers ? { peers: { intervalMs: peers === true || peers.interval === undefined ? PEERS_INTERVAL_MS : peers.interval } } : {}),
  };
}

export interface ValidatorPoll {
  intervalMs: number;
  /** Subnet IDs of the L1s the node validates. */
  subnets: string[];
  /** The base requirement (a custom network's --uptime-requirement); 0.9 after Helicon whatever the base (ACP-267). */
  uptimeRequirement?: number;
  /** The network baseline this node may answer for its network; absent when turned off. */
  network?: NetworkBaseline;
  /** Set when configured (AvalancheGo's default is 9651). */
  stakingPort?: number;
}

export interface NetworkBaseline {
  intervalMs: number;
  /** Fleet nodes per network that read the whole validator list. */
  observers: number;
}

/** A node's validator settings refine those under defaults; false on either side turns the poll off. */
function resolveValidator(own: NodeInput['validator'], inherited: NodeSettings['validator']): ValidatorPoll | undefined {
  if (own === false || (own === undefined && inherited === false)) return undefined;
  const merged = { ...(inherited || {}), ...(own || {}) };
  const intervalMs = merged.interval ?? validatorFields.interval.parse(VALIDATOR_INTERVAL);
  const network = resolveNetwork(own ? own.network : undefined, inherited ? inherited.network : undefined);
  return {
    intervalMs,
    subnets: [...new Set(merged.subnets ?? [])],
    ...(merged.uptime_requirement !== undefined ? { uptimeRequirement: merged.uptime_requirement } : {}),
    ...(network ? { network } : {}),
    ...(merged.staking_port !== undefined ? { stakingPort: merged.staking_port } : {}),
  };
}

/** The same rule one level down: a node's `network` keys refine those under defaults; false turns it off. */
function resolveNetwork(own: z.output<typeof nodeNetwork> | undefined, inherited: z.output<typeof defaultNetwork> | undefined): NetworkBaseline | undefined {
  if (own === false || (own === undefined && inherited === false)) return undefined;
  const base = inherited || (defaultNetwork.parse({}) as Exclude<z.output<typeof defaultNetwork>, false>);
  return { intervalMs: own?.interval ?? base.interval, observers: own?.observers ?? base.observers };
}

export interface TlsSettings {
  ca?: string;
  insecureSkipVerify: boolean;
}

export type NodeTarget = ReturnType<typeof resolveNode>;
export type NodeView = NodeTarget['views'][number];
