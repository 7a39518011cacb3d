import { describe, expect, it } from 'vitest';
import { batch, notice } from '../../../../test/helpers/notices.js';
import { deliverTo } from '../../../../test/helpers/receivers.js';
import { receiverSchema } from '../schemas.js';
import { headline } from '../text.js';
import { slackPayload } from './send.js';
import { startCapture } from '../../../../test/helpers/capture.js';
import { sendWith } from '../../../../test/helpers/receivers.js';

describe('slack', () => {
  it('config: the incoming-webhook URL is a secret, its token path too', () => {
    expect(receiverSchema.parse({ name: 'chat', slack: { url: 'https://hooks.slack.com/services/T00/B00/XXXX' } })).toMatchObject({
      kind: 'slack',
      settings: { url: 'https://hooks.slack.com/services/T00/B00/XXXX' },
      secrets: ['https://hooks.slack.com/services/T00/B00/XXXX', '/services/T00/B00/XXXX'],
    });
    expect(receiverSchema.safeParse({ name: 'chat', slack: {} }).error?.issues[0]?.message).toBe('receiver "chat": slack needs an http(s) url (url or url_file)');
  });

  it('groups one round of one target into one line', () => {
    expect(headline(batch(['C', 'P', 'X', 'network'].map((c) => notice(c))))).toBe('validator-1: C, P, X and network failing');
    expect(headline(batch([notice('network', 'resolved')]))).toBe('validator-1: network recovered');
  });

  it("a period's end is its outcome in the headline, once, never \"no longer at risk\" or \"recovered\"", () => {
    const ended = (alertname: string) => ({ ...notice('x', 'resolved'), labels: { alertname, target: 'validator-1', severity: 'critical' }, annotations: { summary: 'validator-1: validation cycle ended unpaid: 117.4 AVAX forfeited', description: '' } });
    expect(headline(batch([ended('AvalancheValidatorRewardAtRisk'), ended('AvalancheValidatorDowntimeBudgetLow')]))).toBe('validator-1: validation cycle ended unpaid: 117.4 AVAX forfeited');
  });

  it('blocks plus a text fallback, with & < > escaped', () => {
    expect(slackPayload(batch([notice('C'), notice('network')]), 'http://avahealth:9660')).toEqual({
      text: ':large_orange_circle: validator-1: C and network failing',
      unfurl_links: false,
      unfurl_media: false,
      blocks: [
        { type: 'section', text: { type: 'mrkdwn', text: ':large_orange_circle: *validator-1: C and network failing*' } },
        {
          type: 'section',
          text: {
            type: 'mrkdwn',
            text: '• validator-1: check C failing\n>C &lt;broken&gt; &amp; "odd" (AvalancheCheckFailing · warning)\n• validator-1: check network failing\n>network &lt;broken&gt; &amp; "odd" (AvalancheCheckFailing · warning)',
          },
        },
        { type: 'context', elements: [{ type: 'mrkdwn', text: '<http://avahealth:9660/targets/validator-1|validator-1 on avahealth> · 2026-11-22 12:00 UTC' }] },
      ],
    });
  });

  it('delivers one POST to a real server', async () => {
    const requests = await deliverTo((url) => ({ name: 'chat', slack: { url: `${url}/services/T00/B00/XXXX` } }), batch([notice('C')]));
    expect(requests.map((r) => [r.path, (r.json as { text: string }).text])).toEqual([['/services/T00/B00/XXXX', ':large_orange_circle: validator-1: C failing']]);
  });

  it('blocks refused for their content (400 invalid_blocks): sent once more as plain text, not dropped', async () => {
    const capture = await startCapture((_req, i) => (i === 0 ? { status: 400, body: 'invalid_blocks' } : { status: 200, body: 'ok' }));
    try {
      await sendWith({ name: 'chat', slack: { url: `${capture.url}/services/T00/B00/XXXX` } }, batch([notice('C')]));
      expect(capture.requests.map((r) => Object.keys(r.json as object))).toEqual([['text', 'unfurl_links', 'unfurl_media', 'blocks'], ['text', 'unfurl_links', 'unfurl_media']]);
      expect((capture.requests[1]!.json as { text: string }).text).toBe('[WARNING] validator-1: C failing\n- validator-1: check C failing (AvalancheCheckFailing · warning)\nhttp://avahealth:9660/targets/validator-1 · 2026-11-22 12:00 UTC');
    } finally {
      await capture.close();
    }
  });

  it('refused again as plain text: given up on after those two; a server error (the outbox retries it) or any other refusal is not re-sent as plain', async () => {
    for (const [status, requests] of [[400, 2], [500, 1], [404, 1]] as const) {
      const capture = await startCapture(() => ({ status, body: 'no' }));
      try {
        const err = await sendWith({ name: 'chat', slack: { url: `${capture.url}/services/T00/B00/XXXX` } }, batch([notice('C')])).then(
          () => undefined,
          (e: unknown) => e,
        );
        expect(err, String(status)).toMatchObject({ status });
        expect(capture.requests, String(status)).toHaveLength(requests);
      } finally {
        await capture.close();
      }
    }
  });
});
