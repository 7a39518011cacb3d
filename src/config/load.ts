/**
 * Reads a YAML config into a resolved Config: YAML syntax, `${ENV}` substitution, schema checks,
 * `*_file` secrets and defaults, with every problem reported as `FILE:LINE:COL: message`.
 */
import { readFileSync } from 'node:fs';
import { dirname, resolve as resolvePath } from 'node:path';
import { isMap, isPair, isScalar, isSeq, LineCounter, parseDocument, visit, type Document, type Node as YamlNode } from 'yaml';
import type { z } from 'zod';
import { ALL_VIEW, type NodeEndpoint } from '../model/observation.js';
import { closest, ConfigError, type ConfigProblem } from './errors.js';
import { ApiSpec, type ServiceKind } from '../openapi/spec.js';
import {
  configSchema,
  knownKeys,
  type AlertName,
  type ParsedAlerts,
  type ParsedConfig,
  type ParsedNode,
  type ParsedReceiver,
  type ParsedService,
  type SERVICE_ENDPOINTS,
} from './schema.js';

type ParsedRule = NonNullable<NonNullable<ParsedAlerts['rules']>[AlertName]>;

export type Network = 'mainnet' | 'fuji';
export type ServiceEndpoint = (typeof SERVICE_ENDPOINTS)[number];

export interface TlsSettings {
  ca?: string;
  insecureSkipVerify: boolean;
}

export interface NodeView {
  name: string;
  /** Empty for the unfiltered `all` view. */
  tags: string[];
}

export interface NodeTarget {
  kind: 'node';
  name: string;
  /** Base URL without a trailing slash; may carry a path prefix. */
  baseUrl: string;
  protocol: 'get' | 'jsonrpc';
  intervalMs: number;
  schedule?: string;
  timeoutMs: number;
  endpoints: NodeEndpoint[];
  /** `all` first, then the configured tag views; only the health endpoint is polled per view. */
  views: NodeView[];
  headers: Record<string, string>;
  labels: Record<string, string>;
  tls: TlsSettings;
  network: Network;
  nodeId?: string;
  /** Header and auth values that must never be shown (redacted from logs and status). */
  secrets: string[];
}

export interface ApiProbe {
  name: string;
  method: 'GET' | 'POST';
  /** Path and encoded query string. */
  path: string;
  body?: string;
  expectStatus: number[];
  operationId: string;
}

export interface ServiceTarget {
  kind: 'service';
  service: ServiceKind;
  name: string;
  baseUrl: string;
  intervalMs: number;
  timeoutMs: number;
  endpoints: ServiceEndpoint[];
  headers: Record<string, string>;
  labels: Record<string, string>;
  tls: TlsSettings;
  secrets: string[];
  probes: ApiProbe[];
}

export type Target = NodeTarget | ServiceTarget;

export interface ChainDataConfig {
  intervalMs: number;
  network: Network;
  dataApi?: string;
  metricsApi?: string;
  evmChains: string[];
  validators: boolean;
  validatorIntervalMs: number;
  tps: boolean;
}

export type ReceiverKind = 'webhook' | 'slack' | 'discord' | 'pagerduty' | 'alertmanager';
export const RECEIVER_KINDS: ReceiverKind[] = ['webhook', 'slack', 'discord', 'pagerduty', 'alertmanager'];

export interface Matcher {
  name: string;
  value: string | RegExp;
}

export interface ReceiverConfig {
  name: string;
  kind: ReceiverKind;
  matchers: Matcher[];
  minSeverity: 'warning' | 'critical';
  url: string;
  secret?: string;
  routingKey?: string;
  headers: Record<string, string>;
  resendIntervalMs: number;
  /** URLs, keys and secrets: never logged or shown. */
  secrets: string[];
}

export type RuleTuning = Partial<Record<AlertName, ParsedRule>>;

export interface AlertsConfig {
  forPolls: number;
  resolvePolls: number;
  repeatIntervalMs: number;
  bootstrapGraceMs: number;
  flapThreshold: number;
  flapWindowMs: number;
  rules: RuleTuning;
  targetRules: Record<string, RuleTuning>;
  silences: Array<{ matchers: Matcher[]; startsAt: number; endsAt: number; comment: string }>;
  maintenance: Array<{ matchers: Matcher[]; schedule: string; durationMs: number; comment: string }>;
  receivers: ReceiverConfig[];
}

