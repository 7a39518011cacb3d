/**
 * A reload that changes `limits` (or turns chain data on or off) replaces the Poller. A poll the
 * old one still had running was made for the old config: when it ends it must record nothing,
 * or a validator poll turned off, or a target removed, by that same reload comes back.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config/load.js';
import { createLogger } from '../../src/log.js';
import { Poller } from '../../src/poller.js';
import type { SimServer } from '../../src/sim/server.js';
import { Store } from '../../src/store.js';
import { setScenario, startSim } from '../helpers/harness.js';

describe('a Poller replaced while its polls run', () => {
  let sim: SimServer;
  beforeAll(async () => {
    sim = await startSim([{ name: 'v' }]);
    await setScenario(sim, 'v', 'slow', { delayMs: 300 });
  });
  afterAll(async () => sim?.close());

  it('records nothing of the polls that end after it was closed', async () => {
    const config = parseConfig(`nodes:\n  - {name: v, url: "${sim.nodeUrl('v')}", interval: 5s, timeout: 5s, validator: {interval: 5s}}\n`, 'cfg.yaml');
    const store = new Store();
    const poller = new Poller(config, store, createLogger({ level: 'silent', format: 'json' }));
    const validator = poller.run('v@validator');
    const health = poller.run('v');
    await poller.close(); // what a reload does to the Poller it replaces: the requests finish, nothing records
    await Promise.all([validator, health]);
    expect(sim.nodes.get('v')!.economics.calls.length).toBeGreaterThan(0); // the polls really ran
    expect(store.get('v')).toBeUndefined();
  });
});
