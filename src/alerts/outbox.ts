/**
 * One persisted queue per receiver: a journal `state_dir/outbox/<receiver>.jsonl` (a line per
 * enqueue, delivery and retry, group-committed: one write and one fdatasync per tick off the event
 * loop; compacted as it grows), so persisting costs the same whatever the backlog. Delivered
 * strictly in order, one request at a time per receiver; a failed head is retried with exponential
 * backoff and jitter, never sooner than the receiver's Retry-After; a rejection (4xx other than
 * 408/429) is dropped and reported. Durable before sent: an item is handed to its receiver only
 * once its enqueue line is on disk. At-least-once: an item is marked done only after it was sent,
 * and that mark is on disk before the next item is sent (written lazily, with the next write or at
 * most LAZY_WRITE_MS later, only when nothing else is queued), so a crash sends again at most the
 * one notification that was last sent, never an older one after a newer; receivers deduplicate (Alertmanager by labels, PagerDuty
 * and Opsgenie by dedup key/alias, webhooks by the batch id and alert fingerprints). The journal
 * is also the record of the receiver's open incidents (every firing enqueued and not yet followed by
 * its resolve; an `open` line keeps them through compaction), from which the alert states are
 * reconciled after a crash.
 */
import { existsSync } from 'node:fs';
import type { ReceiverConfig } from '../config/load.js';
import type { Logger } from '../log.js';
import { redact } from '../util/text.js';
import { setAsideFile } from '../state/atomic.js';
import { Journal } from '../state/journal.js';
import { statePath } from '../state/map.js';
import { outboxOpSchema, type OpenIncident, type OutboxItem, type OutboxOp } from './persisted.js';
import { DeliveryError, type Notes, type OutgoingRequest } from './receivers/receiver.js';
import { send } from './receivers/index.js';
import { notesFile, ReceiverNotes } from './receivers/notes.js';
import type { AlertNotice, NotificationBatch } from './types.js';

export type { OutboxItem };

type JournalOp = OutboxOp;

/** What an outbox journal records: the undelivered items in order, and the receiver's open incidents. */
export interface OutboxReplay {
  items: OutboxItem[];
  /** Fingerprint → the last firing the receiver was told (or will be: queued) and not yet told resolved. */
  open: Map<string, OpenIncident>;
  /** The journal has an `open` line: without one (written before they were recorded) it cannot say which it closed. */
  knowsOpen: boolean;
}

export function replayJournal(ops: JournalOp[]): OutboxReplay {
  const items = new Map<string, OutboxItem>();
  const open = new Map<string, OpenIncident>();
  let knowsOpen = false;
  for (const op of ops) {
    if ('add' in op) {
      items.set(op.add.batch.id, op.add);
      recordTold(open, op.add.batch);
    } else if ('done' in op) items.delete(op.done);
    else if ('open' in op) {
      knowsOpen = true;
      open.clear();
      for (const incident of op.open) open.set(incident.alert.fingerprint, incident);
    } else {
      const item = items.get(op.retry.id);
      if (item) Object.assign(item, { attempts: op.retry.attempts, nextAttemptAt: op.retry.nextAttemptAt, lastError: op.retry.lastError });
    }
  }
  return { items: [...items.values()], open, knowsOpen };
}

/** A batch told firing alerts open and resolved ones closed (a muted one told nothing: the receiver mutes what it holds). */
function recordTold(open: Map<string, OpenIncident>, batch: NotificationBatch): void {
  if (batch.muted) return;
  for (const alert of batch.alerts) {
    if (alert.status === 'resolved') open.delete(alert.fingerprint);
    else open.set(alert.fingerprint, { at: batch.createdAt, alert });
  }
}

/** What a log line about one notification names: its target and its incidents (alert name, identity labels, status). */
function incidentsOf(batch: NotificationBatch): { target: string; incidents: Array<Record<string, string>> } {
  const shown = batch.alerts.slice(0, 20).map((a) => {
    const { alertname = '', target: _target, severity: _severity, ...identity } = a.labels;
    return { alertname, ...identity, status: a.status, fingerprint: a.fingerprint };
  });
  return { target: batch.target, incidents: shown };
}