export interface DiscoveryConfig {
  fileSd: Array<{ files: string[]; refreshMs: number; scheme: 'http' | 'https'; labels: Record<string, string> }>;
  dns: Array<{ names: string[]; type: 'A' | 'AAAA' | 'SRV'; port: number; refreshMs: number; scheme: 'http' | 'https'; labels: Record<string, string>; servers: string[] }>;
  /** A node resolved from `defaults:` alone: discovered nodes are this with their own name, URL and labels. */
  template: NodeTarget;
}

export interface Config {
  file: string;
  discovery?: DiscoveryConfig;
  stateDir: string;
  externalUrl: string;
  alerts: AlertsConfig;
  /** Things worth telling but not fatal (unset environment variables). */
  warnings: ConfigProblem[];
  listen: { host: string; port: number };
  log: { level: string; format: 'json' | 'pretty' };
  limits: {
    maxChecksPerTarget: number;
    maxLabelLength: number;
    maxResponseBytes: number;
    maxConcurrentRequests: number;
    shutdownTimeoutMs: number;
  };
  nodes: NodeTarget[];
  services: ServiceTarget[];
  chainData?: ChainDataConfig;
}

export const C_CHAIN: Record<Network, string> = { mainnet: '43114', fuji: '43113' };

export const DEFAULTS = {
  listen: '0.0.0.0:9660',
  intervalMs: 15_000,
  timeoutMs: 5_000,
  endpoints: ['health', 'readiness', 'liveness'] as NodeEndpoint[],
  maxChecksPerTarget: 200,
  maxLabelLength: 128,
  maxResponseBytes: 4 * 1024 * 1024,
  maxConcurrentRequests: 128,
  shutdownTimeoutMs: 10_000,
  stateDir: './data',
  forPolls: 2,
  resolvePolls: 1,
  repeatIntervalMs: 4 * 3600_000,
  bootstrapGraceMs: 30 * 60_000,
  flapThreshold: 4,
  flapWindowMs: 30 * 60_000,
  alertmanagerResendMs: 60_000,
  pagerdutyUrl: 'https://events.pagerduty.com/v2/enqueue',
  serviceIntervalMs: 30_000,
  serviceTimeoutMs: 10_000,
  apiKeyHeader: 'x-glacier-api-key',
  chainDataIntervalMs: 60_000,
  validatorIntervalMs: 600_000,
};

export function loadConfigFile(file: string, env: NodeJS.ProcessEnv = process.env): Config {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new ConfigError([{ file, line: 1, col: 1, message: `cannot read config: ${(err as Error).message}` }]);
  }
  return parseConfig(text, file, env);
}

export interface ParsedYaml<T> {
  data: T;
  doc: Document;
  /** A problem at a YAML offset (or at the node of a path, through `nodeAt`). */
  at: (offset: number | undefined, message: string) => ConfigProblem;
  warnings: ConfigProblem[];
  /** A problem at the node of `path`, naming the unset environment variables that emptied it. */
  atPath: (path: readonly PropertyKey[], message: string) => ConfigProblem;
}

/**
 * YAML text → a value checked by `schema`, with `${ENV}` substitution and every problem located as
 * FILE:LINE:COL. Shared by the config and the web config.
 */
export function parseYaml<S extends z.ZodType>(text: string, file: string, schema: S, env: NodeJS.ProcessEnv = process.env): ParsedYaml<z.output<S>> {
  const lineCounter = new LineCounter();
  const doc = parseDocument(shieldEnvRefs(text), { lineCounter, prettyErrors: false, uniqueKeys: true });
  const at = (offset: number | undefined, message: string): ConfigProblem => {
    const pos = lineCounter.linePos(offset ?? 0);
    return { file, line: pos.line, col: pos.col, message };
  };
  if (doc.errors.length > 0) {
    throw new ConfigError(doc.errors.map((e) => at(e.pos[0], `YAML syntax error: ${firstLine(e.message)}`)));
  }
  // An unset variable becomes an empty value (an optional api_key: ${KEY} simply stays off); if that
  // empty value is not allowed where it stands, the error says which variable was missing.
  const unset = substituteEnv(doc, env);
  const warnings = [...unset].map(([node, names]) => at(node.range?.[0], `environment variable ${names.join(', ')} is not set; using an empty value`));
  const naming = (path: readonly PropertyKey[], problem: ConfigProblem): ConfigProblem => {
    const names = unset.get(nodeAt(doc, path) as YamlNode);
    return names ? { ...problem, message: `${problem.message} (environment variable ${names.join(', ')} is not set)` } : problem;
  };
  const atPath = (path: readonly PropertyKey[], message: string) => naming(path, at(nodeAt(doc, path)?.range?.[0], message));
  const result = schema.safeParse(toPlainData(doc, at) ?? {});
  if (!result.success) {
    throw new ConfigError(result.error.issues.flatMap((issue) => locateIssue(doc, issue, at).map((p) => naming(issue.path, p))));
  }
  return { data: result.data, doc, at, warnings, atPath };
}

