/**
 * An append-only journal of JSON lines, fsynced on every append, compacted (rewritten atomically
 * with only what is still live) when it has grown well past that. A crash can tear only the last
 * line, which is ignored on read. Cheap per operation however long the queue it records gets.
 */
import { closeSync, fsyncSync, mkdirSync, openSync, readFileSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import { writeFileAtomic } from './atomic.js';

export class Journal<Op> {
  private fd?: number;
  private lines = 0;

  constructor(readonly path: string) {}

  /** Every whole line written so far (a torn last line is dropped); throws on an unreadable file. */
  read(): { ops: Op[]; torn: boolean } {
    let text: string;
    try {
      text = readFileSync(this.path, 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { ops: [], torn: false };
      throw err;
    }
    const raw = text.split('\n');
    const last = raw.pop() ?? '';
    const ops: Op[] = [];
    for (const line of raw) if (line !== '') ops.push(JSON.parse(line) as Op);
    this.lines = ops.length;
    return { ops, torn: last !== '' };
  }

  append(ops: Op[]): void {
    if (ops.length === 0) return;
    if (this.fd === undefined) {
      mkdirSync(dirname(this.path), { recursive: true });
      this.fd = openSync(this.path, 'a', 0o600);
    }
    writeSync(this.fd, `${ops.map((op) => JSON.stringify(op)).join('\n')}\n`);
    fsyncSync(this.fd);
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
