/**
 * The HTTP front moves to a worker thread only at start (above 20 targets): a reload that grows a
 * small fleet past that says a restart would move it, in the log and in the reload's answer.
 */
import { writeFileSync } from 'node:fs';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SimServer } from '../../src/sim/server.js';
import { startDaemon, startSim, writeConfig, type RunningDaemon } from '../helpers/harness.js';

describe('a reload past 20 targets', () => {
  let sim: SimServer;
  let d: RunningDaemon;
  const names = Array.from({ length: 21 }, (_, i) => `n${i + 1}`);
  const config = (count: number) => `nodes:\n${names
    .slice(0, count)
    .map((name) => `  - {name: ${name}, url: "${sim.nodeUrl(name)}", interval: 1h, validator: false}`)
    .join('\n')}\n`;

  beforeAll(async () => {
    sim = await startSim(names.map((name) => ({ name, scenario: 'healthy' as const })));
  });

  afterAll(async () => {
    await d?.stop();
    await sim?.close();
  });

  it('keeps HTTP on the main thread and says a restart would move it to a worker thread', async () => {
    const file = writeConfig(config(1));
    d = await startDaemon(config(1), { file });
    expect(d.daemon.httpFront?.servedBy).toBe('main');

    writeFileSync(file, config(21));
    const reload = await request(`${d.url}/-/reload`, { method: 'POST' });
    expect([reload.statusCode, await reload.body.text()]).toEqual([200, 'config reloaded\nrestart avahealth to apply: HTTP on a worker thread (over 20 targets) (the running value stays until then)\n']);
    expect(d.logs()).toContain('the fleet is now over 20 targets, but HTTP is still served by the main thread');
    expect(d.daemon.httpFront?.servedBy).toBe('main');

    // said once in the log, and in every reload's answer until the restart
    const again = await request(`${d.url}/-/reload`, { method: 'POST' });
    expect(await again.body.text()).toContain('HTTP on a worker thread');
    expect(d.logs().split('the fleet is now over 20 targets').length - 1).toBe(1);
  });
});