export function parseConfig(text: string, file: string, env: NodeJS.ProcessEnv = process.env): Config {
  const { data, doc, at, warnings, atPath } = parseYaml(text, file, configSchema, env);
  const problems: ConfigProblem[] = [];

  const baseDir = dirname(resolvePath(file));
  const readSecretFile = (path: (string | number)[], relative: string): string | undefined => {
    try {
      return readFileSync(resolvePath(baseDir, relative), 'utf8').replace(/\r?\n$/, '');
    } catch (err) {
      problems.push(atPath(path, `cannot read ${String(path.at(-1))}: ${(err as Error).message}`));
      return undefined;
    }
  };
  const report = (path: (string | number)[], message: string) => problems.push(atPath(path, message));
  const config = resolveConfig(data, file, baseDir, readSecretFile, report);
  config.warnings = warnings;
  config.alerts = resolveAlerts(data.alerts ?? {}, readSecretFile, report);
  if (problems.length > 0) throw new ConfigError(problems);

  const seen = new Map<string, string>();
  for (const [list, targets] of [['nodes', config.nodes], ['services', config.services]] as const) {
    targets.forEach((target, i) => {
      const first = seen.get(target.name);
      if (first) problems.push(at(nodeAt(doc, [list, i, 'name'])?.range?.[0], `duplicate target name "${target.name}" (first at ${first})`));
      else seen.set(target.name, `${list}[${i}]`);
    });
  }
  config.services.forEach((service, i) => {
    service.probes.forEach((probe, j) => {
      if (!probe.operationId) {
        const where = nodeAt(doc, ['services', i, 'probes', j, 'path'])?.range?.[0];
        problems.push(at(where, `no ${probe.method} operation of the ${service.service === 'data-api' ? 'Data API' : 'Metrics API'} spec matches ${probe.path.split('?')[0]}`));
      }
    });
  });
  if (config.chainData) {
    for (const [key, kind] of [['data_api', 'data-api'], ['metrics_api', 'metrics-api']] as const) {
      const name = data.chain_data?.[key];
      if (name !== undefined && !config.services.some((s) => s.name === name && s.service === kind)) {
        problems.push(at(nodeAt(doc, ['chain_data', key])?.range?.[0], `chain_data.${key}: no ${kind} service named "${name}"`));
      }
    }
  }
  if (problems.length > 0) throw new ConfigError(problems);
  return config;
}

/** More alias expansions than this is an alias bomb ("billion laughs"), refused rather than built. */
const MAX_ALIAS_COUNT = 100;

function toPlainData(doc: Document, at: (offset: number | undefined, message: string) => ConfigProblem): unknown {
  try {
    return doc.toJS({ maxAliasCount: MAX_ALIAS_COUNT });
  } catch (err) {
    if (!(err instanceof ReferenceError)) throw err;
    let firstAlias: YamlNode | undefined;
    visit(doc, { Alias: (_key, node) => { firstAlias = node; return visit.BREAK; } });
    throw new ConfigError([at(firstAlias?.range?.[0], `YAML aliases expand too much (limit ${MAX_ALIAS_COUNT}; an alias bomb?)`)]);
  }
}

function firstLine(text: string): string {
  return text.split('\n')[0]!.trim();
}

/** `${VAR}`, `${VAR:-default}`; `$$` is a literal `$`. Substituted inside string scalars only. */
const ENV_REF = /\$\$|\$[{\uE000]([A-Za-z_][A-Za-z0-9_]*)(?::-([^}\uE001\n]*))?[}\uE001]/g;
const OPEN = '\uE000';
const CLOSE = '\uE001';

/**
 * `{` and `}` may not stand in a plain scalar inside a flow mapping, so `{secret: ${SECRET}}` is not
 * YAML. Before parsing, the braces of each `${…}` become private-use characters of the same length
 * (every line:column stays exact); substituteEnv reads both forms.
 */
