/**
 * One state_dir, one owner: a pid file `state_dir/avahealth.lock`, created atomically (written in
 * full to a temporary file, then hard-linked into place, which fails if the lock exists) before
 * anything in the directory is read. A lock left by a process that is gone (or by an earlier life
 * of this very pid, as after a container restart where the daemon is always pid 1) is taken over;
 * so is one whose pid now belongs to another process, as after a reboot: the lock records the
 * owner's start time and boot id (Linux /proc), and a live pid that started at another time, or a
 * lock from another boot, is not its owner (`ownerOf`). Creating the lock is also the start-up proof
 * that state_dir is writable. Once the daemon listens, the lock also says where its API answers
 * (`url=`), so `avahealth check` beside it can ask for the daemon's verdicts (`stateDirOwner`).
 */
import { closeSync, existsSync, fsyncSync, linkSync, mkdirSync, readFileSync, renameSync, unlinkSync, writeSync } from 'node:fs';
import { basename, dirname, resolve } from 'node:path';
import type { Logger } from '../log.js';
import { STATE_MAP, statePath } from './map.js';
import { checkStateDir, NotOwnFileError, openOwnSync, readOwnFileSync } from './own-files.js';

export const LOCK_FILE = STATE_MAP.lock.pattern;

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
  /** Why it was stale: its process is gone, or its pid now names another process. */
  readonly staleBecause?: string;
  /** The mode of state_dir when every user may write there. */
  readonly writableByOthers?: number;
  /** Records where the daemon's API answers (a loopback URL), for `avahealth check`. */
  serving(url: string): void;
  release(): void;
}

/** Who holds a state_dir now: a live process, and where its API answers when it said so. */
export interface StateDirOwner {
  pid: number;
  url?: string;
}

/** The live owner of `dir`'s lock, read without taking it (`avahealth check`); undefined when none. */
export function stateDirOwner(dir: string): StateDirOwner | undefined {
  const lock = readLock(statePath.lock(dir));
  if (!lock || whyNotOwner(lock) !== undefined) return undefined;
  return { pid: lock.pid, ...(lock.url ? { url: lock.url } : {}) };
}

/**
 * mkdir -p, one level at a time: Node's recursive mkdir retries for ever where the kernel answers
 * ENOENT for a parent that exists (a path under /proc or /sys), and a daemon must fail, not hang.
 */
function makeDirectories(dir: string): void {
  const missing: string[] = [];
  for (let at = resolve(dir); !existsSync(at); at = dirname(at)) {
    missing.unshift(at);
    if (dirname(at) === at) break;
  }
  for (const path of missing) mkdirSync(path);
}

/**
 * Takes state_dir for this process, then looks it over (`checkStateDir`: no link, FIFO or device
 * where a state file goes; a crash's temporary files removed). Throws StateDirError when another
 * live process has it, it is not writable, or it holds what avahealth did not write.
 */
export function lockStateDir(dir: string, pid = process.pid): StateDirLock {
  const lock = takeLock(dir, pid);
  try {
    const { writableByOthers } = checkStateDir(dir);
    return writableByOthers === undefined ? lock : { ...lock, writableByOthers };
  } catch (err) {
    lock.release();
    throw err instanceof NotOwnFileError ? new StateDirError(err.message) : new StateDirError(`state_dir ${dir}: ${describe(err)}`);
  }
}

/**
 * A state_dir every user may write in: anyone could fill it, or plant a link or a FIFO where a state
 * file goes (refused at the next start, so a way to keep avahealth down). Warned of, not refused: in
 * a Kubernetes pod an emptyDir is mode 0777 but shared only by the containers that mount it (info
 * there, where the service account's environment says so).
 */
export function logWritableStateDir(log: Logger, stateDir: string, mode: number): void {
  const fields = { stateDir, mode: `0${mode.toString(8)}` };
  const message = 'state_dir is writable by every user: keep it private to avahealth (chmod 700, or a folder of its own)';
  if (process.env.KUBERNETES_SERVICE_HOST) log.info(fields, `${message}; in a Kubernetes pod only the containers that mount it can`);
  else log.warn(fields, message);
}

