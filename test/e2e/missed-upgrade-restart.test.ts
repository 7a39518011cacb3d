/**
 * A missed upgrade survives a restart of avahealth. After the deadline the node's upgraded peers
 * drop it (network/peer/peer.go) and its futureupgrade check passes again (node/node.go): a daemon
 * started then could not learn the deadline from the node any more. The deadline the check named
 * is remembered in state_dir (missed-upgrades.json), so AvalancheNodeUpgradeRequired stays firing
 * across the restart, and resolves only once the node's build knows the upgrade.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFleet, type Fleet } from '../helpers/fleet.js';
import { sample, scrape, setScenario, waitFor } from '../helpers/harness.js';

describe('a missed upgrade across a restart of avahealth', () => {
  let fleet: Fleet;

  beforeAll(async () => {
    fleet = await startFleet({
      nodes: [{ name: 'upg', scenario: 'upgrade-required', upgradeIn: 12 * 3600, periodMs: 500 }],
      config: ({ hook, node }) => `
defaults: {interval: 1s, timeout: 1500ms, endpoints: [health], validator: false}
nodes:
${node('upg')}
alerts:
  for_polls: 1
  resolve_polls: 1
  receivers:
    - {name: oncall, webhook: {url: "${hook}"}}
`,
    });
  }, 60_000);

  afterAll(() => fleet?.stop());

  const told = (status: string) => fleet.told({ path: '/hook', status, alertname: 'AvalancheNodeUpgradeRequired' });

  it('stays firing, critical, after a restart past the deadline; resolves once the build knows it', { timeout: 150_000 }, async () => {
    const critical = await waitFor('UpgradeRequired critical', () => told('firing').find((a) => a.labels.severity === 'critical'), 30_000);
    await setScenario(fleet.sim, 'upg', 'upgrade-required', { upgradeIn: 4 });
    await waitFor('futureupgrade passing again (dropped by its peers)', async () => sample(await scrape(fleet.url), 'avahealth_node_check_passing', { target: 'upg', check: 'futureupgrade' }) === 1, 60_000);
    const deadline = sample(await scrape(fleet.url), 'avahealth_node_upgrade_deadline_timestamp_seconds', { target: 'upg' });
    // written within a second of the change (state/ledger.ts)
    const remembered = () => {
      try {
        return (JSON.parse(readFileSync(join(fleet.stateDir, 'missed-upgrades.json'), 'utf8')) as { nodes: Record<string, { deadline: number }> }).nodes.upg?.deadline;
      } catch {
        return undefined;
      }
    };
    await waitFor('the deadline remembered in state_dir', () => remembered() === deadline, 10_000);

    await fleet.restart();
    // Its check passes now: only what was remembered tells the new daemon of the deadline.
    const polled = fleet.sim.nodes.get('upg')!.requests;
    await waitFor('four polls of upg by the new daemon', () => fleet.sim.nodes.get('upg')!.requests >= polled + 4, 30_000);
    const m = await scrape(fleet.url);
    expect(sample(m, 'avahealth_node_check_passing', { target: 'upg', check: 'futureupgrade' })).toBe(1);
    expect(sample(m, 'avahealth_node_upgrade_deadline_timestamp_seconds', { target: 'upg' })).toBe(deadline);
    expect(sample(m, 'avahealth_alerts', { alertname: 'AvalancheNodeUpgradeRequired', severity: 'critical', state: 'firing' })).toBe(1);
    expect(told('resolved')).toEqual([]);

    await setScenario(fleet.sim, 'upg', 'healthy');
    const resolved = await waitFor('UpgradeRequired resolved', () => told('resolved')[0], 30_000);
    expect(resolved.fingerprint).toBe(critical.fingerprint);
  });
});
