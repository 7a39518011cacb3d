/**
 * What probes remember about a target across restarts, one JSON file per kind under state_dir
 * (written atomically when an entry changed, at most once a second, and on stop: a fleet's first
 * polls change thousands of entries, and one write of the whole file each blocked the daemon): each own validator's
 * periods and their outcomes (`periods.json`), a node's missed network upgrade (`missed-upgrades.json`),
 * a restarted validator's unsettled info.uptime snapshot (`uptime-settling.json`), the public IP a
 * validator advertised last and its last change (`public-ips.json`). `avahealth check`
 * reads the daemon's files of its state_dir, when there are some, and never writes them; without a
 * directory they live in memory.
 */
import { z } from 'zod';
import type { MissedUpgrade } from '../model/observation.js';
import { periodEntrySchema, type PeriodEntry } from '../model/periods.js';
import type { SettlingMemory } from '../model/uptime-snapshot.js';
import { readJsonFile, writeJsonAtomic } from './atomic.js';
import { STATE_MAP, statePath, type StateFileName } from './map.js';

/** Targets kept per file; a larger fleet's least recently changed entries are dropped. */
const MAX_TARGETS = 10_000;
/** Changes are written together, at most this often. */
const SAVE_DELAY_MS = 1000;

export class Ledger<T> {
  private readonly entries = new Map<string, T>();
  private readonly file?: string;
  private timer?: NodeJS.Timeout;
  /** Why the file could not be read (set aside) or written last, for the caller to log. */
  problem?: string;

  constructor(
    private readonly entrySchema: z.ZodType<T>,
    file?: string,
    /** Read the file, never write it (`avahealth check` beside a running daemon): what it holds is another process's. */
    readonly readOnly = false,
  ) {
    if (!file) return;
    if (!readOnly) this.file = file;
    const read = readJsonFile(file, z.object({ version: z.literal(1), nodes: z.record(z.string().max(256), entrySchema) }), readOnly);
    if (read.status === 'ok') for (const [name, entry] of Object.entries(read.value.nodes)) this.entries.set(name, entry as T);
    else if (read.status === 'corrupt') this.problem = `${file} unreadable (${read.error}); ${readOnly ? 'not used' : 'set aside, starting empty'}`;
  }

  get(target: string): T | undefined {
    return this.entries.get(target);
  }

  /** Replaces a target's entry (undefined removes it); `persist` false for changes not worth a write. */
  set(target: string, entry: T | undefined, persist = true): void {
    this.entries.delete(target);
    if (entry !== undefined) this.entries.set(target, entry);
    while (this.entries.size > MAX_TARGETS) this.entries.delete(this.entries.keys().next().value!);
    if (persist && this.file && !this.timer) {
      this.timer = setTimeout(() => this.flush(), SAVE_DELAY_MS);
      this.timer.unref();
    }
  }

  /** Sets a target's entry from outside (another owner's word), when it has this ledger's shape; returns whether it did. */
  accept(target: string, entry: unknown): boolean {
    const parsed = this.entrySchema.safeParse(entry);
    if (!parsed.success) return false;
    this.set(target, parsed.data);
    return true;
  }

  /** Writes a pending change now (on stop, and before reading the file back in tests). */
  flush(): void {
    if (!this.timer) return;
    clearTimeout(this.timer);
    this.timer = undefined;
    this.save();
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

const missedUpgradeSchema = z.object({ deadline: z.number(), modeWeightRatio: z.number().optional() });
const publicIpSchema = z.object({
  ip: z.string().min(1).max(64),
  change: z.object({ from: z.string().min(1).max(64), to: z.string().min(1).max(64), at: z.number() }).optional(),
});
const settlingSchema = z.object({ settlingSince: z.number().optional(), settlingLastAt: z.number().optional(), settlingWeighted: z.number().optional(), settlingRoseAt: z.number().optional(), settlingFirstAnswer: z.boolean().optional(), uptimeUnanswered: z.boolean().optional() });

/** Every ledger probes keep; one set per daemon, kept across a new Poller (reload). */
export interface ProbeMemory {
  periods: Ledger<PeriodEntry>;
  /** The upgrade deadline a node's futureupgrade check named last, kept past it while the node misses it. */
  missedUpgrades: Ledger<MissedUpgrade>;
  /** A validator's info.uptime readings while its restart's snapshot settles (model/uptime-snapshot.ts). */
  settling: Ledger<SettlingMemory>;
  /** The IP:port a validator's info.getNodeIP said last, and its last change (probes/validator.ts). */
  publicIps: Ledger<PublicIpMemory>;
}

/** What is kept of a validator's public IP: the last one seen, and its last change (epoch seconds). */
export type PublicIpMemory = z.infer<typeof publicIpSchema>;

/** Writes every ledger's pending change now. */
export function flushProbeMemory(memory: ProbeMemory): void {
  for (const ledger of Object.values(memory)) ledger.flush();
}

/** `readOnly`: the files of a daemon's state_dir, read and never written (`avahealth check`). */
export function probeMemory(stateDir?: string, readOnly = false): ProbeMemory {
  const at = (path: (dir: string) => string) => (stateDir ? path(stateDir) : undefined);
  return {
    periods: new Ledger(periodEntrySchema, at(statePath.periods), readOnly),
    missedUpgrades: new Ledger(missedUpgradeSchema, at(statePath.missedUpgrades), readOnly),
    settling: new Ledger(settlingSchema, at(statePath.uptimeSettling), readOnly),
    publicIps: new Ledger(publicIpSchema, at(statePath.publicIps), readOnly),
  };
}

/** Each ledger's file in the state map. */
const MEMORY_FILES = { periods: 'periods', missedUpgrades: 'missedUpgrades', settling: 'uptimeSettling', publicIps: 'publicIps' } as const satisfies Record<keyof ProbeMemory, StateFileName>;

/** The ledgers whose entries the state map says a reshard carries to a target's new owner, by file name. */
function carriedLedgers(memory: ProbeMemory): Array<[StateFileName, Ledger<unknown>]> {
  return (Object.keys(MEMORY_FILES) as Array<keyof ProbeMemory>).filter((name) => STATE_MAP[MEMORY_FILES[name]].kind === 'carried').map((name) => [MEMORY_FILES[name], memory[name] as Ledger<unknown>]);
}

/** A target's entries of the carried ledgers (by file name), for its handover record; undefined when it has none. */
export function carriedOf(memory: ProbeMemory, target: string): Partial<Record<StateFileName, unknown>> | undefined {
  const entries = carriedLedgers(memory).flatMap(([file, ledger]) => {
    const entry = ledger.get(target);
    return entry === undefined ? [] : [[file, entry] as const];
  });
  return entries.length > 0 ? Object.fromEntries(entries) : undefined;
}

/**
 * Takes a target's carried entries from the handover record of its previous owner (already checked
 * as signed by the fleet): each goes into its ledger when it has that ledger's shape, replacing what
 * this daemon remembered from when it last polled the target. Returns the files taken.
 */
export function takeCarried(memory: ProbeMemory, target: string, carried: Readonly<Record<string, unknown>>): StateFileName[] {
  return carriedLedgers(memory).flatMap(([file, ledger]) => (file in carried && ledger.accept(target, carried[file]) ? [file] : []));
}
