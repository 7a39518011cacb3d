/**
 * What a chat or email message says of one batch (src/alerts/receivers/text.ts), read directly:
 * its title, each alert's line, tag and explainer, its link and time, and the plain rendering sent
 * after a receiver refused a message. The receivers' own tests show these laid out in each one's
 * markup; here each rule of the wording is pinned on its own.
 */
import { describe, expect, it } from 'vitest';
import {
  escapeHtml,
  fitBlocks,
  headline,
  isAllResolved,
  lasted,
  messageOf,
  moreNote,
  pageLink,
  paragraph,
  plainText,
  shortExplainer,
  worstSeverity,
} from '../../src/alerts/receivers/text.js';
import type { AlertNotice, NotificationBatch } from '../../src/alerts/types.js';

const URL_BASE = 'https://avahealth.example';
const START = '2026-11-22T10:00:00.000Z';
const CREATED = Date.parse('2026-11-22T12:05:42.000Z');

let fingerprints = 0;
function notice(alertname: string | undefined, extra: Partial<AlertNotice> & { labels?: Record<string, string> } = {}): AlertNotice {
  const { labels, ...rest } = extra;
  return {
    status: 'firing',
    kind: 'firing',
    labels: { ...(alertname ? { alertname } : {}), target: 'v1', severity: 'warning', ...labels },
    annotations: { summary: `v1: ${alertname ?? 'something'}`, description: 'What it means.' },
    startsAt: START,
    endsAt: '0001-01-01T00:00:00Z',
    fingerprint: `fp${++fingerprints}`,
    generatorURL: `${URL_BASE}/targets/v1`,
    ...rest,
  };
}
const resolved = (alertname: string, extra: Partial<AlertNotice> & { labels?: Record<string, string> } = {}) =>
  notice(alertname, { status: 'resolved', kind: 'resolved', endsAt: '2026-11-22T12:05:00.000Z', ...extra });
const batchOf = (alerts: AlertNotice[], target = 'v1'): NotificationBatch => ({ id: 'b', target, createdAt: CREATED, alerts });

describe('the title of a message', () => {
  it('groups alerts by their subject (checks, chains, components) and says the others by their own word, firing before resolved', () => {
    const batch = batchOf([
      notice('AvalancheNodeUnhealthy'),
      notice('AvalancheCheckFailing', { labels: { check: 'C' } }),
      resolved('AvalancheNodeHeightLag', { labels: { chain: 'X' } }),
      notice('AvalancheCheckFailing', { labels: { check: 'P' } }),
      notice('AvalancheCheckFailing', { labels: { check: 'network' } }),
      resolved('AvalancheCheckFailing', { labels: { check: 'bootstrapped' } }),
      notice('AvalancheServiceComponentDown', { labels: { component: 'cache' } }),
    ]);
    expect(headline(batch)).toBe('v1: C, P and network failing; cache down; unhealthy; bootstrapped recovered; X caught up');
  });

  it('an alert without words of its own (a test notice, an unknown rule) says its summary, first', () => {
    const test = notice(undefined, { kind: 'test', annotations: { summary: 'avahealth test notification', description: '' } });
    expect(headline(batchOf([notice('AvalancheNodeNotReady'), test], 'avahealth'))).toBe('avahealth: avahealth test notification; not ready');
    expect(headline(batchOf([resolved('AvalancheNodeNotReady')]))).toBe('v1: ready');
  });

  it("a validation period's end is said once, in its outcome's words, for every alert it ended", () => {
    const ended = { annotations: { summary: 'v1: validation period ended, paid 117.4 AVAX', description: '' } };
    const batch = batchOf([resolved('AvalancheValidatorRewardAtRisk', ended), resolved('AvalancheValidatorEndingSoon', ended), resolved('AvalancheValidatorDowntimeBudgetLow')]);
    expect(headline(batch)).toBe('v1: validation period ended, paid 117.4 AVAX; downtime budget recovered');
    const cycle = { annotations: { summary: 'v1: validation cycle ended unpaid: 117.4 AVAX forfeited', description: '' } };
    expect(headline(batchOf([resolved('AvalancheValidatorRewardAtRisk', cycle)]))).toBe('v1: validation cycle ended unpaid: 117.4 AVAX forfeited');
    // only a resolve, only its own target's words, only an end that says so
    const firing = { annotations: { summary: 'v1: validation period ended, paid 117.4 AVAX', description: '' } };
    expect(headline(batchOf([notice('AvalancheValidatorRewardAtRisk', firing)]))).toBe('v1: reward at risk');
    const other = { annotations: { summary: 'v2: validation period ended, paid 117.4 AVAX', description: '' } };
    expect(headline(batchOf([resolved('AvalancheValidatorRewardAtRisk', other)]))).toBe('v1: reward no longer at risk');
    const notAnEnd = { annotations: { summary: 'v1: validation period endedness', description: '' } };
    expect(headline(batchOf([resolved('AvalancheValidatorRewardAtRisk', notAnEnd)]))).toBe('v1: reward no longer at risk');
    const unprefixed = { annotations: { summary: 'validation period ended, paid 117.4 AVAX', description: '' } };
    expect(headline(batchOf([resolved('AvalancheValidatorRewardAtRisk', unprefixed)]))).toBe('v1: reward no longer at risk');
  });
});

