/**
 * An append-only journal of JSON lines with group commit: every operation appended within one
 * tick (and every one appended while the previous write is still on its way to the disk) shares
 * one write and one fdatasync, both on libuv's thread pool, never blocking the event loop. An
 * append's promise settles once its line is on disk, so a caller can wait for durability where it
 * matters (an outbox sends nothing before its enqueue is durable) and skip it where it does not:
 * `lazy` lines (acknowledgements) start no write of their own, they ride along with the next one or
 * are written at most LAZY_WRITE_MS later. Batches are written strictly in order.
 *
 * Compacted (rewritten atomically with only what is still live) when it has grown well past that;
 * the rewrite happens in the same queue as the appends, so it never interleaves with one, and it
 * supersedes every operation appended so far (the live snapshot already contains their effect).
 * A crash can tear only the last line: it is cut off on read, so the next append starts on a fresh
 * line instead of gluing itself to the fragment. A line that is not valid JSON or does not fit the
 * schema is skipped on its own (and dropped at the next compaction); the lines around it still
 * count. Cheap per operation however long the queue it records gets.
 */
import { closeSync, fdatasyncSync, ftruncateSync, readFileSync, writeSync } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { z } from 'zod';
import { describeIssues, writeFileAtomicAsync } from './atomic.js';
import { ensureFolder, ensureFolderSync, openOwn, openOwnSync } from './own-files.js';
import { isNoSpace, releaseReserve, replenishReserve } from './reserve.js';
import { noteWriteFailed, noteWriteSucceeded } from './write-health.js';

/** The longest an acknowledgement waits for a write to ride along with. */
export const LAZY_WRITE_MS = 1000;

export interface JournalRead<Op> {
  ops: Op[];
  /** The file ended in a partial line (a crash mid-append); it was cut off. */
  torn: boolean;
  /** 1-based numbers of the whole lines skipped as unreadable, and why the first one was. */
  skipped: number[];
  firstProblem?: string;
}

/** What the journal would be rewritten to: the state every operation appended so far leads to. */
export interface LiveState<Op> {
  count(): number;
  ops(): Op[];
}

export interface JournalStats {
  /** Operations appended. */
  records: number;
  /** Writes to the file (one per batch, one per compaction). */
  writes: number;
  /** fdatasync/fsync calls (one per batch, two per compaction: the file and its directory). */
  syncs: number;
}

const totals: JournalStats = { records: 0, writes: 0, syncs: 0 };

/** Sums over every journal of the process (for metrics). */
export function journalTotals(): Readonly<JournalStats> {
  return totals;
}

interface Batch {
  lines: string[];
  /** An operation in it asked to be written now (not only lazy ones). */
  urgent: boolean;
  written: Promise<boolean>;
  settle: (ok: boolean) => void;
}

function newBatch(): Batch {
  let settle!: (ok: boolean) => void;
  const written = new Promise<boolean>((resolve) => (settle = resolve));
  return { lines: [], urgent: false, written, settle };
}

export class Journal<Op> {
  readonly stats: JournalStats = { records: 0, writes: 0, syncs: 0 };
  private handle?: FileHandle;
  private lines = 0;
  /** Appended, not yet being written. */
  private next?: Batch;
  /** Being written now. */
  private inFlight?: Batch;
  private draining?: Promise<void>;
  private scheduled = false;
  private lazyTimer?: NodeJS.Timeout;
  /** The last write failed, maybe half-way through a line: the next one starts on a fresh line. */
  private broken = false;
  /**
   * Closed: a late append (a batch dispatched to an outbox being replaced on reload) is written at
   * once, synchronously, so whoever reads the file next sees it.
   */
  private closed = false;

  constructor(
    readonly path: string,
    private readonly schema: z.ZodType<Op>,
    private readonly live?: LiveState<Op>,
    private readonly slack = 1000,
  ) {}

  /**
   * Every valid whole line; a torn last line is cut off the file (`repair: false` only looks, for
   * readers that do not own the file). Throws on an unreadable file.
   */
  read({ repair = true } = {}): JournalRead<Op> {
    let bytes: Buffer;
    let fd: number;
    try {
      fd = openOwnSync(this.path, repair ? 'update' : 'read');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { ops: [], torn: false, skipped: [] };
      throw err;
    }
    let torn: boolean;
    let wholeLength: number;
    try {
      bytes = readFileSync(fd);
      wholeLength = bytes.lastIndexOf(0x0a) + 1;
      torn = wholeLength < bytes.length;
      if (torn && repair) ftruncateSync(fd, wholeLength);
    } finally {
      closeSync(fd);
    }
    const result: JournalRead<Op> = { ops: [], torn, skipped: [] };
    const lines = bytes.subarray(0, wholeLength).toString('utf8').split('\n');
    lines.pop();
    lines.forEach((line, index) => {
      if (line === '') return;
      const problem = this.parseLine(line, result.ops);
      if (problem === undefined) return;
      result.skipped.push(index + 1);
      result.firstProblem ??= problem;
    });
    this.lines = lines.length;
    return result;
  }

  private parseLine(line: string, into: Op[]): string | undefined {
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (err) {
      return (err as Error).message;
    }
    const parsed = this.schema.safeParse(value);
    if (!parsed.success) return describeIssues(parsed.error);
    into.push(parsed.data);
    return undefined;
  }