/** A re-send of the firing alerts (journals written before it was marked: the engine's `*` batch of firing alerts only). */
function isResend(batch: NotificationBatch): boolean {
  return batch.resend === true || (batch.target === '*' && !batch.muted && !batch.silences && batch.alerts.length > 0 && batch.alerts.every((a) => a.status === 'firing'));
}

export function outboxFile(stateDir: string, receiver: string): string {
  return statePath.outbox(stateDir, receiver);
}

export interface OutboxEvents {
  delivered: (receiver: string) => void;
  failed: (receiver: string, reason: string) => void;
  /** A notification given up (the receiver refused it, plain text too; or the queue was full). */
  dropped?: (receiver: string, reason: string) => void;
  queueLength: (receiver: string, length: number) => void;
}

const MAX_ITEMS = 10_000;
const BASE_DELAY_MS = 1_000;
const MAX_DELAY_MS = 5 * 60_000;

export function backoffMs(attempts: number, retryAfterMs: number | undefined, random = Math.random): number {
  const exponential = Math.min(MAX_DELAY_MS, BASE_DELAY_MS * 2 ** Math.max(0, attempts - 1));
  const jittered = exponential / 2 + random() * (exponential / 2);
  return Math.max(jittered, retryAfterMs ?? 0);
}

export class Outbox {
  private items: OutboxItem[] = [];
  /** The receiver's open incidents by fingerprint: every batch ever enqueued folded in, delivered or not. */
  private open = new Map<string, OpenIncident>();
  /** The journal has no `open` line yet; `seeded` is true when it had lines from before they were recorded. */
  private openUnrecorded?: { seeded: boolean };
  private openLineDue = false;
  private readonly journal: Journal<JournalOp>;
  private timer?: NodeJS.Timeout;
  private sending?: Promise<void>;
  /** The last delivery's done mark: on disk before the next item is sent, so a crash never replays delivered items. */
  private acknowledged?: Promise<boolean>;
  /** Items whose enqueue line may not be on disk yet: settles when it is. */
  private readonly written = new WeakMap<OutboxItem, Promise<boolean>>();
  private stopped = false;
  /** What the receiver's sender keeps about its incidents (Telegram's message ids), beside the journal. */
  private readonly notes: ReceiverNotes;

  constructor(
    private config: ReceiverConfig,
    stateDir: string,
    /** Sends one request of a sender (POST unless it says otherwise). */
    private readonly call: (request: OutgoingRequest) => Promise<string | void>,
    private readonly externalUrl: () => string,
    private readonly events: OutboxEvents,
    private readonly log: Logger,
    /** The fleet's handover key, for a receiver that signs the handover record (Alertmanager). */
    private readonly handoverKey: () => string | undefined = () => undefined,
  ) {
    this.journal = new Journal<JournalOp>(outboxFile(stateDir, config.name), outboxOpSchema, {
      count: () => this.items.length,
      ops: () => [{ open: [...this.open.values()] }, ...this.items.map((add) => ({ add }))],
    });
    this.notes = new ReceiverNotes(notesFile(stateDir, config.name));
    if (this.notes.problem) log.error({ receiver: config.name, file: this.notes.path, ...this.notes.problem }, 'receiver notes unreadable; set aside (resolves are sent without their thread)');
    const existed = existsSync(this.journal.path);
    try {
      const { ops, torn, skipped, firstProblem } = this.journal.read();
      const replay = replayJournal(ops);
      this.items = replay.items;
      this.open = replay.open;
      if (!replay.knowsOpen) this.openUnrecorded = { seeded: existed };
      if (torn) log.warn({ receiver: config.name, file: this.journal.path }, 'outbox journal ended in a partial line (a crash mid-write); cut off');
      if (skipped.length > 0) log.error({ receiver: config.name, file: this.journal.path, lines: skipped.slice(0, 10), skipped: skipped.length, error: firstProblem }, 'outbox journal lines unreadable; skipped');
    } catch (err) {
      this.openUnrecorded = { seeded: true };
      const movedTo = setAsideFile(this.journal.path);
      log.error({ receiver: config.name, file: this.journal.path, movedTo, error: (err as Error).message }, movedTo ? 'outbox file unreadable; set aside' : 'outbox file unreadable and cannot be moved');
    }
    this.dropStaleResends();
    if (this.items.length > 0) log.info({ receiver: config.name, queued: this.items.length }, 'undelivered notifications restored');
    events.queueLength(config.name, this.items.length);
  }

