/** The notifier alone: it receives batches (no pipeline behind it) and delivers them; a resend batch goes only to receivers that forget. */
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
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
  /** A notifier (not started) over `receivers` (YAML list items, `URL` the capture's) whose requests land in one capture; `alerts` adds keys beside them, `top` top-level keys, `journals` outbox journals that exist already. */
  async function notifierFor(receivers: string, { alerts = '', answer = (_path: string): number => 200, top = '', journals = [] as string[] } = {}) {
    const capture = await startCapture((req) => ({ status: answer(req.path) }));
    cleanups.push(() => capture.close());
    const dir = mkdtempSync(join(tmpdir(), 'avahealth-notifier-'));
    // a journal that exists without an `open` line: one written before they were recorded
    if (journals.length > 0) mkdirSync(join(dir, 'outbox'), { recursive: true });
    for (const name of journals) writeFileSync(join(dir, 'outbox', `${name}.jsonl`), '');
    const config = parseConfig(`state_dir: ${dir}\n${top}alerts:\n${alerts}  receivers:\n${receivers.replaceAll('URL', capture.url)}`, join(dir, 'c.yaml'), {});
    const http = new HttpClient({ maxResponseBytes: 65_536, userAgent: 'avahealth-test' });
    const events = { delivered: () => undefined, failed: () => undefined, queueLength: () => undefined };
    const notifier = new Notifier(config, http, events, createLogger({ level: 'silent', format: 'json' }));
    cleanups.push(() => notifier.stop(), () => http.close());
    return { capture, notifier, config, dir, http };
  }
  const queuedAlerts = (notifier: Notifier, receiver: string): AlertNotice[] => notifier.outlet(receiver)!.queued().flatMap((item) => item.batch.alerts);
  const HOOK_AND_AM = `    - {name: hook, webhook: {url: "URL/hook"}}\n    - {name: am, alertmanager: {url: "URL/am", resend_interval: 1m}}\n`;
  const PAGER_AND_CHAT = `    - {name: pager, min_severity: critical, webhook: {url: "URL/pager"}}\n    - {name: chat, webhook: {url: "URL/chat"}}\n`;
  const KEY = '  handover_key: 0123456789abcdef0123\n';

  it('delivers a batch to every receiver it routes to, and the firing incidents again only to Alertmanager', async () => {
    const { notifier, capture } = await notifierFor(HOOK_AND_AM);
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
    const { notifier, capture } = await notifierFor(PAGER_AND_CHAT);
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
    const { notifier } = await notifierFor(PAGER_AND_CHAT, { answer: () => 503 });
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
    const { notifier } = await notifierFor(PAGER_AND_CHAT, { answer: () => 503 });
    const at = Date.parse('2026-11-22T12:00:00Z');
    notifier.dispatch({ ...batch([notice('C', 'firing', 'critical')]), createdAt: at });
    notifier.dispatch({ ...batch([{ ...notice('C', 'firing', 'warning'), kind: 'severity_changed' }]), id: 'eased', createdAt: at + 60_000 });
    expect(notifier.told().open.get('fp-C')).toMatchObject({ at: at + 60_000, alert: { labels: { severity: 'warning' } } });
    // the same with the receivers the other way round: the later firing wins, not the last receiver
    const { notifier: reversed } = await notifierFor(`    - {name: chat, webhook: {url: "URL/chat"}}\n    - {name: pager, min_severity: critical, webhook: {url: "URL/pager"}}\n`, { answer: () => 503 });
    reversed.dispatch({ ...batch([notice('C', 'firing', 'critical')]), createdAt: at });
    reversed.dispatch({ ...batch([{ ...notice('C', 'firing', 'warning'), kind: 'severity_changed' }]), id: 'eased', createdAt: at + 60_000 });
    expect(reversed.told().open.get('fp-C')).toMatchObject({ at: at + 60_000, alert: { labels: { severity: 'warning' } } });
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

  it('a re-send only when a receiver forgets, and only of what it routes', async () => {
    const { notifier: none } = await notifierFor(`    - {name: hook, webhook: {url: "URL/hook"}}\n`, { answer: () => 503 });
    expect(none.resendIntervalMs()).toBeUndefined();
    const { notifier } = await notifierFor(`    - {name: am, min_severity: critical, alertmanager: {url: "URL/am", resend_interval: 1m}}\n`, { answer: () => 503 });
    notifier.start(Date.now() - 61_000);
    notifier.dispatch({ ...batch([notice('C', 'firing', 'warning')]), resend: true });
    expect(notifier.queueLengths()).toEqual({ am: 0 }); // nothing of it is routed there: no empty batch
  });

  it('pendingWrites settles once the journal lines are on disk, and stop() writes what is pending', async () => {
    const { notifier, dir } = await notifierFor(HOOK_AND_AM, { answer: () => 503 });
    expect(notifier.pendingWrites()).toBeUndefined();
    notifier.dispatch(batch([notice('C')]));
    const pending = notifier.pendingWrites();
    expect(pending).toBeInstanceOf(Promise);
    await pending;
    expect(notifier.pendingWrites()).toBeUndefined();
    for (const name of ['hook', 'am']) expect(readFileSync(join(dir, 'outbox', `${name}.jsonl`), 'utf8')).toContain('"id":"msg_2Kv1"');
    notifier.dispatch({ ...batch([notice('P')]), id: 'at-stop' });
    await notifier.stop();
    for (const name of ['hook', 'am']) expect(readFileSync(join(dir, 'outbox', `${name}.jsonl`), 'utf8')).toContain('"id":"at-stop"');
  });

  it('an outlet queues into one receiver\'s outbox; there is none for a receiver not configured', async () => {
    const { notifier } = await notifierFor(HOOK_AND_AM, { answer: () => 503 });
    expect(notifier.outlet('nobody')).toBeUndefined();
    const outlet = notifier.outlet('am')!;
    outlet.enqueue({ ...batch([]), id: 'silences', silences: [{ expire: { id: 's1', hash: 'h1' } }] });
    expect(outlet.queued().map((item) => item.batch.id)).toEqual(['silences']);
    expect(notifier.queueLengths()).toEqual({ hook: 0, am: 1 });
    expect(outlet.notes).toBe(notifier.outlet('am')!.notes);
  });

  it('recordOpen gives a journal from before `open` lines what the alert states say it was told, as each receiver routes it', async () => {
      const told = [notice('C', 'firing', 'critical'), notice('P', 'firing', 'warning')];
    const { notifier } = await notifierFor(PAGER_AND_CHAT, { answer: () => 503, journals: ['pager', 'chat'] });
    notifier.recordOpen(told, Date.parse('2026-11-22T12:00:00Z'));
    expect(notifier.told().open.get('fp-C')).toMatchObject({ at: Date.parse('2026-11-22T12:00:00Z'), alert: { fingerprint: 'fp-C' } });
    notifier.dispatch(batch([notice('C', 'resolved', 'warning'), notice('P', 'resolved', 'warning')]));
    expect(queuedAlerts(notifier, 'pager').map((a) => a.fingerprint)).toEqual(['fp-C']); // told of C (critical) only
    expect(queuedAlerts(notifier, 'chat').map((a) => a.fingerprint)).toEqual(['fp-C', 'fp-P']);
    // a journal made by this version knows what is open already: nothing is filled in
    const { notifier: fresh } = await notifierFor(PAGER_AND_CHAT, { answer: () => 503 });
    fresh.recordOpen(told);
    expect(fresh.told().open.size).toBe(0);
  });

  it('links follow the latest config, and Alertmanager is sent the handover record signed with the fleet key', async () => {
    const { notifier, config, capture } = await notifierFor(HOOK_AND_AM, { alerts: KEY, top: 'external_url: http://before.example\n' });
    notifier.setConfig({ ...config, externalUrl: 'http://after.example' });
    notifier.start();
    notifier.dispatch(batch([notice('C')]));
    await waitFor('both told', () => capture.requests.length === 2, 10_000);
    const hook = capture.requests.find((r) => r.path === '/hook')!.json as { externalURL: string };
    expect(hook.externalURL).toBe('http://after.example');
    const am = capture.requests.find((r) => r.path === '/am/api/v2/alerts')!.json as Array<{ annotations: Record<string, string> }>;
    expect(am[0]!.annotations.avahealth_handover).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+$/);
  });

  it('the test notification: one firing AvahealthTest straight to the receiver, ending in five minutes', async () => {
    const { config, capture, http } = await notifierFor(`    - {name: hook, webhook: {url: "URL/hook"}}\n`, { top: 'external_url: http://avahealth.example\n' });
    await Notifier.sendTest(config, config.alerts.receivers[0]!, http);
    expect(capture.requests).toHaveLength(1);
    const body = capture.requests[0]!.json as { groupLabels: Record<string, string>; externalURL: string; alerts: Array<Record<string, unknown>> };
    expect(body.groupLabels).toEqual({ target: 'avahealth' });
    expect(body.externalURL).toBe('http://avahealth.example');
    const [alert] = body.alerts;
    expect(alert).toMatchObject({
      status: 'firing',
      labels: { alertname: 'AvahealthTest', target: 'avahealth', severity: 'warning' },
      annotations: { summary: 'avahealth test notification', description: 'Sent by avahealth notify-test to receiver hook. No action needed.' },
      fingerprint: 'avahealth-test',
      generatorURL: 'http://avahealth.example',
    });
    expect(Date.parse(alert!.endsAt as string) - Date.parse(alert!.startsAt as string)).toBe(5 * 60_000);
  });
});

