/**
 * A receiver's notes about its incidents (`state_dir/receivers/<receiver>.json`): what a sender
 * must remember beyond one delivery, such as the Telegram message a resolve replies to. Written
 * atomically after each change, read back at start (an unreadable file is set aside and the notes
 * start empty: a resolve is then sent on its own, never lost). Holds ids, never secrets; at most
 * MAX_NOTES entries, the oldest dropped first.
 */
import { z } from 'zod';
import { readJsonFile, writeFileAtomicAsync } from '../../state/atomic.js';
import { statePath } from '../../state/map.js';
import { noteWriteFailed, noteWriteSucceeded } from '../../state/write-health.js';
import type { Notes } from './receiver.js';

const MAX_NOTES = 1000;
const fileSchema = z.object({ notes: z.record(z.string(), z.string()) });

export function notesFile(stateDir: string, receiver: string): string {
  return statePath.receiverNote(stateDir, receiver);
}

export class ReceiverNotes implements Notes {
  private readonly notes = new Map<string, string>();
  private writing: Promise<void> = Promise.resolve();
  /** Why the file could not be read back (it was set aside), for the owner to log. */
  readonly problem?: { error: string; movedTo?: string };

  constructor(readonly path: string) {
    const read = readJsonFile(path, fileSchema);
    if (read.status === 'ok') for (const [key, value] of Object.entries(read.value.notes)) this.notes.set(key, value);
    if (read.status === 'corrupt') this.problem = { error: read.error, ...(read.movedTo ? { movedTo: read.movedTo } : {}) };
  }

  get(key: string): string | undefined {
    return this.notes.get(key);
  }

  keys(): IterableIterator<string> {
    return this.notes.keys();
  }

  /** Settles once every update so far is on disk (or its failure reported). */
  written(): Promise<void> {
    return this.writing;
  }

  update(changes: Record<string, string | undefined>): Promise<void> {
    for (const [key, value] of Object.entries(changes)) {
      this.notes.delete(key); // a set moves the key to the end: the newest are kept
      if (value !== undefined) this.notes.set(key, value);
    }
    for (const key of this.notes.keys()) {
      if (this.notes.size <= MAX_NOTES) break;
      this.notes.delete(key);
    }
    const text = JSON.stringify({ notes: Object.fromEntries(this.notes) });
    // Writes in order; each one's outcome goes to write-health (a failed write is reported there, not thrown).
    this.writing = this.writing.then(() =>
      writeFileAtomicAsync(this.path, text).then(
        () => noteWriteSucceeded(this.path),
        (err: unknown) => noteWriteFailed(this.path, err),
      ),
    );
    return this.writing;
  }
}
