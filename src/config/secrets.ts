/**
 * Every secret value of a config: targets' API keys, tokens, passwords and credentials, every
 * configured request header value of nodes and services but those of well-known harmless headers
 * (Accept, Content-Type, User-Agent…, see `isHarmlessHeader`) written out in the config, receivers'
 * URLs, keys and header values. What the daemon shows, logs, stores or sends is redacted with these.
 */
import type { Document, Node as YamlNode } from 'yaml';
import type { z } from 'zod';
import { isCleartextUrl } from '../alerts/receivers/primitives.js';
import { cleartextOf } from '../alerts/receivers/schemas.js';
import type { ConfigProblem } from './errors.js';
import { isHarmlessHeader } from './primitives.js';
import type { configSchema } from './schema.js';

type Config = z.output<typeof configSchema>;

export function secretsOf(config: Config): string[] {
  const values = new Set<string>();
  for (const target of [...config.nodes, ...config.services]) for (const secret of target.secrets) values.add(secret);
  for (const receiver of config.alerts.receivers) for (const secret of receiver.secrets) values.add(secret);
  if (config.alerts.handoverKey) values.add(config.alerts.handoverKey);
  return [...values].filter((value) => value.length >= 4);
}

/**
 * A harmless header's value that came from ${ENV} is a secret all the same (the schema cannot tell
 * where a value came from, the YAML reader can): added to its target's or receiver's secrets.
 */
export function keepTemplatedHeadersSecret(config: Pick<Config, 'nodes' | 'services' | 'alerts' | 'discovery'>, templated: ReadonlySet<string>): void {
  if (templated.size === 0) return;
  const owners = [...config.nodes, ...config.services, ...(config.discovery ? [config.discovery.template] : []), ...config.alerts.receivers];
  for (const owner of owners) {
    const headers = 'headers' in owner ? owner.headers : (owner.settings as { headers?: Record<string, string> }).headers;
    for (const [name, value] of Object.entries(headers ?? {})) if (isHarmlessHeader(name) && templated.has(value) && !owner.secrets.includes(value)) owner.secrets.push(value);
  }
}

/** Shorter secret values are not redacted (replacing every "ab" would garble every text): `shortSecretWarnings` says so at load. */
const MIN_REDACTED_LENGTH = 4;

/**
 * One warning per node, service, `defaults:` or receiver holding a secret value (a header value, a
 * token, a password) of 1 to 3 characters: such a value is never redacted from what avahealth
 * shows, logs, stores or sends. The value itself is not named.
 */
export function shortSecretWarnings(
  config: Pick<Config, 'nodes' | 'services' | 'alerts' | 'discovery'>,
  doc: Document,
  at: (offset: number | undefined, message: string) => ConfigProblem,
): ConfigProblem[] {
  const owners: [readonly PropertyKey[], string, readonly string[]][] = [
    ...config.nodes.map((n, i): [PropertyKey[], string, readonly string[]] => [['nodes', i], `node "${n.name}"`, n.secrets]),
    ...config.services.map((s, i): [PropertyKey[], string, readonly string[]] => [['services', i], `service "${s.name}"`, s.secrets]),
    ...config.alerts.receivers.map((r, i): [PropertyKey[], string, readonly string[]] => [['alerts', 'receivers', i], `receiver "${r.name}"`, r.secrets]),
    ...(config.discovery ? [[['defaults'], 'defaults:', config.discovery.template.secrets] as [PropertyKey[], string, readonly string[]]] : []),
  ];
  return owners
    .filter(([, , secrets]) => secrets.some((s) => s.length > 0 && s.length < MIN_REDACTED_LENGTH))
    .map(([path, who]) => at((doc.getIn(path as unknown[], true) as YamlNode | undefined)?.range?.[0], `${who} has a secret value (a header value, token or password) shorter than ${MIN_REDACTED_LENGTH} characters: it is not redacted from the log, the status page, state files or notifications; use a longer one`));
}

/**
 * One warning per node, service or receiver that would send a credential where anyone on the path
 * can read it: a password, token, API key or secret header to an http:// URL of another machine
 * (loopback stays on the machine, or in the pod), an SMTP password with `require_tls: false`, a
 * webhook URL or bot token over http://. Warned, not refused: a test bench on a private network may
 * mean it.
 */
export function cleartextWarnings(
  config: Pick<Config, 'nodes' | 'services' | 'alerts'>,
  doc: Document,
  at: (offset: number | undefined, message: string) => ConfigProblem,
): ConfigProblem[] {
  const node = (path: readonly unknown[]) => doc.getIn(path as unknown[], true) as YamlNode | undefined;
  const where = (path: readonly unknown[]) => (node(path) ?? node(path.slice(0, -1)))?.range?.[0];
  const warnings: ConfigProblem[] = [];
  for (const [list, who] of [[config.nodes, 'node'], [config.services, 'service']] as const) {
    list.forEach((target, i) => {
      if (target.secrets.length > 0 && isCleartextUrl(target.baseUrl)) {
        warnings.push(at(where([`${who}s`, i, 'url']), `${who} "${target.name}" sends credentials (a password, token, API key or header value) over http:// to ${new URL(target.baseUrl).host}: anyone on the path can read them; use https://`));
      }
    });
  }
  config.alerts.receivers.forEach((receiver, i) => {
    const found = cleartextOf(receiver);
    if (found) warnings.push(at(where(['alerts', 'receivers', i, receiver.kind, found.field]), `receiver "${receiver.name}": ${found.what}; use TLS`));
  });
  return warnings;
}
