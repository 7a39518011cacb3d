/**
 * Slack, Discord and PagerDuty under the hostile inputs of issue 45 (the untried surfaces), each
 * against a local receiver server, from a real daemon polling a hostile node: a check whose name
 * and error carry mention injection (`<!channel>`, `<!here>`, `<@U123>`, `@everyone`, `<@&42>`),
 * markdown and HTML (`**`, a masked link to a phishing page, `<script>`), control bytes, very long
 * text, and the node's own bearer token echoed back. Nothing pings anyone, links nowhere of the
 * node's choosing, unfurls its URL, carries a raw control byte, passes a receiver's length limits,
 * or shows the token.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCapture, type Captured } from '../helpers/capture.js';
import { startDaemon, startFixtureServer, waitFor, type RunningDaemon } from '../helpers/harness.js';

const TOKEN = 'echoed-bearer-token-5b1e9c';
const PHISH = 'https://evil.example/rescue';
const NAME = `<!channel> @everyone **urgent** [wallet](${PHISH}) <@U123>`;
const ERROR = `<!here> <@&42> @here <script>alert(1)</script> _send funds_ to ${PHISH} \u0000\u0007\u001b[2J token=${TOKEN} ${'very long text '.repeat(400)}`;
const RAW_CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/;

describe('chat receivers under hostile node text', () => {
  let node: Awaited<ReturnType<typeof startFixtureServer>>;
  let capture: Awaited<ReturnType<typeof startCapture>>;
  let d: RunningDaemon;

  beforeAll(async () => {
    node = await startFixtureServer((_req, res) => {
      const body = { checks: { [NAME]: { error: ERROR, timestamp: '2026-11-22T12:00:00Z', duration: 1000, contiguousFailures: 9, timeOfFirstFailure: '2026-11-22T11:00:00Z' } }, healthy: false };
      res.writeHead(503, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    });
    capture = await startCapture();
    d = await startDaemon(`
listen: 127.0.0.1:0
nodes:
  - {name: victim, url: "${node.url}", interval: 1s, endpoints: [health], bearer_token: "${TOKEN}"}
alerts:
  for_polls: 1
  receivers:
    - {name: slack, slack: {url: "${capture.url}/slack"}}
    - {name: discord, discord: {url: "${capture.url}/discord"}}
    - {name: pagerduty, pagerduty: {routing_key: R0UT1NGKEY0000, url: "${capture.url}/pd"}}
`);
    await waitFor('a notification at each receiver', () => ['/slack', '/discord', '/pd'].every((p) => capture.on(p).length > 0), 20_000);
  }, 30_000);

  afterAll(async () => {
    await d?.stop();
    await capture?.close();
    await node?.close();
  });

  const everyBody = (path: string): Captured[] => capture.on(path);
  const noSecretNorControl = (path: string) => {
    for (const r of everyBody(path)) {
      expect(r.body).not.toContain(TOKEN);
      // JSON escapes a raw control byte as \u00XX: none may be in the text either way.
      expect(JSON.stringify(r.json)).not.toMatch(/\\u00(0[0-8bcef]|1[0-9a-f]|7f|[89][0-9a-f])/i);
      expect(JSON.stringify(r.json)).not.toMatch(RAW_CONTROL);
    }
  };

  it('Slack: no mention, no link of the node, no unfurl, within the section limit', () => {
    noSecretNorControl('/slack');
    for (const r of everyBody('/slack')) {
      const payload = r.json as { text: string; blocks?: Array<{ text?: { text: string }; elements?: Array<{ text: string }> }>; unfurl_links?: boolean; unfurl_media?: boolean };
      expect(payload).toMatchObject({ unfurl_links: false, unfurl_media: false });
      const texts = [payload.text, ...(payload.blocks ?? []).flatMap((b) => [b.text?.text ?? '', ...(b.elements ?? []).map((e) => e.text)])];
      for (const text of texts) {
        // Slack's control sequences are `<…>`: only avahealth's own link to its page may be one.
        const sequences = text.match(/<[^>]*>/g) ?? [];
        expect(sequences.every((s) => s.startsWith(`<${d.url}/targets/`) || s.startsWith('<http://localhost:9660/targets/') || /^<https?:\/\/[^|>]+\/targets\/victim\|/.test(s)), JSON.stringify(sequences)).toBe(true);
        expect(text).not.toContain('<!channel>');
        expect(text).not.toContain('<!here>');
        expect(text).not.toContain('<@U123>');
        expect(text.length).toBeLessThanOrEqual(3000);
      }
      expect(texts.join('\n')).toContain('&lt;!channel&gt;');
    }
  });

  it('Discord: pings no one, masked links and markdown escaped, within the embed limits', () => {
    noSecretNorControl('/discord');
    for (const r of everyBody('/discord')) {
      const payload = r.json as { content?: string; embeds?: Array<{ title: string; description: string; url: string }>; allowed_mentions: { parse: unknown[] } };
      expect(payload.allowed_mentions).toEqual({ parse: [] });
      for (const embed of payload.embeds ?? []) {
        expect(embed.title.length).toBeLessThanOrEqual(256);
        expect(embed.description.length).toBeLessThanOrEqual(4096);
        expect(embed.url).toMatch(/\/targets\/victim$/);
        const text = `${embed.title}\n${embed.description}`;
        expect(text).not.toContain(`[wallet](${PHISH})`);
        expect(text).toContain('\\[wallet\\]\\(');
        expect(text).not.toMatch(/(^|[^\\])<@/);
        expect(text).not.toMatch(/(^|[^\\])\*\*urgent\*\*/);
      }
    }
  });

  it('PagerDuty: a summary on one line within 1,024 characters, the routing key only where it belongs', () => {
    noSecretNorControl('/pd');
    for (const r of everyBody('/pd')) {
      const event = r.json as { routing_key: string; payload?: { summary: string; custom_details: { description?: string } }; links?: Array<{ href: string }> };
      expect(event.routing_key).toBe('R0UT1NGKEY0000');
      if (!event.payload) continue;
      expect(event.payload.summary.length).toBeLessThanOrEqual(1024);
      expect(event.payload.summary).not.toMatch(/[\r\n]/);
      expect(JSON.stringify(event.payload.custom_details).length).toBeLessThan(16_384);
      for (const link of event.links ?? []) expect(link.href).not.toContain('evil.example');
    }
  });
});