  /**
   * Queues `ops` for the next group write; resolves true once they are on disk, false when that
   * write failed (counted and logged by write-health; never rejects).
   */
  append(ops: Op[], { lazy = false } = {}): Promise<boolean> {
    if (ops.length === 0) return this.pendingWrites() ?? Promise.resolve(true);
    if (this.closed) return Promise.resolve(this.writeClosed(ops));
    const batch = (this.next ??= newBatch());
    for (const op of ops) batch.lines.push(`${JSON.stringify(op)}\n`);
    this.stats.records += ops.length;
    totals.records += ops.length;
    if (!lazy) {
      batch.urgent = true;
      this.kick();
    } else if (!batch.urgent && !this.lazyTimer) {
      this.lazyTimer = setTimeout(() => {
        this.lazyTimer = undefined;
        if (this.next) this.next.urgent = true;
        this.kick();
      }, LAZY_WRITE_MS);
      this.lazyTimer.unref();
    }
    return batch.written;
  }

  /** Settles once every non-lazy operation appended so far is on disk; undefined when they are. */
  pendingWrites(): Promise<boolean> | undefined {
    if (this.next?.urgent) return this.next.written;
    return this.inFlight?.written;
  }

  /** Writes everything appended (lazy operations too) and closes the file. */
  async close(): Promise<void> {
    clearTimeout(this.lazyTimer);
    this.lazyTimer = undefined;
    while (this.next?.lines.length || this.draining) {
      if (this.next) this.next.urgent = true;
      if (!this.draining) this.draining = this.drain();
      await this.draining;
    }
    await this.closeHandle();
    this.closed = true;
  }

  private writeClosed(ops: Op[]): boolean {
    for (let attempt = 0; ; attempt++) {
      try {
        ensureFolderSync(dirname(this.path));
        const fd = openOwnSync(this.path, 'append');
        try {
          writeSync(fd, `${this.broken ? '\n' : ''}${ops.map((op) => `${JSON.stringify(op)}\n`).join('')}`);
          fdatasyncSync(fd);
        } finally {
          closeSync(fd);
        }
        break;
      } catch (err) {
        this.broken = true;
        if (attempt === 0 && isNoSpace(err) && releaseReserve(this.path)) continue;
        noteWriteFailed(this.path, err);
        return false;
      }
    }
    this.broken = false;
    this.count('writes');
    this.count('syncs');
    this.stats.records += ops.length;
    totals.records += ops.length;
    this.lines += ops.length;
    noteWriteSucceeded(this.path);
    return true;
  }

  /** Starts a drain after the current tick, so everything appended in it joins one write. */
  private kick(): void {
    if (this.scheduled || this.draining) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      this.draining ??= this.drain();
    });
  }

  private async drain(): Promise<void> {
    try {
      while (this.next?.urgent) {
        const batch = (this.inFlight = this.next);
        this.next = undefined;
        clearTimeout(this.lazyTimer);
        this.lazyTimer = undefined;
        if (batch.lines.length > 0) await this.write(batch);
        else batch.settle(true);
        this.inFlight = undefined;
      }
    } finally {
      this.inFlight = undefined;
      this.draining = undefined;
    }
  }

  private async write(batch: Batch): Promise<void> {
    let superseded: Batch | undefined;
    try {
      if (this.live && this.lines + batch.lines.length > this.live.count() * 2 + this.slack) {
        // Taken in the same tick as the live snapshot, which already reflects what they record.
        superseded = this.next;
        this.next = undefined;
        try {
          await this.rewrite(this.live.ops());
        } catch (err) {
          if (!isNoSpace(err)) throw err;
          // No room for a whole new file on a full disk: the new lines alone may still fit (the reserve).
          await this.appendLines([...batch.lines, ...(superseded?.lines ?? [])]);
        }
      } else await this.appendLines(batch.lines);
      this.broken = false;
      noteWriteSucceeded(this.path);
      replenishReserve(this.path);
      batch.settle(true);
      superseded?.settle(true);
    } catch (err) {
      this.broken = true;
      await this.closeHandle().catch(() => undefined);
      noteWriteFailed(this.path, err);
      batch.settle(false);
      superseded?.settle(false);
    }
  }

  /** One append and fdatasync; on a full disk, tried once more after the state_dir's reserve is released (`reserve.ts`). */
  private async appendLines(lines: string[]): Promise<void> {
    for (let attempt = 0; ; attempt++) {
      try {
        const handle = await this.open();
        await handle.appendFile(`${this.broken ? '\n' : ''}${lines.join('')}`);
        this.count('writes');
        await handle.datasync();
        this.count('syncs');
        this.lines += lines.length;
        return;
      } catch (err) {
        // maybe half-way through a line: the next attempt starts on a fresh one
        this.broken = true;
        await this.closeHandle().catch(() => undefined);
        if (attempt > 0 || !isNoSpace(err) || !releaseReserve(this.path)) throw err;
      }
    }
  }

  private async rewrite(live: Op[]): Promise<void> {
    await this.closeHandle();
    await writeFileAtomicAsync(this.path, `${live.map((op) => JSON.stringify(op)).join('\n')}${live.length ? '\n' : ''}`);
    this.count('writes');
    this.count('syncs', 2);
    this.lines = live.length;
  }

  private async open(): Promise<FileHandle> {
    if (!this.handle) {
      await ensureFolder(dirname(this.path));
      this.handle = await openOwn(this.path, 'append');
    }
    return this.handle;
  }

  private async closeHandle(): Promise<void> {
    const handle = this.handle;
    this.handle = undefined;
    await handle?.close();
  }

  private count(what: 'writes' | 'syncs', n = 1): void {
    this.stats[what] += n;
    totals[what] += n;
  }
}
