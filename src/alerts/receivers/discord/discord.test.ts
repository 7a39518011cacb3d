import { describe, expect, it } from 'vitest';
import { batch, notice, START } from '../../../../test/helpers/notices.js';
import { deliverTo } from '../../../../test/helpers/receivers.js';
import { receiverSchema } from '../schemas.js';
import { discordPayload } from './send.js';

describe('discord', () => {
  it('config: the webhook URL is a secret', () => {
    expect(receiverSchema.parse({ name: 'd', discord: { url: 'https://discord.com/api/webhooks/1/T0K3N' } })).toMatchObject({
      kind: 'discord',
      settings: { url: 'https://discord.com/api/webhooks/1/T0K3N' },
      secrets: ['https://discord.com/api/webhooks/1/T0K3N', '/api/webhooks/1/T0K3N'],
    });
  });

  it('one embed, no mentions allowed', () => {
    expect(discordPayload(batch([notice('C', 'firing', 'critical')]), 'http://avahealth:9660')).toEqual({
      embeds: [
        {
          title: 'validator-1: C failing',
          description: '• **validator-1: check C failing**\n> C \\<broken> & "odd" \\(AvalancheCheckFailing · critical\\)',
          url: 'http://avahealth:9660/targets/validator-1',
          color: 0xcf222e,
          timestamp: START,
          footer: { text: 'validator-1 on avahealth' },
        },
      ],
      allowed_mentions: { parse: [] },
    });
  });

  it('untrusted text cannot format the message: markdown, masked links, headings and tags are escaped', async () => {
    const hostile = notice('**bold** [click me](https://evil.example) `code`\n# heading\n> quote <t:0> @everyone ~~x~~ ||spoiler||');
    const requests = await deliverTo((url) => ({ name: 'd', discord: { url: `${url}/api/webhooks/1/T0K3N` } }), batch([hostile]));
    const embed = (requests[0]!.json as { embeds: Array<{ title: string; description: string }> }).embeds[0]!;
    // the facts' own bold markers and the explainer's quote are ours: what is inside them is not
    for (const text of [embed.title, embed.description.replace(/^• \*\*|\*\*\n> /g, '')]) {
      expect(text).not.toMatch(/(^|[^\\])\*\*/); // no unescaped bold
      expect(text).not.toMatch(/(^|[^\\])\[click me(\\)?\]\(/); // no masked link
      expect(text).not.toMatch(/(^|\n)# /); // no heading
      expect(text).not.toMatch(/(^|[^\\])<t:0>/);
    }
    expect(embed.description).toContain('\\*\\*bold\\*\\* \\[click me\\]\\(https://evil.example\\)');
    expect((requests[0]!.json as { allowed_mentions: unknown }).allowed_mentions).toEqual({ parse: [] });
  });

  it('delivers one POST to a real server', async () => {
    const requests = await deliverTo((url) => ({ name: 'd', discord: { url: `${url}/api/webhooks/1/T0K3N` } }), batch([notice('C', 'resolved')]));
    expect(requests.map((r) => [r.path, (r.json as { embeds: Array<{ title: string }> }).embeds[0]!.title])).toEqual([['/api/webhooks/1/T0K3N', 'validator-1: C recovered']]);
  });
});
