/**
 * The simulator's upgrade schedules, as AvalancheGo builds have them. A build's upgrade times are
 * constants (upgrade/upgrade.go; info.upgrades answers them, api/info/service.go Upgrades): a
 * release schedules an upgrade by adding its time (upgrade/new_upgrade_checklist.md), and no later
 * release moves an upgrade already active. A build left behind lacks that upgrade and every one
 * activating at or after it. Before, the simulator kept one "next upgrade" for the whole network, which a
 * second node's `upgrade-required` moved: an upgrade already active came back as due in 5 days,
 * every node's info.upgrades changed at once, and the node that had missed it was no longer read
 * again at each poll after its restart (seeded trust weeks 4 and 6: AvalancheNodeUpgradeUnknown
 * paged right after the missed upgrade was installed). A running build's schedule does not change:
 * an upgrade due before one its build knows cannot leave a node behind (the simulator answers 409).
 */
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SimServer } from '../../src/sim/server.js';
import { setScenario, startSim } from '../helpers/harness.js';

const DAY = 86_400;

describe('simulator: upgrades a release scheduled keep their times', () => {
  let sim: SimServer;
  beforeAll(async () => {
    sim = await startSim([
      { name: 'missed', scenario: 'upgrade-required', upgradeIn: 1, validator: false },
      { name: 'upgraded', scenario: 'healthy', validator: false },
      { name: 'later', scenario: 'healthy', validator: false },
      { name: 'sooner', scenario: 'healthy', validator: false },
    ]);
  }, 30_000);
  afterAll(async () => sim?.close());

  const upgrades = async (name: string): Promise<Record<string, string>> => {
    const res = await request(`${sim.nodeUrl(name)}/ext/info`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'info.upgrades', params: {} }) });
    return ((await res.body.json()) as { result: Record<string, string> }).result;
  };
  const scheduled = (schedule: Record<string, string>) => Object.fromEntries(Object.entries(schedule).filter(([key]) => key.startsWith('nextUpgrade')));

  it('a second upgrade is a field of its own; the first, active, does not move', async () => {
    const first = (await upgrades('upgraded')).nextUpgradeTime;
    expect(first).toBeDefined();
    expect(scheduled(await upgrades('missed'))).toEqual({});

    await setScenario(sim, 'later', 'upgrade-required', { upgradeIn: 5 * DAY });
    const both = scheduled(await upgrades('upgraded'));
    expect(both.nextUpgradeTime).toBe(first);
    expect(Date.parse(both.nextUpgrade2Time!)).toBeGreaterThan(Date.parse(first!) + 4 * DAY * 1000);
    // each build left behind lacks its own upgrade and every later one, and knows the earlier ones
    expect(scheduled(await upgrades('later'))).toEqual({ nextUpgradeTime: first });
    expect(scheduled(await upgrades('missed'))).toEqual({});

    // the same node's deadline drawing nearer moves its own upgrade only
    await setScenario(sim, 'later', 'upgrade-required', { upgradeIn: DAY });
    const nearer = scheduled(await upgrades('upgraded'));
    expect(nearer.nextUpgradeTime).toBe(first);
    expect(Date.parse(nearer.nextUpgrade2Time!)).toBeLessThan(Date.parse(both.nextUpgrade2Time!));

    // the node that missed the first installs the newest build: it knows both
    await setScenario(sim, 'missed', 'healthy');
    expect(scheduled(await upgrades('missed'))).toEqual(nearer);

    // upgrades activate in the order releases schedule them, so a build that knows an upgrade knows
    // every earlier one, and only a new version (a restart) changes a running build's schedule: an
    // upgrade due sooner than one the node's build knows cannot leave it behind (seed 9 of the trust
    // bench: the node's schedule lost an upgrade while it ran, and the missed-upgrade verdict, which
    // reads that schedule, resolved)
    await setScenario(sim, 'later', 'healthy');
    const refused = await request(`${sim.baseUrl}/sim/nodes/sooner/scenario`, { method: 'POST', body: JSON.stringify({ scenario: 'upgrade-required', upgradeIn: DAY / 2 }) });
    expect(refused.statusCode).toBe(409);
    expect(await refused.body.text()).toMatch(/^sooner's build knows a network upgrade at .+, so it knows every earlier one: it cannot lack one at /);
    expect(scheduled(await upgrades('sooner'))).toEqual(nearer);
    // one due after every upgrade it knows can
    await setScenario(sim, 'sooner', 'upgrade-required', { upgradeIn: 2 * DAY });
    expect(Object.keys(scheduled(await upgrades('upgraded')))).toEqual(['nextUpgradeTime', 'nextUpgrade2Time', 'nextUpgrade3Time']);
    expect(scheduled(await upgrades('sooner'))).toEqual(nearer);
  });
});
