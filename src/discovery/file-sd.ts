/**
 * Prometheus file_sd: JSON or YAML files of `[{targets: ["host:port", …], labels: {…}}]`. A `*` may
 * stand in the file name (as in Prometheus). A target is `host:port` (or `http(s)://host:port`):
 * one with a path, query or user info is refused, as are labels avahealth sets itself.
 */
import { readdir, readFile, stat } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { parse } from 'yaml';
import { discoveredLabels, targetFromAddress } from './names.js';
import type { DiscoveredTarget, SourceAnswer } from './types.js';

async function expand(pattern: string): Promise<string[]> {
  const name = basename(pattern);
  if (!name.includes('*')) return [pattern];
  const regex = new RegExp(`^${name.split('*').map((p) => p.replace(/[.+?^${}()|[\]\\]/g, '\\$&')).join('.*')}$`);
  const dir = dirname(pattern);
  const entries = await readdir(dir).catch(() => [] as string[]);
  return entries.filter((e) => regex.test(e)).sort().map((e) => join(dir, e));
}

/** A file_sd file larger than this is not parsed (1,000 targets, the default cap per source, take some 40 KB). */
const MAX_FILE_BYTES = 4 * 1024 * 1024;

export async function readFileSd(patterns: string[], scheme: 'http' | 'https', labels: Record<string, string>): Promise<SourceAnswer> {
  const targets: DiscoveredTarget[] = [];
  const problems: string[] = [];
  const droppedLabels: string[] = [];
  let invalidAddresses = 0;
  for (const file of (await Promise.all(patterns.map(expand))).flat()) {
    let groups: unknown;
    try {
      const { size } = await stat(file);
      if (size > MAX_FILE_BYTES) {
        problems.push(`${file}: ${size} bytes, more than the ${MAX_FILE_BYTES / 1024 / 1024} MiB a file_sd file may have; not read`);
        continue;
      }
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
      if (g.labels !== undefined && (typeof g.labels !== 'object' || g.labels === null || Array.isArray(g.labels))) {
        problems.push(`${file}: group ${i}: "labels" must be a map of label names to values`);
        return;
      }
      const groupLabels = discoveredLabels((g.labels ?? {}) as Record<string, unknown>, labels, droppedLabels);
      for (const address of g.targets as string[]) {
        const target = targetFromAddress(address, scheme, groupLabels);
        if (target) targets.push(target);
        else {
          invalidAddresses++;
          problems.push(`${file}: group ${i}: target ${JSON.stringify(address.slice(0, 300))} is not host:port (a path, query or user info is not allowed)`);
        }
      }
    });
  }
  return { targets, problems, droppedLabels, invalidAddresses };
}
