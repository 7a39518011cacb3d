import { appendFileSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { replayJournal, type OutboxItem } from '../../src/alerts/outbox.js';
import { outboxOpSchema } from '../../src/alerts/persisted.js';
import { Journal } from '../../src/state/journal.js';
import { stateWriteFailures } from '../../src/state/write-health.js';

const item = (id: string): OutboxItem => ({ batch: { id, target: 't', createdAt: 0, alerts: [] }, attempts: 0, nextAttemptAt: 0 });

describe('outbox journal', () => {
  it('replays adds, deliveries and retries in order; a torn last line is ignored', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'avahealth-journal-')), 'q.jsonl');
    const journal = new Journal(file, outboxOpSchema);
    void journal.append([{ add: item('a') }, { add: item('b') }, { add: item('c') }]);
    void journal.append([{ done: 'a' }, { retry: { id: 'b', attempts: 2, nextAttemptAt: 99, lastError: 'HTTP 500' } }]);
    await journal.close();
    appendFileSync(file, '{"done":"b"'); // a crash in the middle of writing this line
    const read = new Journal(file, outboxOpSchema).read();
    expect(read.torn).toBe(true);
    expect(replayJournal(read.ops).items.map((i) => [i.batch.id, i.attempts, i.nextAttemptAt])).toEqual([
      ['b', 2, 99],
      ['c', 0, 0],
    ]);
  });

  it('cuts a torn last line off the file, so the next append starts a fresh line and the restart after reads everything', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'avahealth-journal-')), 'q.jsonl');
    const first = new Journal(file, outboxOpSchema);
    await first.append([{ add: item('a') }]);
    await first.close();
    appendFileSync(file, '{"add":{"batch":{"id":"b"'); // killed in the middle of this append
    const second = new Journal(file, outboxOpSchema);
    expect(second.read()).toMatchObject({ torn: true, skipped: [] });
    expect(readFileSync(file, 'utf8')).toBe(`${JSON.stringify({ add: item('a') })}\n`);
    await second.append([{ add: item('c') }]);
    await second.close();
    const third = new Journal(file, outboxOpSchema).read();
    expect(third).toMatchObject({ torn: false, skipped: [] });
    expect(replayJournal(third.ops).items.map((i) => i.batch.id)).toEqual(['a', 'c']);
  });

  it('skips unreadable or wrongly shaped lines one by one and keeps the rest', () => {
    const file = join(mkdtempSync(join(tmpdir(), 'avahealth-journal-')), 'q.jsonl');
    const good = (id: string) => JSON.stringify({ add: item(id) });
    writeFileSync(file, [good('a'), 'not json', good('b'), 'null', '{"add":{"batch":null}}', '{"done":5}', good('c'), '{"done":"b"}', ''].join('\n'));
    const read = new Journal(file, outboxOpSchema).read();
    expect(read.skipped).toEqual([2, 4, 5, 6]);
    expect(read.firstProblem).toMatch(/JSON/);
    expect(replayJournal(read.ops).items.map((i) => i.batch.id)).toEqual(['a', 'c']);
  });

  it('compacts to the live items once it has grown, whatever the history', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'avahealth-journal-')), 'q.jsonl');
    const live = new Map<string, OutboxItem>();
    const journal = new Journal(file, outboxOpSchema, { count: () => live.size, ops: () => [...live.values()].map((add) => ({ add })) });
    for (let i = 0; i < 3000; i++) {
      live.set(`x${i}`, item(`x${i}`));
      void journal.append([{ add: item(`x${i}`) }]);
      if (i < 2990) {
        live.delete(`x${i}`);
        void journal.append([{ done: `x${i}` }], { lazy: i % 2 === 0 });
      }
      if (i % 7 === 0) await new Promise((resolve) => setImmediate(resolve)); // batches of several sizes, some while a write is under way
    }
    await journal.close();
    const lines = readFileSync(file, 'utf8').trim().split('\n');
    expect(lines.length).toBeLessThan(6000 / 2); // rewritten at least once on the way
    expect(replayJournal(new Journal(file, outboxOpSchema).read().ops).items.map((i) => i.batch.id)).toEqual([...live.keys()]);
  });

  it('group commit: everything appended in one tick is one write and one fdatasync, off the event loop, in order', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'avahealth-journal-')), 'q.jsonl');
    const journal = new Journal(file, outboxOpSchema);
    const written = Array.from({ length: 500 }, (_, i) => journal.append([{ add: item(`n${i}`) }]));
    // nothing written yet: the append returned without touching the disk
    expect(existsSync(file)).toBe(false);
    expect(await Promise.all(written)).toEqual(written.map(() => true));
    expect(journal.stats).toEqual({ records: 500, writes: 1, syncs: 1 });
    expect(replayJournal(new Journal(file, outboxOpSchema).read().ops).items.map((i) => i.batch.id)).toEqual(written.map((_, i) => `n${i}`));
    await journal.close();
  });

  it('operations appended while a write is under way share the next one; lazy ones ride along or are written on close', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'avahealth-journal-')), 'q.jsonl');
    const journal = new Journal(file, outboxOpSchema);
    const first = journal.append([{ add: item('a') }]);
    await new Promise((resolve) => setImmediate(resolve)); // the first write has started
    const lazy = journal.append([{ done: 'a' }], { lazy: true });
    const second = [journal.append([{ add: item('b') }]), journal.append([{ add: item('c') }])];
    await Promise.all([first, ...second, lazy]);
    expect(journal.stats).toEqual({ records: 4, writes: 2, syncs: 2 });
    expect(readFileSync(file, 'utf8').trim().split('\n').map((l) => Object.keys(JSON.parse(l))[0])).toEqual(['add', 'done', 'add', 'add']);

    void journal.append([{ done: 'b' }], { lazy: true }); // nothing else to ride along with
    expect(journal.pendingWrites()).toBeUndefined(); // a lazy line holds back nothing that waits for durability
    await journal.close();
    expect(journal.stats).toEqual({ records: 5, writes: 3, syncs: 3 });
    expect(replayJournal(new Journal(file, outboxOpSchema).read().ops).items.map((i) => i.batch.id)).toEqual(['c']);
  });

  it('a failed write resolves false and is counted, and the journal writes again once it can', async () => {
    const dir = join(mkdtempSync(join(tmpdir(), 'avahealth-journal-')), 'outbox');
    const file = join(dir, 'q.jsonl');
    writeFileSync(dir, 'not a directory'); // what a broken volume looks like to open()
    const journal = new Journal(file, outboxOpSchema);
    const failuresBefore = stateWriteFailures();
    expect(await journal.append([{ add: item('a') }])).toBe(false);
    expect(stateWriteFailures()).toBe(failuresBefore + 1);
    rmSync(dir);
    expect(await journal.append([{ add: item('b') }])).toBe(true);
    await journal.close();
    expect(new Journal(file, outboxOpSchema).read()).toMatchObject({ skipped: [], torn: false });
    expect(replayJournal(new Journal(file, outboxOpSchema).read().ops).items.map((i) => i.batch.id)).toEqual(['b']);
  });

  it('an append after close is on disk when append returns (an outbox replaced on reload reads the file next)', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'avahealth-journal-')), 'q.jsonl');
    const journal = new Journal(file, outboxOpSchema);
    await journal.append([{ add: item('a') }]);
    await journal.close();
    void journal.append([{ add: item('late') }]);
    expect(replayJournal(new Journal(file, outboxOpSchema).read().ops).items.map((i) => i.batch.id)).toEqual(['a', 'late']);
  });
});
