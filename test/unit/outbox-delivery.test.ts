/**
 * The outbox on its own, with its journal in a temporary directory and a transport in this process:
 * what a rejection, a failure and a restart do to the queue, what the journal keeps of a receiver's
 * open incidents, and what an operator reads in the log. Fast enough for every mutant of
 * src/alerts/outbox.ts (vitest.mutation.config.ts); the daemon-level tests (crash, durability,
 * chaos) drive the same code through real restarts.
 */
import { appendFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { backoffMs, Outbox, outboxFile, replayJournal, type OutboxEvents } from '../../src/alerts/outbox.js';
import type { OpenIncident } from '../../src/alerts/persisted.js';
import { notesFile } from '../../src/alerts/receivers/notes.js';
import { DeliveryError, type OutgoingRequest } from '../../src/alerts/receivers/receiver.js';
import type { AlertNotice, NotificationBatch } from '../../src/alerts/types.js';
import { parseConfig, type ReceiverConfig } from '../../src/config/load.js';
import { createLogger } from '../../src/log.js';
import { waitFor } from '../helpers/harness.js';

const SECRET = 'hook-s3cret-value';

const notice = (fingerprint: string, status: 'firing' | 'resolved' = 'firing', labels: Record<string, string> = {}): AlertNotice => ({
  status,
  kind: status,
  labels: { alertname: 'AvalancheCheckFailing', target: 'node-1', severity: 'critical', check: fingerprint, ...labels },
  annotations: { summary: '', description: '' },
  startsAt: '2026-01-01T00:00:00.000Z',
  endsAt: status === 'firing' ? '0001-01-01T00:00:00Z' : '2026-01-01T00:05:00.000Z',
  fingerprint,
  generatorURL: '',
});

const batch = (id: string, alerts: AlertNotice[] = [], extra: Partial<NotificationBatch> = {}): NotificationBatch => ({ id, target: 'node-1', createdAt: 1, alerts, ...extra });

interface Recorded {
  failed: string[];
  dropped: string[];
  delivered: number;
  lengths: number[];
}

/** A webhook receiver's outbox in `dir`, its transport `post`, what it reported and logged. */
function outboxIn(dir: string, post: (request: OutgoingRequest) => Promise<string | void>, options: { withoutDropped?: boolean; receiver?: ReceiverConfig } = {}) {
  const receiver = options.receiver ?? webhookReceiver(dir);
  const recorded: Recorded = { failed: [], dropped: [], delivered: 0, lengths: [] };
  const events: OutboxEvents = {
    delivered: () => void recorded.delivered++,
    failed: (_receiver, reason) => void recorded.failed.push(reason),
    queueLength: (_receiver, length) => void recorded.lengths.push(length),
    ...(options.withoutDropped ? {} : { dropped: (_receiver: string, reason: string) => void recorded.dropped.push(reason) }),
  };
  const logged: Array<Record<string, unknown>> = [];
  const destination = new PassThrough();
  destination.on('data', (chunk: Buffer) => {
    for (const line of chunk.toString('utf8').split('\n')) if (line) logged.push(JSON.parse(line) as Record<string, unknown>);
  });
  const log = createLogger({ level: 'debug', format: 'json', destination });
  const outbox = new Outbox(receiver, dir, post, () => 'http://avahealth.example', events, log);
  const said = (msg: string) => logged.filter((line) => line.msg === msg);
  return { outbox, receiver, recorded, logged, said };
}

function webhookReceiver(dir: string): ReceiverConfig {
  const config = parseConfig(`state_dir: ${dir}\nalerts:\n  receivers:\n    - {name: hook, webhook: {url: "http://127.0.0.1:9/hook", secret: ${SECRET}}}\n`, join(dir, 'c.yaml'), {});
  return config.alerts.receivers[0]!;
}

const freshDir = () => mkdtempSync(join(tmpdir(), 'avahealth-outbox-'));
const idOf = (request: OutgoingRequest) => request.headers['webhook-id']!;
const never = () => new Promise<void>(() => undefined);
const refused = () => Promise.reject(new Error('connect ECONNREFUSED 127.0.0.1:9'));
/** Lets every write and delivery already started run to its end (no clock involved). */
async function settle(outbox: Outbox): Promise<void> {
  for (let i = 0; i < 5; i++) {
    await outbox.pendingWrites();
    await new Promise((resolve) => setImmediate(resolve));
  }
}

describe('outbox journal replay', () => {
  it('an `open` line states the open incidents outright; firings after it open, resolves close', () => {
    const replay = replayJournal([
      { add: { batch: batch('a', [notice('x'), notice('y')], { createdAt: 10 }), attempts: 0, nextAttemptAt: 0 } },
      { open: [{ at: 5, alert: notice('z') }] },
      { add: { batch: batch('b', [notice('w')], { createdAt: 20 }), attempts: 0, nextAttemptAt: 0 } },
      { add: { batch: batch('c', [notice('z', 'resolved')], { createdAt: 30 }), attempts: 0, nextAttemptAt: 0 } },
    ]);
    expect(replay.knowsOpen).toBe(true);
    expect([...replay.open.entries()]).toEqual([['w', { at: 20, alert: notice('w') }]]);
    expect(replay.items.map((item) => item.batch.id)).toEqual(['a', 'b', 'c']);
  });

  it('without an `open` line it cannot say what it closed; a retry of an item already done changes nothing', () => {
    const replay = replayJournal([
      { add: { batch: batch('a', [notice('x')]), attempts: 0, nextAttemptAt: 0 } },
      { done: 'a' },
      { retry: { id: 'a', attempts: 3, nextAttemptAt: 99, lastError: 'HTTP 503' } },
    ]);
    expect(replay.knowsOpen).toBe(false);
    expect(replay.items).toEqual([]);
    expect([...replay.open.keys()]).toEqual(['x']);
  });

  it('a muted batch tells the receiver nothing: it neither opens nor closes an incident', () => {
    const replay = replayJournal([
      { add: { batch: batch('told', [notice('x')]), attempts: 0, nextAttemptAt: 0 } },
      { add: { batch: batch('muted', [notice('x', 'resolved'), notice('y')], { muted: true }), attempts: 0, nextAttemptAt: 0 } },
    ]);
    expect([...replay.open.keys()]).toEqual(['x']);
  });
});

describe('retry backoff', () => {
  it('doubles from 1 s per attempt, jittered into its upper half', () => {
    expect(backoffMs(1, undefined, () => 0)).toBe(500);
    expect(backoffMs(1, undefined, () => 0.5)).toBe(750);
    expect(backoffMs(2, undefined, () => 0)).toBe(1_000);
    expect(backoffMs(4, undefined, () => 0.999)).toBeCloseTo(7_996, 0);
    // an attempt count of 0 (never failed) waits as the first retry does
    expect(backoffMs(0, undefined, () => 0)).toBe(500);
  });

  it('stops growing at 5 minutes', () => {
    expect(backoffMs(30, undefined, () => 0)).toBe(150_000);
    expect(backoffMs(30, undefined, () => 0.999_999)).toBeCloseTo(300_000, -1);
  });

  it("never retries sooner than the receiver's Retry-After, which may exceed the cap", () => {
    expect(backoffMs(1, 60_000, () => 0.5)).toBe(60_000);
    expect(backoffMs(30, 15 * 60_000, () => 0.5)).toBe(15 * 60_000);
    expect(backoffMs(8, 1_000, () => 0)).toBe(64_000);
  });
});

describe('outbox delivery', () => {
  it('a rejection drops that notification, reports it by incident, and the next one is sent', { timeout: 30_000 }, async () => {
    const dir = freshDir();
    const sent: string[] = [];
    const { outbox, recorded, said } = outboxIn(dir, async (request) => {
      sent.push(idOf(request));
      if (idOf(request) === 'rejected') throw new DeliveryError('HTTP 422: unprocessable', false, 'http_4xx');
    });
    const alerts = Array.from({ length: 25 }, (_, i) => notice(`f${i}`, 'firing', { chain: 'C' }));
    outbox.enqueue(batch('rejected', alerts));
    outbox.enqueue(batch('next'));
    await waitFor('both tried', () => outbox.length === 0 && recorded.delivered === 1);
    await outbox.stop();
    expect(sent).toEqual(['rejected', 'next']);
    expect(recorded).toMatchObject({ failed: ['http_4xx'], dropped: ['http_4xx'] });
    const [line] = said('notification rejected by the receiver; dropped');
    expect(line).toMatchObject({ level: 50, receiver: 'hook', target: 'node-1', error: 'HTTP 422: unprocessable' });
    const incidents = line!.incidents as Array<Record<string, string>>;
    expect(incidents).toHaveLength(20);
    // the incident's identity: no target (the line has it) and no severity (not part of it)
    expect(incidents[0]).toEqual({ alertname: 'AvalancheCheckFailing', check: 'f0', chain: 'C', status: 'firing', fingerprint: 'f0' });
    expect(said('notification delivered')).toEqual([expect.objectContaining({ target: 'node-1', alerts: 0, attempts: 1 })]);
    // dropped for good: a restart does not send it again
    const again = outboxIn(dir, never);
    expect(again.outbox.length).toBe(0);
    await again.outbox.stop();
  });

  it('a receiver without a drop counter still moves on after a rejection', { timeout: 30_000 }, async () => {
    const sent: string[] = [];
    const { outbox, recorded } = outboxIn(
      freshDir(),
      async (request) => {
        sent.push(idOf(request));
        if (sent.length === 1) throw new DeliveryError('HTTP 400', false, 'http_4xx');
      },
      { withoutDropped: true },
    );
    outbox.enqueue(batch('rejected'));
    outbox.enqueue(batch('next'));
    await waitFor('the next one delivered', () => recorded.delivered === 1);
    await outbox.stop();
    expect(sent).toEqual(['rejected', 'next']);
  });

  it('a failure keeps the notification at the head with its attempt, back-off and redacted error, across a restart', { timeout: 30_000 }, async () => {
    const dir = freshDir();
    const sent: string[] = [];
    const before = Date.now();
    const { outbox, recorded, said } = outboxIn(dir, async (request) => {
      sent.push(idOf(request));
      throw new DeliveryError(`HTTP 503 from http://hook/?token=${SECRET}`, true, 'http_5xx', 120_000);
    });
    outbox.enqueue(batch('head'));
    outbox.enqueue(batch('behind'));
    await waitFor('one attempt made', () => recorded.failed.length === 1);
    await settle(outbox);
    await outbox.stop();
    expect(sent).toEqual(['head']);
    expect(recorded.dropped).toEqual([]);
    const [head, behind] = outbox.queued();
    expect(head).toMatchObject({ batch: { id: 'head' }, attempts: 1 });
    expect(head!.nextAttemptAt).toBeGreaterThanOrEqual(before + 120_000);
    expect(head!.lastError).not.toContain(SECRET);
    expect(behind).toMatchObject({ batch: { id: 'behind' }, attempts: 0 });
    const [warned] = said('notification delivery failed; will retry');
    expect(warned).toMatchObject({ level: 40, receiver: 'hook', attempts: 1, retryAt: new Date(head!.nextAttemptAt).toISOString() });
    expect(JSON.stringify(warned)).not.toContain(SECRET);

    // the journal kept the retry: a restart waits for the back-off instead of sending at once
    const resent: string[] = [];
    const restarted = outboxIn(dir, async (request) => void resent.push(idOf(request)));
    expect(restarted.outbox.queued().map((item) => [item.batch.id, item.attempts, item.nextAttemptAt, item.lastError])).toEqual([
      ['head', 1, head!.nextAttemptAt, head!.lastError],
      ['behind', 0, 0, undefined],
    ]);
    expect(restarted.said('undelivered notifications restored')).toEqual([expect.objectContaining({ receiver: 'hook', queued: 2 })]);
    restarted.outbox.start();
    await settle(restarted.outbox);
    expect(resent).toEqual([]);
    await restarted.outbox.stop();
  });

  it('an error that is not a delivery error counts as a network failure and is retried', { timeout: 30_000 }, async () => {
    const { outbox, recorded } = outboxIn(freshDir(), refused);
    outbox.enqueue(batch('only'));
    await waitFor('one attempt made', () => recorded.failed.length === 1);
    await outbox.stop();
    expect(recorded.failed).toEqual(['network']);
    expect(outbox.queued()[0]).toMatchObject({ attempts: 1, lastError: 'Error: connect ECONNREFUSED 127.0.0.1:9' });
  });

  it('stopped, it sends nothing more: not what was queued before, nor what is queued after', { timeout: 30_000 }, async () => {
    const dir = freshDir();
    const sent: string[] = [];
    const { outbox } = outboxIn(dir, async (request) => void sent.push(idOf(request)));
    outbox.enqueue(batch('queued-at-the-stop')); // its line is not on disk yet: nothing is sent before it is
    await outbox.stop();
    outbox.enqueue(batch('queued-after'));
    await settle(outbox);
    expect(sent).toEqual([]);
    const restarted = outboxIn(dir, never);
    expect(restarted.outbox.queued().map((item) => item.batch.id)).toEqual(['queued-at-the-stop', 'queued-after']);
    await restarted.outbox.stop();
  });

  it('a full queue drops its oldest notification, counted and logged, and for good', { timeout: 60_000 }, async () => {
    const dir = freshDir();
    const { outbox, recorded, said } = outboxIn(dir, never);
    outbox.enqueue(batch('in-flight'));
    for (let i = 0; i < 10_000; i++) outbox.enqueue(batch(`q${i}`, i === 0 ? [notice('x')] : []));
    outbox.enqueue(batch('last'));
    expect(outbox.length).toBe(10_000);
    expect(recorded.failed).toEqual(['queue_full', 'queue_full']);
    expect(recorded.dropped).toEqual(['queue_full', 'queue_full']);
    expect(said('outbox full: oldest notification dropped').map((line) => line.incidents)).toEqual([[], [{ alertname: 'AvalancheCheckFailing', check: 'x', status: 'firing', fingerprint: 'x' }]]);
    expect(recorded.lengths.at(-1)).toBe(10_000);
    await settle(outbox);
    // stop() waits for the head in flight; a receiver that never answers is the caller's to bound
    void outbox.stop();
    await waitFor('the journal written', () => outbox.pendingWrites() === undefined);
    const restarted = outboxIn(dir, never);
    expect(restarted.outbox.queued().map((item) => item.batch.id).slice(0, 2)).toEqual(['q1', 'q2']);
    expect(restarted.outbox.length).toBe(10_000);
    void restarted.outbox.stop();
  });
});

describe("the receiver's answer", () => {
  it("reaches its sender: a Telegram resolve replies to the message that announced the incident, also after a restart", { timeout: 30_000 }, async () => {
    const dir = freshDir();
    const config = parseConfig(`state_dir: ${dir}\nalerts:\n  receivers:\n    - {name: tg, telegram: {bot_token: "123456789:AAbcdefghijklmnopqrstuvwxyz012345678", chat_id: -100}}\n`, join(dir, 'c.yaml'), {});
    const receiver = config.alerts.receivers[0]!;
    const replyTo = (request: OutgoingRequest) => (JSON.parse(request.body!) as { reply_parameters?: { message_id: number } }).reply_parameters?.message_id;
    const told: Array<number | undefined> = [];
    let messageId = 76;
    const bot = async (request: OutgoingRequest) => {
      told.push(replyTo(request));
      return JSON.stringify({ ok: true, result: { message_id: ++messageId } });
    };
    const first = outboxIn(dir, bot, { receiver });
    first.outbox.enqueue(batch('firing', [notice('x')]));
    first.outbox.enqueue(batch('updated', [{ ...notice('x'), kind: 'updated' }]));
    await waitFor('both sent', () => first.outbox.length === 0);
    await first.outbox.stop();
    const restarted = outboxIn(dir, bot, { receiver });
    restarted.outbox.enqueue(batch('resolved', [notice('x', 'resolved')]));
    await waitFor('the resolve sent', () => restarted.outbox.length === 0);
    await restarted.outbox.stop();
    expect(told).toEqual([undefined, 77, 77]);
  });
});

describe('a re-send queued at a stop', () => {
  it('is dropped at the next start, for good, as a batch of only firing alerts to every target is; nothing else is', { timeout: 30_000 }, async () => {
    const dir = freshDir();
    const stopped = outboxIn(dir, refused);
    const everyTarget = { target: '*' };
    stopped.outbox.enqueue(batch('marked', [notice('a')], { resend: true, target: 'node-1' }));
    stopped.outbox.enqueue(batch('unmarked', [notice('a'), notice('b')], everyTarget));
    stopped.outbox.enqueue(batch('muted', [notice('a')], { ...everyTarget, muted: true }));
    stopped.outbox.enqueue(batch('with-silences', [notice('a')], { ...everyTarget, silences: [] }));
    stopped.outbox.enqueue(batch('empty', [], everyTarget));
    stopped.outbox.enqueue(batch('with-a-resolve', [notice('a'), notice('c', 'resolved')], everyTarget));
    stopped.outbox.enqueue(batch('one-target', [notice('a')]));
    await stopped.outbox.stop();

    const kept = ['muted', 'with-silences', 'empty', 'with-a-resolve', 'one-target'];
    const started = outboxIn(dir, never);
    expect(started.outbox.queued().map((item) => item.batch.id)).toEqual(kept);
    expect(started.said('undelivered re-sends of firing alerts dropped: what still fires is re-sent once confirmed')).toEqual([expect.objectContaining({ receiver: 'hook', dropped: 2 })]);
    expect(started.recorded.lengths).toEqual([kept.length]);
    await settle(started.outbox);
    void started.outbox.stop();
    await waitFor('the journal written', () => started.outbox.pendingWrites() === undefined);
    const again = outboxIn(dir, never);
    expect(again.outbox.queued().map((item) => item.batch.id)).toEqual(kept);
    expect(again.said('undelivered re-sends of firing alerts dropped: what still fires is re-sent once confirmed')).toEqual([]);
    void again.outbox.stop();
  });
});

describe("the receiver's open incidents", () => {
  const incident = (fingerprint: string, at: number): OpenIncident => ({ at, alert: notice(fingerprint) });

  it('adopted ones are kept through a restart; one already open keeps its first announcement', { timeout: 30_000 }, async () => {
    const dir = freshDir();
    const { outbox } = outboxIn(dir, async () => undefined);
    outbox.enqueue(batch('told', [notice('mine')], { createdAt: 7 }));
    outbox.adopt([incident('mine', 99), incident('theirs', 50)]);
    outbox.adopt([incident('theirs', 60)]);
    expect([...outbox.openIncidents().entries()].map(([fingerprint, open]) => [fingerprint, open.at])).toEqual([
      ['mine', 7],
      ['theirs', 50],
    ]);
    await waitFor('delivered', () => outbox.length === 0);
    await outbox.stop();
    const restarted = outboxIn(dir, never);
    expect([...restarted.outbox.openIncidents().entries()].map(([fingerprint, open]) => [fingerprint, open.at])).toEqual([
      ['mine', 7],
      ['theirs', 50],
    ]);
    expect(restarted.said('undelivered notifications restored')).toEqual([]);
    await restarted.outbox.stop();
  });

  it('handed over ones are closed here through a restart, in one journal line per tick', { timeout: 30_000 }, async () => {
    const dir = freshDir();
    const { outbox } = outboxIn(dir, never);
    outbox.adopt([incident('a', 1), incident('b', 2), incident('c', 3)]);
    await settle(outbox);
    const linesBefore = readFileSync(outboxFile(dir, 'hook'), 'utf8').split('\n').length;
    outbox.handOver(['a']);
    outbox.handOver(['b', 'not-open-here']);
    outbox.handOver(['not-open-here']);
    expect([...outbox.openIncidents().keys()]).toEqual(['c']);
    await settle(outbox);
    const lines = readFileSync(outboxFile(dir, 'hook'), 'utf8').split('\n');
    expect(lines.length - linesBefore).toBe(1);
    expect(JSON.parse(lines.at(-2)!)).toEqual({ open: [incident('c', 3)] });
    // nothing handed over: no line
    outbox.handOver(['a']);
    await settle(outbox);
    expect(readFileSync(outboxFile(dir, 'hook'), 'utf8').split('\n').length).toBe(lines.length);
    // a later tick's handover writes its own line
    outbox.handOver(['c']);
    await settle(outbox);
    await outbox.stop();
    const restarted = outboxIn(dir, never);
    expect([...restarted.outbox.openIncidents().keys()]).toEqual([]);
    await restarted.outbox.stop();
  });

  it('a journal from before they were recorded takes them from the alert states once; a new one does not', { timeout: 30_000 }, async () => {
    const dir = freshDir();
    const told = [incident('announced', 4), incident('queued', 8)];
    // an older version's journal: one queued firing, no `open` line
    mkdirSync(join(dir, 'outbox'), { recursive: true });
    writeFileSync(outboxFile(dir, 'hook'), `${JSON.stringify({ add: { batch: batch('old', [notice('queued')], { createdAt: 9 }), attempts: 0, nextAttemptAt: 0 } })}\n`);
    const upgraded = outboxIn(dir, never);
    upgraded.outbox.recordOpen(() => told);
    upgraded.outbox.recordOpen(() => [incident('later', 5)]);
    // what the journal knows wins over the states: the queued firing keeps its own time
    const opened = (outbox: Outbox) => [...outbox.openIncidents().entries()].map(([fingerprint, open]) => [fingerprint, open.at]);
    expect(opened(upgraded.outbox)).toEqual([
      ['queued', 9],
      ['announced', 4],
    ]);
    await settle(upgraded.outbox);
    void upgraded.outbox.stop();
    await waitFor('the journal written', () => upgraded.outbox.pendingWrites() === undefined);
    const restarted = outboxIn(dir, never);
    restarted.outbox.recordOpen(() => [incident('later', 5)]);
    expect(opened(restarted.outbox)).toEqual([
      ['queued', 9],
      ['announced', 4],
    ]);
    void restarted.outbox.stop();

    const fresh = outboxIn(freshDir(), never);
    fresh.outbox.recordOpen(() => told);
    expect([...fresh.outbox.openIncidents().keys()]).toEqual([]);
    await fresh.outbox.stop();
  });

  it('an unreadable journal is set aside and the alert states say what is open', { timeout: 30_000 }, async () => {
    const dir = freshDir();
    mkdirSync(outboxFile(dir, 'hook'), { recursive: true }); // a directory where the file should be
    const { outbox, said } = outboxIn(dir, never);
    expect(said('outbox file unreadable; set aside')).toEqual([expect.objectContaining({ level: 50, receiver: 'hook', file: outboxFile(dir, 'hook') })]);
    const [line] = said('outbox file unreadable; set aside');
    expect(existsSync(String(line!.movedTo))).toBe(true);
    outbox.recordOpen(() => [incident('announced', 4)]);
    expect([...outbox.openIncidents().keys()]).toEqual(['announced']);
    await outbox.stop();
  });

  it('survive compaction: the rewritten journal keeps the open incidents beside the queue', { timeout: 60_000 }, async () => {
    const dir = freshDir();
    const { outbox } = outboxIn(dir, refused);
    outbox.adopt([incident('adopted', 1)]);
    outbox.enqueue(batch('firing', [notice('told')], { createdAt: 2 }));
    await settle(outbox);
    // handovers of incidents never open here write nothing; adopting and handing over one does, a line a tick
    for (let i = 0; i < 1_100; i++) {
      outbox.adopt([incident(`passing-${i}`, 3)]);
      outbox.handOver([`passing-${i}`]);
      await settle(outbox);
    }
    await outbox.stop();
    const lines = readFileSync(outboxFile(dir, 'hook'), 'utf8').split('\n').filter(Boolean);
    expect(lines.length).toBeLessThan(1_100);
    const restarted = outboxIn(dir, never);
    expect([...restarted.outbox.openIncidents().keys()].sort()).toEqual(['adopted', 'told']);
    expect(restarted.outbox.queued().map((item) => item.batch.id)).toEqual(['firing']);
    restarted.outbox.recordOpen(() => [incident('from-the-states', 4)]);
    expect(restarted.outbox.openIncidents().has('from-the-states')).toBe(false);
    void restarted.outbox.stop();
  });
});

describe('what the outbox reads at a start', () => {
  it('a torn last line and unreadable lines are reported, and the rest restored', { timeout: 30_000 }, async () => {
    const dir = freshDir();
    mkdirSync(join(dir, 'outbox'), { recursive: true });
    const file = outboxFile(dir, 'hook');
    writeFileSync(file, `${JSON.stringify({ add: { batch: batch('kept'), attempts: 0, nextAttemptAt: 0 } })}\nnot json\n`);
    appendFileSync(file, '{"add":{"bat');
    const { outbox, said } = outboxIn(dir, never);
    expect(outbox.queued().map((item) => item.batch.id)).toEqual(['kept']);
    expect(said('outbox journal ended in a partial line (a crash mid-write); cut off')).toEqual([expect.objectContaining({ level: 40, receiver: 'hook', file })]);
    expect(said('outbox journal lines unreadable; skipped')).toEqual([expect.objectContaining({ level: 50, receiver: 'hook', file, lines: [2], skipped: 1 })]);
    void outbox.stop();
  });

  it('a clean journal is read without a word of trouble', { timeout: 30_000 }, async () => {
    const dir = freshDir();
    const first = outboxIn(dir, never);
    first.outbox.enqueue(batch('one'));
    await settle(first.outbox);
    void first.outbox.stop();
    await waitFor('the journal written', () => first.outbox.pendingWrites() === undefined);
    const { logged } = outboxIn(dir, never);
    expect(logged.filter((line) => (line.level as number) >= 40)).toEqual([]);
  });

  it("unreadable receiver notes are set aside and said so; the queue is kept", { timeout: 30_000 }, async () => {
    const dir = freshDir();
    const notes = notesFile(dir, 'hook');
    mkdirSync(dirname(notes), { recursive: true });
    writeFileSync(notes, '{"not": "notes"');
    const { said } = outboxIn(dir, never);
    const [line] = said('receiver notes unreadable; set aside (resolves are sent without their thread)');
    expect(line).toMatchObject({ level: 50, receiver: 'hook', file: notes });
    expect(readdirSync(dirname(notes)).length).toBeGreaterThan(0);
  });
});
