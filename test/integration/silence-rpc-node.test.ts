/**
 * A silence posted through the admin API holds every alert of the node it names, whatever the
 * node's role. A node that is no validator (an RPC node) still gets validator polls when the
 * config asks for them; each finds no validation, so the validator rules' alerts are resolved at
 * once, and nothing may hold such a resolve. That freedom once reached every alert of the node:
 * its disk, low under a silence, paged at the next validator poll (seen on the trust bench).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SimServer } from '../../src/sim/server.js';
import { startCapture } from '../helpers/capture.js';
import { setScenario, startDaemon, startSim, waitFor, waitForRounds, type RunningDaemon } from '../helpers/harness.js';


describe('a silence on a node that is no validator', () => {
  let sim: SimServer;
  let hook: Awaited<ReturnType<typeof startCapture>>;
  let d: RunningDaemon;

  beforeAll(async () => {
    sim = await startSim([
      { name: 'rpc-1', scenario: 'healthy', validator: false },
      { name: 'control', scenario: 'healthy', validator: false },
    ]);
    hook = await startCapture();
    d = await startDaemon(`
listen: 127.0.0.1:0
nodes:
  - {name: rpc-1, url: "${sim.nodeUrl('rpc-1')}", interval: 1s, validator: {interval: 1s}}
  - {name: control, url: "${sim.nodeUrl('control')}", interval: 1s, validator: {interval: 1s}}
alerts:
  receivers:
    - {name: oncall, webhook: {url: "${hook.url}/hook"}}
`);
  }, 30_000);

  afterAll(async () => {
    await d?.stop();
    await sim?.close();
    await hook?.close();
  });

  const told = (target: string) => hook.told({ path: '/hook', target });

  it('holds its alerts while the unsilenced control node pages, and tells them once lifted', async () => {
    const res = await fetch(`${d.url}/api/v1/silences`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ matchers: { target: 'rpc-1' }, endsAt: new Date(Date.now() + 3600_000).toISOString(), comment: 'disk swap' }),
    });
    expect(res.status).toBe(200);
    const { id } = (await res.json()) as { id: string };
    await setScenario(sim, 'rpc-1', 'disk-low');
    await setScenario(sim, 'control', 'disk-low');
    await waitFor('the control node paged', () => told('control').length > 0, 20_000);
    // The control paged after both disks went low; rpc-1 has had as many polls since, and two more.
    const rounds = d.daemon.store.get('rpc-1')!.rounds;
    await waitForRounds(d, 'rpc-1', rounds + 2);
    expect(told('rpc-1')).toEqual([]);

    expect((await fetch(`${d.url}/api/v1/silences/${id}`, { method: 'DELETE' })).status).toBe(200);
    await waitFor('rpc-1 told once the silence is lifted', () => told('rpc-1').some((a) => a.status === 'firing' && a.labels.alertname === 'AvalancheDiskLow'), 20_000);
  });
});