function shieldEnvRefs(text: string): string {
  return text.replace(/\$\$|\$\{([A-Za-z_][A-Za-z0-9_]*(?::-[^}\n]*)?)\}/g, (match, inner: string | undefined) => (inner === undefined ? match : `$${OPEN}${inner}${CLOSE}`));
}

/** Substitutes in place; returns the scalars that referenced unset variables (and which). */
function substituteEnv(doc: Document, env: NodeJS.ProcessEnv): Map<YamlNode, string[]> {
  const unset = new Map<YamlNode, string[]>();
  const visit = (node: unknown): void => {
    if (isMap(node) || isSeq(node)) {
      for (const item of node.items) visit(isPair(item) ? item.value : item);
    } else if (isScalar(node) && typeof node.value === 'string' && node.value.includes('$')) {
      node.value = node.value.replace(ENV_REF, (match, name: string | undefined, fallback: string | undefined) => {
        if (match === '$$') return '$';
        const value = env[name!];
        if (value !== undefined && value !== '') return value;
        if (fallback !== undefined) return fallback;
        unset.set(node, [...(unset.get(node) ?? []), name!]);
        return '';
      });
    }
  };
  visit(doc.contents);
  return unset;
}

export function nodeAt(doc: Document, path: readonly PropertyKey[]): YamlNode | undefined {
  let node: unknown = doc.contents;
  for (const key of path) {
    if (isMap(node)) node = node.items.find((pair) => isScalar(pair.key) && String(pair.key.value) === String(key))?.value;
    else if (isSeq(node)) node = node.items[Number(key)];
    else return undefined;
  }
  return (node ?? undefined) as YamlNode | undefined;
}

/** The key node of `path` (for "unknown key" errors, which point at the key itself). */
function keyNodeAt(doc: Document, path: readonly PropertyKey[], key: string): YamlNode | undefined {
  const parent = nodeAt(doc, path);
  if (!isMap(parent)) return parent;
  const pair = parent.items.find((p) => isScalar(p.key) && String(p.key.value) === key);
  return (pair?.key ?? parent) as YamlNode;
}

let cachedKeys: string[] | undefined;

function locateIssue(
  doc: Document,
  issue: z.core.$ZodIssue,
  at: (offset: number | undefined, message: string) => ConfigProblem,
): ConfigProblem[] {
  const where = issue.path.length > 0 ? issue.path.map(String).join('.') : '(top level)';
  if (issue.code === 'unrecognized_keys') {
    cachedKeys ??= knownKeys();
    return issue.keys.map((key) => {
      const hint = closest(key, cachedKeys!);
      const location = issue.path.length > 0 ? ` in ${where}` : '';
      return at(keyNodeAt(doc, issue.path, key)?.range?.[0], `unknown key "${key}"${location}${hint ? ` (did you mean "${hint}"?)` : ''}`);
    });
  }
  // A missing key has no node of its own: point at the nearest parent that exists.
  let path = issue.path;
  let node = nodeAt(doc, path);
  while (!node && path.length > 0) {
    path = path.slice(0, -1);
    node = nodeAt(doc, path);
  }
  let message = issue.message;
  if (issue.code === 'invalid_type') {
    // The value itself is not repeated where it may be a secret (a numeric api_key, say).
    const secretish = /key|secret|token|password|url|auth/i.test(String(issue.path.at(-1) ?? ''));
    const got = describeYaml(nodeAt(doc, issue.path), !secretish);
    message = got === 'nothing' ? `${where}: required (${issue.expected})` : `${where}: expected ${issue.expected}, got ${got}`;
  } else if (issue.code === 'invalid_key') {
    message = `${where}: invalid key: ${issue.issues.map((i) => i.message).join('; ')}`;
  } else if (issue.code === 'invalid_value' && 'values' in issue) {
    message = `${where}: must be one of ${issue.values.map((v) => JSON.stringify(v)).join(', ')}`;
  } else {
    message = `${where}: ${message}`;
  }
  return [at(node?.range?.[0], message)];
}

function describeYaml(node: YamlNode | undefined, showValue = true): string {
  if (node === undefined) return 'nothing';
  if (isMap(node)) return 'a mapping';
  if (isSeq(node)) return 'a list';
  if (isScalar(node)) return node.value === null ? 'null' : showValue ? `${typeof node.value} ${JSON.stringify(node.value)}` : typeof node.value;
  return 'something else';
}

