import { createHmac, timingSafeEqual } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { alertmanagerPayload } from '../../src/alerts/receivers/alertmanager.js';
import { discordPayload } from '../../src/alerts/receivers/discord.js';
import { pagerdutyEvent } from '../../src/alerts/receivers/pagerduty.js';
import { slackPayload } from '../../src/alerts/receivers/slack.js';
import { headline } from '../../src/alerts/receivers/text.js';
import { sign, webhookPayload } from '../../src/alerts/receivers/webhook.js';
import type { AlertNotice, NotificationBatch } from '../../src/alerts/types.js';

const START = '2026-11-22T12:00:00.000Z';
const notice = (check: string, status: 'firing' | 'resolved' = 'firing', severity = 'warning'): AlertNotice => ({
  status,
  kind: status,
  labels: { alertname: 'AvalancheCheckFailing', target: 'validator-1', check, network: 'mainnet', severity },
  annotations: { summary: `validator-1: check ${check} failing`, description: `${check} <broken> & "odd"` },
  startsAt: START,
  endsAt: status === 'resolved' ? '2026-11-22T12:05:00.000Z' : '0001-01-01T00:00:00Z',
  fingerprint: `fp-${check}`,
  generatorURL: 'http://avahealth:9660/targets/validator-1',
});
const batch = (alerts: AlertNotice[]): NotificationBatch => ({ id: 'msg_2Kv1', target: 'validator-1', createdAt: Date.parse(START), alerts });

describe('webhook (Alertmanager webhook format, version 4)', () => {
  it('has the documented shape', () => {
    expect(webhookPayload(batch([notice('C'), notice('network', 'firing', 'critical')]), 'oncall', 'http://avahealth:9660')).toEqual({
      version: '4',
      groupKey: '{}:{target="validator-1"}',
      truncatedAlerts: 0,
      status: 'firing',
      receiver: 'oncall',
      groupLabels: { target: 'validator-1' },
      commonLabels: { alertname: 'AvalancheCheckFailing', target: 'validator-1', network: 'mainnet' },
      commonAnnotations: {},
      externalURL: 'http://avahealth:9660',
      alerts: [
        { status: 'firing', labels: notice('C').labels, annotations: notice('C').annotations, startsAt: START, endsAt: '0001-01-01T00:00:00Z', generatorURL: 'http://avahealth:9660/targets/validator-1', fingerprint: 'fp-C' },
        { status: 'firing', labels: { ...notice('network').labels, severity: 'critical' }, annotations: notice('network').annotations, startsAt: START, endsAt: '0001-01-01T00:00:00Z', generatorURL: 'http://avahealth:9660/targets/validator-1', fingerprint: 'fp-network' },
      ],
    });
    expect(webhookPayload(batch([notice('C', 'resolved')]), 'oncall', 'x').status).toBe('resolved');
  });

  /** Standard Webhooks verification, written from the spec, independent of the signer. */
  function verify(secret: string, headers: { id: string; timestamp: string; signature: string }, body: string): boolean {
    const key = secret.startsWith('whsec_') ? Buffer.from(secret.split('_')[1]!, 'base64') : Buffer.from(secret);
    const expected = createHmac('sha256', key).update(`${headers.id}.${headers.timestamp}.${body}`).digest();
    return headers.signature.split(' ').some((part) => {
      const [version, value] = part.split(',');
      if (version !== 'v1' || !value) return false;
      const given = Buffer.from(value, 'base64');
      return given.length === expected.length && timingSafeEqual(given, expected);
    });
  }

  it('signs id.timestamp.body with HMAC-SHA256; a whsec_ secret is base64-decoded', () => {
    const body = JSON.stringify({ hello: 'world' });
    for (const secret of ['whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', 'plain-shared-secret']) {
      const signature = sign(secret, 'msg_2Kv1', 1_795_340_000, body);
      expect(signature).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
      expect(verify(secret, { id: 'msg_2Kv1', timestamp: '1795340000', signature }, body)).toBe(true);
      expect(verify(secret, { id: 'msg_2Kv1', timestamp: '1795340000', signature }, `${body} `)).toBe(false);
    }
    // the standard's published example
    expect(sign('whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', 'msg_p5jXN8AQM9LWM0D4loKWxJek', 1614265330, '{"test": 2432232314}')).toBe('v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=');
  });
});

