/**
 * Slack incoming webhook: Block Kit blocks (the headline, then each alert's facts with its
 * explainer quoted after it) plus a text fallback; `& < >` escaped as Slack requires, so untrusted
 * text can neither link nor mention.
 */
import type { NotificationBatch } from '../../types.js';
import { cutText, wellFormed } from '../../../util/text.js';
import { visibleControls } from '../../../util/visible.js';
import { badRequest, defineSender } from '../receiver.js';
import { fitBlocks, messageOf, moreNote, plainText, shortExplainer, type AlertLine } from '../text.js';

/** A section's text is at most 3,000 characters. */
const MAX_SECTION = 3000;
const MAX_FACTS = 600;
const MAX_EXPLAINER = 280;
const MORE_NOTE_ROOM = 40;
const ICONS = { critical: ':red_circle:', warning: ':large_orange_circle:', resolved: ':large_green_circle:' };

/** No previews: a URL in a node's text would otherwise be fetched by Slack and shown as the node's chosen card. */
const NO_UNFURL = { unfurl_links: false, unfurl_media: false };

export function escapeSlack(text: string): string {
  return visibleControls(wellFormed(text)).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** One alert: "• facts", then the explainer and what it is, quoted. */
function block(line: AlertLine): string {
  const explainer = line.explainer ? `${escapeSlack(shortExplainer(line.explainer, MAX_EXPLAINER))} ` : '';
  return `• ${escapeSlack(cutText(line.facts, MAX_FACTS))}\n>${explainer}(${escapeSlack(line.tag)})`;
}

export function slackPayload(batch: NotificationBatch, externalUrl: string) {
  const message = messageOf(batch, externalUrl);
  const icon = ICONS[message.tone];
  const title = escapeSlack(cutText(message.title, MAX_FACTS));
  const { shown, hidden } = fitBlocks(message.alerts.map(block), (b) => b.length, MAX_SECTION, MORE_NOTE_ROOM);
  const details = [...shown, ...(hidden > 0 ? [moreNote(hidden)] : [])].join('\n');
  return {
    text: `${icon} ${title}`,
    ...NO_UNFURL,
    blocks: [
      { type: 'section', text: { type: 'mrkdwn', text: `${icon} *${title}*` } },
      { type: 'section', text: { type: 'mrkdwn', text: details } },
      { type: 'context', elements: [{ type: 'mrkdwn', text: `<${message.link}|${escapeSlack(message.linkText)}> · ${message.at}` }] },
    ],
  };
}

/** After a refusal of the blocks (`invalid_blocks`): the text alone, escaped, within one section's length. */
export const slackPlainPayload = (batch: NotificationBatch, externalUrl: string) => ({ text: escapeSlack(plainText(batch, externalUrl, MAX_SECTION)), ...NO_UNFURL });

export default defineSender(
  'slack',
  async (batch, receiver, ctx) => {
    const payload = ctx.plain ? slackPlainPayload(batch, ctx.externalUrl) : slackPayload(batch, ctx.externalUrl);
    await ctx.post({ url: receiver.settings.url, headers: { 'content-type': 'application/json' }, body: JSON.stringify(payload) });
  },
  { refusesContent: badRequest },
);
