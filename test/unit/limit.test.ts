/** The probes' request limit (src/util/limit.ts): how many run at once, in which order the others start. */
import { describe, expect, it } from 'vitest';
import { limit } from '../../src/util/limit.js';

/** A call that settles when told, recording when it started. */
function gated(started: string[], name: string) {
  let settle!: (ok: boolean) => void;
  const done = new Promise<string>((resolve, reject) => (settle = (ok) => (ok ? resolve(name) : reject(new Error(name)))));
  return { run: () => (started.push(name), done), settle };
}

describe('limit', () => {
  it('runs at most `concurrency` calls at once and starts the others in the order they came', async () => {
    const run = limit(2);
    const started: string[] = [];
    const calls = ['a', 'b', 'c', 'd', 'e'].map((name) => gated(started, name));
    const results = calls.map((c) => run(c.run));
    expect(started).toEqual(['a', 'b']);
    calls[1]!.settle(true);
    await results[1];
    await new Promise((r) => setImmediate(r));
    expect(started).toEqual(['a', 'b', 'c']);
    // a rejection frees its slot as a resolve does, and reaches the caller
    calls[0]!.settle(false);
    await expect(results[0]).rejects.toThrow('a');
    await new Promise((r) => setImmediate(r));
    expect(started).toEqual(['a', 'b', 'c', 'd']);
    for (const c of calls.slice(2)) c.settle(true);
    await new Promise((r) => setImmediate(r));
    expect(started).toEqual(['a', 'b', 'c', 'd', 'e']);
    expect(await Promise.all(results.slice(1))).toEqual(['b', 'c', 'd', 'e']);
  });

  it('frees the slot of a call that throws before returning a promise', async () => {
    const run = limit(1);
    await expect(run(() => { throw new Error('sync'); })).rejects.toThrow('sync');
    expect(await run(async () => 'next')).toBe('next');
  });

  it('keeps its count right through many calls, the queue emptied and filled again', async () => {
    const run = limit(3);
    let now = 0;
    let most = 0;
    const task = async () => {
      most = Math.max(most, ++now);
      await new Promise((r) => setImmediate(r));
      now--;
    };
    for (let round = 0; round < 3; round++) await Promise.all(Array.from({ length: 50 }, () => run(task)));
    expect(most).toBe(3);
    expect(now).toBe(0);
  });

  it('refuses a concurrency that is not a positive integer', () => {
    expect(() => limit(0)).toThrow(TypeError);
    expect(() => limit(1.5)).toThrow(TypeError);
  });
});
