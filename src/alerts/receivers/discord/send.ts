/** Discord webhook: one embed per batch; untrusted text markdown-escaped, `allowed_mentions` empty so it can ping no one. */
import type { NotificationBatch } from '../../types.js';
import { wellFormed } from '../../../util/text.js';
import { defineSender } from '../receiver.js';
import { detailLines, headline, isAllResolved, truncate, worstSeverity, pageLink } from '../text.js';

const COLORS = { resolved: 0x2da44e, warning: 0xd29922, critical: 0xcf222e };

/**
 * Untrusted text (check names, errors, messages) shown as written: Discord renders markdown in
 * embeds, so `**`, masked links `[text](url)`, headings, quotes, code and `<…>` tags are escaped.
 */
export function escapeMarkdown(text: string): string {
  return wellFormed(text).replace(/[\\*_~`|<[\]()]/g, '\\$&').replace(/^(\s*)([#>+-])/gm, '$1\\$2');
}

export function discordPayload(batch: NotificationBatch, externalUrl: string) {
  const color = isAllResolved(batch) ? COLORS.resolved : COLORS[worstSeverity(batch) as 'warning' | 'critical'];
  return {
    embeds: [
      {
        title: truncate(escapeMarkdown(headline(batch)), 256),
        description: truncate(detailLines(batch).map((l) => `• ${escapeMarkdown(l)}`).join('\n'), 4096),
        url: pageLink(batch, externalUrl),
        color,
        timestamp: new Date(batch.createdAt).toISOString(),
        footer: { text: 'avahealth' },
      },
    ],
    allowed_mentions: { parse: [] },
  };
}

export default defineSender('discord', async (batch, receiver, ctx) => {
  await ctx.post({ url: receiver.settings.url, headers: { 'content-type': 'application/json' }, body: JSON.stringify(discordPayload(batch, ctx.externalUrl)) });
});
