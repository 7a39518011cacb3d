/**
 * The answers an observer gave are shared by every validator's job for an interval (one call per
 * observer per interval). When a reload points the observer's name at another node (its URL
 * changed), what the old node said is not the new one's: the shared answers are forgotten (issue 35).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config/load.js';
import { createLogger } from '../../src/log.js';
import { observedReport } from '../../src/model/observed.js';
import { Poller } from '../../src/poller.js';
import type { SimServer } from '../../src/sim/server.js';
import { Store } from '../../src/store.js';
import { startSim } from '../helpers/harness.js';

describe('shared observer answers and a reload', () => {
  let sim: SimServer;
  beforeAll(async () => {
    sim = await startSim([{ name: 'v1' }, { name: 'v2' }, { name: 'honest' }, { name: 'liar', scenario: 'lying-observer' }]);
  });
  afterAll(async () => sim?.close());

  // Hourly intervals: the answers would be shared for an hour; each job runs when the test says.
  const config = (observerUrl: string) =>
    parseConfig(
      `defaults: {interval: 1h, validator: {interval: 1h, network: false}}\nnodes:\n  - {name: v1, url: "${sim.nodeUrl('v1')}"}\n  - {name: v2, url: "${sim.nodeUrl('v2')}"}\n  - {name: o, url: "${observerUrl}"}\n`,
      'cfg.yaml',
    );

  it("an observer whose URL changed is asked again: the old node's answer is not the new one's", async () => {
    const store = new Store();
    const poller = new Poller(config(sim.nodeUrl('honest')), store, createLogger({ level: 'silent', format: 'json' }));
    const seenBy = (name: string) => observedReport(store.get(name)!.jobs.get('observed')!.endpoints[0])!.views.find((v) => v.observer === 'o');
    try {
      await Promise.all(['v1', 'v2', 'o'].map((n) => poller.run(`${n}@validator`)));
      await poller.run('v1@observed');
      expect(seenBy('v1')).toMatchObject({ connected: true });
      // `o` is another node now (a reload with its new URL)
      poller.setConfig(config(sim.nodeUrl('liar')));
      await poller.run('o@validator');
      const asked = sim.nodes.get('liar')!.economics.calls.filter((m) => m === 'platform.getCurrentValidators').length;
      await poller.run('v2@observed');
      expect(sim.nodes.get('liar')!.economics.calls.filter((m) => m === 'platform.getCurrentValidators').length).toBeGreaterThan(asked);
      expect(seenBy('v2')).toMatchObject({ connected: false, witness: false });
    } finally {
      await poller.close();
    }
  });
});
