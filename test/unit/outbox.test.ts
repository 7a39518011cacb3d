import { copyFileSync, mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { Outbox, outboxFile } from '../../src/alerts/outbox.js';
import type { OutgoingRequest } from '../../src/alerts/receivers/receiver.js';
import type { NotificationBatch } from '../../src/alerts/types.js';
import { parseConfig } from '../../src/config/load.js';
import { createLogger } from '../../src/log.js';
import { waitFor } from '../helpers/harness.js';

const batch = (id: string): NotificationBatch => ({ id, target: 't', createdAt: 0, alerts: [] });

describe('outbox', () => {
  it('a full queue dropping the notification being sent does not also drop the next one', { timeout: 60_000 }, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'avahealth-outbox-'));
    const config = parseConfig(`state_dir: ${dir}\nalerts:\n  receivers:\n    - {name: hook, webhook: {url: "http://127.0.0.1:9/hook", secret: s3cret}}\n`, join(dir, 'c.yaml'), {});
    const sent: string[] = [];
    let release!: () => void;
    const firstAnswer = new Promise<void>((resolve) => (release = resolve));
    const post = async (request: OutgoingRequest) => {
      sent.push(request.headers['webhook-id']!);
      if (sent.length === 1) await firstAnswer;
    };
    const events = { delivered: () => undefined, failed: () => undefined, queueLength: () => undefined };
    const log = createLogger({ level: 'fatal', format: 'json', destination: new PassThrough() });
    const outbox = new Outbox(config.alerts.receivers[0]!, dir, post, () => '', events, log);
    outbox.enqueue(batch('first'));
    await waitFor('the first notification in flight', () => sent.length === 1);
    for (let i = 0; i < 10_000; i++) outbox.enqueue(batch(`q${i}`)); // the 10,001st item drops the oldest: the one in flight
    expect(outbox.length).toBe(10_000);
    release();
    await waitFor('two more sent', () => sent.length >= 3, 30_000);
    await outbox.stop();
    expect(sent.slice(0, 3)).toEqual(['first', 'q0', 'q1']);
  });

  it('a crash while the receiver holds a notification sends that one again, never an earlier one', { timeout: 60_000 }, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'avahealth-outbox-'));
    const config = parseConfig(`state_dir: ${dir}\nalerts:\n  receivers:\n    - {name: hook, webhook: {url: "http://127.0.0.1:9/hook", secret: s3cret}}\n`, join(dir, 'c.yaml'), {});
    const receiver = config.alerts.receivers[0]!;
    const crashed = join(dir, 'crashed');
    const sent: string[] = [];
    const post = async (request: OutgoingRequest) => {
      sent.push(request.headers['webhook-id']!);
      // A SIGKILL while the receiver holds the last one: the disk is all the next start has.
      if (sent.length === 3) {
        mkdirSync(join(crashed, 'outbox'), { recursive: true });
        copyFileSync(outboxFile(dir, receiver.name), outboxFile(crashed, receiver.name));
      }
    };
    const events = { delivered: () => undefined, failed: () => undefined, queueLength: () => undefined };
    const log = createLogger({ level: 'fatal', format: 'json', destination: new PassThrough() });
    const outbox = new Outbox(receiver, dir, post, () => '', events, log);
    // One alert firing, resolved, firing again: replaying the first after the third reopens a closed incident.
    for (const id of ['firing-1', 'resolved-1', 'firing-2']) outbox.enqueue(batch(id));
    await waitFor('all three delivered', () => outbox.length === 0, 30_000);
    await outbox.stop();
    expect(sent).toEqual(['firing-1', 'resolved-1', 'firing-2']);

    const resent: string[] = [];
    const restarted = new Outbox(receiver, crashed, async (request) => void resent.push(request.headers['webhook-id']!), () => '', events, log);
    restarted.start();
    await waitFor('the restored queue delivered', () => restarted.length === 0, 30_000);
    await restarted.stop();
    expect(resent).toEqual(['firing-2']);
  });

  it('alerts sent muted (held by a silence the receiver mirrors) are not told: they open no incident there, also after a restart', { timeout: 60_000 }, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'avahealth-outbox-'));
    const config = parseConfig(`state_dir: ${dir}\nalerts:\n  receivers:\n    - {name: am, alertmanager: {url: "http://127.0.0.1:9"}}\n`, join(dir, 'c.yaml'), {});
    const receiver = config.alerts.receivers[0]!;
    const events = { delivered: () => undefined, failed: () => undefined, queueLength: () => undefined };
    const log = createLogger({ level: 'fatal', format: 'json', destination: new PassThrough() });
    const notice = (fingerprint: string) => ({ status: 'firing' as const, kind: 'firing' as const, labels: { alertname: 'AvalancheCheckFailing', target: 't', check: fingerprint }, annotations: { summary: '', description: '' }, startsAt: '2026-01-01T00:00:00.000Z', endsAt: '0001-01-01T00:00:00Z', fingerprint, generatorURL: '' });
    const outbox = new Outbox(receiver, dir, async () => '', () => '', events, log);
    outbox.enqueue({ id: 'told', target: 't', createdAt: 1, alerts: [notice('a')] });
    outbox.enqueue({ id: 'muted', target: '*', createdAt: 2, alerts: [notice('b'), { ...notice('a'), status: 'resolved' }], muted: true });
    expect([...outbox.openIncidents().keys()]).toEqual(['a']);
    outbox.start();
    await waitFor('both delivered', () => outbox.length === 0, 30_000);
    await outbox.stop();
    const restarted = new Outbox(receiver, dir, async () => '', () => '', events, log);
    expect([...restarted.openIncidents().keys()]).toEqual(['a']);
    await restarted.stop();
  });

  it('a re-send queued before a stop is not delivered at the next start; the pages queued beside it are', { timeout: 60_000 }, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'avahealth-outbox-'));
    const config = parseConfig(`state_dir: ${dir}\nalerts:\n  receivers:\n    - {name: am, alertmanager: {url: "http://127.0.0.1:9"}}\n`, join(dir, 'c.yaml'), {});
    const receiver = config.alerts.receivers[0]!;
    const events = { delivered: () => undefined, failed: () => undefined, queueLength: () => undefined };
    const log = createLogger({ level: 'fatal', format: 'json', destination: new PassThrough() });
    const notice = (fingerprint: string) => ({ status: 'firing' as const, kind: 'firing' as const, labels: { alertname: 'AvalancheDiskLow', target: fingerprint }, annotations: { summary: '', description: '' }, startsAt: '2026-01-01T00:00:00.000Z', endsAt: '0001-01-01T00:00:00Z', fingerprint, generatorURL: '' });
    // Alertmanager does not answer: everything stays queued, and the daemon stops
    const stopped = new Outbox(receiver, dir, async () => Promise.reject(new Error('connection refused')), () => '', events, log);
    stopped.enqueue({ id: 'resend', target: '*', createdAt: 1, alerts: [notice('a')], resend: true });
    stopped.enqueue({ id: 'page', target: 'b', createdAt: 2, alerts: [notice('b')] });
    // as journals written before re-sends were marked hold them
    stopped.enqueue({ id: 'unmarked-resend', target: '*', createdAt: 3, alerts: [notice('a'), notice('b')] });
    await stopped.stop();

    const delivered: string[] = [];
    const restarted = new Outbox(receiver, dir, async (request) => void delivered.push(...(JSON.parse(request.body ?? '[]') as Array<{ labels: { target: string } }>).map((a) => a.labels.target)), () => '', events, log);
    expect(restarted.queued().map((item) => item.batch.id)).toEqual(['page']);
    restarted.start();
    await waitFor('the page delivered', () => restarted.length === 0, 30_000);
    await restarted.stop();
    expect(delivered).toEqual(['b']);
    // both incidents are still open at the receiver: the re-sends only told it again
    expect([...restarted.openIncidents().keys()].sort()).toEqual(['a', 'b']);
  });
});
