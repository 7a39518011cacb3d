/**
 * Telegram Bot API `sendMessage` (https://core.telegram.org/bots/api#sendmessage): one HTML message
 * per batch, `<`, `>`, `&` escaped in every piece of untrusted text, within the 4,096-character
 * limit (trimmed with a note). Every later message about an incident (reminder, severity change,
 * resolve) is a reply to the message that announced it, whose id the receiver's notes keep across
 * restarts; `allow_sending_without_reply` sends it anyway when that message is gone. Errors come as
 * `{ok: false, error_code, description, parameters: {retry_after}}`: a 429's `retry_after` is honoured.
 */
import type { AlertNotice, NotificationBatch } from '../../types.js';
import { cutText, snippet } from '../../../util/text.js';
import { badRequest, defineSender, DeliveryError, type Notes } from '../receiver.js';
import { escapeHtml, fitBlocks, messageOf, moreNote, plainText, shortExplainer, type AlertLine } from '../text.js';

/** Telegram's limit on a message's text, counted after entity parsing (what the chat shows). */
export const MAX_MESSAGE = 4096;
const MAX_FACTS = 600;
const MAX_EXPLAINER = 280;
const MORE_NOTE_ROOM = 40;
const ICONS = { critical: '🔴', warning: '🟠', resolved: '🟢' };
/** Hex digits of an incident's fingerprint that /ack_ names it by. */
const ACK_ID = 8;

/** One alert: its facts, then its explainer in italics and what it is (with commands on: the /ack_ that acknowledges it). As shown (`text`) and as sent (`html`). */
function block(line: AlertLine, ack: boolean): { text: string; html: string } {
  const facts = `• ${cutText(line.facts, MAX_FACTS)}`;
  const explainer = line.explainer ? shortExplainer(line.explainer, MAX_EXPLAINER) : undefined;
  const about = `(${line.tag}${ack && line.status === 'firing' ? ` · /ack_${line.fingerprint.slice(0, ACK_ID)}` : ''})`;
  return {
    text: `${facts}\n${explainer ? `${explainer} ` : ''}${about}`,
    html: `${escapeHtml(facts)}\n${explainer ? `<i>${escapeHtml(explainer)}</i> ` : ''}${escapeHtml(about)}`,
  };
}

/**
 * The message's HTML: the icon and headline in bold; each alert as its facts (the summary), its
 * explainer after it, short and in italics, and its alert name and severity; as many alerts as fit
 * in Telegram's limit, then "… N more"; a link to the target's page.
 */
export function telegramText(batch: NotificationBatch, externalUrl: string, options: { ack?: boolean } = {}): string {
  const message = messageOf(batch, externalUrl);
  const title = `${ICONS[message.tone]} ${cutText(message.title, MAX_FACTS)}`;
  const footer = `${message.linkText} · ${message.at}`;
  // Lengths are of the shown text (tags and escapes do not count).
  const room = MAX_MESSAGE - title.length - footer.length - 2;
  const { shown, hidden } = fitBlocks(message.alerts.map((line) => block(line, options.ack === true)), (b) => b.text.length, room, MORE_NOTE_ROOM);
  const link = `<a href="${escapeHtml(message.link)}">${escapeHtml(message.linkText)}</a> · ${message.at}`;
  return [`<b>${escapeHtml(title)}</b>`, ...shown.map((b) => b.html), ...(hidden > 0 ? [moreNote(hidden)] : []), link].join('\n');
}

/** A note's value: the incident's start (the same incident) and the id of the message that announced it. */
const noteOf = (notes: Notes | undefined, alert: AlertNotice): number | undefined => {
  const [startsAt, id] = (notes?.get(alert.fingerprint) ?? '').split(' ');
  return startsAt === alert.startsAt && id ? Number(id) : undefined;
};

/** The plain rendering's limit: well below 4,096, for a server that counts characters otherwise. */
const MAX_PLAIN = 3500;

export function telegramRequest(batch: NotificationBatch, settings: { chatId: string; messageThreadId?: number; commands?: unknown }, externalUrl: string, replyTo?: number, plain = false) {
  return {
    chat_id: /^-?\d+$/.test(settings.chatId) ? Number(settings.chatId) : settings.chatId,
    ...(settings.messageThreadId ? { message_thread_id: settings.messageThreadId } : {}),
    ...(plain ? { text: plainText(batch, externalUrl, MAX_PLAIN) } : { text: telegramText(batch, externalUrl, { ack: settings.commands !== undefined }), parse_mode: 'HTML' }),
    link_preview_options: { is_disabled: true },
    ...(replyTo ? { reply_parameters: { message_id: replyTo, allow_sending_without_reply: true } } : {}),
  };
}

interface BotAnswer {
  ok?: boolean;
  description?: string;
  result?: { message_id?: number };
  parameters?: { retry_after?: number; migrate_to_chat_id?: number };
}

function parse(body: string | void): BotAnswer {
  try {
    const answer = JSON.parse(body ?? '') as unknown;
    return answer !== null && typeof answer === 'object' ? (answer as BotAnswer) : {};
  } catch {
    return {};
  }
}

/** The Bot API's own words for a failure, and its `retry_after` (seconds) over any Retry-After header. */
function explained(err: DeliveryError): DeliveryError {
  const answer = parse(err.body);
  if (typeof answer.description !== 'string') return err;
  const retryAfter = answer.parameters?.retry_after;
  const migrated = answer.parameters?.migrate_to_chat_id;
  const message = `Telegram: ${snippet(answer.description)}${typeof migrated === 'number' ? ` (the group is now chat_id ${migrated})` : ''}`;
  const retryAfterMs = typeof retryAfter === 'number' && retryAfter >= 0 ? Math.min(retryAfter, 3600) * 1000 : err.retryAfterMs;
  return new DeliveryError(message, err.retryable, err.reason, retryAfterMs, err.body, err.status);
}

/** Refusals about the chat or the bot, not the text: a plain text would be refused the same. */
const NOT_CONTENT = /chat not found|thread not found|chat_id|not enough rights|have no rights|bot was|bot is not|deactivated|upgraded to a supergroup/i;

export default defineSender('telegram', async (batch, receiver, ctx) => {
  const { settings } = receiver;
  const notes = ctx.notes;
  const replyTo = batch.alerts.map((a) => noteOf(notes, a)).find((id) => id !== undefined);
  const body = JSON.stringify(telegramRequest(batch, settings, ctx.externalUrl, replyTo, ctx.plain));
  let answer: BotAnswer;
  try {
    answer = parse(await ctx.post({ url: `${settings.apiUrl}/bot${settings.botToken}/sendMessage`, headers: { 'content-type': 'application/json' }, body }));
  } catch (err) {
    throw err instanceof DeliveryError ? explained(err) : err;
  }
  const messageId = answer.result?.message_id;
  if (!notes || typeof messageId !== 'number') return;
  // The first message about an incident is the one later ones reply to; a resolve ends the note.
  const changes: Record<string, string | undefined> = {};
  for (const alert of batch.alerts) {
    if (alert.status === 'resolved') changes[alert.fingerprint] = undefined;
    else if (noteOf(notes, alert) === undefined) changes[alert.fingerprint] = `${alert.startsAt} ${messageId}`;
  }
  if (Object.keys(changes).length > 0) await notes.update(changes);
}, {
  refusesContent: (err) => badRequest(err) && !NOT_CONTENT.test(err.message),
});
