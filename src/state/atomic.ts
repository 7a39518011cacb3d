/**
 * Crash-safe JSON files: written to a temporary file (a random name, created exclusively), fsynced, renamed over the old one, and the
 * directory fsynced, so a crash at any point leaves either the old or the new content. A file that
 * cannot be read back, or whose content does not fit its schema, is set aside (renamed
 * `*.corrupt-<time>`) and reported, never a crash.
 */
import { closeSync, fsyncSync, openSync, renameSync, unlinkSync, writeFileSync } from 'node:fs';
import { open, rename, unlink } from 'node:fs/promises';
import { dirname } from 'node:path';
import { z } from 'zod';
import { statePath } from './map.js';
import { ensureFolder, ensureFolderSync, openOwn, openOwnSync, readOwnFileSync } from './own-files.js';
import { noteWriteFailed, noteWriteSucceeded } from './write-health.js';

export function writeJsonAtomic(path: string, value: unknown): void {
  writeFileAtomic(path, JSON.stringify(value));
}

export function writeFileAtomic(path: string, text: string): void {
  try {
    writeAndRename(path, text);
  } catch (err) {
    noteWriteFailed(path, err);
    throw err;
  }
  noteWriteSucceeded(path);
}

function writeAndRename(path: string, text: string): void {
  const dir = dirname(path);
  ensureFolderSync(dir);
  const tmp = statePath.temporary(path);
  const fd = openOwnSync(tmp, 'create');
  try {
    writeFileSync(fd, text);
    fsyncSync(fd);
  } catch (err) {
    closeSync(fd);
    unlinkQuietly(tmp); // a half-written temporary file would hold on to a full disk's last space
    throw err;
  }
  closeSync(fd);
  renameSync(tmp, path);
  const dirFd = openSync(dir, 'r');
  try {
    fsyncSync(dirFd);
  } finally {
    closeSync(dirFd);
  }
}

function unlinkQuietly(file: string): void {
  try {
    unlinkSync(file);
  } catch {
    // not there
  }
}

/**
 * The same steps on libuv's thread pool, for writers on the event loop's hot path. Failures are
 * thrown, not noted in write-health: the caller (the journal) notes them with its own writes.
 */
export async function writeFileAtomicAsync(path: string, text: string): Promise<void> {
  const dir = dirname(path);
  await ensureFolder(dir);
  const tmp = statePath.temporary(path);
  const file = await openOwn(tmp, 'create');
  try {
    await file.writeFile(text);
    await file.sync();
  } catch (err) {
    await file.close();
    await unlink(tmp).catch(() => undefined); // a half-written temporary file would hold on to a full disk's last space
    throw err;
  }
  await file.close();
  await rename(tmp, path);
  const dirHandle = await open(dir, 'r');
  try {
    await dirHandle.sync();
  } finally {
    await dirHandle.close();
  }
}

/**
 * A file written atomically, each snapshot only after what it depends on is on disk (the alert
 * states after the outbox lines they say were told); snapshots are written in order.
 */
export class DependentFile {
  private waiting?: Promise<void>;

  constructor(
    readonly path: string,
    private readonly onError: (err: unknown) => void,
  ) {}

  /** Writes `text` now when nothing is pending, else once `after` (and any earlier snapshot) settled. */
  write(text: string, after: Promise<unknown> | undefined): Promise<void> {
    if (!after && !this.waiting) {
      this.writeNow(text);
      return Promise.resolve();
    }
    const waiting: Promise<void> = Promise.all([this.waiting, after]).then(() => {
      this.writeNow(text);
      if (this.waiting === waiting) this.waiting = undefined;
    });
    this.waiting = waiting;
    return waiting;
  }

  private writeNow(text: string): void {
    try {
      writeFileAtomic(this.path, text);
    } catch (err) {
      this.onError(err);
    }
  }
}

/** `movedTo` is absent when the file could not be moved (it stays where it was). */
export type ReadResult<T> = { status: 'ok'; value: T } | { status: 'missing' } | { status: 'corrupt'; movedTo?: string; error: string };

/**
 * Reads a JSON file written by writeJsonAtomic; `schema` checks its shape. A bad file is set aside,
 * unless `readOnly` (a reader that does not own the directory: it only reports the problem).
 */
export function readJsonFile<T>(path: string, schema: z.ZodType<T>, readOnly = false): ReadResult<T> {
  const bad = (error: string): ReadResult<T> => (readOnly ? { status: 'corrupt', error } : setAside(path, error));
  let text: string;
  try {
    text = readOwnFileSync(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { status: 'missing' };
    return bad((err as Error).message);
  }
  try {
    const parsed = schema.safeParse(JSON.parse(text));
    if (parsed.success) return { status: 'ok', value: parsed.data };
    return bad(`unexpected content: ${describeIssues(parsed.error)}`);
  } catch (err) {
    return bad((err as Error).message);
  }
}

/** The first few problems, each with where it is (`alerts.0: expected object, received null`). */
export function describeIssues(error: z.ZodError, max = 3): string {
  const shown = error.issues.slice(0, max).map((issue) => `${issue.path.length ? issue.path.join('.') : '(top)'}: ${issue.message}`);
  const more = error.issues.length - shown.length;
  return more > 0 ? `${shown.join('; ')}; ${more} more` : shown.join('; ');
}

/** Renames a bad file out of the way; the new name, or undefined when it could not be moved. */
export function setAsideFile(path: string): string | undefined {
  const movedTo = statePath.setAside(path);
  try {
    renameSync(path, movedTo);
    return movedTo;
  } catch {
    return undefined; // unreadable and immovable: reported as not moved; a later write replaces it
  }
}

function setAside(path: string, error: string): ReadResult<never> {
  const movedTo = setAsideFile(path);
  return movedTo === undefined ? { status: 'corrupt', error } : { status: 'corrupt', movedTo, error };
}
