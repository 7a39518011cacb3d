import { describe, expect, it } from 'vitest';
import { batch, notice, START } from '../../../../test/helpers/notices.js';
import { deliverTo } from '../../../../test/helpers/receivers.js';
import { receiverSchema } from '../schemas.js';
import { discordPayload } from './send.js';
import { startCapture } from '../../../../test/helpers/capture.js';
import { sendWith } from '../../../../test/helpers/receivers.js';

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

  it('an embed refused for its content (400 Invalid Form Body): sent once more as plain content, mentioning no one', async () => {
    const capture = await startCapture((_req, i) => (i === 0 ? { status: 400, body: '{"message": "Invalid Form Body", "code": 50035}' } : { status: 204 }));
    try {
      await sendWith({ name: 'd', discord: { url: `${capture.url}/api/webhooks/1/T0K3N` } }, batch([notice('C')]));
      expect(capture.requests.map((r) => Object.keys(r.json as object))).toEqual([['embeds', 'allowed_mentions'], ['content', 'allowed_mentions', 'flags']]);
      expect(capture.requests[1]!.json).toEqual({ content: '\\[WARNING\\] validator-1: C failing\n\\- validator-1: check C failing \\(AvalancheCheckFailing · warning\\)\nhttp://avahealth:9660/targets/validator-1 · 2026-11-22 12:00 UTC', allowed_mentions: { parse: [] }, flags: 4 });
    } finally {
      await capture.close();
    }
  });

  it('a webhook that is gone (404) is not sent again', async () => {
    const capture = await startCapture(() => ({ status: 404, body: '{"message": "Unknown Webhook", "code": 10015}' }));
    try {
      await expect(sendWith({ name: 'd', discord: { url: `${capture.url}/api/webhooks/1/T0K3N` } }, batch([notice('C')]))).rejects.toThrow(/HTTP 404/);
      expect(capture.requests).toHaveLength(1);
    } finally {
      await capture.close();
    }
  });
});
