/**
 * An append-only journal of JSON lines, fsynced on every append, compacted (rewritten atomically
 * with only what is still live) when it has grown well past that. A crash can tear only the last
 * line: it is cut off on read, so the next append starts on a fresh line instead of gluing itself
 * to the fragment. A line that is not valid JSON or does not fit the schema is skipped on its own
 * (and dropped at the next compaction); the lines around it still count. Cheap per operation
 * however long the queue it records gets.
 */
import { closeSync, fsyncSync, mkdirSync, openSync, readFileSync, truncateSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import type { z } from 'zod';
import { describeIssues, writeFileAtomic } from './atomic.js';
import { noteWriteFailed, noteWriteSucceeded } from './write-health.js';

export interface JournalRead<Op> {
  ops: Op[];
  /** The file ended in a partial line (a crash mid-append); it was cut off. */
  torn: boolean;
  /** 1-based numbers of the whole lines skipped as unreadable, and why the first one was. */
  skipped: number[];
  firstProblem?: string;
}

export class Journal<Op> {
  private fd?: number;
  private lines = 0;

  constructor(
    readonly path: string,
    private readonly schema: z.ZodType<Op>,
  ) {}

  /**
   * Every valid whole line; a torn last line is cut off the file (`repair: false` only looks, for
   * readers that do not own the file). Throws on an unreadable file.
   */
  read({ repair = true } = {}): JournalRead<Op> {
    let bytes: Buffer;
    try {
      bytes = readFileSync(this.path);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { ops: [], torn: false, skipped: [] };
      throw err;
    }
    const wholeLength = bytes.lastIndexOf(0x0a) + 1;
    const torn = wholeLength < bytes.length;
    if (torn && repair) truncateSync(this.path, wholeLength);
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

  append(ops: Op[]): void {
    if (ops.length === 0) return;
    try {
      if (this.fd === undefined) {
        mkdirSync(dirname(this.path), { recursive: true });
        this.fd = openSync(this.path, 'a', 0o600);
      }
      writeSync(this.fd, `${ops.map((op) => JSON.stringify(op)).join('\n')}\n`);
      fsyncSync(this.fd);
    } catch (err) {
      noteWriteFailed(this.path, err);
      throw err;
    }
    noteWriteSucceeded(this.path);
    this.lines += ops.length;
  }

  /** Rewrites the journal as `live` when it has grown to more than twice that plus `slack` lines. */
  compact(live: Op[], slack = 1000): void {
    if (this.lines <= live.length * 2 + slack) return;
    this.close();
    writeFileAtomic(this.path, `${live.map((op) => JSON.stringify(op)).join('\n')}${live.length ? '\n' : ''}`);
    this.lines = live.length;
  }

  close(): void {
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
  }
}