describe('the tone, the link and the time of a message', () => {
  it('critical only while a critical alert fires; resolved when every alert is', () => {
    const critical = notice('AvalancheNodeUnreachable', { labels: { severity: 'critical' } });
    expect([worstSeverity(batchOf([critical, notice('AvalancheNodeNotReady')])), messageOf(batchOf([critical]), URL_BASE).tone]).toEqual(['critical', 'critical']);
    const endedCritical = resolved('AvalancheNodeUnreachable', { labels: { severity: 'critical' } });
    expect([worstSeverity(batchOf([endedCritical, notice('AvalancheNodeNotReady')])), messageOf(batchOf([endedCritical, notice('AvalancheNodeNotReady')]), URL_BASE).tone]).toEqual(['warning', 'warning']);
    expect([isAllResolved(batchOf([endedCritical])), messageOf(batchOf([endedCritical]), URL_BASE).tone]).toEqual([true, 'resolved']);
    expect(isAllResolved(batchOf([endedCritical, notice('AvalancheNodeNotReady')]))).toBe(false);
  });

  it("links to the target's page (its name encoded), or to the status page for a test notice; says when, to the minute, in UTC", () => {
    const message = messageOf(batchOf([notice('AvalancheNetworkDegraded')], 'mainnet network'), URL_BASE);
    expect(message).toMatchObject({ link: `${URL_BASE}/targets/mainnet%20network`, linkText: 'mainnet network on avahealth', at: '2026-11-22 12:05 UTC' });
    const test = messageOf(batchOf([notice(undefined, { kind: 'test' })], 'avahealth'), URL_BASE);
    expect(test).toMatchObject({ link: `${URL_BASE}/`, linkText: 'avahealth' });
    expect(pageLink(batchOf([notice(undefined, { kind: 'test' }), notice('AvalancheNodeNotReady')]), URL_BASE)).toBe(`${URL_BASE}/targets/v1`);
  });
});

describe('each alert of a message', () => {
  it('its facts are the summary and its explainer the description, as one paragraph; a resolve has no explainer', () => {
    const firing = notice('AvalancheDiskLow', { annotations: { summary: 'v1: 4 % of disk free\n  (12 GiB)', description: 'Free disk.\n\n  Then   prune.  \n' } });
    const ended = resolved('AvalancheDiskLow', { annotations: { summary: 'v1: 30 % free', description: 'Free disk.' } });
    const [one, two] = messageOf(batchOf([firing, ended]), URL_BASE).alerts;
    expect(one).toEqual({ status: 'firing', tone: 'warning', facts: 'v1: 4 % of disk free; (12 GiB)', explainer: 'Free disk.; Then prune.', tag: 'AvalancheDiskLow · warning', fingerprint: firing.fingerprint });
    expect(two).toEqual({ status: 'resolved', tone: 'resolved', facts: 'v1: 30 % free', tag: 'AvalancheDiskLow · resolved after 2h 5m', fingerprint: ended.fingerprint });
    const blank = notice('AvalancheDiskLow', { labels: { severity: 'critical' }, annotations: { summary: 's', description: ' \n ' } });
    expect(messageOf(batchOf([blank]), URL_BASE).alerts[0]).toEqual({ status: 'firing', tone: 'critical', facts: 's', tag: 'AvalancheDiskLow · critical', fingerprint: blank.fingerprint });
  });

  it('its tag names the rule, the severity and the kind of notice; a resolve how long the incident lasted, when its times say', () => {
    const tags = (alerts: AlertNotice[]) => messageOf(batchOf(alerts), URL_BASE).alerts.map((a) => a.tag);
    expect(
      tags([
        notice('AvalancheNodeUnreachable', { kind: 'reminder', labels: { severity: 'critical' } }),
        notice('AvalancheNodeUnreachable', { kind: 'severity_changed' }),
        notice('AvalancheNodeUnreachable', { kind: 'updated' }),
        notice(undefined, { kind: 'test', labels: { severity: '' } }),
        notice('AvalancheNodeUnreachable', { labels: { severity: '' } }),
      ]),
    ).toEqual(['AvalancheNodeUnreachable · critical · reminder', 'AvalancheNodeUnreachable · warning · severity changed', 'AvalancheNodeUnreachable · warning · updated', 'alert ·  · test', 'AvalancheNodeUnreachable · ']);
    const noSeverity = notice('AvalancheNodeUnreachable');
    delete noSeverity.labels.severity;
    expect(tags([noSeverity])).toEqual(['AvalancheNodeUnreachable · warning']);
    expect(
      tags([
        resolved('AvalancheNodeUnreachable', { endsAt: START }),
        resolved('AvalancheNodeUnreachable', { endsAt: '2026-11-22T09:59:00.000Z' }),
        resolved('AvalancheNodeUnreachable', { startsAt: 'never' }),
        resolved('AvalancheNodeUnreachable', { endsAt: '2026-11-25T14:30:00.000Z' }),
      ]),
    ).toEqual(['AvalancheNodeUnreachable · resolved after 0s', 'AvalancheNodeUnreachable · resolved', 'AvalancheNodeUnreachable · resolved', 'AvalancheNodeUnreachable · resolved after 3d 4h']);
  });

  it('how long an incident lasted: seconds, then minutes, hours and minutes, days and hours', () => {
    expect([0, -5_000, 45_400, 59_600, 60_000, 119_000, 3_600_000, 7_500_000, 86_399_000, 86_400_000, 273_600_000].map(lasted)).toEqual([
      '0s',
      '0s',
      '45s',
      '1m',
      '1m',
      '1m',
      '1h 0m',
      '2h 5m',
      '23h 59m',
      '1d 0h',
      '3d 4h',
    ]);
  });

  it('a paragraph: lines joined by "; ", blank lines dropped, runs of blanks one space, no blank at the ends', () => {
    expect(paragraph('  one\n\n two  \t three \n\nfour  ')).toBe('one; two three; four');
    expect(paragraph('')).toBe('');
  });
});

