/** DNS discovery: A/AAAA answers with a configured port, or SRV answers with theirs. */
import { Resolver } from 'node:dns/promises';
import type { DiscoveredTarget } from './types.js';
import { targetFromAddress, targetName } from './names.js';

export interface DnsSource {
  names: string[];
  type: 'A' | 'AAAA' | 'SRV';
  port: number;
  scheme: 'http' | 'https';
  labels: Record<string, string>;
  servers: string[];
}

export async function resolveDns(source: DnsSource): Promise<{ targets: DiscoveredTarget[]; problems: string[] }> {
  const resolver = new Resolver({ timeout: 5000, tries: 2 });
  if (source.servers.length > 0) resolver.setServers(source.servers);
  const targets: DiscoveredTarget[] = [];
  const problems: string[] = [];
  for (const name of source.names) {
    try {
      if (source.type === 'SRV') {
        for (const record of (await resolver.resolveSrv(name)).sort((a, b) => a.name.localeCompare(b.name))) {
          const host = record.name.replace(/\.$/, '');
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
  return { targets, problems };
}
