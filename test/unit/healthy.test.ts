/**
 * `/-/healthy` says whether the scheduler is alive (src/http/routes/health.ts over
 * Scheduler.lagMs): 503 with the reason once a job's timer is overdue or a poll has outlived its
 * deadline by more than the limit, 200 again once the scheduler has caught up.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { healthRoutes } from '../../src/http/routes/health.js';
import type { Route } from '../../src/http/route.js';
import { Scheduler } from '../../src/scheduler/scheduler.js';
import { waitFor } from '../helpers/harness.js';

const LIMIT_MS = 300;

function healthyOf(scheduler: Scheduler): () => Promise<[number, string]> {
  const routes: Route[] = healthRoutes({ ready: () => true, schedulerLagMs: () => scheduler.lagMs() }, LIMIT_MS);
  const route = routes.find((r) => r.path === '/-/healthy')!;
  return async () => {
    const reply = await route.handle({ method: 'GET', path: '/-/healthy', params: [], query: new URLSearchParams(), headers: {}, json: async () => null });
    return [reply.status, String(reply.body)];
  };
}

describe('/-/healthy', () => {
  const schedulers: Scheduler[] = [];
  afterEach(async () => {
    for (const s of schedulers.splice(0)) void s.stop();
  });

  it('is 503 while a poll hangs past its deadline, and 200 again once it settles', async () => {
    let settle!: () => void;
    let calls = 0;
    const scheduler = new Scheduler({ poll: () => (calls++ === 0 ? new Promise<void>((resolve) => (settle = resolve)) : Promise.resolve()), onSkip: () => {} });
    schedulers.push(scheduler);
    scheduler.setSchedules([{ name: 'node-1', intervalMs: 50, deadlineMs: 20 }]);
    const healthy = healthyOf(scheduler);
    scheduler.start();
    expect(await healthy()).toEqual([200, 'Healthy\n']);
    const [status, body] = await waitFor('a 503', async () => {
      const answer = await healthy();
      return answer[0] === 503 ? answer : undefined;
    });
    expect(status).toBe(503);
    expect(body).toMatch(/^Unhealthy: the scheduler is \d+\.\d s behind \(limit 0\.3 s\)\n$/);
    settle();
    await waitFor('healthy again', async () => (await healthy())[0] === 200);
  });

  it('is 503 when the event loop was held past the limit before the timers could run, 200 once they did', async () => {
    const scheduler = new Scheduler({ poll: () => Promise.resolve(), onSkip: () => {} });
    schedulers.push(scheduler);
    scheduler.setSchedules([{ name: 'node-1', intervalMs: 50 }]);
    const healthy = healthyOf(scheduler);
    scheduler.start();
    expect(await healthy()).toEqual([200, 'Healthy\n']);
    const heldUntil = Date.now() + LIMIT_MS + 200;
    while (Date.now() < heldUntil); // the event loop held: no timer runs
    expect((await healthy())[0]).toBe(503);
    await waitFor('healthy again', async () => (await healthy())[0] === 200);
  });

  it('is 200 for a scheduler with nothing to do, and before it starts', async () => {
    const scheduler = new Scheduler({ poll: () => Promise.resolve(), onSkip: () => {} });
    schedulers.push(scheduler);
    const healthy = healthyOf(scheduler);
    expect(await healthy()).toEqual([200, 'Healthy\n']);
    scheduler.start();
    expect(await healthy()).toEqual([200, 'Healthy\n']);
  });
});