function parseListen(listen: string): { host: string; port: number } {
  const i = listen.lastIndexOf(':');
  const host = listen.slice(0, i).replace(/^\[(.*)\]$/, '$1');
  return { host: host === '' ? '0.0.0.0' : host, port: Number(listen.slice(i + 1)) };
}

type ReadSecretFile = (path: (string | number)[], file: string) => string | undefined;
type Report = (path: (string | number)[], message: string) => void;

/**
 * `http://user:pass@host` → the URL without its credentials and the Basic authorization they stand
 * for (undici would drop them silently). The password, the credential and the raw userinfo are secrets.
 */
export function urlBasicAuth(url: string): { url: string; authorization?: string; secrets: string[] } {
  const parsed = new URL(url);
  if (parsed.username === '' && parsed.password === '') return { url, secrets: [] };
  const password = decodeURIComponent(parsed.password);
  const credential = Buffer.from(`${decodeURIComponent(parsed.username)}:${password}`).toString('base64');
  const secrets = [...new Set([password, parsed.password, credential])].filter((s) => s.length > 0);
  parsed.username = '';
  parsed.password = '';
  return { url: parsed.href, authorization: `Basic ${credential}`, secrets };
}

function resolveConfig(parsed: ParsedConfig, file: string, baseDir: string, readSecretFile: ReadSecretFile, report: Report): Config {
  const defaults = parsed.defaults ?? {};
  const limits = parsed.limits ?? {};
  const network = parsed.chain_data?.network ?? 'mainnet';
  const services = (parsed.services ?? []).map((service, i) => resolveService(service, ['services', i], baseDir, readSecretFile, report));
  const chainData = resolveChainData(parsed, network, services);
  const listen = parseListen(parsed.listen ?? DEFAULTS.listen);
  return {
    file,
    warnings: [],
    stateDir: resolvePath(baseDir, parsed.state_dir ?? DEFAULTS.stateDir),
    externalUrl: parsed.external_url ?? `http://${listen.host === '0.0.0.0' ? '127.0.0.1' : listen.host}:${listen.port}`,
    alerts: resolveAlerts({}, readSecretFile, () => undefined),
    listen,
    log: { level: parsed.log?.level ?? 'info', format: parsed.log?.format ?? 'json' },
    limits: {
      maxChecksPerTarget: limits.max_checks_per_target ?? DEFAULTS.maxChecksPerTarget,
      maxLabelLength: limits.max_label_length ?? DEFAULTS.maxLabelLength,
      maxResponseBytes: limits.max_response_size ?? DEFAULTS.maxResponseBytes,
      maxConcurrentRequests: limits.max_concurrent_requests ?? DEFAULTS.maxConcurrentRequests,
      shutdownTimeoutMs: limits.shutdown_timeout ?? DEFAULTS.shutdownTimeoutMs,
    },
    nodes: (parsed.nodes ?? []).map((node, i) => resolveNode(node, defaults, network, ['nodes', i], baseDir, readSecretFile, report)),
    services,
    ...(chainData ? { chainData } : {}),
    ...(parsed.discovery ? { discovery: resolveDiscovery(parsed, defaults, network, baseDir, readSecretFile) } : {}),
  };
}

const DISCOVERY_REFRESH_MS = 30_000;

function resolveDiscovery(parsed: ParsedConfig, defaults: NonNullable<ParsedConfig['defaults']>, network: Network, baseDir: string, readSecretFile: ReadSecretFile): DiscoveryConfig {
  const d = parsed.discovery!;
  return {
    fileSd: (d.file_sd ?? []).map((f) => ({
      files: f.files.map((file) => resolvePath(baseDir, file)),
      refreshMs: f.refresh_interval ?? DISCOVERY_REFRESH_MS,
      scheme: f.scheme ?? 'http',
      labels: f.labels ?? {},
    })),
    dns: (d.dns ?? []).map((n) => ({
      names: n.names,
      type: n.type ?? (n.port === undefined ? 'SRV' : 'A'),
      port: n.port ?? 9650,
      refreshMs: n.refresh_interval ?? DISCOVERY_REFRESH_MS,
      scheme: n.scheme ?? 'http',
      labels: n.labels ?? {},
      servers: n.servers ?? [],
    })),
    template: resolveNode({ name: 'discovered', url: 'http://discovered' }, defaults, network, ['defaults'], baseDir, readSecretFile, () => undefined),
  };
}

/** A discovered node: the defaults template with its own name, URL and labels. */
export function discoveredNode(template: NodeTarget, name: string, url: string, labels: Record<string, string>): NodeTarget {
  return { ...template, name, baseUrl: url.replace(/\/+$/, ''), labels: { ...template.labels, ...labels } };
}

