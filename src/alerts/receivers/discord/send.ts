/** Discord webhook: one embed per batch; `allowed_mentions` empty so untrusted text can ping no one. */
import type { NotificationBatch } from '../../types.js';
import { defineSender } from '../receiver.js';
import { detailLines, headline, isAllResolved, truncate, worstSeverity } from '../text.js';

const COLORS = { resolved: 0x2da44e, warning: 0xd29922, critical: 0xcf222e };

export function discordPayload(batch: NotificationBatch, externalUrl: string) {
  const color = isAllResolved(batch) ? COLORS.resolved : COLORS[worstSeverity(batch) as 'warning' | 'critical'];
  return {
    embeds: [
      {
        title: truncate(headline(batch), 256),
        description: truncate(detailLines(batch).map((l) => `• ${l}`).join('\n'), 4096),
        url: `${externalUrl}/targets/${encodeURIComponent(batch.target)}`,
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
