/**
 * Files under state_dir opened as ours only. Anyone else who can write in state_dir could plant a
 * symbolic link where a state file goes (every write would land in the linked file) or a FIFO (the
 * first read would wait for ever). So every state file is opened without following a link
 * (O_NOFOLLOW) and without waiting on a FIFO (O_NONBLOCK: no effect on a regular file), and refused
 * unless it is a regular file; temporary files get a random name and are created exclusively
 * (O_EXCL: never an existing file or link); the folders avahealth makes in state_dir must be real
 * folders, not links. `checkStateDir` looks over state_dir once at start.
 */
import { closeSync, constants, fstatSync, lstatSync, mkdirSync, openSync, readdirSync, readFileSync, rmSync, statSync, type Stats } from 'node:fs';
import { lstat, mkdir, open, type FileHandle } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { STATE_MAP, stateEntryOf } from './map.js';

const { O_RDONLY, O_WRONLY, O_RDWR, O_CREAT, O_EXCL, O_APPEND, O_TRUNC, O_NOFOLLOW, O_NONBLOCK } = constants;

/** How a state file is opened: `create` only a new file (temporary files), `write` truncates. */
export type OwnFileMode = 'read' | 'append' | 'create' | 'write' | 'update';

const FLAGS: Record<OwnFileMode, number> = {
  read: O_RDONLY,
  append: O_WRONLY | O_CREAT | O_APPEND,
  create: O_WRONLY | O_CREAT | O_EXCL,
  write: O_WRONLY | O_CREAT | O_TRUNC,
  update: O_RDWR,
};

/** A state file that is not ours to open: a link, a FIFO, a folder, a device. */
export class NotOwnFileError extends Error {
  readonly code = 'ENOTOWNFILE';
  constructor(
    readonly path: string,
    what: string,
    message = `${path} is ${what}, not a file avahealth wrote: it opens only regular files in state_dir and follows no links (remove it)`,
  ) {
    super(message);
    this.name = 'NotOwnFileError';
  }
}

/** What a non-regular file is, in words. */
export function kindOf(stats: Stats): string {
  if (stats.isSymbolicLink()) return 'a symbolic link';
  if (stats.isFIFO()) return 'a FIFO';
  if (stats.isDirectory()) return 'a folder';
  if (stats.isSocket()) return 'a socket';
  if (stats.isCharacterDevice() || stats.isBlockDevice()) return 'a device';
  return 'not a regular file';
}

/** The error an open without following links gives for a link (ELOOP on Linux, EMLINK on the BSDs), or for a FIFO without a reader (ENXIO). */
function refused(path: string, err: unknown): Error {
  const code = (err as NodeJS.ErrnoException).code;
  if (code === 'ELOOP' || code === 'EMLINK') return new NotOwnFileError(path, 'a symbolic link');
  if (code === 'ENXIO') return new NotOwnFileError(path, 'a FIFO');
  return err as Error;
}

export function openOwnSync(path: string, mode: OwnFileMode, permissions = 0o600): number {
  let fd: number;
  try {
    fd = openSync(path, FLAGS[mode] | O_NOFOLLOW | O_NONBLOCK, permissions);
  } catch (err) {
    throw refused(path, err);
  }
  const stats = fstatSync(fd);
  if (!stats.isFile()) {
    closeSync(fd);
    throw new NotOwnFileError(path, kindOf(stats));
  }
  return fd;
}

export async function openOwn(path: string, mode: OwnFileMode, permissions = 0o600): Promise<FileHandle> {
  let handle: FileHandle;
  try {
    handle = await open(path, FLAGS[mode] | O_NOFOLLOW | O_NONBLOCK, permissions);
  } catch (err) {
    throw refused(path, err);
  }
  const stats = await handle.stat();
  if (!stats.isFile()) {
    await handle.close();
    throw new NotOwnFileError(path, kindOf(stats));
  }
  return handle;
}

export function readOwnFileSync(path: string): Buffer;
export function readOwnFileSync(path: string, encoding: 'utf8'): string;
export function readOwnFileSync(path: string, encoding?: 'utf8'): Buffer | string {
  const fd = openOwnSync(path, 'read');
  try {
    return encoding ? readFileSync(fd, encoding) : readFileSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** The folders avahealth makes in state_dir (`outbox/`, `receivers/`): never a link to somewhere else. */
const OWN_FOLDERS = new Set(Object.values(STATE_MAP).flatMap((e) => (e.pattern.endsWith('/') ? [e.pattern.slice(0, -1)] : [])));

function checkFolder(dir: string, stats: Stats): void {
  if (OWN_FOLDERS.has(basename(dir)) && !stats.isDirectory()) throw new NotOwnFileError(dir, kindOf(stats));
}

/** mkdir -p of a state file's folder; a folder of the map (`outbox/`, `receivers/`) must be a real one, not a link. */
export function ensureFolderSync(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  checkFolder(dir, lstatSync(dir));
}

export async function ensureFolder(dir: string): Promise<void> {
  await mkdir(dir, { recursive: true, mode: 0o700 });
  checkFolder(dir, await lstat(dir));
}

/** What `checkStateDir` found. */
export interface StateDirCheck {
  /** The mode of state_dir when every user may write there. */
  writableByOthers?: number;
}

/**
 * At start, once state_dir is locked and before anything there is read: every entry of state_dir
 * (and of its own folders) that the map names must be a regular file, or a real folder for
 * `outbox/` and `receivers/`; a link, a FIFO or a device is refused with the list of them (never a
 * hang on a FIFO, never a write through a link). Temporary files a crash left are removed. Entries
 * the map does not name are left alone.
 */
export function checkStateDir(stateDir: string): StateDirCheck {
  const wrong: string[] = [];
  const look = (relative: string) => {
    const path = join(stateDir, relative);
    let stats: Stats;
    try {
      stats = lstatSync(path);
    } catch {
      return; // gone meanwhile
    }
    const folder = OWN_FOLDERS.has(relative);
    const entry = stateEntryOf(folder ? `${relative}/` : relative);
    if (entry === undefined && !folder) return;
    if (entry === 'temporary' && !stats.isDirectory()) return void rmSync(path, { force: true }); // a crash's half-written file (or a planted name): never read
    if (folder ? stats.isDirectory() : stats.isFile()) {
      if (folder) for (const name of readdirSync(path)) look(`${relative}/${name}`);
      return;
    }
    wrong.push(`${relative} is ${kindOf(stats)}`);
  };
  for (const name of readdirSync(stateDir)) look(name);
  if (wrong.length > 0) {
    const list = `${wrong.slice(0, 5).join('; ')}${wrong.length > 5 ? `; ${wrong.length - 5} more` : ''}`;
    throw new NotOwnFileError(stateDir, 'not ours', `state_dir ${stateDir} holds what avahealth did not write: ${list}; avahealth opens only regular files there and follows no links: remove them`);
  }
  const { mode } = statSync(stateDir);
  return (mode & 0o002) !== 0 ? { writableByOthers: mode & 0o7777 } : {};
}