function resolveChainData(parsed: ParsedConfig, network: Network, services: ServiceTarget[]): ChainDataConfig | undefined {
  const c = parsed.chain_data;
  if (!c) return undefined;
  const dataApi = c.data_api ?? services.find((s) => s.service === 'data-api')?.name;
  const metricsApi = c.metrics_api ?? services.find((s) => s.service === 'metrics-api')?.name;
  return {
    intervalMs: c.interval ?? DEFAULTS.chainDataIntervalMs,
    network,
    ...(dataApi ? { dataApi } : {}),
    ...(metricsApi ? { metricsApi } : {}),
    evmChains: c.evm_chains ?? [C_CHAIN[network]],
    validators: c.validators ?? true,
    validatorIntervalMs: c.validator_interval ?? DEFAULTS.validatorIntervalMs,
    tps: c.tps ?? metricsApi !== undefined,
  };
}

export function parseMatchers(record: Record<string, string> | undefined): Matcher[] {
  return Object.entries(record ?? {}).map(([name, value]) => ({ name, value: value.startsWith('~') ? new RegExp(`^(?:${value.slice(1)})$`) : value }));
}

function resolveAlerts(parsed: ParsedAlerts, readSecretFile: ReadSecretFile, report: (path: (string | number)[], message: string) => void): AlertsConfig {
  const matchersAt = (record: Record<string, string>, path: (string | number)[]) => {
    for (const [name, value] of Object.entries(record)) {
      if (!value.startsWith('~')) continue;
      try {
        new RegExp(value.slice(1));
      } catch (err) {
        report([...path, name], `invalid regular expression: ${(err as Error).message}`);
        return [];
      }
    }
    return parseMatchers(record);
  };
  const receivers = (parsed.receivers ?? []).flatMap((r, i) => {
    const receiver = resolveReceiver(r, ['alerts', 'receivers', i], readSecretFile, report);
    if (receiver) receiver.matchers = matchersAt(r.matchers ?? {}, ['alerts', 'receivers', i, 'matchers']);
    return receiver ? [receiver] : [];
  });
  const names = new Set<string>();
  receivers.forEach((r, i) => {
    if (names.has(r.name)) report(['alerts', 'receivers', i, 'name'], `duplicate receiver name "${r.name}"`);
    names.add(r.name);
  });
  return {
    forPolls: parsed.for_polls ?? DEFAULTS.forPolls,
    resolvePolls: parsed.resolve_polls ?? DEFAULTS.resolvePolls,
    repeatIntervalMs: parsed.repeat_interval ?? DEFAULTS.repeatIntervalMs,
    bootstrapGraceMs: parsed.bootstrap_grace ?? DEFAULTS.bootstrapGraceMs,
    flapThreshold: parsed.flap_threshold ?? DEFAULTS.flapThreshold,
    flapWindowMs: parsed.flap_window ?? DEFAULTS.flapWindowMs,
    rules: parsed.rules ?? {},
    targetRules: Object.fromEntries(Object.entries(parsed.targets ?? {}).map(([name, t]) => [name, t.rules])),
    silences: (parsed.silences ?? []).map((s, i) => ({
      matchers: matchersAt(s.matchers, ['alerts', 'silences', i, 'matchers']),
      startsAt: s.starts_at ? Date.parse(s.starts_at) : 0,
      endsAt: Date.parse(s.ends_at),
      comment: s.comment ?? '',
    })),
    maintenance: (parsed.maintenance ?? []).map((m, i) => ({
      matchers: matchersAt(m.matchers, ['alerts', 'maintenance', i, 'matchers']),
      schedule: m.schedule,
      durationMs: m.duration,
      comment: m.comment ?? '',
    })),
    receivers,
  };
}

/** A secret URL, and its path and query on their own (where webhook tokens live; receivers echo paths). */
function urlSecrets(url: string): string[] {
  const { pathname, search } = new URL(url);
  const tail = `${pathname}${search}`;
  return tail.length >= 8 ? [url, tail] : [url];
}

