import { appendFileSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { replayOutbox, type OutboxItem } from '../../src/alerts/outbox.js';
import { outboxOpSchema } from '../../src/alerts/persisted.js';
import { Journal } from '../../src/state/journal.js';

const item = (id: string): OutboxItem => ({ batch: { id, target: 't', createdAt: 0, alerts: [] }, attempts: 0, nextAttemptAt: 0 });

describe('outbox journal', () => {
  it('replays adds, deliveries and retries in order; a torn last line is ignored', () => {
    const file = join(mkdtempSync(join(tmpdir(), 'avahealth-journal-')), 'q.jsonl');
    const journal = new Journal(file, outboxOpSchema);
    journal.append([{ add: item('a') }, { add: item('b') }, { add: item('c') }]);
    journal.append([{ done: 'a' }, { retry: { id: 'b', attempts: 2, nextAttemptAt: 99, lastError: 'HTTP 500' } }]);
    journal.close();
    appendFileSync(file, '{"done":"b"'); // a crash in the middle of writing this line
    const read = new Journal(file, outboxOpSchema).read();
    expect(read.torn).toBe(true);
    expect(replayOutbox(read.ops).map((i) => [i.batch.id, i.attempts, i.nextAttemptAt])).toEqual([
      ['b', 2, 99],
      ['c', 0, 0],
    ]);
  });

  it('cuts a torn last line off the file, so the next append starts a fresh line and the restart after reads everything', () => {
    const file = join(mkdtempSync(join(tmpdir(), 'avahealth-journal-')), 'q.jsonl');
    const first = new Journal(file, outboxOpSchema);
    first.append([{ add: item('a') }]);
    first.close();
    appendFileSync(file, '{"add":{"batch":{"id":"b"'); // killed in the middle of this append
    const second = new Journal(file, outboxOpSchema);
    expect(second.read()).toMatchObject({ torn: true, skipped: [] });
    expect(readFileSync(file, 'utf8')).toBe(`${JSON.stringify({ add: item('a') })}\n`);
    second.append([{ add: item('c') }]);
    second.close();
    const third = new Journal(file, outboxOpSchema).read();
    expect(third).toMatchObject({ torn: false, skipped: [] });
    expect(replayOutbox(third.ops).map((i) => i.batch.id)).toEqual(['a', 'c']);
  });

  it('skips unreadable or wrongly shaped lines one by one and keeps the rest', () => {
    const file = join(mkdtempSync(join(tmpdir(), 'avahealth-journal-')), 'q.jsonl');
    const good = (id: string) => JSON.stringify({ add: item(id) });
    writeFileSync(file, [good('a'), 'not json', good('b'), 'null', '{"add":{"batch":null}}', '{"done":5}', good('c'), '{"done":"b"}', ''].join('\n'));
    const read = new Journal(file, outboxOpSchema).read();
    expect(read.skipped).toEqual([2, 4, 5, 6]);
    expect(read.firstProblem).toMatch(/JSON/);
    expect(replayOutbox(read.ops).map((i) => i.batch.id)).toEqual(['a', 'c']);
  });

  it('compacts to the live items once it has grown, whatever the history', () => {
    const file = join(mkdtempSync(join(tmpdir(), 'avahealth-journal-')), 'q.jsonl');
    const journal = new Journal(file, outboxOpSchema);
    for (let i = 0; i < 3000; i++) {
      journal.append([{ add: item(`x${i}`) }]);
      if (i < 2990) journal.append([{ done: `x${i}` }]);
    }
    const live = Array.from({ length: 10 }, (_, i) => ({ add: item(`x${2990 + i}`) }));
    journal.compact(live);
    journal.close();
    expect(readFileSync(file, 'utf8').trim().split('\n')).toHaveLength(10);
    expect(replayOutbox(new Journal(file, outboxOpSchema).read().ops).map((i) => i.batch.id)).toEqual(live.map((l) => l.add.batch.id));
  });
});
