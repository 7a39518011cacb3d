/**
 * Every secret value of a config: targets' API keys, tokens, passwords and credentials, every
 * configured request header value of nodes and services (whatever its name), receivers' URLs,
 * keys and header values. What the daemon shows, logs, stores or sends is redacted with these.
 */
import type { Config } from './load.js';

export function secretsOf(config: Config): string[] {
  const values = new Set<string>();
  for (const target of [...config.nodes, ...config.services]) {
    for (const secret of target.secrets) values.add(secret);
    for (const value of Object.values(target.headers ?? {})) values.add(value);
  }
  for (const receiver of config.alerts.receivers) for (const secret of receiver.secrets) values.add(secret);
  return [...values].filter((value) => value.length >= 4);
}
