/** Slack incoming webhook: Block Kit blocks plus a text fallback; `& < >` escaped as Slack requires. */
import type { NotificationBatch } from '../../types.js';
import { wellFormed } from '../../../util/text.js';
import { defineSender } from '../receiver.js';
import { detailLines, headline, isAllResolved, truncate, worstSeverity, pageLink } from '../text.js';

export function escapeSlack(text: string): string {
  return wellFormed(text).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

export function slackPayload(batch: NotificationBatch, externalUrl: string) {
  const icon = isAllResolved(batch) ? ':large_green_circle:' : worstSeverity(batch) === 'critical' ? ':red_circle:' : ':large_orange_circle:';
  const title = escapeSlack(headline(batch));
  const details = detailLines(batch).map((line) => `• ${escapeSlack(line)}`).join('\n');
  return {
    text: `${icon} ${title}`,
    blocks: [
      { type: 'section', text: { type: 'mrkdwn', text: truncate(`${icon} *${title}*`, 3000) } },
      { type: 'section', text: { type: 'mrkdwn', text: truncate(details, 3000) } },
      { type: 'context', elements: [{ type: 'mrkdwn', text: `<${pageLink(batch, externalUrl)}|avahealth> · ${new Date(batch.createdAt).toISOString()}` }] },
    ],
  };
}

export default defineSender('slack', async (batch, receiver, ctx) => {
  await ctx.post({ url: receiver.settings.url, headers: { 'content-type': 'application/json' }, body: JSON.stringify(slackPayload(batch, ctx.externalUrl)) });
});
