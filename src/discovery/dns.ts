/** DNS discovery: A/AAAA answers with a configured port, or SRV answers with theirs. */
import { Resolver } from 'node:dns/promises';
import { isHostName, targetFromAddress, targetName } from './names.js';
import type { DiscoveredTarget, SourceAnswer } from './types.js';

export interface DnsSource {
  names: string[];
  type: 'A' | 'AAAA' | 'SRV';
  port: number;
  scheme: 'http' | 'https';
  labels: Record<string, string>;
  servers: string[];
}

export async function resolveDns(source: DnsSource): Promise<SourceAnswer> {
  const resolver = new Resolver({ timeout: 5000, tries: 2 });
  if (source.servers.length > 0) resolver.setServers(source.servers);
  const targets: DiscoveredTarget[] = [];
  const problems: string[] = [];
  let invalidAddresses = 0;
  for (const name of source.names) {
    try {
      if (source.type === 'SRV') {
        // DNS names are case-insensitive: LOCALHOST is localhost. In name, then port order (the cap keeps the first ones).
        const records = (await resolver.resolveSrv(name)).map((r) => ({ ...r, name: r.name.toLowerCase() }));
        for (const record of records.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : a.port - b.port))) {
          const host = record.name.replace(/\.$/, '');
          // The answer's target is a host name, never a place to put a path, query or credentials.
          if (!isHostName(host) || record.port < 1) {
            invalidAddresses++;
            problems.push(`SRV ${name}: answer ${JSON.stringify(record.name.slice(0, 300))} port ${record.port} is not a host name and port`);
            continue;
          }
          // A headless Service answers with one name per pod: its first label names the target.
          targets.push({ name: targetName(`${host.split('.')[0]}:${record.port}`), url: `${source.scheme}://${host}:${record.port}`, labels: { ...source.labels } });
        }
      } else {
        const addresses = source.type === 'A' ? await resolver.resolve4(name) : await resolver.resolve6(name);
        for (const ip of addresses.sort()) {
          const target = targetFromAddress(source.type === 'A' ? `${ip}:${source.port}` : `[${ip}]:${source.port}`, source.scheme, { ...source.labels });
          if (target) targets.push(target);
        }
      }
    } catch (err) {
      problems.push(`${source.type} ${name}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
    }
  }
  return { targets, problems, droppedLabels: [], invalidAddresses };
}
