/**
 * An upgrade due while the node is cut off stays due. With no peer connected, AvalancheGo's
 * futureupgrade check sees no advertised upgrade time at all (node/node.go futureUpgradeCheck:
 * modeUpgradeTime 1970-01-01, numUpgradeTimes 0) and passes: that is no news of the upgrade, not a
 * recovery. AvalancheNodeUpgradeRequired once resolved there, and paged again when the network came
 * back (a false resolve and a second page on the trust bench's seeded weeks).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SimServer } from '../../src/sim/server.js';
import { startCapture } from '../helpers/capture.js';
import { setScenario, startDaemon, startSim, waitFor, waitForRounds, type RunningDaemon } from '../helpers/harness.js';


describe('an upgrade due while cut off', () => {
  let sim: SimServer;
  let hook: Awaited<ReturnType<typeof startCapture>>;
  let d: RunningDaemon;

  beforeAll(async () => {
    sim = await startSim([{ name: 'due', scenario: 'upgrade-required', upgradeIn: 2 * 86_400 }]);
    hook = await startCapture();
    d = await startDaemon(`
listen: 127.0.0.1:0
nodes:
  - {name: due, url: "${sim.nodeUrl('due')}", interval: 1s, validator: false}
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

  const upgrade = () => hook.told({ path: '/hook', alertname: 'AvalancheNodeUpgradeRequired' });

  it('is neither resolved while the node is cut off nor paged again when it is back', async () => {
    await waitFor('the upgrade paged', () => upgrade().length > 0, 20_000);
    await setScenario(sim, 'due', 'upgrade-required', { upgradeIn: 2 * 86_400, also: ['network-down'] });
    await waitFor('the cut-off paged', () => hook.told({ path: '/hook', check: 'network' }).length > 0, 20_000);
    let rounds = d.daemon.store.get('due')!.rounds;
    await waitForRounds(d, 'due', (rounds += 3));
    expect(d.daemon.alerts.list().filter((a) => a.alertname === 'AvalancheNodeUpgradeRequired').map((a) => a.phase)).toEqual(['firing']);

    await setScenario(sim, 'due', 'upgrade-required', { upgradeIn: 2 * 86_400 });
    await waitFor('the network check resolved', () => hook.told({ path: '/hook', status: 'resolved', check: 'network' }).length > 0, 20_000);
    expect(upgrade().map((a) => a.status)).toEqual(['firing']);
  });
});
