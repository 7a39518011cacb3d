/** What every receiver's `send.ts` implements, and the error a delivery attempt can end with. */
import type { NotificationBatch } from '../types.js';
import type { ReceiverConfig, ReceiverKind, ReceiverOf } from './schemas.js';

export interface OutgoingRequest {
  /** POST unless said otherwise. */
  method?: 'GET' | 'POST' | 'DELETE';
  url: string;
  headers: Record<string, string>;
  body?: string;
  /** The receiver's secrets, redacted from its answer before any text is cut from it (set by the outbox). */
  secrets?: readonly string[];
}

export interface SendContext {
  /** URL of this avahealth, for links. */
  externalUrl: string;
  now: number;
  /** POSTs one request; resolves with a 2xx answer's body (when the poster reads it), throws DeliveryError. */
  post: (request: OutgoingRequest) => Promise<string | void>;
  /** The same for any method, resolving with the answer's body (the outbox gives it; notify-test does not). */
  request?: (request: OutgoingRequest) => Promise<string>;
  /** The fleet's handover key (`alerts.handover_key`): receivers a new owner adopts incidents from sign their handover record with it. */
  handoverKey?: string;
  /** What this receiver noted about its incidents, kept under state_dir across restarts (absent for notify-test). */
  notes?: Notes;
  /** Send the plain, safe rendering (no markup, facts only): the receiver refused the usual one for its content. */
  plain?: boolean;
  /** Told when the receiver refused a message for its content, before the plain rendering is sent (a log line, a count). */
  refused?: (err: DeliveryError) => void;
}

/** A small persisted map a sender keeps per receiver (Telegram: an incident's firing message id). */
export interface Notes {
  get(key: string): string | undefined;
  keys(): Iterable<string>;
  /** Sets (or, with undefined, removes) entries and persists them; never throws (a failed write is reported by write-health). */
  update(changes: Record<string, string | undefined>): Promise<void>;
}

/** An HTTP 400: the request itself was refused (for a chat kind, its text or markup). */
export const badRequest = (err: DeliveryError): boolean => err.status === 400;

/** A receiver's outbox as seen by a part that tells it something of its own (the Alertmanager silence mirror). */
export interface Outlet {
  /** Queues a batch: persisted, delivered in order with the rest, retried. */
  enqueue(batch: NotificationBatch): void;
  /** What is queued, in order, with its attempts so far. */
  queued(): ReadonlyArray<{ batch: NotificationBatch; attempts: number; lastError?: string }>;
  notes: Notes;
}

/** Delivers one batch (one or more requests) with a receiver of its kind. */
export type Send<K extends ReceiverKind> = (batch: NotificationBatch, receiver: ReceiverOf<K>, ctx: SendContext) => Promise<void>;

export interface Sender<K extends ReceiverKind = ReceiverKind> {
  kind: K;
  send: Send<K>;
  /** How often the firing alerts are re-sent while they fire (a receiver that forgets alerts it is not re-told of); absent: never. */
  resendIntervalMs?: (receiver: ReceiverOf<K>) => number;
  /**
   * Whether this rejection refuses the message for its content (markup, encoding, a length counted
   * otherwise), so the plain rendering (`ctx.plain`) may pass. Absent: the kind has no plain rendering.
   */
  refusesContent?: (err: DeliveryError) => boolean;
}

export function defineSender<K extends ReceiverKind>(kind: K, send: Send<K>, options: Pick<Sender<K>, 'resendIntervalMs' | 'refusesContent'> = {}): Sender<K> {
  return { kind, send, ...options };
}

export class DeliveryError extends Error {
  constructor(
    message: string,
    /** Worth trying again (5xx, 408, 429, network, SMTP 4xx); a 4xx rejection (SMTP: 5xx) is not. */
    readonly retryable: boolean,
    /** A metric label: `http_4xx http_5xx smtp_4xx smtp_5xx rate_limited timeout network`. */
    readonly reason: string,
    readonly retryAfterMs?: number,
    /** The receiver's answer (capped) to a rejected request, for a sender that reads its error format. */
    readonly body?: string,
    /** The HTTP status of a rejected request. */
    readonly status?: number,
  ) {
    super(message);
    this.name = 'DeliveryError';
  }
}

export type { ReceiverConfig };
