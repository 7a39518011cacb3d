/** Reading what a running daemon leaves on disk. */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

/** Every file's text under a directory (for searching state files for secrets). */
export function allText(dir: string): string {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .map((f) => join(dir, f))
    .map((f) => {
      // The daemon writes while this reads: a temporary file of an atomic write may be gone already.
      try {
        return statSync(f).isFile() ? readFileSync(f, 'utf8') : '';
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'ENOENT') return '';
        throw err;
      }
    })
    .join('\n');
}
