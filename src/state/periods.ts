/**
 * The ledger of validation periods per node (`state_dir/periods.json`): the period each validator
 * poll follows, one that ended and awaits its outcome, and the last outcomes. Kept across restarts
 * so a period that ends while the daemon is down is still judged, and an outcome is reported once.
 * Written only when a period or an outcome changes (a few times per period), never per poll.
 * Without a file (`avahealth check`) it lives in memory.
 */
import { z } from 'zod';
import { periodEntrySchema, type PeriodEntry } from '../model/periods.js';
import { readJsonFile, writeJsonAtomic } from './atomic.js';

/** Nodes kept; a larger fleet's oldest entries are dropped (one small entry per validator). */
const MAX_NODES = 10_000;
const fileSchema = z.object({ version: z.literal(1), nodes: z.record(z.string().max(256), periodEntrySchema) });

export class PeriodLedger {
  private readonly entries = new Map<string, PeriodEntry>();
  /** Why the file could not be read (set aside) or written last, for the caller to log once. */
  problem?: string;

  constructor(private readonly file?: string) {
    if (!file) return;
    const read = readJsonFile(file, fileSchema);
    if (read.status === 'ok') for (const [name, entry] of Object.entries(read.value.nodes)) this.entries.set(name, entry);
    else if (read.status === 'corrupt') this.problem = `${file} unreadable (${read.error}); set aside, periods start empty`;
  }

  get(target: string): PeriodEntry {
    return this.entries.get(target) ?? { outcomes: [] };
  }

  /** Replaces a node's entry; `persist` false for changes not worth a write (the uptime seen). */
  set(target: string, entry: PeriodEntry, persist = true): void {
    this.entries.delete(target);
    this.entries.set(target, entry);
    while (this.entries.size > MAX_NODES) this.entries.delete(this.entries.keys().next().value!);
    if (persist) this.save();
  }

  private save(): void {
    if (!this.file) return;
    try {
      writeJsonAtomic(this.file, { version: 1, nodes: Object.fromEntries(this.entries) });
      this.problem = undefined;
    } catch (err) {
      // Noted by write-health (logged once per change); the entries stay in memory.
      this.problem = `${this.file} not written: ${(err as Error).message}`;
    }
  }
}
