/**
 * The config file's schema: one zod definition gives the TypeScript types, the validation and
 * the JSON Schema (`avahealth schema`). Every object is strict: an unknown key is an error.
 */
import { Cron } from 'croner';
import { z } from 'zod';
import { NODE_ENDPOINTS } from '../model/observation.js';
import { parseGoDuration } from '../parse/go-duration.js';
import { ALERT_NAMES, ruleTuningSchema, type AlertName } from '../alerts/rules/index.js';

const DURATION_PATTERN = /^(?:0|(?:(?:\d+(?:\.\d*)?|\.\d+)(?:ns|us|µs|ms|s|m|h))+)$/;

/** A Go-style duration such as `15s`, `2m`, `1m30s` or `500ms`, resolved to milliseconds. */
export const duration = (min?: { ms: number; text: string }) =>
  z
    .string()
    .regex(DURATION_PATTERN, 'must be a duration such as 500ms, 15s, 2m or 1h30m')
    .transform((text) => Math.round(parseGoDuration(text)! * 1000))
    .refine((ms) => min === undefined || ms >= min.ms, { message: `must be at least ${min?.text}` });

const SIZE_UNITS: Record<string, number> = { '': 1, b: 1, kb: 1e3, mb: 1e6, kib: 1024, mib: 1024 ** 2, gib: 1024 ** 3 };
/** A byte size: a number, or text like `4MiB`, `512KiB`, `100kB`. */
export const byteSize = z.union([
  z.number().int().positive(),
  z
    .string()
    .regex(/^\d+(?:\.\d+)?\s*(?:[kKmMgG]i?[bB]|[bB])?$/, 'must be a size such as 4MiB, 512KiB or 1048576')
    .transform((text) => {
      const m = /^(\d+(?:\.\d+)?)\s*([a-zA-Z]*)$/.exec(text)!;
      return Math.round(Number(m[1]) * SIZE_UNITS[m[2]!.toLowerCase()]!);
    }),
]);

function isCronPattern(pattern: string): boolean {
  try {
    new Cron(pattern, { paused: true }).stop();
    return true;
  } catch {
    return false;
  }
}

/** Label names follow Prometheus rules; the ones avahealth sets itself are reserved. */
export const RESERVED_LABELS = ['target', 'endpoint', 'view', 'check', 'chain', 'reason', 'node_id', 'component', 'job', 'instance'];
const labelName = z
  .string()
  .regex(/^[a-zA-Z_][a-zA-Z0-9_]*$/, 'label names must match [a-zA-Z_][a-zA-Z0-9_]*')
  .refine((name) => !name.startsWith('__'), 'label names starting with __ are reserved')
  .refine((name) => !RESERVED_LABELS.includes(name), `is set by avahealth itself; reserved: ${RESERVED_LABELS.join(', ')}`);
const labels = z.record(labelName, z.string().max(256));

const targetName = z
  .string()
  .regex(/^[A-Za-z0-9][A-Za-z0-9_.:-]{0,62}$/, 'target names are 1–63 characters of letters, digits, _ . : - (starting with a letter or digit)');

const httpUrl = z.string().refine((u) => /^https?:\/\//i.test(u) && URL.canParse(u), 'must be an http:// or https:// URL');

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
  password_file: z.string().optional().describe('Read the password from this file (trailing newline trimmed).'),
});

/** Settings a node may set itself or inherit from `defaults:`. */
const nodeSettings = {
  protocol: z.enum(['get', 'jsonrpc']).optional().describe('get: GET /ext/health*; jsonrpc: POST /ext/health health.health|readiness|liveness. Default get.'),
  interval: duration({ ms: 1000, text: '1s' }).optional().describe('Poll interval (default 15s, at least 1s).'),
  schedule: z
    .string()
    .refine(isCronPattern, 'must be a cron pattern such as "*/10 * * * * *" (seconds minutes hours day month weekday)')
    .optional().describe('A cron pattern (seconds field allowed) used instead of interval, e.g. "*/10 * * * * *".'),
  timeout: duration({ ms: 1, text: '1ms' }).optional().describe('Per-request deadline (default 5s; never longer than the interval).'),
  endpoints: z.array(z.enum(NODE_ENDPOINTS)).min(1).optional().describe('Which of health, readiness, liveness to poll (default all three).'),
  headers: z.record(z.string(), z.string()).optional().describe('Extra request headers.'),
  bearer_token: z.string().optional().describe('Sent as Authorization: Bearer (for nodes behind an authenticating proxy).'),
  bearer_token_file: z.string().optional(),
  basic_auth: basicAuth.optional(),
  ca_file: z.string().optional().describe('PEM CA bundle to verify an https:// node.'),
  insecure_skip_verify: z.boolean().optional().describe('Do not verify the TLS certificate (testing only).'),
  network: z.enum(['mainnet', 'fuji']).optional().describe('Network of the node, for chain data (C ↔ 43114 or 43113). Default: chain_data.network.'),
};

