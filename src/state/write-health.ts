/**
 * Whether state files are being written: every write of an atomic file or a journal reports here.
 * Failures are counted one by one; listeners hear only changes (a file starting to fail, failing
 * differently, or recovering), so a dead disk is one error line per file, not one per write.
 */
import { sep } from 'node:path';
import type { Logger } from '../log.js';

export type StateWriteChange = { file: string; error: string } | { file: string; recovered: true };

const failing = new Map<string, string>();
const listeners = new Set<(change: StateWriteChange) => void>();
let failures = 0;

/** Subscribes to changes; returns the unsubscribe function. */
export function onStateWriteChange(listener: (change: StateWriteChange) => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** Failed writes of state files since the process started. */
export function stateWriteFailures(): number {
  return failures;
}

export function noteWriteFailed(file: string, err: unknown): void {
  failures++;
  const e = err as NodeJS.ErrnoException;
  const error = e.code ? `${e.code} (${e.syscall ?? 'write'} ${e.path ?? file})` : String(err);
  if (failing.get(file) === error) return;
  failing.set(file, error);
  for (const listener of listeners) listener({ file, error });
}

export function noteWriteSucceeded(file: string): void {
  if (!failing.delete(file)) return;
  for (const listener of listeners) listener({ file, recovered: true });
}

/** Logs the changes of the files under `stateDir`: an error when writing starts failing, info when it works again. */
export function watchStateWrites(stateDir: string, log: Logger): () => void {
  const prefix = stateDir.endsWith(sep) ? stateDir : stateDir + sep;
  return onStateWriteChange((change) => {
    if (!change.file.startsWith(prefix)) return;
    if ('error' in change) log.error({ file: change.file, error: change.error }, 'cannot write state: alert states, silences or queued notifications may be lost on restart');
    else log.info({ file: change.file }, 'state written again');
  });
}
