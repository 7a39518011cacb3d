/**
 * Reads a YAML config file into a Config: the YAML module locates every problem, the schema
 * validates, fills in the defaults and builds the domain types.
 */
import { readFileSync, statSync } from 'node:fs';
import { dirname, resolve as resolvePath } from 'node:path';
import { LineCounter, parseDocument, type Document } from 'yaml';
import type { z } from 'zod';
import { withReceiverSecretsOptional } from '../alerts/receivers/schemas.js';
import { ConfigError, type ConfigProblem } from './errors.js';
import { listenUrl, type ListenAddress } from './primitives.js';
import { configSchema, knownKeys } from './schema.js';
import { cleartextWarnings, keepTemplatedHeadersSecret, shortSecretWarnings } from './secrets.js';
import type { NodeTarget } from './schema/nodes.js';
import { parseYaml } from './yaml.js';

export { nodeAt, parseYaml, type ParsedYaml } from './yaml.js';
export { parseMatchers, type Matcher } from './primitives.js';
export { urlBasicAuth, type Network, type NodeTarget, type NodeView, type TlsSettings, type ValidatorPoll } from './schema/nodes.js';
export { serviceEndpointPath, type ApiProbe, type ServiceEndpoint, type ServiceTarget } from './schema/services.js';
export { C_CHAIN, type ChainDataConfig } from './schema/sources.js';
export { RECEIVER_KINDS, type ReceiverConfig, type ReceiverKind } from '../alerts/receivers/schemas.js';
export type { AlertsConfig, RuleTuning } from './schema/alerts.js';

type Resolved = z.output<typeof configSchema>;
export type Target = Resolved['nodes'][number] | Resolved['services'][number];
export type DiscoveryConfig = NonNullable<Resolved['discovery']>;

export type Config = Resolved & {
  file: string;
  /** Things worth telling but not fatal (unset environment variables). */
  warnings: ConfigProblem[];
};

/** Keys whose values are paths relative to the config file (state_dir, which has a default, is resolved below). */
const isPathKey = (key: string) => key.endsWith('_file') || key === 'files';

/**
 * A config file larger than this is refused before it is parsed: 4 MiB holds some 14,000 nodes
 * written out (a 17 MB one took 16 s and 990 MB to validate); larger fleets come from discovery.
 */
export const MAX_CONFIG_BYTES = 4 * 1024 * 1024;

const tooLarge = (file: string, bytes: number): ConfigError =>
  new ConfigError([{ file, line: 1, col: 1, message: `config is ${(bytes / 1024 / 1024).toFixed(1)} MiB, more than the ${MAX_CONFIG_BYTES / 1024 / 1024} MiB avahealth reads; list large fleets in file_sd files or DNS (discovery:) instead` }]);

export interface LoadOptions {
  /**
   * `avahealth check` sends nothing: a receiver's secret left empty (its environment variable
   * unset) is no error, and that receiver is left out. Its shape is checked all the same.
   */
  receiverSecretsOptional?: boolean;
}

export function loadConfigFile(file: string, env: NodeJS.ProcessEnv = process.env, options: LoadOptions = {}): Config {
  let text: string;
  try {
    const { size } = statSync(file);
    if (size > MAX_CONFIG_BYTES) throw tooLarge(file, size);
    text = readFileSync(file, 'utf8');
  } catch (err) {
    if (err instanceof ConfigError) throw err;
    throw new ConfigError([{ file, line: 1, col: 1, message: `cannot read config: ${(err as Error).message}` }]);
  }
  return parseConfig(text, file, env, options);
}

/**
 * Where a key (a top-level name, or a path such as `['alerts', 'silences', 0]`) stands in a config
 * file, as `FILE:LINE:COL` (`FILE` alone when it is not written there, as a default): for problems
 * found after loading, such as a state_dir that cannot be used.
 */
export function keyPosition(file: string, key: string | Array<string | number>): string {
  try {
    const lines = new LineCounter();
    const doc = parseDocument(readFileSync(file, 'utf8'), { lineCounter: lines });
    const node = doc.getIn(typeof key === 'string' ? [key] : key, true) as { range?: [number, number, number] } | undefined;
    if (node?.range) {
      const { line, col } = lines.linePos(node.range[0]);
      return `${file}:${line}:${col}`;
    }
  } catch {
    // the file was read and parsed at load: a change since then leaves the file's name only
  }
  return file;
}

export function parseConfig(text: string, file: string, env: NodeJS.ProcessEnv = process.env, options: LoadOptions = {}): Config {
  if (text.length > MAX_CONFIG_BYTES || Buffer.byteLength(text) > MAX_CONFIG_BYTES) throw tooLarge(file, Buffer.byteLength(text));
  const baseDir = dirname(resolvePath(file));
  const parse = () => parseYaml(text, file, configSchema, env, { relativePaths: { baseDir, isPathKey }, knownKeys: cachedKnownKeys });
  const { data, doc, at, warnings, templated } = options.receiverSecretsOptional ? withReceiverSecretsOptional(parse) : parse();
  keepTemplatedHeadersSecret(data, templated);
  return {
    file,
    warnings: [...warnings, ...shortSecretWarnings(data, doc, at), ...cleartextWarnings(data, doc, at), ...endedSilenceWarnings(data, doc, at)],
    ...data,
    stateDir: resolvePath(baseDir, data.stateDir),
  };
}

/** A silence of the config whose end has passed holds nothing: said, at its ends_at, rather than kept quietly. */
function endedSilenceWarnings(config: Pick<Config, 'alerts'>, doc: Document, at: (offset: number | undefined, message: string) => ConfigProblem, now = Date.now()): ConfigProblem[] {
  return config.alerts.silences.flatMap((silence, i) => {
    if (silence.endsAt > now) return [];
    const node = (doc.getIn(['alerts', 'silences', i, 'ends_at'], true) ?? doc.getIn(['alerts', 'silences', i], true)) as { range?: [number, number, number] } | undefined;
    return [at(node?.range?.[0], `alerts.silences.${i} ended at ${new Date(silence.endsAt).toISOString().replace('.000Z', 'Z')}: it holds nothing; remove it, or give it a later ends_at`)];
  });
}

/**
 * `--listen` (or `--web.listen-address`) instead of the file's `listen:`; a default `external_url`,
 * the base of the links in notifications, moves with it (not to port 0, "any free port", whose URL
 * is not known before the daemon binds it).
 */
export function overrideListen(config: Config, listen: ListenAddress | undefined): Config {
  if (!listen) return config;
  const follows = config.externalUrlFollowsListen && listen.port !== 0;
  return { ...config, listen, ...(follows ? { externalUrl: listenUrl(listen) } : {}) };
}

let keys: string[] | undefined;
const cachedKnownKeys = () => (keys ??= knownKeys());

/** A discovered node: the defaults template with its own name, URL and labels. */
export function discoveredNode(template: NodeTarget, name: string, url: string, labels: Record<string, string>): NodeTarget {
  return { ...template, name, baseUrl: url.replace(/\/+$/, ''), labels: { ...template.labels, ...labels } };
}
