/**
 * One state_dir, one owner: a pid file `state_dir/avahealth.lock`, created atomically (written in
 * full to a temporary file, then hard-linked into place, which fails if the lock exists) before
 * anything in the directory is read. A lock left by a process that is gone (or by an earlier life
 * of this very pid, as after a container restart where the daemon is always pid 1) is taken over.
 * Creating the lock is also the start-up proof that state_dir is writable.
 */
import { closeSync, fsyncSync, linkSync, mkdirSync, openSync, readFileSync, unlinkSync, writeSync } from 'node:fs';
import { join } from 'node:path';

export const LOCK_FILE = 'avahealth.lock';

export class StateDirError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'StateDirError';
  }
}

export interface StateDirLock {
  readonly file: string;
  /** A stale lock of this pid was taken over. */
  readonly tookOverFrom?: number;
  release(): void;
}

/** Takes state_dir for this process; throws StateDirError when another live process has it or it is not writable. */
export function lockStateDir(dir: string, pid = process.pid): StateDirLock {
  const file = join(dir, LOCK_FILE);
  const tmp = join(dir, `.${LOCK_FILE}.${pid}.tmp`);
  try {
    mkdirSync(dir, { recursive: true });
    const fd = openSync(tmp, 'w', 0o600);
    try {
      writeSync(fd, `${pid}\n`);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
  } catch (err) {
    throw new StateDirError(`state_dir ${dir} is not writable: ${describe(err)}`);
  }
  try {
    let tookOverFrom: number | undefined;
    for (let attempt = 0; ; attempt++) {
      try {
        linkSync(tmp, file);
        break;
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST' || attempt >= 3) throw new StateDirError(`state_dir ${dir}: cannot create ${LOCK_FILE}: ${describe(err)}`);
      }
      const holder = holderOf(file);
      if (holder !== undefined && holder !== pid && isAlive(holder)) throw new StateDirError(`state_dir ${dir} is in use by pid ${holder} (lock file ${file})`);
      // Stale: remove it only if it is still the one just read, then try again.
      if (holderOf(file) === holder) {
        try {
          unlinkSync(file);
        } catch (err) {
          if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw new StateDirError(`state_dir ${dir}: cannot remove the stale ${LOCK_FILE}: ${describe(err)}`);
        }
      }
      tookOverFrom = holder;
    }
    let released = false;
    return {
      file,
      ...(tookOverFrom !== undefined ? { tookOverFrom } : {}),
      release() {
        if (released) return;
        released = true;
        if (holderOf(file) === pid) unlinkQuietly(file);
      },
    };
  } finally {
    unlinkQuietly(tmp);
  }
}

function holderOf(file: string): number | undefined {
  try {
    const pid = Number.parseInt(readFileSync(file, 'utf8').trim(), 10);
    return Number.isSafeInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM'; // alive, owned by another user
  }
}

function unlinkQuietly(file: string): void {
  try {
    unlinkSync(file);
  } catch {
    // already gone
  }
}

function describe(err: unknown): string {
  const e = err as NodeJS.ErrnoException;
  return e.code ? `${e.code} (${e.syscall ?? 'fs'} ${e.path ?? ''})`.replace(' )', ')') : String(err);
}
