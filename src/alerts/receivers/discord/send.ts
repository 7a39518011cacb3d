/**
 * Discord webhook: one embed per batch (the headline as its title, each alert's facts in bold with
 * its explainer quoted after it); untrusted text markdown-escaped, `allowed_mentions` empty so it
 * can ping no one.
 */
import type { NotificationBatch } from '../../types.js';
import { cutText, wellFormed } from '../../../util/text.js';
import { visibleControls } from '../../../util/visible.js';
import { badRequest, defineSender } from '../receiver.js';
import { fitBlocks, messageOf, moreNote, plainText, shortExplainer, type AlertLine } from '../text.js';

const COLORS = { resolved: 0x2da44e, warning: 0xd29922, critical: 0xcf222e };
/** An embed's title and description limits. */
const MAX_TITLE = 256;
const MAX_DESCRIPTION = 4096;
const MAX_FACTS = 600;
const MAX_EXPLAINER = 280;
const MORE_NOTE_ROOM = 40;

/**
 * Untrusted text (check names, errors, messages) shown as written: Discord renders markdown in
 * embeds, so `**`, masked links `[text](url)`, headings, quotes, code and `<…>` tags are escaped.
 */
export function escapeMarkdown(text: string): string {
  return visibleControls(wellFormed(text)).replace(/[\\*_~`|<[\]()]/g, '\\$&').replace(/^(\s*)([#>+-])/gm, '$1\\$2');
}

/** One alert: its facts in bold, then its explainer and what it is, quoted. Cut before escaping: an escape is never split. */
function block(line: AlertLine): string {
  const explainer = line.explainer ? `${escapeMarkdown(shortExplainer(line.explainer, MAX_EXPLAINER))} ` : '';
  return `• **${escapeMarkdown(cutText(line.facts, MAX_FACTS))}**\n> ${explainer}${escapeMarkdown(`(${line.tag})`)}`;
}

/** Escaped text within `max` characters: cut before escaping, shorter until its escapes fit too. */
function escapedWithin(text: string, max: number): string {
  let room = max;
  for (;;) {
    const escaped = escapeMarkdown(cutText(text, room));
    if (escaped.length <= max || room <= 1) return escaped;
    room -= escaped.length - max;
  }
}

export function discordPayload(batch: NotificationBatch, externalUrl: string) {
  const message = messageOf(batch, externalUrl);
  const { shown, hidden } = fitBlocks(message.alerts.map(block), (b) => b.length, MAX_DESCRIPTION, MORE_NOTE_ROOM);
  return {
    embeds: [
      {
        title: escapedWithin(message.title, MAX_TITLE),
        description: [...shown, ...(hidden > 0 ? [moreNote(hidden)] : [])].join('\n'),
        url: message.link,
        color: COLORS[message.tone],
        timestamp: new Date(batch.createdAt).toISOString(),
        footer: { text: message.linkText },
      },
    ],
    allowed_mentions: { parse: [] },
  };
}

/** Discord's message flag that shows no embeds for the links in `content`. */
const SUPPRESS_EMBEDS = 1 << 2;
/** A message's `content` is at most 2,000 characters. */
const MAX_CONTENT = 2000;

/** After a refusal of the embed (`Invalid Form Body`): the text alone as the message's content, escaped, mentioning no one. */
export function discordPlainPayload(batch: NotificationBatch, externalUrl: string) {
  const text = plainText(batch, externalUrl, MAX_CONTENT);
  // SUPPRESS_EMBEDS: a URL in a node's text makes no preview card in the plain message.
  return { content: escapedWithin(text, MAX_CONTENT), allowed_mentions: { parse: [] }, flags: SUPPRESS_EMBEDS };
}

export default defineSender(
  'discord',
  async (batch, receiver, ctx) => {
    const payload = ctx.plain ? discordPlainPayload(batch, ctx.externalUrl) : discordPayload(batch, ctx.externalUrl);
    await ctx.post({ url: receiver.settings.url, headers: { 'content-type': 'application/json' }, body: JSON.stringify(payload) });
  },
  { refusesContent: badRequest },
);
