/**
 * The receiver registry: one folder per kind (`<kind>/schema.ts` config slice and secrets,
 * `<kind>/send.ts`, `<kind>/<kind>.test.ts`). A new receiver kind is one folder, one line here and
 * one line in ./schemas.ts.
 */
import alertmanager from './alertmanager/send.js';
import discord from './discord/send.js';
import email from './email/send.js';
import pagerduty from './pagerduty/send.js';
import type { ReceiverConfig, ReceiverKind } from './schemas.js';
import { DeliveryError, type SendContext, type Sender } from './receiver.js';
import slack from './slack/send.js';
import telegram from './telegram/send.js';
import type { NotificationBatch } from '../types.js';
import webhook from './webhook/send.js';

const SENDERS: { [K in ReceiverKind]: Sender<K> } = { webhook, slack, discord, pagerduty, alertmanager, telegram, email };

/**
 * Delivers one batch with the receiver's own kind. A receiver that refuses the message for its
 * content (an HTTP 400: markup, encoding, a length it counts otherwise) is sent the plain, safe
 * rendering once, before anything is dropped.
 */
export async function send(batch: NotificationBatch, receiver: ReceiverConfig, ctx: SendContext): Promise<void> {
  const sender = SENDERS[receiver.kind] as Sender;
  try {
    await sender.send(batch, receiver as never, ctx);
  } catch (err) {
    if (ctx.plain || !(err instanceof DeliveryError) || err.retryable || !sender.refusesContent?.(err)) throw err;
    ctx.refused?.(err);
    await sender.send(batch, receiver as never, { ...ctx, plain: true });
  }
}

/** How often this receiver is re-sent the firing alerts while they fire; undefined: never. */
export function resendIntervalOf(receiver: ReceiverConfig): number | undefined {
  return (SENDERS[receiver.kind] as Sender).resendIntervalMs?.(receiver as never);
}
