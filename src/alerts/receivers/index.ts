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
import type { SendContext, Sender } from './receiver.js';
import slack from './slack/send.js';
import telegram from './telegram/send.js';
import type { NotificationBatch } from '../types.js';
import webhook from './webhook/send.js';

const SENDERS: { [K in ReceiverKind]: Sender<K> } = { webhook, slack, discord, pagerduty, alertmanager, telegram, email };

/** Delivers one batch with the receiver's own kind. */
export function send(batch: NotificationBatch, receiver: ReceiverConfig, ctx: SendContext): Promise<void> {
  return (SENDERS[receiver.kind] as Sender).send(batch, receiver as never, ctx);
}

/** How often this receiver is re-sent the firing alerts while they fire; undefined: never. */
export function resendIntervalOf(receiver: ReceiverConfig): number | undefined {
  return (SENDERS[receiver.kind] as Sender).resendIntervalMs?.(receiver as never);
}
