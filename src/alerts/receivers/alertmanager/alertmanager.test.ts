import { describe, expect, it } from 'vitest';
import { batch, notice, START } from '../../../../test/helpers/notices.js';
import { deliverTo } from '../../../../test/helpers/receivers.js';
import { resendIntervalOf } from '../index.js';
import { receiverSchema } from '../schemas.js';
import { HANDOVER_ANNOTATION, verifyHandover } from '../../handover.js';
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

  it('a critical incident is its warning copy and a critical sibling, both resolved together; the sibling alone ends when it is no longer critical', () => {
    const now = Date.parse('2026-11-22T12:10:00.000Z');
    const sent = (...alerts: Parameters<typeof batch>[0]) => alertmanagerPayload(batch(alerts), now, 60_000).map((a) => `${a.labels.severity} ${a.endsAt === '2026-11-22T12:14:00.000Z' ? 'firing' : `ends ${a.endsAt.slice(11, 16)}`}`);
    // escalated: the warning copy goes on (its resolve would be muted while the critical inhibits it)
    expect(sent({ ...notice('C', 'firing', 'critical'), kind: 'severity_changed', previousLabels: notice('C').labels })).toEqual(['warning firing', 'critical firing']);
    // re-sent while critical: both
    expect(sent(notice('C', 'firing', 'critical'))).toEqual(['warning firing', 'critical firing']);
    // no longer critical: the sibling ends now, the warning copy goes on
    expect(sent({ ...notice('C'), kind: 'severity_changed', previousLabels: notice('C', 'firing', 'critical').labels })).toEqual(['critical ends 12:10', 'warning firing']);
    // resolved while critical: both end with the incident
    expect(sent(notice('C', 'resolved', 'critical'))).toEqual(['warning ends 12:05', 'critical ends 12:05']);
    // the labels other than severity changed (a reload changed the target's static labels): the old copies end now
    const relabelled = { ...notice('C', 'firing', 'critical'), labels: { ...notice('C', 'firing', 'critical').labels, env: 'fuji' }, kind: 'updated' as const, previousLabels: notice('C', 'firing', 'critical').labels };
    expect(alertmanagerPayload(batch([relabelled]), now, 60_000).map((a) => `${a.labels.env} ${a.labels.severity} ${a.endsAt.slice(11, 16)}`)).toEqual(['mainnet warning 12:10', 'mainnet critical 12:10', 'fuji warning 12:14', 'fuji critical 12:14']);
  });

  it("a copy sent only to be muted, never told, ends with its silence (the endsAt the mirror gives it); any other keeps four resend intervals", () => {
    const now = Date.parse('2026-11-22T12:10:00.000Z');
    const silenceEnds = '2026-11-22T12:12:00.000Z';
    const untold = { ...notice('C'), untold: true as const, endsAt: silenceEnds };
    const key = 'a-fleet-key-of-32-characters-0123';
    const ends = (alerts: Parameters<typeof batch>[0], muted = true) => alertmanagerPayload({ ...batch(alerts), ...(muted ? { muted } : {}) }, now, 60_000, key).map((a) => a.endsAt);
    expect(ends([untold])).toEqual([silenceEnds]);
    // a silence ending later than four resend intervals: the usual endsAt
    expect(ends([{ ...untold, endsAt: '2026-11-22T13:00:00.000Z' }])).toEqual(['2026-11-22T12:14:00.000Z']);
    // told (kept up through the silence and after), not muted, with no silence's end, or resolved: as before
    const { untold: _untold, ...told } = untold;
    expect(ends([told])).toEqual(['2026-11-22T12:14:00.000Z']);
    expect(ends([untold], false)).toEqual(['2026-11-22T12:14:00.000Z']);
    expect(ends([{ ...untold, endsAt: '0001-01-01T00:00:00Z' }])).toEqual(['2026-11-22T12:14:00.000Z']);
    expect(ends([{ ...untold, endsAt: 'not a time' }])).toEqual(['2026-11-22T12:14:00.000Z']);
    expect(ends([{ ...untold, status: 'resolved', kind: 'resolved', endsAt: '2026-11-22T12:09:00.000Z' }])).toEqual(['2026-11-22T12:09:00.000Z']);
    // a critical one: both copies end with the silence, and the record stands as long as they do
    const critical = { ...notice('C', 'firing', 'critical'), untold: true as const, endsAt: silenceEnds };
    const posted = alertmanagerPayload({ ...batch([critical]), muted: true }, now, 60_000, key);
    expect(posted.map((a) => [a.labels.severity, a.endsAt])).toEqual([
      ['warning', silenceEnds],
      ['critical', silenceEnds],
    ]);
    for (const a of posted) expect(verifyHandover(key, a.annotations[HANDOVER_ANNOTATION], a.labels, now)).toMatchObject({ expiresAt: Date.parse(silenceEnds), untold: true });
  });

  it('POSTs to /api/v2/alerts of a real server', async () => {
    const requests = await deliverTo((url) => ({ name: 'am', alertmanager: { url } }), batch([notice('C')]));
    expect(requests.map((r) => [r.path, (r.json as unknown[]).length])).toEqual([['/api/v2/alerts', 1]]);
  });
});
