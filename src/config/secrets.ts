/**
 * Every secret value of a config: targets' API keys, tokens, passwords and credentials, every
 * configured request header value of nodes and services but those of well-known harmless headers
 * (Accept, Content-Type, User-Agent…, see `isHarmlessHeader`) written out in the config, receivers'
 * URLs, keys and header values. What the daemon shows, logs, stores or sends is redacted with these.
 */
import type { z } from 'zod';
import { isHarmlessHeader } from './primitives.js';
import type { configSchema } from './schema.js';

type Config = z.output<typeof configSchema>;

export function secretsOf(config: Config): string[] {
  const values = new Set<string>();
  for (const target of [...config.nodes, ...config.services]) for (const secret of target.secrets) values.add(secret);
  for (const receiver of config.alerts.receivers) for (const secret of receiver.secrets) values.add(secret);
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
