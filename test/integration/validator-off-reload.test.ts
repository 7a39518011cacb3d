/**
 * `validator: false` by reload: the node's validator poll stops, and what it last reported goes
 * with it: its series leave /metrics at once (the node stays, with its health series) and its
 * validator alerts resolve at the receivers.
 */
import { writeFileSync } from 'node:fs';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SimServer } from '../../src/sim/server.js';
import { startCapture } from '../helpers/capture.js';
import { sample, scrape, startDaemon, startSim, waitFor, writeConfig, type RunningDaemon, type Sample } from '../helpers/harness.js';


/** Every series the validator poll of `target` feeds. */
const validatorSeries = (m: Sample[], target: string) =>
  m.filter((s) => s.labels.target === target && (s.labels.endpoint === 'validator' || /^avahealth_(validator_|l1_|node_version_)/.test(s.name)));

describe('turning the validator poll off by reload', () => {
  let sim: SimServer;
  let capture: Awaited<ReturnType<typeof startCapture>>;
  let d: RunningDaemon;
  let file: string;
  const config = (validator: string) => `
defaults: {interval: 1s, timeout: 1s, endpoints: [health]}
nodes:
  - {name: risky, url: "${sim.nodeUrl('risky')}", validator: ${validator}}
alerts:
  for_polls: 1
  receivers:
    - {name: hook, webhook: {url: "${capture.url}/hook"}}
`;
  const told = (status: string) =>
    capture.told({ path: '/hook', status, target: 'risky' }).filter((a) => (a.labels.alertname ?? '').startsWith('AvalancheValidator'));

  beforeAll(async () => {
    sim = await startSim([{ name: 'risky', scenario: 'reward-at-risk' }]);
    capture = await startCapture(() => ({ status: 200 }));
    file = writeConfig('');
    d = await startDaemon(config('{interval: 1s}'), { file });
  });

  afterAll(async () => {
    await d?.stop();
    await sim?.close();
    await capture?.close();
  });

  it('drops its validator series and resolves its validator alerts; the health series stay', { timeout: 90_000 }, async () => {
    // a fresh daemon's first answer below the top is held for a Ping interval (a climb it did not see start)
    await waitFor('the validator page of risky', () => told('firing').length > 0, 60_000);
    expect(validatorSeries(await scrape(d.url), 'risky').length).toBeGreaterThan(0);
    const paged = new Set(told('firing').map((a) => a.fingerprint));

    writeFileSync(file, config('false'));
    const reload = await request(`${d.url}/-/reload`, { method: 'POST' });
    expect([reload.statusCode, await reload.body.text()]).toEqual([200, 'config reloaded\n']);

    const m = await scrape(d.url);
    expect(validatorSeries(m, 'risky').map((s) => s.name)).toEqual([]);
    expect(sample(m, 'avahealth_probe_success', { target: 'risky', endpoint: 'health', view: 'all' })).toBe(1);
    await waitFor('the resolve of every validator page', () => [...paged].every((f) => told('resolved').some((a) => a.fingerprint === f)), 10_000);
    expect(d.daemon.alerts.list().filter((a) => a.target === 'risky' && a.alertname.startsWith('AvalancheValidator'))).toEqual([]);
    // a later health poll of the node brings nothing of the validator back
    const rounds = d.daemon.store.get('risky')!.rounds;
    await waitFor('another poll of risky', () => d.daemon.store.get('risky')!.rounds > rounds + 1, 10_000);
    expect(validatorSeries(await scrape(d.url), 'risky').map((s) => s.name)).toEqual([]);
  });
});
