/**
 * A target removed from the config while its firing alert is silenced: the page it sent must be
 * resolved, and nothing of it may stay held in memory or in the state file (no later evaluation
 * of a removed target would ever let it out).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SimServer } from '../../src/sim/server.js';
import { startCapture } from '../helpers/capture.js';
import { get, startDaemon, startSim, waitFor, writeConfig, type RunningDaemon } from '../helpers/harness.js';


describe('a silenced alert of a target that left the config', () => {
  let sim: SimServer;
  let capture: Awaited<ReturnType<typeof startCapture>>;
  let d: RunningDaemon;
  let file: string;
  const config = (names: string[]) =>
    `state_dir: ${join(dirname(file), 'state')}\nnodes:\n${names.map((n) => `  - {name: ${n}, url: "${sim.nodeUrl(n)}", interval: 1s, validator: false}`).join('\n')}\n` +
    `alerts:\n  for_polls: 1\n  receivers:\n    - {name: hook, webhook: {url: "${capture.url}/hook"}}\n`;
  const told = (target: string, status: string) =>
    capture.told({ path: '/hook', status, target });

  beforeAll(async () => {
    sim = await startSim([{ name: 'keep', scenario: 'healthy' }, { name: 'leaving', scenario: 'network-down' }]);
    capture = await startCapture(() => ({ status: 200 }));
    file = writeConfig('');
    d = await startDaemon(config(['keep', 'leaving']), { file });
  });

  afterAll(async () => {
    await d?.stop();
    await sim?.close();
    await capture?.close();
  });

  it('is resolved at the receivers and let go, silence or not', async () => {
    await waitFor('the page for "leaving"', () => told('leaving', 'firing').length > 0, 15_000);
    const paged = new Set(told('leaving', 'firing').map((a) => a.fingerprint));
    const silence = await request(`${d.url}/api/v1/silences`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ matchers: { target: 'leaving' }, endsAt: new Date(Date.now() + 3600_000).toISOString(), comment: 'decommissioning' }),
    });
    expect(silence.statusCode).toBe(200);
    await silence.body.dump();

    writeFileSync(file, config(['keep']));
    const reload = await request(`${d.url}/-/reload`, { method: 'POST' });
    expect([reload.statusCode, await reload.body.text()]).toEqual([200, 'config reloaded\n']);

    await waitFor('the resolve of every page "leaving" sent', () => [...paged].every((f) => told('leaving', 'resolved').some((a) => a.fingerprint === f)), 10_000);
    expect(d.daemon.alerts.list().filter((a) => a.target === 'leaving')).toEqual([]);
    const api = JSON.parse((await get(`${d.url}/api/v1/alerts`)).body) as { alerts: Array<{ labels: Record<string, string> }> };
    expect(api.alerts.filter((a) => a.labels.target === 'leaving')).toEqual([]);
    d.daemon.alerts.flush();
    const saved = JSON.parse(readFileSync(join(dirname(file), 'state', 'alerts.json'), 'utf8')) as { alerts: Array<{ target: string }>; flaps: Record<string, number[]> };
    expect(saved.alerts.filter((a) => a.target === 'leaving')).toEqual([]);
    expect(Object.keys(saved.flaps).filter((key) => key.split('|')[1] === 'leaving')).toEqual([]); // nor its flap history
    expect(d.logs()).toMatch(/"target":"leaving"[^\n]*silence[^\n]*resolved|resolved[^\n]*silence[^\n]*"target":"leaving"/);
  });
});
