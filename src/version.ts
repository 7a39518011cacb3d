import { existsSync, readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const pkg = createRequire(import.meta.url)('../package.json') as { version: string };

export const VERSION = pkg.version;

const COMMIT = /^[0-9a-f]{40}(?:[0-9a-f]{24})?$/;

/**
 * The commit this build runs: set at image build time (`--build-arg REVISION=$(git rev-parse HEAD)`),
 * else read from the checkout it runs from (a source build); empty when neither tells (an empty
 * label value, which Prometheus reads as no label).
 */
export const REVISION = process.env.AVAHEALTH_REVISION ?? checkoutRevision(fileURLToPath(new URL('../', import.meta.url))) ?? '';

/** HEAD's commit of the git checkout at `root`, read from its files (no git process); undefined when there is none. */
export function checkoutRevision(root: string): string | undefined {
  try {
    let gitDir = join(root, '.git');
    // a worktree (or submodule): `.git` is a file naming the real git directory
    if (statSync(gitDir).isFile()) gitDir = resolve(root, /^gitdir: (.+)$/m.exec(readFileSync(gitDir, 'utf8'))?.[1]?.trim() ?? '');
    const head = readFileSync(join(gitDir, 'HEAD'), 'utf8').trim();
    if (COMMIT.test(head)) return head;
    const ref = /^ref: (refs\/[^\s]+)$/.exec(head)?.[1];
    if (!ref) return undefined;
    const commonFile = join(gitDir, 'commondir');
    const common = existsSync(commonFile) ? resolve(gitDir, readFileSync(commonFile, 'utf8').trim()) : gitDir;
    for (const dir of [gitDir, common]) {
      const file = join(dir, ref);
      if (existsSync(file)) {
        const commit = readFileSync(file, 'utf8').trim();
        return COMMIT.test(commit) ? commit : undefined;
      }
    }
    const packed = join(common, 'packed-refs');
    const line = existsSync(packed) ? readFileSync(packed, 'utf8').split('\n').find((l) => l.endsWith(` ${ref}`)) : undefined;
    const commit = line?.split(' ')[0];
    return commit && COMMIT.test(commit) ? commit : undefined;
  } catch {
    return undefined;
  }
}
