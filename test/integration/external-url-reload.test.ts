/**
 * `external_url` changed by a reload that leaves the receivers as they were: the next
 * notification links to the new URL (the payload's externalURL, every alert's generatorURL).
 */
import { writeFileSync } from 'node:fs';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SimServer } from '../../src/sim/server.js';
import { startCapture } from '../helpers/capture.js';
import { setScenario, startDaemon, startSim, waitFor, writeConfig, type RunningDaemon } from '../helpers/harness.js';

type Hook = { status: string; externalURL: string; alerts: Array<{ status: string; generatorURL: string }> };

describe('external_url on reload', () => {
  let sim: SimServer;
  let capture: Awaited<ReturnType<typeof startCapture>>;
  let d: RunningDaemon;
  let file: string;
  const config = (externalUrl: string) => `
external_url: ${externalUrl}
nodes:
  - {name: n1, url: "${sim.nodeUrl('n1')}", interval: 1s, validator: false}
alerts:
  for_polls: 1
  receivers:
    - {name: hook, webhook: {url: "${capture.url}/hook"}}
`;
  const hooks = () => capture.on('/hook').map((r) => r.json as Hook);

  beforeAll(async () => {
    sim = await startSim([{ name: 'n1', scenario: 'network-down' }]);
    capture = await startCapture(() => ({ status: 200 }));
    file = writeConfig('');
    d = await startDaemon(config('https://old.example/avahealth'), { file });
  });

  afterAll(async () => {
    await d?.stop();
    await sim?.close();
    await capture?.close();
  });

  it('links the next notification to the new URL', async () => {
    await waitFor('the firing notification', () => hooks().some((h) => h.status === 'firing'), 15_000);
    expect(hooks()[0]!.externalURL).toBe('https://old.example/avahealth');

    writeFileSync(file, config('https://new.example/avahealth'));
    const reload = await request(`${d.url}/-/reload`, { method: 'POST' });
    expect([reload.statusCode, await reload.body.text()]).toEqual([200, 'config reloaded\n']);
    await setScenario(sim, 'n1', 'healthy');

    const resolved = await waitFor('the resolve', () => hooks().find((h) => h.status === 'resolved'), 15_000);
    expect(resolved.externalURL).toBe('https://new.example/avahealth');
    expect(resolved.alerts.map((a) => new URL(a.generatorURL).origin)).toEqual(resolved.alerts.map(() => 'https://new.example'));
  });
});
