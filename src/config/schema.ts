/**
 * The config file's schema: one zod definition gives the validation, every default, the transforms
 * into the domain types (NodeTarget, ServiceTarget, Config, …, which are its output types) and the
 * JSON Schema (`avahealth schema`). Every object is strict: an unknown key is an error.
 */
import { z } from 'zod';
import { byteSize, duration, isHarmlessHeader, listen, listenUrl, report } from './primitives.js';
import { alertsSchema } from './schema/alerts.js';
import { defaultsSchema, nodeSchema, resolveNode, type NodeSettings } from './schema/nodes.js';
import { serviceSchema } from './schema/services.js';
import { metricsSchema } from './schema/metrics.js';
import { chainDataSchema, DEFAULT_NETWORK, discoverySchema, resolveChainData } from './schema/sources.js';

export { ALERT_NAMES, type AlertName } from './schema/alerts.js';
export { SERVICE_ENDPOINTS } from './schema/services.js';

const limitsSchema = z
  .strictObject({
    max_checks_per_target: z.number().int().min(1).max(10000).prefault(200).describe('Checks exported per target and view.'),
    max_label_length: z.number().int().min(16).max(1024).prefault(128).describe('Longest label value.'),
    max_response_size: byteSize.prefault('4MiB').describe('Largest accepted response body.'),
    max_concurrent_requests: z.number().int().min(1).max(10000).prefault(128).describe('Probe requests in flight at once.'),
    shutdown_timeout: duration().prefault('10s').describe('How long in-flight polls may finish on stop.'),
  })
  .transform((l) => ({
    maxChecksPerTarget: l.max_checks_per_target,
    maxLabelLength: l.max_label_length,
    maxResponseBytes: l.max_response_size,
    maxConcurrentRequests: l.max_concurrent_requests,
    shutdownTimeoutMs: l.shutdown_timeout,
  }));

const fields = z.strictObject({
  listen: listen.prefault('0.0.0.0:9660').describe('Address of the HTTP server.'),
  log: z
    .strictObject({
      level: z.enum(['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent']).prefault('info'),
      format: z.enum(['json', 'pretty']).prefault('json'),
    })
    .prefault({}),
  defaults: defaultsSchema.prefault({}).describe('Settings every node inherits unless it sets its own.'),
  limits: limitsSchema.prefault({}),
  metrics: metricsSchema.prefault({}).describe('Which families /metrics exports (docs/metrics.md); by default every one.'),
  nodes: z.array(nodeSchema).prefault([]).describe('AvalancheGo nodes to poll.'),
  services: z.array(serviceSchema).prefault([]).describe('Hosted Avalanche APIs to poll (Data API, Metrics API).'),
  discovery: discoverySchema.optional().describe('Nodes found in files (file_sd) or DNS; they take their settings from defaults:.'),
  chain_data: chainDataSchema.optional().describe('Opt-in: what only the network can tell about a node (height lag, validator status, chain status, TPS).'),
  state_dir: z.string().prefault('./data').describe('Where alert states, silences and undelivered notifications are kept (relative to the config file).'),
  external_url: z.string().optional().describe('URL of this avahealth, used in notifications (default http://<listen>, or the --listen address).'),
  allowed_hosts: z
    .array(z.string().regex(/^[A-Za-z0-9_.:[\]-]{1,253}$/, 'must be a host name such as avahealth.example.com'))
    .prefault([])
    .describe('Host names (in the Host header) the write endpoints accept besides localhost, IP addresses, the listen address and the host of external_url: the names avahealth is reached by, e.g. a Kubernetes Service. Any other is refused (DNS rebinding).'),
  alerts: alertsSchema.prefault({}),
});

/** Checks across sections: unique target names, chain data naming services that exist. */
function crossReferences(config: z.output<typeof fields>, ctx: z.RefinementCtx): void {
  const seen = new Map<string, string>();
  for (const list of ['nodes', 'services'] as const) {
    config[list].forEach((target, i) => {
      const first = seen.get(target.name);
      if (first) report(ctx, [list, i, 'name'], `duplicate target name "${target.name}" (first at ${first})`);
      else seen.set(target.name, `${list}[${i}]`);
    });
  }
  for (const [key, kind] of [['data_api', 'data-api'], ['metrics_api', 'metrics-api']] as const) {
    const name = config.chain_data?.[key];
    if (name !== undefined && !config.services.some((s) => s.name === name && s.service === kind)) {
      report(ctx, ['chain_data', key], `chain_data.${key}: no ${kind} service named "${name}"`);
    }
  }
}

export const configSchema = fields.superRefine(crossReferences).transform((c) => {
  const network = c.chain_data?.network ?? DEFAULT_NETWORK;
  return {
    listen: c.listen,
    log: c.log,
    limits: c.limits,
    metrics: c.metrics,
    nodes: c.nodes.map((node) => resolveNode(node, c.defaults, network)),
    services: c.services,
    ...(c.chain_data ? { chainData: resolveChainData(c.chain_data, c.services) } : {}),
    ...(c.discovery
      ? { discovery: { ...c.discovery, /** `defaults:` alone: discovered nodes are this with their own name, URL and labels. */ template: resolveNode({ name: 'discovered', url: 'http://discovered' }, c.discovery.sendDefaultCredentials ? c.defaults : withoutCredentials(c.defaults), network) } }
      : {}),
    stateDir: c.state_dir,
    externalUrl: c.external_url ?? listenUrl(c.listen),
    /** No `external_url:`: the URL is derived from `listen`, and follows `--listen` (overrideListen). */
    externalUrlFollowsListen: c.external_url === undefined,
    allowedHosts: c.allowed_hosts,
    alerts: c.alerts,
  };
});

/** `defaults:` without what authenticates a request: for discovered nodes with `send_default_credentials: false`. */
function withoutCredentials(defaults: NodeSettings): NodeSettings {
  const { bearer_token: _token, bearer_token_file: _tokenFile, basic_auth: _basic, ...rest } = defaults;
  return { ...rest, headers: Object.fromEntries(Object.entries(defaults.headers).filter(([name]) => isHarmlessHeader(name))) };
}

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
    if (record.properties && typeof record.properties === 'object') for (const key of Object.keys(record.properties)) keys.add(key);
    for (const value of Object.values(record)) walk(value);
  };
  walk(jsonSchema());
  return [...keys];
}
