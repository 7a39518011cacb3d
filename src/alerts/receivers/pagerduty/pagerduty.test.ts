import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { batch, notice, START } from '../../../../test/helpers/notices.js';
import { deliverTo } from '../../../../test/helpers/receivers.js';
import { receiverSchema } from '../schemas.js';
import { pagerdutyEvent } from './send.js';
import { startCapture } from '../../../../test/helpers/capture.js';
import { sendWith } from '../../../../test/helpers/receivers.js';

describe('pagerduty (Events API v2)', () => {
  it('config: the routing key (inline or from a file) is a secret; the endpoint has a default', () => {
    const file = join(mkdtempSync(join(tmpdir(), 'avahealth-pd-')), 'key');
    writeFileSync(file, 'R0UT1NGKEY\n');
    expect(receiverSchema.parse({ name: 'pager', pagerduty: { routing_key_file: file } })).toMatchObject({
      kind: 'pagerduty',
      settings: { url: 'https://events.pagerduty.com/v2/enqueue', routingKey: 'R0UT1NGKEY' },
      secrets: ['R0UT1NGKEY'],
    });
    expect(receiverSchema.safeParse({ name: 'pager', pagerduty: {} }).error?.issues.map((i) => i.message)).toEqual(['receiver "pager": pagerduty needs routing_key or routing_key_file']);
  });

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

  it('delivers one event per alert to a real server', async () => {
    const requests = await deliverTo((url) => ({ name: 'pager', pagerduty: { routing_key: 'R0UT1NGKEY', url: `${url}/v2/enqueue` } }), batch([notice('C'), notice('P', 'resolved')]));
    expect(requests.map((r) => [r.path, (r.json as { event_action: string; dedup_key: string }).event_action, (r.json as { dedup_key: string }).dedup_key])).toEqual([
      ['/v2/enqueue', 'trigger', 'fp-C'],
      ['/v2/enqueue', 'resolve', 'fp-P'],
    ]);
  });

  it('an event refused for its content (400 Event object is invalid): sent once more with a safe summary and the labels only', async () => {
    const capture = await startCapture((_req, i) => (i === 0 ? { status: 400, body: '{"status": "invalid event", "message": "Event object is invalid"}' } : { status: 202 }));
    try {
      const odd = { ...notice('C'), annotations: { summary: 'validator-1: check C failing\u001b[31m', description: 'x'.repeat(100_000) } };
      await sendWith({ name: 'pager', pagerduty: { routing_key: 'R0UT1NGKEY', url: `${capture.url}/v2/enqueue` } }, batch([odd]));
      expect(capture.requests).toHaveLength(2);
      expect((capture.requests[1]!.json as { payload: unknown }).payload).toMatchObject({ summary: 'validator-1: check C failing␛[31m', custom_details: { labels: odd.labels } });
      expect(JSON.stringify(capture.requests[1]!.json)).not.toContain('xxxx');
    } finally {
      await capture.close();
    }
  });
});
