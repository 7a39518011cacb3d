/**
 * A receiver that refuses a message for its content (issue 45.4), through the real daemon: it is
 * sent once more as plain text before anything is dropped; what is dropped after all is counted
 * (`avahealth_notifications_dropped_total`) and logged with its target and incidents.
 */
import { describe, expect, it } from 'vitest';
import { startCapture } from '../helpers/capture.js';
import { sample, scrape, setScenario, startDaemon, startSim, waitFor } from '../helpers/harness.js';
import { startBotApi } from '../helpers/telegram.js';

const TOKEN = '7012345678:AAHk3-SECRETtokenPART_0123456789ab';

describe('a receiver refusing a message for its content', () => {
  it('plain text once, then delivered or dropped: counted and logged with its incidents', { timeout: 60_000 }, async () => {
    const sim = await startSim([{ name: 'validator-1', scenario: 'healthy' }]);
    const bot = await startBotApi({ token: TOKEN, chats: ['42'], refuseMarkup: "Bad Request: can't parse entities: unsupported start tag \"i\" at byte offset 80" });
    // a Slack that refuses whatever it is sent, plain text too
    const slack = await startCapture(() => ({ status: 400, body: 'invalid_payload' }));
    const d = await startDaemon(`
listen: 127.0.0.1:0
nodes:
  - {name: validator-1, url: "${sim.nodeUrl('validator-1')}", interval: 1s, endpoints: [health]}
alerts:
  for_polls: 1
  receivers:
    - {name: tg, telegram: {bot_token: "${TOKEN}", chat_id: 42, api_url: "${bot.url}"}}
    - {name: chat, slack: {url: "${slack.url}/services/T00/B00/XXXX"}}
`);
    try {
      await setScenario(sim, 'validator-1', 'network-down');
      await waitFor('the plain message at Telegram and two tries at Slack', () => bot.sent.length >= 1 && slack.requests.length >= 2, 20_000);
      expect(bot.errors[0]).toMatchObject({ status: 400, description: expect.stringContaining("can't parse entities") });
      expect(bot.sent[0]!.parseMode).toBeUndefined();
      expect(bot.sent[0]!.text).toMatch(/^\[WARNING\] validator-1: C, P, X and network failing\n- validator-1: check C failing \(AvalancheCheckFailing · warning\)\n/);
      // the blocks, then the text alone
      expect(slack.requests.slice(0, 2).map((r) => 'blocks' in (r.json as object))).toEqual([true, false]);

      await waitFor('the drop and the delivery counted', async () => {
        const m = await scrape(d.url);
        return sample(m, 'avahealth_notifications_dropped_total', { receiver: 'chat', reason: 'http_4xx' }) === 1 && sample(m, 'avahealth_notifications_total', { receiver: 'tg' }) === 1;
      });
      const metrics = await scrape(d.url);
      expect(sample(metrics, 'avahealth_notifications_dropped_total', { receiver: 'tg', reason: 'http_4xx' })).toBe(0);
      expect(sample(metrics, 'avahealth_notifications_total', { receiver: 'tg' })).toBe(1);
      expect(sample(metrics, 'avahealth_notifications_failed_total', { receiver: 'tg', reason: 'http_4xx' })).toBe(1);
      expect(sample(metrics, 'avahealth_notifications_failed_total', { receiver: 'chat', reason: 'http_4xx' })).toBe(2);

      const lines = d.logs().split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>);
      const dropped = lines.find((l) => l.msg === 'notification rejected by the receiver; dropped')!;
      expect(dropped).toMatchObject({ receiver: 'chat', target: 'validator-1', error: 'HTTP 400: invalid_payload' });
      expect(dropped.incidents).toEqual(expect.arrayContaining([expect.objectContaining({ alertname: 'AvalancheCheckFailing', check: 'C', status: 'firing' })]));
      const refused = lines.filter((l) => l.msg === 'notification refused by the receiver for its content; sending it once as plain text');
      expect(refused.map((l) => l.receiver).sort()).toEqual(['chat', 'tg']);
      expect(JSON.stringify(lines)).not.toContain(TOKEN.split(':')[1]);
    } finally {
      await d.stop();
      await sim.close();
      await bot.close();
      await slack.close();
    }
  });
});
