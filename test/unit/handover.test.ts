/** The signed handover record (src/alerts/handover.ts): only the fleet's key makes one, and a record stands for its own labels, until it expires. */
import { createHmac } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config/load.js';
import { secretsOf } from '../../src/config/secrets.js';
import { HANDOVER_ANNOTATION, signHandover, verifyHandover } from '../../src/alerts/handover.js';
import { alertmanagerPayload } from '../../src/alerts/receivers/alertmanager/send.js';
import { batch, notice } from '../helpers/notices.js';

const KEY = 'a-fleet-key-of-32-characters-0123';
const NOW = Date.parse('2026-11-22T12:10:00.000Z');
const labels = { alertname: 'AvalancheNodeUpgradeRequired', target: 'node-1', severity: 'critical' };
const record = { labels, startsAt: '2026-11-22T12:00:00.000Z', expiresAt: NOW + 60_000, carried: { missedUpgrades: { deadline: 1_795_000_000 } } };

describe('the handover record', () => {
  it('signed with the key, it stands for its labels until it expires, facts and all', () => {
    const text = signHandover(KEY, record);
    expect(verifyHandover(KEY, text, { ...labels }, NOW)).toEqual({ ...record, labels: { alertname: labels.alertname, severity: 'critical', target: 'node-1' } });
    expect(verifyHandover(KEY, text, labels, NOW + 60_000)).toBeUndefined(); // expired: a copy replayed later is nothing
  });

  it('is nothing without the key, with another key, altered, moved to other labels, or oversized', () => {
    const text = signHandover(KEY, record);
    const [version, body, signature] = text.split('.');
    expect(verifyHandover('another-key-of-32-characters-9876', text, labels, NOW)).toBeUndefined();
    expect(verifyHandover(KEY, undefined, labels, NOW)).toBeUndefined();
    expect(verifyHandover(KEY, `${version}.${body}`, labels, NOW)).toBeUndefined();
    const forgedBody = Buffer.from(JSON.stringify({ ...record, startsAt: '2020-01-01T00:00:00.000Z' })).toString('base64url');
    expect(verifyHandover(KEY, `${version}.${forgedBody}.${signature}`, labels, NOW)).toBeUndefined();
    expect(verifyHandover(KEY, text, { ...labels, target: 'node-2' }, NOW)).toBeUndefined();
    expect(verifyHandover(KEY, text, { ...labels, extra: 'x' }, NOW)).toBeUndefined();
    expect(verifyHandover(KEY, `${text}${'A'.repeat(40_000)}`, labels, NOW)).toBeUndefined();
    // a body that is signed but not a record (a key holder's mistake) is refused too
    const other = signHandover(KEY, record).split('.');
    expect(verifyHandover(KEY, `${other[0]}.${Buffer.from('{"x":1}').toString('base64url')}.${other[2]}`, labels, NOW)).toBeUndefined();
  });

  it('is the wire format src/alerts/handover.ts gives (v1.<body>.<HMAC>), so shards of different builds read each other (checked with openssl)', () => {
    // printf 'avahealth handover v1\n%s' "$BODY" | openssl dgst -sha256 -hmac "$KEY" -binary | base64 (url alphabet, no padding)
    const body = 'eyJsYWJlbHMiOnsiYWxlcnRuYW1lIjoiQXZhbGFuY2hlTm9kZVVwZ3JhZGVSZXF1aXJlZCIsInRhcmdldCI6Im5vZGUtMSJ9LCJzdGFydHNBdCI6IjIwMjYtMTEtMjJUMTI6MDA6MDAuMDAwWiIsImV4cGlyZXNBdCI6MTc5NTAwMDAwMDAwMH0';
    const known = `v1.${body}.136GIx85D4kwYcHuQH8PeTTwAgLuDY3tcAv33YmICyI`;
    const two = { target: 'node-1', alertname: 'AvalancheNodeUpgradeRequired' };
    expect(signHandover(KEY, { labels: two, startsAt: '2026-11-22T12:00:00.000Z', expiresAt: 1_795_000_000_000 })).toBe(known);
    expect(verifyHandover(KEY, known, two, 1_794_999_000_000)?.startsAt).toBe('2026-11-22T12:00:00.000Z');
    expect(HANDOVER_ANNOTATION).toBe('avahealth_handover');
  });

  it('is the same text whatever order the labels came in, and answers for them in any order', () => {
    const shuffled = { severity: 'critical', target: 'node-1', alertname: 'AvalancheNodeUpgradeRequired' };
    const text = signHandover(KEY, record);
    expect(signHandover(KEY, { ...record, labels: shuffled })).toBe(text);
    const body = JSON.parse(Buffer.from(text.split('.')[1]!, 'base64url').toString('utf8')) as { labels: Record<string, string> };
    expect(Object.keys(body.labels)).toEqual(['alertname', 'severity', 'target']);
    expect(verifyHandover(KEY, text, shuffled, NOW)?.labels).toEqual(labels);
  });

  it('is read in three parts only, each present, its signature of the right length', () => {
    const text = signHandover(KEY, record);
    const [version, body, signature] = text.split('.') as [string, string, string];
    expect(verifyHandover(KEY, `v2.${body}.${signature}`, labels, NOW)).toBeUndefined();
    expect(verifyHandover(KEY, `${version}..${signature}`, labels, NOW)).toBeUndefined();
    expect(verifyHandover(KEY, `${version}.${body}.`, labels, NOW)).toBeUndefined();
    expect(verifyHandover(KEY, `${text}.more`, labels, NOW)).toBeUndefined();
    // a signature of another length is refused before it is compared
    expect(verifyHandover(KEY, `${version}.${body}.${signature.slice(0, 10)}`, labels, NOW)).toBeUndefined();
    // a signed body that is not JSON at all
    const notJson = Buffer.from('not json').toString('base64url');
    const mac = createHmac('sha256', KEY).update('avahealth handover v1\n').update(notJson).digest('base64url');
    expect(verifyHandover(KEY, `${version}.${notJson}.${mac}`, labels, NOW)).toBeUndefined();
  });

  it('a signed record of more than 64 labels, or whose startsAt is no time, is refused', () => {
    const many = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`l${String(i).padStart(2, '0')}`, 'v']));
    expect(verifyHandover(KEY, signHandover(KEY, { ...record, labels: many(64) }), many(64), NOW)).toBeDefined();
    expect(verifyHandover(KEY, signHandover(KEY, { ...record, labels: many(65) }), many(65), NOW)).toBeUndefined();
    expect(verifyHandover(KEY, signHandover(KEY, { ...record, startsAt: 'yesterday' }), labels, NOW)).toBeUndefined();
  });

  it('rides on each firing copy Alertmanager is sent, with the copy\'s own labels and the target\'s carried facts; never on a resolve', () => {
    const firing = { ...notice('C', 'firing', 'critical'), carried: { periods: { outcomes: [] } } };
    const posted = alertmanagerPayload(batch([firing, notice('P', 'resolved')]), NOW, 60_000, KEY);
    const records = posted.map((a) => [a.labels.check, a.labels.severity, verifyHandover(KEY, a.annotations[HANDOVER_ANNOTATION], a.labels, NOW)?.carried]);
    expect(records).toEqual([
      ['C', 'warning', { periods: { outcomes: [] } }],
      ['C', 'critical', { periods: { outcomes: [] } }],
      ['P', 'warning', undefined],
    ]);
    expect(posted[2]!.annotations[HANDOVER_ANNOTATION]).toBeUndefined();
    // without a key: no record at all
    expect(alertmanagerPayload(batch([firing]), NOW, 60_000).every((a) => a.annotations[HANDOVER_ANNOTATION] === undefined)).toBe(true);
  });
});

