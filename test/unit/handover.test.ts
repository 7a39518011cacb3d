/** The signed handover record (src/alerts/handover.ts): only the fleet's key makes one, and a record stands for its own labels, until it expires. */
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
