/**
 * A poll that timed out is over: the scheduler must not count it as still running when the next
 * tick comes. A node's timeout is capped at its interval (1 s here, with the default 5 s timeout),
 * so a node that never answers in time has every poll end exactly one interval after it began.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SimServer } from '../../src/sim/server.js';
import { sample, scrape, setScenario, startDaemon, startSim, waitForRounds, type RunningDaemon } from '../helpers/harness.js';

describe('a poll that timed out no longer counts as running', () => {
  let sim: SimServer;
  let d: RunningDaemon;

  beforeAll(async () => {
    sim = await startSim([{ name: 'stuck' }]);
    await setScenario(sim, 'stuck', 'slow', { delayMs: 60_000 });
    d = await startDaemon(`
nodes:
  - name: stuck
    url: ${sim.nodeUrl('stuck')}
    interval: 1s
    endpoints: [health]
    validator: false
`);
  });

  afterAll(async () => {
    await d?.stop();
    await sim?.close();
  });

  it('polls a node that times out on every tick, and skips none', async () => {
    await waitForRounds(d, 'stuck', 5);
    const m = await scrape(d.url);
    expect(sample(m, 'avahealth_probe_failures_total', { target: 'stuck', endpoint: 'health', view: 'all', reason: 'timeout' })).toBeGreaterThanOrEqual(5);
    expect(sample(m, 'avahealth_scheduler_skipped_polls_total', { target: 'stuck' })).toBe(0);
    expect(d.logs()).not.toContain('poll skipped');
  });
});