  /**
   * A re-send queued before the stop said what fired then. The alert engine re-sends what its
   * verdicts find firing now; an old one delivered at a start may re-open at the receiver an
   * incident another shard has resolved since (a volume back from an earlier layout).
   */
  private dropStaleResends(): void {
    const stale = this.items.filter((item) => isResend(item.batch));
    if (stale.length === 0) return;
    this.items = this.items.filter((item) => !isResend(item.batch));
    void this.journal.append(stale.map((item) => ({ done: item.batch.id })));
    this.log.info({ receiver: this.config.name, dropped: stale.length }, 'undelivered re-sends of firing alerts dropped: what still fires is re-sent once confirmed');
  }

  get length(): number {
    return this.items.length;
  }

  /** What is queued, in order (the head may be being sent). */
  queued(): readonly OutboxItem[] {
    return this.items;
  }

  /** What the receiver's sender keeps about its incidents and silences. */
  get receiverNotes(): Notes {
    return this.notes;
  }

  /** Fingerprint → the receiver's open incident (its last firing, told or queued, never resolved). */
  openIncidents(): ReadonlyMap<string, OpenIncident> {
    return this.open;
  }

  /** Incidents now carried on by another shard: no longer open here (one `open` line for every handover of a tick). */
  handOver(fingerprints: string[]): void {
    const handed = fingerprints.filter((fingerprint) => this.open.delete(fingerprint));
    if (handed.length === 0 || this.openLineDue) return;
    this.openLineDue = true;
    setImmediate(() => {
      this.openLineDue = false;
      void this.journal.append([{ open: [...this.open.values()] }]);
    });
  }

  /** Incidents another shard announced, now carried on here: open as if told (one `open` line). */
  adopt(incidents: readonly OpenIncident[]): void {
    const fresh = incidents.filter((i) => !this.open.has(i.alert.fingerprint));
    if (fresh.length === 0) return;
    for (const incident of fresh) this.open.set(incident.alert.fingerprint, incident);
    void this.journal.append([{ open: [...this.open.values()] }]);
  }

  /**
   * Gives a journal without an `open` line one. One from before they were recorded may have
   * compacted away firings it delivered: `told` (what the alert states say was announced to this
   * receiver) fills those in, so from now on the journal alone says what is open.
   */
  recordOpen(told: () => Array<{ at: number; alert: AlertNotice }>): void {
    if (!this.openUnrecorded) return;
    if (this.openUnrecorded.seeded) for (const incident of told()) if (!this.open.has(incident.alert.fingerprint)) this.open.set(incident.alert.fingerprint, incident);
    this.openUnrecorded = undefined;
    void this.journal.append([{ open: [...this.open.values()] }]);
  }

  /** Settles once every enqueue so far is on disk; undefined when they all are. */
  pendingWrites(): Promise<boolean> | undefined {
    return this.journal.pendingWrites();
  }

  setConfig(config: ReceiverConfig): void {
    this.config = config;
  }

  enqueue(batch: NotificationBatch): void {
    const item: OutboxItem = { batch, attempts: 0, nextAttemptAt: 0 };
    this.items.push(item);
    recordTold(this.open, batch);
    const ops: JournalOp[] = [{ add: item }];
    if (this.items.length > MAX_ITEMS) {
      const oldest = this.items.shift()!.batch;
      ops.push({ done: oldest.id });
      this.events.failed(this.config.name, 'queue_full');
      this.events.dropped?.(this.config.name, 'queue_full');
      this.log.error({ receiver: this.config.name, ...incidentsOf(oldest) }, 'outbox full: oldest notification dropped');
    }
    this.written.set(item, this.record(ops));
    this.wake();
  }