function resolveReceiver(r: ParsedReceiver, path: (string | number)[], readSecretFile: ReadSecretFile, report: (path: (string | number)[], message: string) => void): ReceiverConfig | undefined {
  const kinds = RECEIVER_KINDS.filter((k) => r[k] !== undefined);
  if (kinds.length !== 1) {
    report(path, `receiver "${r.name}" needs exactly one of ${RECEIVER_KINDS.join(', ')}${kinds.length > 1 ? ` (has ${kinds.join(', ')})` : ''}`);
    return undefined;
  }
  const kind = kinds[0]!;
  const settings = r[kind] as Record<string, unknown>;
  // A missing or emptied field is reported at the field when it is written (naming an unset variable).
  const fieldPath = (field: string) => (settings[field] !== undefined ? [...path, kind, field] : [...path, kind]);
  const secret = (field: string): string | undefined => {
    const direct = settings[field];
    if (typeof direct === 'string' && direct !== '') return direct;
    const file = settings[`${field}_file`];
    return typeof file === 'string' ? readSecretFile([...path, kind, `${field}_file`], file) : undefined;
  };
  const url = kind === 'pagerduty' ? (typeof settings.url === 'string' ? settings.url : DEFAULTS.pagerdutyUrl) : secret('url');
  if (!url || !/^https?:\/\//i.test(url) || !URL.canParse(url)) {
    report(fieldPath('url'), `receiver "${r.name}": ${kind} needs an http(s) url${kind === 'alertmanager' || kind === 'pagerduty' ? '' : ' (url or url_file)'}`);
    return undefined;
  }
  const receiver: ReceiverConfig = {
    name: r.name,
    kind,
    matchers: [],
    minSeverity: r.min_severity ?? 'warning',
    url: url.replace(/\/+$/, kind === 'alertmanager' ? '' : '$&'),
    headers: (settings.headers as Record<string, string> | undefined) ?? {},
    resendIntervalMs: (settings.resend_interval as number | undefined) ?? DEFAULTS.alertmanagerResendMs,
    secrets: kind === 'alertmanager' || kind === 'pagerduty' ? [] : urlSecrets(url),
  };
  const signing = kind === 'webhook' ? secret('secret') : undefined;
  if (signing) {
    receiver.secret = signing;
    receiver.secrets.push(signing);
  }
  if (kind === 'pagerduty') {
    const key = secret('routing_key');
    if (!key) {
      report(fieldPath('routing_key'), `receiver "${r.name}": pagerduty needs routing_key or routing_key_file`);
      return undefined;
    }
    receiver.routingKey = key;
    receiver.secrets.push(key);
  }
  return receiver;
}

const SERVICE_HEALTH_PATHS: Record<ServiceKind, Record<ServiceEndpoint, string>> = {
  'data-api': { 'health-check': '/v1/health-check', 'live-check': '/v1/live-check' },
  'metrics-api': { 'health-check': '/v2/health-check', 'live-check': '/v2/live-check' },
};

export function serviceEndpointPath(target: ServiceTarget, endpoint: ServiceEndpoint): string {
  return SERVICE_HEALTH_PATHS[target.service][endpoint];
}

function resolveService(service: ParsedService, path: (string | number)[], baseDir: string, readSecretFile: ReadSecretFile, report: Report): ServiceTarget {
  const headers: Record<string, string> = { ...service.headers };
  const secrets: string[] = [];
  const credentials = urlBasicAuth(service.url);
  if (credentials.authorization) {
    if (Object.keys(headers).some((name) => name.toLowerCase() === 'authorization')) {
      report([...path, 'url'], `${path.join('.')}.url: carries user:password@ and headers: sets authorization too; use one`);
    }
    headers.authorization = credentials.authorization;
    secrets.push(...credentials.secrets);
  }
  const apiKey = service.api_key || (service.api_key_file !== undefined ? readSecretFile([...path, 'api_key_file'], resolvePath(baseDir, service.api_key_file)) : undefined);
  if (apiKey) {
    headers[(service.api_key_header ?? DEFAULTS.apiKeyHeader).toLowerCase()] = apiKey;
    secrets.push(apiKey);
  }
  const tls: TlsSettings = { insecureSkipVerify: service.insecure_skip_verify ?? false };
  if (service.ca_file) tls.ca = readSecretFile([...path, 'ca_file'], resolvePath(baseDir, service.ca_file));
  const intervalMs = service.interval ?? DEFAULTS.serviceIntervalMs;
  const probes = (service.probes ?? []).map((probe): ApiProbe => {
    const method = probe.method ?? 'GET';
    const query = new URLSearchParams();
    for (const [key, value] of Object.entries(probe.query ?? {})) {
      for (const item of Array.isArray(value) ? value : [value]) query.append(key, String(item));
    }
    const search = query.toString();
    const operation = ApiSpec.load(service.kind).findOperation(method, probe.path);
    return {
      name: probe.name,
      method,
      path: `${probe.path}${search ? `?${search}` : ''}`,
      ...(probe.body !== undefined ? { body: JSON.stringify(probe.body) } : {}),
      expectStatus: probe.expect_status === undefined ? [200] : Array.isArray(probe.expect_status) ? probe.expect_status : [probe.expect_status],
      operationId: operation?.operationId ?? '',
    };
  });
  return {
    kind: 'service',
    service: service.kind,
    name: service.name,
    baseUrl: credentials.url.replace(/\/+$/, ''),
    intervalMs,
    timeoutMs: Math.min(service.timeout ?? DEFAULTS.serviceTimeoutMs, intervalMs),
    endpoints: [...new Set<ServiceEndpoint>(service.endpoints ?? ['health-check', 'live-check'])],
    headers,
    labels: { ...service.labels },
    tls,
    secrets,
    probes,
  };
}

