import { describe, expect, it } from 'vitest';
import { batch, notice, START } from '../../../../test/helpers/notices.js';
import { deliverTo } from '../../../../test/helpers/receivers.js';
import { resendIntervalOf } from '../index.js';
import { receiverSchema } from '../schemas.js';
import { alertmanagerPayload } from './send.js';

describe('alertmanager', () => {
  it('config: base URL without a trailing slash, resend_interval in milliseconds (default 1m), no secrets', () => {
    expect(receiverSchema.parse({ name: 'am', alertmanager: { url: 'http://am:9093/' } })).toMatchObject({ kind: 'alertmanager', settings: { url: 'http://am:9093', resendIntervalMs: 60_000 }, secrets: [] });
    expect(receiverSchema.parse({ name: 'am', alertmanager: { url: 'http://am:9093', resend_interval: '30s' } })).toMatchObject({ settings: { resendIntervalMs: 30_000 } });
  });

  it('the receiver asks for the firing set every resend_interval (the notifier runs no kind-specific timer); a webhook does not', () => {
    expect(resendIntervalOf(receiverSchema.parse({ name: 'am', alertmanager: { url: 'http://am:9093', resend_interval: '30s' } }))).toBe(30_000);
    expect(resendIntervalOf(receiverSchema.parse({ name: 'hook', webhook: { url: 'http://hook:8080/' } }))).toBeUndefined();
  });

  it('firing alerts stay active for four resend intervals; resolved carry endsAt', () => {
    const now = Date.parse('2026-11-22T12:10:00.000Z');
    expect(alertmanagerPayload(batch([notice('C'), notice('P', 'resolved')]), now, 60_000)).toEqual([
      { labels: notice('C').labels, annotations: notice('C').annotations, startsAt: START, endsAt: '2026-11-22T12:14:00.000Z', generatorURL: 'http://avahealth:9660/targets/validator-1' },
      { labels: notice('P').labels, annotations: notice('P').annotations, startsAt: START, endsAt: '2026-11-22T12:05:00.000Z', generatorURL: 'http://avahealth:9660/targets/validator-1' },
    ]);
  });

  it('an incident whose severity or scope changed: the copy under its old labels ends now, in the same request', () => {
    const now = Date.parse('2026-11-22T12:10:00.000Z');
    const escalated = { ...notice('C', 'firing', 'critical'), kind: 'severity_changed' as const, previousLabels: notice('C').labels };
    expect(alertmanagerPayload(batch([escalated]), now, 60_000).map((a) => [a.labels.severity, a.endsAt])).toEqual([
      ['warning', '2026-11-22T12:10:00.000Z'],
      ['critical', '2026-11-22T12:14:00.000Z'],
    ]);
  });

  it('POSTs to /api/v2/alerts of a real server', async () => {
    const requests = await deliverTo((url) => ({ name: 'am', alertmanager: { url } }), batch([notice('C')]));
    expect(requests.map((r) => [r.path, (r.json as unknown[]).length])).toEqual([['/api/v2/alerts', 1]]);
  });
});
