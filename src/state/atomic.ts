/**
 * Crash-safe JSON files: written to a temporary file, fsynced, renamed over the old one, and the
 * directory fsynced, so a crash at any point leaves either the old or the new content. A file that
 * cannot be read back is set aside (renamed `*.corrupt-<time>`) and reported, never a crash.
 */
import { closeSync, fsyncSync, mkdirSync, openSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';

export function writeJsonAtomic(path: string, value: unknown): void {
  writeFileAtomic(path, JSON.stringify(value));
}

export function writeFileAtomic(path: string, text: string): void {
  const dir = dirname(path);
  mkdirSync(dir, { recursive: true });
  const tmp = join(dir, `.${basename(path)}.${process.pid}.tmp`);
  const fd = openSync(tmp, 'w', 0o600);
  try {
    writeFileSync(fd, text);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(tmp, path);
  const dirFd = openSync(dir, 'r');
  try {
    fsyncSync(dirFd);
  } finally {
    closeSync(dirFd);
  }
}

export type ReadResult<T> = { status: 'ok'; value: T } | { status: 'missing' } | { status: 'corrupt'; movedTo: string; error: string };

/** Reads a JSON file written by writeJsonAtomic; `valid` checks its shape. */
export function readJsonFile<T>(path: string, valid: (value: unknown) => value is T): ReadResult<T> {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { status: 'missing' };
    return setAside(path, (err as Error).message);
  }
  try {
    const value: unknown = JSON.parse(text);
    if (valid(value)) return { status: 'ok', value };
    return setAside(path, 'unexpected content');
  } catch (err) {
    return setAside(path, (err as Error).message);
  }
}

function setAside(path: string, error: string): ReadResult<never> {
  const movedTo = `${path}.corrupt-${new Date().toISOString().replace(/[:.]/g, '-')}`;
  try {
    renameSync(path, movedTo);
  } catch {
    // unreadable and immovable: report it; a later write replaces it
  }
  return { status: 'corrupt', movedTo, error };
}