function takeLock(dir: string, pid: number): StateDirLock {
  const file = statePath.lock(dir);
  const tmp = statePath.temporary(file, pid);
  try {
    makeDirectories(dir);
    writeFileFully(tmp, lockText(pid));
  } catch (err) {
    throw new StateDirError(`state_dir ${dir} is not writable: ${describe(err)}`);
  }
  try {
    let tookOverFrom: number | undefined;
    let staleBecause: string | undefined;
    for (let attempt = 0; ; attempt++) {
      try {
        linkSync(tmp, file);
        break;
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST' || attempt >= 3) throw new StateDirError(`state_dir ${dir}: cannot create ${LOCK_FILE}: ${describe(err)}`);
      }
      const lock = readLock(file);
      const holder = lock?.pid;
      const stale = holder === undefined || holder === pid ? 'it is gone' : whyNotOwner(lock!);
      if (stale === undefined) throw new StateDirError(`state_dir ${dir} is in use by pid ${holder} (lock file ${file})`);
      // Stale: remove it only if it is still the one just read, then try again.
      if (readLock(file)?.text === lock?.text) {
        try {
          unlinkSync(file);
        } catch (err) {
          if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw new StateDirError(`state_dir ${dir}: cannot remove the stale ${LOCK_FILE}: ${describe(err)}`);
        }
      }
      tookOverFrom = holder;
      staleBecause = stale;
    }
    let released = false;
    return {
      file,
      ...(tookOverFrom !== undefined ? { tookOverFrom, staleBecause: staleBecause ?? 'it is gone' } : {}),
      serving(url) {
        if (released || readLock(file)?.pid !== pid) return;
        // Replaced whole (temporary file, then rename): a reader sees the old lock or the new one.
        try {
          writeFileFully(tmp, `${lockText(pid)}url=${url}\n`);
          renameSync(tmp, file);
        } catch {
          unlinkQuietly(tmp); // the lock stands as it was: check then runs its own round
        }
      },
      release() {
        if (released) return;
        released = true;
        if (readLock(file)?.pid === pid) unlinkQuietly(file);
      },
    };
  } finally {
    unlinkQuietly(tmp);
  }
}

interface LockRecord {
  text: string;
  pid: number;
  /** The owner's start time in clock ticks after boot (/proc/PID/stat field 22), when it was known. */
  started?: string;
  boot?: string;
  /** Where the owner's API answers, once it listens. */
  url?: string;
}

function writeFileFully(path: string, text: string): void {
  const fd = openOwnSync(path, 'create');
  try {
    writeSync(fd, text);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** `PID\nstarted=TICKS boot=ID\n`; the second line only where /proc tells them (Linux). */
function lockText(pid: number): string {
  const started = startTimeOf(pid);
  const boot = bootId();
  return `${pid}\n${started !== undefined && boot !== undefined ? `started=${started} boot=${boot}\n` : ''}`;
}

function readLock(file: string): LockRecord | undefined {
  let text: string;
  try {
    text = readOwnFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
  const [first = '', second = ''] = text.split('\n');
  const pid = Number.parseInt(first.trim(), 10);
  if (!Number.isSafeInteger(pid) || pid <= 0) return undefined;
  const started = /\bstarted=(\d+)/.exec(second)?.[1];
  const boot = /\bboot=([0-9a-f-]+)/.exec(second)?.[1];
  const url = /^url=(https?:\/\/[^\s]{1,200})$/m.exec(text)?.[1];
  return { text, pid, ...(started ? { started } : {}), ...(boot ? { boot } : {}), ...(url ? { url } : {}) };
}

/**
 * Why the live-or-not process `lock.pid` is not the lock's owner, or undefined when it may be. Gone;
 * a lock of another boot; a process started at another time than the one recorded; or, for a lock
 * without a start time (written by an older avahealth), a process that is neither node nor avahealth
 * by its command line. Where /proc cannot tell (not Linux), a live pid is taken to be the owner.
 */
function whyNotOwner(lock: LockRecord): string | undefined {
  if (!isAlive(lock.pid)) return 'it is gone';
  const boot = bootId();
  if (lock.boot !== undefined && boot !== undefined && lock.boot !== boot) return 'it was written before a reboot';
  const started = startTimeOf(lock.pid);
  if (lock.started !== undefined) return started !== undefined && started !== lock.started ? `pid ${lock.pid} now belongs to a process started at another time` : undefined;
  const command = commandOf(lock.pid);
  if (command === undefined) return undefined;
  const program = basename(command[0] ?? '');
  const looksLikeUs = program.startsWith('node') || program === 'avahealth' || command.some((arg) => arg.includes('avahealth') || arg.endsWith('cli.js'));
  return looksLikeUs ? undefined : `pid ${lock.pid} now belongs to another program (${program || 'unknown'})`;
}

/** Field 22 of /proc/PID/stat (after the command name, which may hold spaces and parentheses). */
function startTimeOf(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
  } catch {
    return undefined;
  }
}

function bootId(): string | undefined {
  try {
    return readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim() || undefined;
  } catch {
    return undefined;
  }
}

function commandOf(pid: number): string[] | undefined {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter((arg) => arg !== '');
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
