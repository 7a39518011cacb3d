/**
 * One persisted queue per receiver (`state_dir/outbox/<receiver>.json`, rewritten atomically on
 * every change). Delivered strictly in order; a failed head is retried with exponential backoff
 * and jitter, never sooner than the receiver's Retry-After; a rejection (4xx other than 408/429)
 * is dropped and reported. Delivery is at-least-once: an item is removed only after it was sent.
 */
import { join } from 'node:path';
import type { ReceiverConfig } from '../config/load.js';
import type { Logger } from '../log.js';
import { redact } from '../probes/exchange.js';
import { readJsonFile, writeJsonAtomic } from '../state/atomic.js';
import { DeliveryError, type SendContext } from './receivers/receiver.js';
import { RECEIVERS } from './receivers/index.js';
import type { NotificationBatch } from './types.js';

export interface OutboxItem {
  batch: NotificationBatch;
  attempts: number;
  nextAttemptAt: number;
  lastError?: string;
}

export interface OutboxEvents {
  delivered: (receiver: string) => void;
  failed: (receiver: string, reason: string) => void;
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
  private readonly file: string;
  private timer?: NodeJS.Timeout;
  private sending?: Promise<void>;
  private stopped = false;

  constructor(
    private config: ReceiverConfig,
    stateDir: string,
    private readonly post: SendContext['post'],
    private readonly externalUrl: () => string,
    private readonly events: OutboxEvents,
    private readonly log: Logger,
  ) {
    this.file = join(stateDir, 'outbox', `${config.name}.json`);
    const read = readJsonFile(this.file, (v): v is { items: OutboxItem[] } => typeof v === 'object' && v !== null && Array.isArray((v as { items?: unknown }).items));
    if (read.status === 'ok') this.items = read.value.items;
    if (read.status === 'corrupt') log.error({ receiver: config.name, file: this.file, movedTo: read.movedTo, error: read.error }, 'outbox file unreadable; set aside');
    if (this.items.length > 0) log.info({ receiver: config.name, queued: this.items.length }, 'undelivered notifications restored');
    events.queueLength(config.name, this.items.length);
  }

  get length(): number {
    return this.items.length;
  }

  setConfig(config: ReceiverConfig): void {
    this.config = config;
  }

  enqueue(batch: NotificationBatch): void {
    this.items.push({ batch, attempts: 0, nextAttemptAt: 0 });
    if (this.items.length > MAX_ITEMS) {
      this.items.shift();
      this.events.failed(this.config.name, 'queue_full');
      this.log.error({ receiver: this.config.name }, 'outbox full: oldest notification dropped');
    }
    this.persist();
    this.wake();
  }

  start(): void {
    this.stopped = false;
    this.wake();
  }

  /** Stops delivering; an attempt in progress may finish (bounded by the caller). */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.sending;
  }

  private wake(): void {
    if (this.stopped || this.sending || this.items.length === 0) return;
    clearTimeout(this.timer);
    const wait = Math.max(0, this.items[0]!.nextAttemptAt - Date.now());
    this.timer = setTimeout(() => {
      this.sending = this.deliverHead().finally(() => {
        this.sending = undefined;
        this.wake();
      });
    }, wait);
  }

  private async deliverHead(): Promise<void> {
    const item = this.items[0];
    if (!item || this.stopped) return;
    const name = this.config.name;
    try {
      await RECEIVERS[this.config.kind].send(item.batch, this.config, { externalUrl: this.externalUrl(), now: Date.now(), post: this.post });
      this.items.shift();
      this.events.delivered(name);
      this.log.info({ receiver: name, target: item.batch.target, alerts: item.batch.alerts.length, attempts: item.attempts + 1 }, 'notification delivered');
    } catch (err) {
      const failure = err instanceof DeliveryError ? err : new DeliveryError(String(err), true, 'network');
      const error = redact(failure.message, this.config.secrets);
      this.events.failed(name, failure.reason);
      if (!failure.retryable) {
        this.items.shift();
        this.log.error({ receiver: name, target: item.batch.target, error }, 'notification rejected by the receiver; dropped');
      } else {
        item.attempts++;
        item.lastError = error;
        item.nextAttemptAt = Date.now() + backoffMs(item.attempts, failure.retryAfterMs);
        this.log.warn({ receiver: name, error, attempts: item.attempts, retryAt: new Date(item.nextAttemptAt).toISOString() }, 'notification delivery failed; will retry');
      }
    }
    this.persist();
  }

  private persist(): void {
    try {
      writeJsonAtomic(this.file, { version: 1, receiver: this.config.name, items: this.items });
    } catch (err) {
      this.log.error({ err, file: this.file }, 'cannot save the outbox');
    }
    this.events.queueLength(this.config.name, this.items.length);
  }
}
