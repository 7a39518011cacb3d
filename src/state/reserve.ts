/**
 * Space the outbox journals can always use: a file of zeros, `state_dir/.avahealth-reserve`
 * (1 MiB, or a quarter of the free space when that is less; none under 64 KiB), written at start.
 * When a journal write fails for want of space (ENOSPC, EDQUOT), the reserve is deleted and the
 * write tried once more, so the lines that record what was sent (and which incidents are open at a
 * receiver) still reach the disk while it is full; a later successful write re-creates the
 * reserve once there is room again (tried at most every 10 s). Other state files (alerts.json,
 * silences.json) never release it; after a crash the alert states are rebuilt from the journals.
 */
import { closeSync, fsyncSync, lstatSync, statfsSync, unlinkSync, writeSync } from 'node:fs';
import { statfs, unlink } from 'node:fs/promises';
import { sep } from 'node:path';
import type { Logger } from '../log.js';
import { STATE_MAP, statePath } from './map.js';
import { openOwn, openOwnSync } from './own-files.js';

export const RESERVE_FILE = STATE_MAP.reserve.pattern;
export const RESERVE_BYTES = 1024 * 1024;
const MIN_RESERVE_BYTES = 64 * 1024;
const REPLENISH_EVERY_MS = 10_000;
const CHUNK = Buffer.alloc(64 * 1024);

interface Reserve {
  prefix: string;
  file: string;
  bytes: number;
  held: boolean;
  lastTry: number;
  replenishing: boolean;
  log: Logger;
}

const reserves = new Map<string, Reserve>();

/** Whether an error says the file system (or the quota) is full. */
export function isNoSpace(err: unknown): boolean {
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  return code === 'ENOSPC' || code === 'EDQUOT';
}

/**
 * Creates (or keeps) the reserve of `stateDir`, synchronously, at start; logs what it holds, or why
 * there is none (the disk already too full: then a full disk loses what `docs/alerting.md` says).
 */
export function keepReserve(stateDir: string, log: Logger): number {
  const file = statePath.reserve(stateDir);
  const reserve: Reserve = { prefix: stateDir.endsWith(sep) ? stateDir : stateDir + sep, file, bytes: 0, held: false, lastTry: Date.now(), replenishing: false, log };
  reserves.set(reserve.prefix, reserve);
  let have = 0;
  try {
    const stats = lstatSync(file);
    if (stats.isFile()) have = stats.size;
  } catch {
    // none yet
  }
  const bytes = reserveSize(statfsFree(stateDir) + have);
  if (bytes === 0) {
    log.warn({ file, minimumBytes: MIN_RESERVE_BYTES }, 'state_dir has too little free space for a reserve: with the disk full, notifications sent are not recorded and incidents opened meanwhile may stay open after a crash');
    return 0;
  }
  try {
    const fd = openOwnSync(file, 'append');
    try {
      for (let size = have; size < bytes; ) size += writeSync(fd, CHUNK, 0, Math.min(CHUNK.length, bytes - size));
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
  } catch (err) {
    log.warn({ file, error: (err as Error).message }, 'cannot write the state_dir reserve: with the disk full, notifications sent are not recorded');
    try {
      unlinkSync(file);
    } catch {
      // not there
    }
    return 0;
  }
  reserve.bytes = Math.max(bytes, have);
  reserve.held = true;
  return reserve.bytes;
}

/** Forgets the reserve of `stateDir` (the daemon stops; the file stays for the next start). */
export function forgetReserve(stateDir: string): void {
  reserves.delete(stateDir.endsWith(sep) ? stateDir : stateDir + sep);
}

function reserveOf(path: string): Reserve | undefined {
  for (const reserve of reserves.values()) if (path.startsWith(reserve.prefix)) return reserve;
  return undefined;
}

/** Deletes the reserve of the state_dir holding `path`, for a journal write that found the disk full; false when there is none left. */
export function releaseReserve(path: string): boolean {
  const reserve = reserveOf(path);
  if (!reserve?.held) return false;
  reserve.held = false;
  reserve.lastTry = Date.now();
  try {
    unlinkSync(reserve.file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') return false;
  }
  reserve.log.warn({ file: reserve.file, bytes: reserve.bytes }, 'state_dir is full: its reserve released for the outbox journals (free space on that disk)');
  return true;
}

/** After a successful journal write: re-creates a released reserve when there is room again (at most every 10 s, off the event loop). */
export function replenishReserve(path: string): void {
  const reserve = reserveOf(path);
  if (!reserve || reserve.held || reserve.bytes === 0 || reserve.replenishing || Date.now() - reserve.lastTry < REPLENISH_EVERY_MS) return;
  reserve.lastTry = Date.now();
  reserve.replenishing = true;
  void recreate(reserve).finally(() => (reserve.replenishing = false));
}

async function recreate(reserve: Reserve): Promise<void> {
  try {
    const { bavail, bsize } = await statfs(reserve.prefix);
    if (bavail * bsize < reserve.bytes * 4) return;
    const file = await openOwn(reserve.file, 'write');
    try {
      for (let size = 0; size < reserve.bytes; ) size += (await file.write(CHUNK, 0, Math.min(CHUNK.length, reserve.bytes - size))).bytesWritten;
      await file.sync();
    } finally {
      await file.close();
    }
  } catch {
    await unlink(reserve.file).catch(() => undefined);
    return;
  }
  reserve.held = true;
  reserve.log.info({ file: reserve.file, bytes: reserve.bytes }, 'state_dir reserve kept again');
}

function statfsFree(dir: string): number {
  try {
    const { bavail, bsize } = statfsSync(dir);
    return bavail * bsize;
  } catch {
    return 0;
  }
}

/** 1 MiB, or a quarter of what is free when that is less; 0 under 64 KiB. */
function reserveSize(free: number): number {
  const bytes = Math.min(RESERVE_BYTES, Math.floor(free / 4 / 4096) * 4096);
  return bytes >= MIN_RESERVE_BYTES ? bytes : 0;
}
