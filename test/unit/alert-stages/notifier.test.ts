/** The notifier alone: it receives batches (no pipeline behind it) and delivers them; a resend batch goes only to receivers that forget. */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Notifier } from '../../../src/alerts/notifier.js';
import { parseConfig } from '../../../src/config/load.js';
import { createLogger } from '../../../src/log.js';
import { HttpClient } from '../../../src/transport/client.js';
import { startCapture } from '../../helpers/capture.js';
import { waitFor } from '../../helpers/harness.js';
import { batch, notice } from '../../helpers/notices.js';
import type { AlertNotice } from '../../../src/alerts/types.js';

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

describe('notifier', () => {
  it('delivers a batch to every receiver it routes to, and the firing incidents again only to Alertmanager', async () => {
    const capture = await startCapture(() => ({ status: 200 }));
    cleanups.push(() => capture.close());
    const dir = mkdtempSync(join(tmpdir(), 'avahealth-notifier-'));
    const config = parseConfig(
      `state_dir: ${dir}\nalerts:\n  receivers:\n    - {name: hook, webhook: {url: "${capture.url}/hook"}}\n    - {name: am, alertmanager: {url: "${capture.url}/am", resend_interval: 1m}}\n`,
      join(dir, 'c.yaml'),
      {},
    );
    const http = new HttpClient({ maxResponseBytes: 65_536, userAgent: 'avahealth-test' });
    const events = { delivered: () => undefined, failed: () => undefined, queueLength: () => undefined };
    const notifier = new Notifier(config, http, events, createLogger({ level: 'silent', format: 'json' }));
    cleanups.push(() => notifier.stop(), () => http.close());
    expect(notifier.resendIntervalMs()).toBe(60_000);
    notifier.start(Date.now() - 61_000);
    notifier.dispatch(batch([notice('C')]));
    await waitFor('both receivers told', () => capture.requests.length === 2, 10_000);
    expect(capture.requests.map((r) => r.path).sort()).toEqual(['/am/api/v2/alerts', '/hook']);
    await waitFor('the queues empty', () => Object.values(notifier.queueLengths()).every((n) => n === 0), 10_000);
    notifier.dispatch({ ...batch([notice('C')]), id: 'again', resend: true });
    notifier.dispatch({ ...batch([notice('C')]), id: 'too-soon', resend: true }); // within the interval: not taken
    await waitFor('the re-send', () => capture.requests.length === 3, 10_000);
    expect(capture.requests[2]!.path).toBe('/am/api/v2/alerts');
    expect(notifier.told().open.has('fp-C')).toBe(true);
  });

  it('a resolve reaches a receiver that was told the firing, even when it no longer routes the incident (min_severity)', async () => {
    const capture = await startCapture(() => ({ status: 200 }));
    cleanups.push(() => capture.close());
    const dir = mkdtempSync(join(tmpdir(), 'avahealth-notifier-'));
    const config = parseConfig(
      `state_dir: ${dir}\nalerts:\n  receivers:\n    - {name: pager, min_severity: critical, webhook: {url: "${capture.url}/pager"}}\n    - {name: chat, webhook: {url: "${capture.url}/chat"}}\n`,
      join(dir, 'c.yaml'),
      {},
    );
    const http = new HttpClient({ maxResponseBytes: 65_536, userAgent: 'avahealth-test' });
    const events = { delivered: () => undefined, failed: () => undefined, queueLength: () => undefined };
    const notifier = new Notifier(config, http, events, createLogger({ level: 'silent', format: 'json' }));
    cleanups.push(() => notifier.stop(), () => http.close());
    notifier.start();
    const told = (path: string) => capture.requests.filter((r) => r.path === path).map((r) => (JSON.parse(r.body) as { alerts: Array<{ status: string; labels: { severity: string } }> }).alerts.map((a) => `${a.status} ${a.labels.severity}`).join());
    notifier.dispatch({ ...batch([notice('C', 'firing', 'critical')]), id: 'critical' });
    await waitFor('the page', () => told('/pager').length === 1 && told('/chat').length === 1, 10_000);
    // It eases to a warning: the pager no longer routes it, so it hears nothing of that …
    notifier.dispatch({ ...batch([{ ...notice('C', 'firing', 'warning'), kind: 'severity_changed' }]), id: 'eased' });
    await waitFor('the chat told', () => told('/chat').length === 2, 10_000);
    // … but the incident it was paged for ends, and it must hear that it ended.
    notifier.dispatch({ ...batch([notice('C', 'resolved', 'warning')]), id: 'over' });
    await waitFor('the resolve at both', () => told('/pager').length === 2 && told('/chat').length === 3, 10_000);
    expect(told('/pager')).toEqual(['firing critical', 'resolved warning']);
  });

  /** A started notifier over `receivers` (YAML list items) whose requests land in one capture; `alerts` adds keys beside them. */
  async function notifierFor(receivers: string, { alerts = '', answer = (_path: string): number => 200 } = {}) {
    const capture = await startCapture((req) => ({ status: answer(req.path) }));
    cleanups.push(() => capture.close());
    const dir = mkdtempSync(join(tmpdir(), 'avahealth-notifier-'));
    const config = parseConfig(`state_dir: ${dir}\nalerts:\n${alerts}  receivers:\n${receivers.replaceAll('URL', capture.url)}`, join(dir, 'c.yaml'), {});
    const http = new HttpClient({ maxResponseBytes: 65_536, userAgent: 'avahealth-test' });
    const events = { delivered: () => undefined, failed: () => undefined, queueLength: () => undefined };
    const notifier = new Notifier(config, http, events, createLogger({ level: 'silent', format: 'json' }));
    cleanups.push(() => notifier.stop(), () => http.close());
    return { capture, notifier };
  }
  const queuedAlerts = (notifier: Notifier, receiver: string): AlertNotice[] => notifier.outlet(receiver)!.queued().flatMap((item) => item.batch.alerts);
  const HOOK_AND_AM = `    - {name: hook, webhook: {url: "URL/hook"}}\n    - {name: am, alertmanager: {url: "URL/am", resend_interval: 1m}}\n`;
  const KEY = '  handover_key: 0123456789abcdef0123\n';

  it('a handover tells no receiver when the next owner adopts (handover key and Alertmanager); without the key the others hear the resolve', async () => {
    const adopting = await notifierFor(HOOK_AND_AM, { alerts: KEY, answer: () => 503 });
    expect(adopting.notifier.adoptable()).toBe(true);
    adopting.notifier.dispatch(batch([notice('C')]));
    expect(adopting.notifier.told().open.has('fp-C')).toBe(true);
    adopting.notifier.dispatch({ ...batch([notice('C', 'resolved')]), id: 'moved', handover: true });
    expect(adopting.notifier.queueLengths()).toEqual({ hook: 1, am: 1 }); // the firing only
    expect(adopting.notifier.told().open.has('fp-C')).toBe(false); // carried on by the next owner

    const unkeyed = await notifierFor(HOOK_AND_AM, { answer: () => 503 });
    expect(unkeyed.notifier.adoptable()).toBe(false);
    unkeyed.notifier.dispatch(batch([notice('C')]));
    unkeyed.notifier.dispatch({ ...batch([notice('C', 'resolved')]), id: 'moved', handover: true });
    expect(queuedAlerts(unkeyed.notifier, 'hook').map((a) => a.status)).toEqual(['firing', 'resolved']);
    expect(queuedAlerts(unkeyed.notifier, 'am').map((a) => a.status)).toEqual(['firing']);
    expect(unkeyed.notifier.told().open.has('fp-C')).toBe(false);

    const noAlertmanager = await notifierFor(`    - {name: hook, webhook: {url: "URL/hook"}}\n`, { alerts: KEY, answer: () => 503 });
    expect(noAlertmanager.notifier.adoptable()).toBe(false); // a key alone: nothing to adopt from
  });

  it('the carried facts of a handover go only to the receivers a next owner adopts from', async () => {
    const { notifier } = await notifierFor(HOOK_AND_AM, { answer: () => 503 });
    const carrying: AlertNotice = { ...notice('C'), carried: { 'upgrades.json': { deadline: 1 } } };
    notifier.dispatch(batch([carrying, notice('P')]));
    expect(queuedAlerts(notifier, 'hook').map((a) => a.carried)).toEqual([undefined, undefined]);
    expect(queuedAlerts(notifier, 'hook')[0]).toEqual(notice('C'));
    expect(queuedAlerts(notifier, 'am').map((a) => a.carried)).toEqual([carrying.carried, undefined]);
  });

  it('adopted incidents are open only at the receivers that route them, and their resolve reaches just those', async () => {
    const { notifier } = await notifierFor(`    - {name: pager, min_severity: critical, webhook: {url: "URL/pager"}}\n    - {name: chat, webhook: {url: "URL/chat"}}\n`, { answer: () => 503 });
    const at = Date.parse('2026-11-22T12:00:00Z');
    notifier.adopt([{ at, alert: notice('C', 'firing', 'warning') }, { at, alert: notice('P', 'firing', 'critical') }]);
    expect([...notifier.told().open.keys()].sort()).toEqual(['fp-C', 'fp-P']);
    expect(notifier.told().routed(notice('C', 'firing', 'warning'))).toBe(true);
    expect(notifier.queueLengths()).toEqual({ pager: 0, chat: 0 }); // adopting tells nobody
    // Both end as warnings: the pager routes neither, but was told (by the shard before) of P.
    notifier.dispatch(batch([notice('C', 'resolved', 'warning'), notice('P', 'resolved', 'warning')]));
    expect(queuedAlerts(notifier, 'pager').map((a) => a.fingerprint)).toEqual(['fp-P']);
    expect(queuedAlerts(notifier, 'chat').map((a) => a.fingerprint)).toEqual(['fp-C', 'fp-P']);
  });

  it('told(): the latest firing of an incident across receivers, and whether any receiver routes an alert', async () => {
    const { notifier } = await notifierFor(`    - {name: pager, min_severity: critical, webhook: {url: "URL/pager"}}\n    - {name: chat, webhook: {url: "URL/chat"}}\n`, { answer: () => 503 });
    const at = Date.parse('2026-11-22T12:00:00Z');
    notifier.dispatch({ ...batch([notice('C', 'firing', 'critical')]), createdAt: at });
    notifier.dispatch({ ...batch([{ ...notice('C', 'firing', 'warning'), kind: 'severity_changed' }]), id: 'eased', createdAt: at + 60_000 });
    expect(notifier.told().open.get('fp-C')).toMatchObject({ at: at + 60_000, alert: { labels: { severity: 'warning' } } });
    const { notifier: pagerOnly } = await notifierFor(`    - {name: pager, min_severity: critical, webhook: {url: "URL/pager"}}\n`, { answer: () => 503 });
    expect(pagerOnly.told().routed(notice('C', 'firing', 'warning'))).toBe(false);
    expect(pagerOnly.told().routed(notice('C', 'firing', 'critical'))).toBe(true);
  });

  it('a re-send goes to each receiver that forgets once its own interval has passed, and not while it has a backlog', async () => {
    const { notifier } = await notifierFor(
      `    - {name: hook, webhook: {url: "URL/hook"}}\n    - {name: fast, alertmanager: {url: "URL/fast", resend_interval: 1m}}\n    - {name: slow, alertmanager: {url: "URL/slow", resend_interval: 5m}}\n    - {name: stuck, alertmanager: {url: "URL/stuck", resend_interval: 1m}}\n`,
      { answer: (path) => (path.startsWith('/stuck') ? 503 : 200) },
    );
    expect(notifier.resendIntervalMs()).toBe(60_000);
    notifier.dispatch(batch([notice('C')])); // stuck keeps it queued: its Alertmanager answers 503
    notifier.start(Date.now() - 61_000);
    await waitFor('the others delivered', () => notifier.queueLengths().fast === 0 && notifier.queueLengths().slow === 0 && notifier.queueLengths().hook === 0, 10_000);
    notifier.dispatch({ ...batch([notice('C')]), id: 'again', resend: true });
    expect(notifier.queueLengths()).toMatchObject({ hook: 0, fast: 1, slow: 0, stuck: 1 });
    expect(queuedAlerts(notifier, 'stuck').map((a) => a.kind)).toEqual(['firing']);
  });
});

