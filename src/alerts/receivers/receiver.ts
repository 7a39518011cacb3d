/** The one interface every receiver implements, and the error a delivery attempt can end with. */
import type { ReceiverConfig } from '../../config/load.js';
import type { NotificationBatch } from '../types.js';

export interface OutgoingRequest {
  url: string;
  headers: Record<string, string>;
  body: string;
}

export interface SendContext {
  /** URL of this avahealth, for links. */
  externalUrl: string;
  now: number;
  /** POSTs one request; throws DeliveryError. */
  post: (request: OutgoingRequest) => Promise<void>;
}

export interface ReceiverKind {
  /** Delivers one batch (one or more requests). */
  send(batch: NotificationBatch, config: ReceiverConfig, ctx: SendContext): Promise<void>;
}

export class DeliveryError extends Error {
  constructor(
    message: string,
    /** Worth trying again (5xx, 408, 429, network); a 4xx rejection is not. */
    readonly retryable: boolean,
    /** A metric label: `http_4xx http_5xx rate_limited timeout network`. */
    readonly reason: string,
    readonly retryAfterMs?: number,
  ) {
    super(message);
    this.name = 'DeliveryError';
  }
}