function resolveNode(
  node: ParsedNode,
  defaults: NonNullable<ParsedConfig['defaults']>,
  network: Network,
  path: (string | number)[],
  baseDir: string,
  readSecretFile: ReadSecretFile,
  report: Report,
): NodeTarget {
  const pick = <K extends keyof typeof defaults>(key: K) => (node[key as keyof ParsedNode] ?? defaults[key]) as (typeof defaults)[K];
  // A setting inherited from defaults is reported at its place under defaults.
  const pathOf = (key: string): (string | number)[] => (node[key as keyof ParsedNode] !== undefined ? [...path, key] : ['defaults', key]);
  const intervalMs = pick('interval') ?? DEFAULTS.intervalMs;
  const headers: Record<string, string> = { ...defaults.headers, ...node.headers };
  const secrets: string[] = [];
  const bearer = pick('bearer_token') ?? fileSecret(pick('bearer_token_file'), pathOf('bearer_token_file'), readSecretFile);
  if (bearer) {
    headers.authorization = `Bearer ${bearer}`;
    secrets.push(bearer);
  }
  const basic = pick('basic_auth');
  if (basic) {
    const password = basic.password ?? fileSecret(basic.password_file, [...pathOf('basic_auth'), 'password_file'], readSecretFile) ?? '';
    const credential = Buffer.from(`${basic.username}:${password}`).toString('base64');
    headers.authorization = `Basic ${credential}`;
    if (password) secrets.push(password, credential);
  }
  const credentials = urlBasicAuth(node.url);
  if (credentials.authorization) {
    const own = (['bearer_token', 'bearer_token_file', 'basic_auth'] as const).filter((key) => node[key] !== undefined);
    if (own.length > 0) report([...path, 'url'], `${path.join('.')}.url: carries user:password@ and ${own.join(', ')} is set too; use one`);
    headers.authorization = credentials.authorization;
    secrets.push(...credentials.secrets);
  }
  for (const [name, value] of Object.entries(headers)) {
    if (/^(authorization|proxy-authorization|x-.*(key|token|secret).*|cookie)$/i.test(name)) secrets.push(value);
  }
  const caFile = pick('ca_file');
  const tls: TlsSettings = { insecureSkipVerify: pick('insecure_skip_verify') ?? false };
  if (caFile) tls.ca = fileSecret(caFile, pathOf('ca_file'), readSecretFile);
  const target: NodeTarget = {
    kind: 'node',
    name: node.name,
    baseUrl: credentials.url.replace(/\/+$/, ''),
    protocol: pick('protocol') ?? 'get',
    intervalMs,
    timeoutMs: Math.min(pick('timeout') ?? DEFAULTS.timeoutMs, intervalMs),
    endpoints: [...new Set(pick('endpoints') ?? DEFAULTS.endpoints)],
    views: [{ name: ALL_VIEW, tags: [] }, ...(node.views ?? [])],
    headers,
    labels: { ...defaults.labels, ...node.labels },
    tls,
    network: pick('network') ?? network,
    secrets: secrets.filter((s) => s.length > 0),
  };
  const schedule = pick('schedule');
  if (schedule) target.schedule = schedule;
  if (node.node_id) target.nodeId = node.node_id;
  return target;

  function fileSecret(relative: string | undefined, at: (string | number)[], read: ReadSecretFile): string | undefined {
    return relative === undefined ? undefined : read(at, resolvePath(baseDir, relative));
  }
}