  start(): void {
    this.stopped = false;
    this.wake();
  }

  /** Stops delivering (an attempt in progress may finish, bounded by the caller) and writes every pending line. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.sending;
    await this.journal.close();
  }

  private wake(): void {
    if (this.stopped || this.sending || this.items.length === 0) return;
    clearTimeout(this.timer);
    const wait = this.items[0]!.nextAttemptAt - Date.now();
    if (wait > 0) {
      this.timer = setTimeout(() => this.wake(), wait);
      return;
    }
    this.sending = this.deliverHead().finally(() => {
      this.sending = undefined;
      this.wake();
    });
  }

  private async deliverHead(): Promise<void> {
    const head = this.items[0];
    if (!head) return;
    // Durable before sent, and the previous item's done mark and the notes taken before it too (what the
    // silence mirror notes it sends must survive a kill that follows the send; a failed write is reported by write-health; sent anyway).
    await Promise.all([this.written.get(head), this.acknowledged, this.notes.written()]);
    const item = this.items[0];
    if (item !== head || this.stopped) return; // dropped from a full queue meanwhile, or stopping
    const name = this.config.name;
    this.log.debug({ receiver: name, target: item.batch.target, alerts: item.batch.alerts.length, attempt: item.attempts + 1 }, 'notification delivery attempt');
    try {
      const refused = (err: DeliveryError) => {
        this.events.failed(name, err.reason);
        this.log.warn({ receiver: name, ...incidentsOf(item.batch), error: redact(err.message, this.config.secrets) }, 'notification refused by the receiver for its content; sending it once as plain text');
      };
      const call = async (request: OutgoingRequest) => (await this.call({ ...request, secrets: this.config.secrets })) ?? '';
      const handoverKey = this.handoverKey();
      await send(item.batch, this.config, { externalUrl: this.externalUrl(), now: Date.now(), post: call, request: call, notes: this.notes, refused, ...(handoverKey ? { handoverKey } : {}) });
      this.remove(item);
      this.acknowledge(item);
      this.events.delivered(name);
      this.log.info({ receiver: name, target: item.batch.target, alerts: item.batch.alerts.length, attempts: item.attempts + 1 }, 'notification delivered');
    } catch (err) {
      const failure = err instanceof DeliveryError ? err : new DeliveryError(String(err), true, 'network');
      const error = redact(failure.message, this.config.secrets);
      this.events.failed(name, failure.reason);
      if (!failure.retryable) {
        this.remove(item);
        this.acknowledge(item);
        this.events.dropped?.(name, failure.reason);
        this.log.error({ receiver: name, ...incidentsOf(item.batch), error }, 'notification rejected by the receiver; dropped');
      } else {
        item.attempts++;
        item.lastError = error;
        item.nextAttemptAt = Date.now() + backoffMs(item.attempts, failure.retryAfterMs);
        void this.record([{ retry: { id: item.batch.id, attempts: item.attempts, nextAttemptAt: item.nextAttemptAt, lastError: error } }], { lazy: true });
        this.log.warn({ receiver: name, error, attempts: item.attempts, retryAt: new Date(item.nextAttemptAt).toISOString() }, 'notification delivery failed; will retry');
      }
    }
  }

  /**
   * Marks an item done. Lazily when nothing else is queued (an enqueue's own write carries it);
   * otherwise at once, as the next item waits for it: a crash after several deliveries whose marks
   * were all still pending would send them all again, an older firing after a newer one.
   */
  private acknowledge(item: OutboxItem): void {
    this.acknowledged = this.record([{ done: item.batch.id }], { lazy: this.items.length === 0 });
  }

  /** The head, unless a full queue dropped it while it was being sent (then the new head stays). */
  private remove(item: OutboxItem): void {
    const index = this.items.indexOf(item);
    if (index >= 0) this.items.splice(index, 1);
  }

  /** Appends to the journal (a failure is logged and counted by write-health, once per change). */
  private record(ops: JournalOp[], options?: { lazy: boolean }): Promise<boolean> {
    this.events.queueLength(this.config.name, this.items.length);
    return this.journal.append(ops, options);
  }
}