export const nodeSchema = z.strictObject({
  name: targetName.describe('Unique target name; the `target` label of every series.'),
  url: httpUrl.describe('Base URL of the node API; may carry a path prefix (reverse proxies).'),
  labels: labels.optional().describe('Static labels added to every series of this target.'),
  views: z.array(view).optional().describe('Extra tag-filtered views of /ext/health.'),
  node_id: z
    .string()
    .regex(/^NodeID-[1-9A-HJ-NP-Za-km-z]{20,60}$/, 'must be a NodeID-… string')
    .optional()
    .describe('Expected NodeID; learned from the node-id header when omitted.'),
  ...nodeSettings,
});

export const SERVICE_ENDPOINTS = ['health-check', 'live-check'] as const;

const apiProbe = z.strictObject({
  name: targetName
    .refine((n) => !(SERVICE_ENDPOINTS as readonly string[]).includes(n), 'health-check and live-check are the built-in endpoints')
    .describe('Name of the probe; becomes the `endpoint` label.'),
  method: z.enum(['GET', 'POST']).optional().describe('Default GET.'),
  path: z.string().regex(/^\/[^?#\s]*$/, 'must be a path such as /v1/chains/43114/blocks (query parameters go under query:)').describe('An operation path of the service, with its parameters filled in.'),
  query: z.record(z.string(), z.union([z.string(), z.number(), z.boolean(), z.array(z.string())])).optional(),
  body: z.unknown().optional().describe('JSON request body (POST).'),
  expect_status: z.union([z.number().int().min(100).max(599), z.array(z.number().int().min(100).max(599)).min(1)]).optional().describe('Accepted status codes (default 200).'),
});

export const serviceSchema = z.strictObject({
  name: targetName.describe('Unique target name; the `target` label of every series.'),
  kind: z.enum(['data-api', 'metrics-api']).describe('data-api polls /v1/health-check and /v1/live-check; metrics-api polls /v2/health-check and /v2/live-check.'),
  url: httpUrl.describe('Base URL, e.g. https://data-api.avax.network or https://metrics.avax.network.'),
  api_key: z.string().optional().describe('Optional API key (raises rate limits).'),
  api_key_file: z.string().optional().describe('Read the API key from this file.'),
  api_key_header: z.string().regex(/^[A-Za-z0-9-]+$/).optional().describe('Header that carries the key (default x-glacier-api-key).'),
  interval: duration({ ms: 1000, text: '1s' }).optional().describe('Poll interval (default 30s).'),
  timeout: duration({ ms: 1, text: '1ms' }).optional().describe('Per-request deadline (default 10s).'),
  endpoints: z.array(z.enum(SERVICE_ENDPOINTS)).optional().describe('Which of health-check, live-check to poll (default both).'),
  headers: z.record(z.string(), z.string()).optional(),
  labels: labels.optional(),
  ca_file: z.string().optional(),
  insecure_skip_verify: z.boolean().optional(),
  probes: z.array(apiProbe).optional().describe('Synthetic API probes: operations of the service, checked against its published OpenAPI schema.'),
});

const chainData = z.strictObject({
  interval: duration({ ms: 10_000, text: '10s' }).optional().describe('How often chain data is refreshed (default 60s).'),
  network: z.enum(['mainnet', 'fuji']).optional().describe('Network of the nodes, unless a node sets its own (default mainnet).'),
  data_api: z.string().optional().describe('Name of the data-api service to use (default: the first one).'),
  metrics_api: z.string().optional().describe('Name of the metrics-api service to use (default: the first one).'),
  evm_chains: z
    .array(z.string().regex(/^\d+$/, 'must be an EVM chain ID such as "43114"'))
    .optional()
    .describe('EVM chain IDs whose latest block, status and TPS are followed (default: the C-Chain of the network).'),
  validators: z.boolean().optional().describe('Follow the validator status of every node whose NodeID is known (default true).'),
  validator_interval: duration({ ms: 10_000, text: '10s' }).optional().describe('How often a node\'s validator record is re-read (default 10m).'),
  tps: z.boolean().optional().describe('Read average TPS from the Metrics API (default true when one is configured).'),
});

const discoverySchema = z.strictObject({
  file_sd: z
    .array(
      z.strictObject({
        files: z.array(z.string()).min(1).describe('Prometheus file_sd files (JSON or YAML; globs like targets/*.json); re-read when they change.'),
        refresh_interval: duration({ ms: 1000, text: '1s' }).optional().describe('How often the files are checked (default 30s).'),
        scheme: z.enum(['http', 'https']).optional().describe('For host:port targets (default http).'),
        labels: labels.optional(),
      }),
    )
    .optional(),
  dns: z
    .array(
      z.strictObject({
        names: z.array(z.string().min(1)).min(1).describe('DNS names to resolve (a headless Kubernetes Service is the common case).'),
        type: z.enum(['A', 'AAAA', 'SRV']).optional().describe('Default SRV when no port is given, else A.'),
        port: z.number().int().min(1).max(65535).optional().describe('Port for A/AAAA answers (default 9650).'),
        refresh_interval: duration({ ms: 1000, text: '1s' }).optional().describe('How often names are re-resolved (default 30s).'),
        scheme: z.enum(['http', 'https']).optional(),
        servers: z.array(z.string()).optional().describe('DNS servers to ask (IP or IP:port) instead of the system resolver.'),
        labels: labels.optional(),
      }),
    )
    .optional(),
});

export { ALERT_NAMES };

const severity = z.enum(['warning', 'critical']);
const matchers = z
  .record(z.string(), z.string())
  .describe('Label matchers: exact values, or a regular expression written as ~regex (e.g. target: "~validator-.*").');

const ruleSettings = {
  disabled: z.boolean().optional(),
  for_polls: z.number().int().min(1).max(1000).optional().describe('Consecutive polls the condition must hold before firing.'),
  for: duration().optional().describe('And for at least this long.'),
  severity: severity.optional().describe('Starting severity.'),
  critical_after: duration().optional().describe('Escalate to critical after firing this long.'),
};
/** Each rule's common keys plus its own (src/alerts/rules/<AlertName>.ts). */
const ruleMap = ruleTuningSchema(ruleSettings);

const receiverCommon = {
  name: targetName.describe('Receiver name (routing, metrics, notify-test).'),
  matchers: matchers.optional().describe('Only alerts whose labels match.'),
  min_severity: severity.optional().describe('Only alerts at least this severe (default warning).'),
};
const secretField = (what: string) => ({ [what]: z.string().optional(), [`${what}_file`]: z.string().optional() });
const receiverSchema = z.strictObject({
  ...receiverCommon,
  webhook: z
    .strictObject({ ...secretField('url'), ...secretField('secret'), headers: z.record(z.string(), z.string()).optional() })
    .optional()
    .describe('Alertmanager-format JSON (version 4), signed per Standard Webhooks when secret is set.'),
  slack: z.strictObject({ ...secretField('url') }).optional().describe('Slack incoming webhook (it posts to the channel it was created for).'),
  discord: z.strictObject({ ...secretField('url') }).optional().describe('Discord webhook.'),
  pagerduty: z
    .strictObject({ ...secretField('routing_key'), url: z.string().optional().describe('Events API v2 endpoint (default https://events.pagerduty.com/v2/enqueue).') })
    .optional()
    .describe('PagerDuty Events API v2.'),
  alertmanager: z
    .strictObject({ url: z.string().describe('Alertmanager base URL; alerts are POSTed to /api/v2/alerts.'), resend_interval: duration().optional() })
    .optional()
    .describe('Prometheus Alertmanager (the way to run several replicas: it deduplicates).'),
});

const alertsSchema = z.strictObject({
  for_polls: z.number().int().min(1).max(1000).optional().describe('Default consecutive polls before firing (default 2).'),
  resolve_polls: z.number().int().min(1).max(1000).optional().describe('Consecutive good polls before a firing alert resolves (default 1).'),
  repeat_interval: duration().optional().describe('Remind about firing alerts this often (default 4h; 0 = never).'),
  bootstrap_grace: duration().optional().describe('How long a node may be not ready before AvalancheNodeNotReady fires; chain checks do not page meanwhile (default 30m).'),
  flap_threshold: z.number().int().min(2).optional().describe('An alert that changes state more often than this within flap_window is flapping: it notifies again once settled (default 4).'),
  flap_window: duration().optional().describe('Default 30m. A flapping alert notifies again once it has been stable this long.'),
  rules: ruleMap.optional().describe('Tuning of the built-in rules.'),
  targets: z.record(z.string(), z.strictObject({ rules: ruleMap })).optional().describe('Per-target tuning: target name → rules.'),
  silences: z
    .array(z.strictObject({ matchers, ends_at: z.string().refine((t) => !Number.isNaN(Date.parse(t)), 'must be a date-time such as 2026-12-01T00:00:00Z'), starts_at: z.string().optional(), comment: z.string().optional() }))
    .optional(),
  maintenance: z
    .array(z.strictObject({ matchers, schedule: z.string().refine(isCronPattern, 'must be a cron pattern'), duration: duration({ ms: 1000, text: '1s' }), comment: z.string().optional() }))
    .optional()
    .describe('Recurring windows (cron start + duration) in which matching alerts do not notify.'),
  receivers: z.array(receiverSchema).optional(),
});

export const defaultsSchema = z.strictObject({
  ...nodeSettings,
  labels: labels.optional(),
});

export const configSchema = z.strictObject({
  listen: z
    .string()
    .regex(/^(?:\[[0-9a-fA-F:.]+\]|[^:\s]*):\d{1,5}$/, 'must be HOST:PORT, [IPv6]:PORT or :PORT')
    .optional()
    .describe('Address of the HTTP server (default 0.0.0.0:9660).'),
  log: z
    .strictObject({
      level: z.enum(['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent']).optional(),
      format: z.enum(['json', 'pretty']).optional(),
    })
    .optional(),
  defaults: defaultsSchema.optional().describe('Settings every node inherits unless it sets its own.'),
  limits: z
    .strictObject({
      max_checks_per_target: z.number().int().min(1).max(10000).optional().describe('Checks exported per target and view (default 200).'),
      max_label_length: z.number().int().min(16).max(1024).optional().describe('Longest label value (default 128).'),
      max_response_size: byteSize.optional().describe('Largest accepted response body (default 4MiB).'),
      max_concurrent_requests: z.number().int().min(1).max(10000).optional().describe('Probe requests in flight at once (default 128).'),
      shutdown_timeout: duration().optional().describe('How long in-flight polls may finish on stop (default 10s).'),
    })
    .optional(),
  nodes: z.array(nodeSchema).optional().describe('AvalancheGo nodes to poll.'),
  services: z.array(serviceSchema).optional().describe('Hosted Avalanche APIs to poll (Data API, Metrics API).'),
  discovery: discoverySchema.optional().describe('Nodes found in files (file_sd) or DNS; they take their settings from defaults:.'),
  chain_data: chainData.optional().describe('Opt-in: what only the network can tell about a node (height lag, validator status, chain status, TPS).'),
  state_dir: z.string().optional().describe('Where alert states, silences and undelivered notifications are kept (default ./data).'),
  external_url: z.string().optional().describe('URL of this avahealth, used in notifications (default http://<listen>).'),
  alerts: alertsSchema.optional(),
});

export type ConfigInput = z.input<typeof configSchema>;
export type ParsedConfig = z.output<typeof configSchema>;
export type ParsedNode = z.output<typeof nodeSchema>;
export type ParsedService = z.output<typeof serviceSchema>;
export type ParsedReceiver = z.output<typeof receiverSchema>;
export type ParsedAlerts = z.output<typeof alertsSchema>;
export type { AlertName };

export function jsonSchema(): Record<string, unknown> {
  const schema = z.toJSONSchema(configSchema, { target: 'draft-7', io: 'input' }) as Record<string, unknown>;
  return { ...schema, $id: 'https://avahealth.dev/schema/config.json', title: 'avahealth configuration' };
}

/** Every key the schema knows, for "did you mean" hints. */
export function knownKeys(): string[] {
  const keys = new Set<string>();
  const walk = (node: unknown): void => {
    if (node === null || typeof node !== 'object') return;
    const record = node as Record<string, unknown>;
    if (record.properties && typeof record.properties === 'object') {
      for (const [key, child] of Object.entries(record.properties as Record<string, unknown>)) {
        keys.add(key);
        walk(child);
      }
    }
    for (const value of Object.values(record)) if (typeof value === 'object') walk(value);
  };
  walk(z.toJSONSchema(configSchema, { target: 'draft-7', io: 'input' }));
  return [...keys];
}