describe('chat receivers', () => {
  it('group one round of one target into one line', () => {
    expect(headline(batch(['C', 'P', 'X', 'network'].map((c) => notice(c))))).toBe('validator-1: C, P, X and network failing');
    expect(headline(batch([notice('network', 'resolved')]))).toBe('validator-1: network recovered');
  });

  it('slack: blocks plus a text fallback, with & < > escaped', () => {
    expect(slackPayload(batch([notice('C'), notice('network')]), 'http://avahealth:9660')).toEqual({
      text: ':large_orange_circle: validator-1: C and network failing',
      blocks: [
        { type: 'section', text: { type: 'mrkdwn', text: ':large_orange_circle: *validator-1: C and network failing*' } },
        {
          type: 'section',
          text: {
            type: 'mrkdwn',
            text: '• AvalancheCheckFailing C (warning): C &lt;broken&gt; &amp; "odd"\n• AvalancheCheckFailing network (warning): network &lt;broken&gt; &amp; "odd"',
          },
        },
        { type: 'context', elements: [{ type: 'mrkdwn', text: `<http://avahealth:9660/targets/validator-1|avahealth> · ${START}` }] },
      ],
    });
  });

  it('discord: one embed, no mentions allowed', () => {
    expect(discordPayload(batch([notice('C', 'firing', 'critical')]), 'http://avahealth:9660')).toEqual({
      embeds: [
        {
          title: 'validator-1: C failing',
          description: '• AvalancheCheckFailing C (critical): C <broken> & "odd"',
          url: 'http://avahealth:9660/targets/validator-1',
          color: 0xcf222e,
          timestamp: START,
          footer: { text: 'avahealth' },
        },
      ],
      allowed_mentions: { parse: [] },
    });
  });
});

describe('pagerduty (Events API v2) and alertmanager', () => {
  it('trigger with a stable dedup_key, resolve by the same key', () => {
    expect(pagerdutyEvent(notice('C', 'firing', 'critical'), 'R0UT1NGKEY')).toEqual({
      routing_key: 'R0UT1NGKEY',
      event_action: 'trigger',
      dedup_key: 'fp-C',
      payload: {
        summary: 'validator-1: check C failing',
        source: 'validator-1',
        severity: 'critical',
        timestamp: START,
        component: 'C',
        group: 'validator-1',
        class: 'AvalancheCheckFailing',
        custom_details: { description: 'C <broken> & "odd"', labels: { ...notice('C').labels, severity: 'critical' }, notification: 'firing' },
      },
      links: [{ href: 'http://avahealth:9660/targets/validator-1', text: 'avahealth' }],
    });
    expect(pagerdutyEvent(notice('C', 'resolved'), 'R0UT1NGKEY')).toEqual({ routing_key: 'R0UT1NGKEY', event_action: 'resolve', dedup_key: 'fp-C' });
  });

  it('alertmanager: firing alerts stay active for four resend intervals; resolved carry endsAt', () => {
    const now = Date.parse('2026-11-22T12:10:00.000Z');
    expect(alertmanagerPayload(batch([notice('C'), notice('P', 'resolved')]), now, 60_000)).toEqual([
      { labels: notice('C').labels, annotations: notice('C').annotations, startsAt: START, endsAt: '2026-11-22T12:14:00.000Z', generatorURL: 'http://avahealth:9660/targets/validator-1' },
      { labels: notice('P').labels, annotations: notice('P').annotations, startsAt: START, endsAt: '2026-11-22T12:05:00.000Z', generatorURL: 'http://avahealth:9660/targets/validator-1' },
    ]);
  });
});