describe('a short explainer', () => {
  const text = 'The node is cut off. Its peers drop it; rewards fall! Check the firewall now';
  it('is whole sentences while they fit, else cut at a word; text that fits is kept', () => {
    expect(shortExplainer(text, text.length)).toBe(text);
    expect(shortExplainer(text, 30)).toBe('The node is cut off. …');
    expect(shortExplainer(text, 60)).toBe('The node is cut off. Its peers drop it; rewards fall! …');
    expect(shortExplainer(text, 23)).toBe('The node is cut off. …');
    // the first sentence would leave most of the room unused: cut at a word instead
    expect(shortExplainer('Cut. A long second sentence without end', 30)).toBe('Cut. A long second sentence…');
    expect(shortExplainer('no sentence ends here at all, just words', 20)).toBe('no sentence ends…');
  });
});

describe('blocks that fit', () => {
  const size = (s: string) => s.length;
  it('all when they fit with one character between two, else those before the first that does not, room kept for the note', () => {
    expect(fitBlocks(['aaaa', 'bbbb', 'cc'], size, 12, 5)).toEqual({ shown: ['aaaa', 'bbbb', 'cc'], hidden: 0 });
    expect(fitBlocks(['aaaa', 'bbbb', 'cc'], size, 11, 0)).toEqual({ shown: ['aaaa', 'bbbb'], hidden: 1 });
    expect(fitBlocks(['aaaa', 'bbbb', 'cc'], size, 11, 3)).toEqual({ shown: ['aaaa'], hidden: 2 });
    expect(fitBlocks(['aaaa', 'b', 'cc'], size, 7, 1)).toEqual({ shown: ['aaaa', 'b'], hidden: 1 });
    expect(fitBlocks(['aaaa'], size, 3, 0)).toEqual({ shown: [], hidden: 1 });
    expect(moreNote(2)).toBe('… 2 more not shown here');
  });
});

describe('the plain rendering', () => {
  it('the tone as a word, the title, one line per alert with its tag, the link and time; control characters shown as their pictures', () => {
    const alerts = [notice('AvalancheNodeUnreachable', { labels: { severity: 'critical' }, annotations: { summary: 'v1: no answer\u0007 for 2m', description: 'Long words.' } }), notice('AvalancheNodeNotReady')];
    expect(plainText(batchOf(alerts), URL_BASE, 4096)).toBe(
      [
        '[CRITICAL] v1: unreachable; not ready',
        '- v1: no answer\u2407 for 2m (AvalancheNodeUnreachable · critical)',
        '- v1: AvalancheNodeNotReady (AvalancheNodeNotReady · warning)',
        `${URL_BASE}/targets/v1 · 2026-11-22 12:05 UTC`,
      ].join('\n'),
    );
  });

  it('within its limit: the lines that fit, then how many did not', () => {
    const alerts = Array.from({ length: 30 }, (_, i) => notice('AvalancheCheckFailing', { labels: { check: `chain${i}` }, annotations: { summary: `v1: chain${i} failing for a while now`, description: '' } }));
    const text = plainText(batchOf(alerts), URL_BASE, 600);
    expect(text.length).toBeLessThanOrEqual(600);
    const lines = text.split('\n');
    const shown = lines.filter((l) => l.startsWith('- '));
    expect(shown.map((l) => l.slice(2, l.indexOf(' failing')))).toEqual(['v1: chain0', 'v1: chain1', 'v1: chain2']);
    expect(lines.at(-2)).toBe(moreNote(27));
    expect(lines.at(-1)).toBe(`${URL_BASE}/targets/v1 · 2026-11-22 12:05 UTC`);
  });
});

describe('text inside HTML', () => {
  it('escapes & < > and ", and shows control characters as their pictures', () => {
    expect(escapeHtml('<b>"a" & b</b>\u0000')).toBe('&lt;b&gt;&quot;a&quot; &amp; b&lt;/b&gt;\u2400');
  });
});
