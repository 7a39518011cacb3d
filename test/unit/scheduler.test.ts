import { describe, expect, it } from 'vitest';
import { phaseOffset, Scheduler } from '../../src/scheduler/scheduler.js';
import { waitFor } from '../helpers/harness.js';

describe('scheduler', () => {
  it('phase offsets are deterministic, inside the interval, and spread targets out', () => {
    expect(phaseOffset('validator-1', 15_000)).toBe(phaseOffset('validator-1', 15_000));
    const offsets = Array.from({ length: 200 }, (_, i) => phaseOffset(`node-${i}`, 15_000));
    expect(offsets.every((o) => o >= 0 && o < 15_000)).toBe(true);
    const buckets = new Set(offsets.map((o) => Math.floor(o / 1500)));
    expect(buckets.size).toBe(10);
  });

  it('polls at once, then on the interval; an overrunning poll turns ticks into counted skips', async () => {
    const polls: string[] = [];
    const skips: string[] = [];
    let release!: () => void;
    const blocked = new Promise<void>((resolve) => (release = resolve));
    const scheduler = new Scheduler({
      poll: async (name) => {
        polls.push(name);
        if (name === 'stuck') await blocked;
      },
      onSkip: (name) => skips.push(name),
    });
    scheduler.setSchedules([
      { name: 'stuck', intervalMs: 20 },
      { name: 'fine', intervalMs: 20 },
    ]);
    scheduler.start();
    expect(polls).toEqual(['stuck', 'fine']); // the first round starts at once
    await waitFor('fine polled 3 times and stuck skipped twice', () => polls.filter((p) => p === 'fine').length >= 3 && skips.length >= 2);
    expect(polls.filter((p) => p === 'stuck')).toEqual(['stuck']);
    expect(new Set(skips)).toEqual(new Set(['stuck']));
    release();
    await waitFor('stuck polled again after it finished', () => polls.filter((p) => p === 'stuck').length >= 2);
    await scheduler.stop();
    const after = polls.length;
    await new Promise((resolve) => setTimeout(resolve, 60));
    expect(polls.length).toBe(after); // stopped means stopped
  });

  it('removes jobs, and polls a target added while running at once', async () => {
    const polls: string[] = [];
    const scheduler = new Scheduler({ poll: async (name) => void polls.push(name), onSkip: () => undefined });
    scheduler.setSchedules([{ name: 'a', intervalMs: 60_000 }]);
    scheduler.start();
    scheduler.setSchedules([{ name: 'b', intervalMs: 60_000 }]);
    expect(polls).toEqual(['a', 'b']);
    await scheduler.stop();
  });

  it('runs cron schedules through croner', async () => {
    const polls: string[] = [];
    const scheduler = new Scheduler({ poll: async (name) => void polls.push(name), onSkip: () => undefined });
    scheduler.setSchedules([{ name: 'c', intervalMs: 15_000, cron: '* * * * * *' }]);
    scheduler.start();
    await waitFor('a cron-triggered poll after the immediate one', () => polls.length >= 2, 5_000);
    await scheduler.stop();
    expect(polls.every((p) => p === 'c')).toBe(true);
  });

  it('stop() waits for in-flight polls', async () => {
    let finished = false;
    const scheduler = new Scheduler({
      poll: () => new Promise<void>((resolve) => setTimeout(() => ((finished = true), resolve()), 50)),
      onSkip: () => undefined,
    });
    scheduler.setSchedules([{ name: 'x', intervalMs: 60_000 }]);
    scheduler.start();
    await scheduler.stop();
    expect(finished).toBe(true);
  });
});
