/**
 * A receiver's notes (src/alerts/receivers/notes.ts): what a sender remembers beyond one delivery
 * (the Telegram message a resolve replies to), on disk after each change, read back at a start,
 * the newest kept within the cap, a write that fails reported and one that works again said so.
 */
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { notesFile, ReceiverNotes } from '../../src/alerts/receivers/notes.js';
import { onStateWriteChange, type StateWriteChange } from '../../src/state/write-health.js';

const dir = () => mkdtempSync(join(tmpdir(), 'avahealth-notes-'));

describe("a receiver's notes", () => {
  it('are on disk once written() settles, read back by the next start; a key set to nothing is gone', async () => {
    const path = notesFile(dir(), 'tg');
    const notes = new ReceiverNotes(path);
    void notes.update({ a: '1', b: '2' });
    void notes.update({ a: undefined, c: '3' });
    await notes.written();
    expect([...notes.keys()]).toEqual(['b', 'c']);
    const again = new ReceiverNotes(path);
    expect([...again.keys()]).toEqual(['b', 'c']);
    expect([again.get('b'), again.get('a')]).toEqual(['2', undefined]);
    expect(again.problem).toBeUndefined();
  });

  it('keep the newest 1000: a key written again counts as new', async () => {
    const path = notesFile(dir(), 'tg');
    const notes = new ReceiverNotes(path);
    await notes.update(Object.fromEntries(Array.from({ length: 1000 }, (_, i) => [`k${i}`, String(i)])));
    await notes.update({ k0: 'again' });
    expect([...notes.keys()]).toHaveLength(1000);
    await notes.update({ k1000: 'new' });
    const kept = [...new ReceiverNotes(path).keys()];
    expect(kept).toHaveLength(1000);
    expect(kept.slice(0, 2)).toEqual(['k2', 'k3']); // k1 was the oldest left
    expect(kept.slice(-2)).toEqual(['k0', 'k1000']);
  });

  it('a file that does not read is set aside and the notes start empty, saying why', () => {
    const stateDir = dir();
    const path = notesFile(stateDir, 'tg');
    mkdirSync(join(path, '..'), { recursive: true });
    writeFileSync(path, '{"notes": {"a": 1}}');
    const notes = new ReceiverNotes(path);
    expect([...notes.keys()]).toEqual([]);
    expect(notes.problem).toEqual({ error: 'unexpected content: notes.a: Invalid input: expected string, received number', movedTo: expect.stringMatching(/\/tg\.json\.corrupt-[\dT:.Z-]+$/) });
    expect(readdirSync(join(path, '..'))).toEqual([notes.problem!.movedTo!.split('/').at(-1)]);
  });

  it('a write that fails is reported, not thrown; the next that works says it works again', async () => {
    const stateDir = dir();
    const path = notesFile(stateDir, 'tg');
    const folder = join(path, '..');
    mkdirSync(join(folder, '..'), { recursive: true });
    writeFileSync(folder, 'a file where the folder should be');
    const changes: StateWriteChange[] = [];
    const stop = onStateWriteChange((change) => change.file === path && changes.push(change));
    try {
      const notes = new ReceiverNotes(path);
      await notes.update({ a: '1' });
      expect(changes).toEqual([{ file: path, error: expect.stringMatching(/^E[A-Z]+ /) }]);
      rmSync(folder);
      await notes.update({ b: '2' });
      expect(changes.slice(1)).toEqual([{ file: path, recovered: true }]);
      expect([...new ReceiverNotes(path).keys()]).toEqual(['a', 'b']);
    } finally {
      stop();
    }
  });
});
