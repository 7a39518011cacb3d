import { appendFileSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { replayOutbox, type OutboxItem } from '../../src/alerts/outbox.js';
import { Journal } from '../../src/state/journal.js';

const item = (id: string): OutboxItem => ({ batch: { id, target: 't', createdAt: 0, alerts: [] }, attempts: 0, nextAttemptAt: 0 });

describe('outbox journal', () => {
  it('replays adds, deliveries and retries in order; a torn last line is ignored', () => {
    const file = join(mkdtempSync(join(tmpdir(), 'avahealth-journal-')), 'q.jsonl');
    const journal = new Journal<Parameters<typeof replayOutbox>[0][number]>(file);
    journal.append([{ add: item('a') }, { add: item('b') }, { add: item('c') }]);
    journal.append([{ done: 'a' }, { retry: { id: 'b', attempts: 2, nextAttemptAt: 99, lastError: 'HTTP 500' } }]);
    journal.close();
    appendFileSync(file, '{"done":"b"'); // a crash in the middle of writing this line
    const read = new Journal<Parameters<typeof replayOutbox>[0][number]>(file).read();
    expect(read.torn).toBe(true);
    expect(replayOutbox(read.ops).map((i) => [i.batch.id, i.attempts, i.nextAttemptAt])).toEqual([
      ['b', 2, 99],
      ['c', 0, 0],
    ]);
  });

  it('compacts to the live items once it has grown, whatever the history', () => {
    const file = join(mkdtempSync(join(tmpdir(), 'avahealth-journal-')), 'q.jsonl');
    const journal = new Journal<Parameters<typeof replayOutbox>[0][number]>(file);
    for (let i = 0; i < 3000; i++) {
      journal.append([{ add: item(`x${i}`) }]);
      if (i < 2990) journal.append([{ done: `x${i}` }]);
    }
    const live = Array.from({ length: 10 }, (_, i) => ({ add: item(`x${2990 + i}`) }));
    journal.compact(live);
    journal.close();
    expect(readFileSync(file, 'utf8').trim().split('\n')).toHaveLength(10);
    expect(replayOutbox(new Journal<Parameters<typeof replayOutbox>[0][number]>(file).read().ops).map((i) => i.batch.id)).toEqual(live.map((l) => l.add.batch.id));
  });
});