describe('alerts.handover_key', () => {
  const load = (alerts: string) => parseConfig(`state_dir: /tmp/x\nalerts:\n${alerts}`, '/tmp/c.yaml', {});
  it('is a secret of the config, inline or from a file, at least 16 characters', () => {
    const config = load(`  handover_key: ${KEY}\n`);
    expect(config.alerts.handoverKey).toBe(KEY);
    expect(secretsOf(config)).toContain(KEY);
    const dir = mkdtempSync(join(tmpdir(), 'avahealth-key-'));
    writeFileSync(join(dir, 'key'), `${KEY}\n`);
    expect(load(`  handover_key_file: ${join(dir, 'key')}\n`).alerts.handoverKey).toBe(KEY);
    expect(() => load('  handover_key: short\n')).toThrow(/handover_key must be at least 16 characters/);
    expect(load('  handover_key: ""\n').alerts.handoverKey).toBeUndefined();
  });
});

describe('adopting from Alertmanager', () => {
  it('never adopts an incident Alertmanager holds only under a mirrored silence, before any receiver was told', async () => {
    // A daemon killed right after a silence held a new incident: Alertmanager had it (the mirror
    // sends it there, muted), the webhook never did. Adopted at the restart as announced, it was
    // taken as told everywhere: the webhook never heard of it at the silence's end (seeded trust week 4).
    const { startFixtureServer } = await import('../helpers/harness.js');
    const { handedOver } = await import('../../src/alerts/receivers/alertmanager/adopt.js');
    const { HttpClient } = await import('../../src/transport/client.js');
    const { createLogger } = await import('../../src/log.js');
    const told = notice('C', 'firing');
    const untold = { ...notice('P', 'firing'), untold: true as const };
    const posted = alertmanagerPayload({ ...batch([told, untold]), muted: true }, NOW, 60_000, KEY);
    expect(posted.map((a) => [a.labels.check, verifyHandover(KEY, a.annotations[HANDOVER_ANNOTATION], a.labels, NOW)?.untold])).toEqual([
      ['C', undefined],
      ['P', true],
    ]);
    // Alertmanager's GET /api/v2/alerts answers what it was posted
    const server = await startFixtureServer((_req, res) => res.end(JSON.stringify(posted.map((a) => ({ labels: a.labels, annotations: a.annotations })))));
    const http = new HttpClient({ maxResponseBytes: 1 << 20 });
    try {
      const receiver = { name: 'am', kind: 'alertmanager', settings: { url: server.url } } as unknown as Parameters<typeof handedOver>[0][number];
      const adopted = await handedOver([receiver], http, { alertnames: new Set([told.labels.alertname!]), polled: () => true, key: KEY }, createLogger({ level: 'silent', format: 'json' }), NOW);
      expect(adopted.map((a) => a.labels.check)).toEqual(['C']);
    } finally {
      await http.close();
      await server.close();
    }
  });
});
