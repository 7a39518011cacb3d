/**
 * Prometheus file_sd: JSON or YAML files of `[{targets: ["host:port", …], labels: {…}}]`. A `*` may
 * stand in the file name (as in Prometheus). Targets may also be full URLs (with a path prefix).
 */
import { readdir, readFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { parse } from 'yaml';
import type { DiscoveredTarget } from './types.js';
import { targetFromAddress } from './names.js';

async function expand(pattern: string): Promise<string[]> {
  const name = basename(pattern);
  if (!name.includes('*')) return [pattern];
  const regex = new RegExp(`^${name.split('*').map((p) => p.replace(/[.+?^${}()|[\]\\]/g, '\\$&')).join('.*')}$`);
  const dir = dirname(pattern);
  const entries = await readdir(dir).catch(() => [] as string[]);
  return entries.filter((e) => regex.test(e)).sort().map((e) => join(dir, e));
}

export async function readFileSd(patterns: string[], scheme: 'http' | 'https', labels: Record<string, string>): Promise<{ targets: DiscoveredTarget[]; problems: string[] }> {
  const targets: DiscoveredTarget[] = [];
  const problems: string[] = [];
  for (const file of (await Promise.all(patterns.map(expand))).flat()) {
    let groups: unknown;
    try {
      groups = parse(await readFile(file, 'utf8'));
    } catch (err) {
      problems.push(`${file}: ${(err as Error).message.split('\n')[0]}`);
      continue;
    }
    if (!Array.isArray(groups)) {
      problems.push(`${file}: expected a list of {targets, labels} groups`);
      continue;
    }
    groups.forEach((group, i) => {
      const g = group as { targets?: unknown; labels?: unknown };
      if (!Array.isArray(g.targets) || g.targets.some((t) => typeof t !== 'string')) {
        problems.push(`${file}: group ${i}: "targets" must be a list of host:port strings`);
        return;
      }
      const groupLabels: Record<string, string> = { ...labels };
      for (const [name, value] of Object.entries((g.labels ?? {}) as Record<string, unknown>)) {
        // Prometheus' meta labels (__meta_*, __address__…) and invalid names are not ours to export.
        if (!name.startsWith('__') && /^[a-zA-Z_][a-zA-Z0-9_]*$/.test(name) && typeof value === 'string') groupLabels[name] = value;
      }
      for (const address of g.targets as string[]) {
        const target = targetFromAddress(address, scheme, groupLabels);
        if (target) targets.push(target);
        else problems.push(`${file}: group ${i}: cannot use target ${JSON.stringify(address)}`);
      }
    });
  }
  return { targets, problems };
}
