/**
 * External tools the deployment and end-to-end tests need (promtool, prometheus, kubectl, chromium).
 * On a developer machine without one, its tests skip with a printed reason; with CI=true a missing
 * tool fails the run instead (`.ci/run` installs them).
 */
import { execFileSync } from 'node:child_process';

/** The Debian package of a tool whose name differs from it. */
const PACKAGES: Record<string, string> = { promtool: 'prometheus', amtool: 'prometheus-alertmanager' };

export function findTool(name: string, candidates: string[] = [name]): string | undefined {
  for (const candidate of candidates) {
    try {
      return execFileSync('sh', ['-c', `command -v ${candidate}`], { encoding: 'utf8' }).trim() || undefined;
    } catch {
      // not on PATH
    }
  }
  return undefined;
}

/** The tool's path; undefined (with a printed reason) when absent outside CI; throws when absent in CI. */
export function requireTool(name: string, why: string, candidates?: string[]): string | undefined {
  const path = findTool(name, candidates);
  if (path) return path;
  const reason = `${name} is not installed: skipping ${why} (apt-get install ${PACKAGES[name] ?? name})`;
  if (process.env.CI === 'true') throw new Error(`CI=true but ${reason.replace('skipping', 'cannot run')}`);
  process.stderr.write(`[skip] ${reason}\n`);
  return undefined;
}
