/**
 * One page per problem (issues 34 and 43), through the real daemon (dist/cli.js) and a webhook
 * receiver: a node whose only problem is low disk pages AvalancheDiskLow alone (its diskspace check
 * fails below 10 %, AvalancheGo health/diskspace via node/node.go, and with it the node's health);
 * an upgrade due within 3 days pages AvalancheNodeUpgradeRequired alone (the futureupgrade check of
 * node/node.go fails in the last 3 days); a node with no peers pages its failing checks by name,
 * never "unhealthy" besides, nor "C behind" once its frozen chains fall behind (snow/engine health:
 * a chain not connected to enough stake stops accepting blocks); a validator that little stake sees
 * up pages its reward at risk, its downtime budget being that problem's evidence (info.uptime,
 * api/info/service.go); a hosted API whose cache is down pages "unhealthy", naming the component.
 * The held symptoms are still listed, with what holds them back.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFleet, type Fleet } from '../helpers/fleet.js';
import { get, waitFor } from '../helpers/harness.js';

type Listed = { alerts: Array<{ alertname: string; target: string; phase: string; inhibitedBy?: string; labels?: Record<string, string> }> };

describe('one page per problem, through the daemon to a webhook', () => {
  let fleet: Fleet;

  beforeAll(async () => {
    fleet = await startFleet({
      nodes: [
        { name: 'disk', scenario: 'disk-low', periodMs: 1000 },
        { name: 'upgrade', scenario: 'upgrade-required', periodMs: 1000, upgradeIn: 2 * 86400 },
        { name: 'nopeers', scenario: 'network-down', periodMs: 1000 },
        { name: 'reward', scenario: 'reward-at-risk', periodMs: 1000 },
      ],
      simOptions: { blockMs: 100 }, // a chain frozen by network-down is 50 blocks behind within seconds
      prepare: (sim) => {
        sim.nodes.get('reward')!.economics.rewardingStakePercent = 20;
        sim.metricsApi.scenario = 'degraded'; // its cache is down
      },
      config: ({ sim, hook, node }) => `
defaults: {interval: 1s, timeout: 1s, validator: false, endpoints: [health]}
nodes:
${['disk', 'upgrade', 'nopeers'].map((name) => node(name)).join('\n')}
${node('reward', ', validator: {interval: 1s, network: false}')}
services:
  - {name: data-api, kind: data-api, url: "${sim.serviceUrl('data-api')}", interval: 1s}
  - {name: metrics-api, kind: metrics-api, url: "${sim.serviceUrl('metrics-api')}", interval: 1s}
chain_data: {interval: 10s}
alerts:
  receivers:
    - {name: hook, webhook: {url: "${hook}"}}
`,
    });
  }, 60_000);

  afterAll(() => fleet?.stop());

  const told = (target: string) => fleet.told({ target }).map((a) => `${a.status} ${a.labels.alertname}${a.labels.check ? `/${a.labels.check}` : ''}`);
  const listed = async () => (JSON.parse((await get(`${fleet.url}/api/v1/alerts`)).body) as Listed).alerts;

  it('pages the root cause alone, and lists the symptoms it holds back', async () => {
    // Unhealthy firing (not pending) for the disk and no-peers nodes: the daemon has decided on it, and held it back.
    const held = await waitFor('unhealthy held back', async () => {
      const alerts = await listed();
      const unhealthy = alerts.filter((a) => a.alertname === 'AvalancheNodeUnhealthy' && a.phase === 'firing' && a.inhibitedBy);
      return unhealthy.length === 2 ? unhealthy : undefined;
    }, 30_000).catch(fleet.explain);
    expect(Object.fromEntries(held.map((a) => [a.target, a.inhibitedBy]))).toEqual({ disk: 'AvalancheDiskLow', nopeers: 'AvalancheCheckFailing' });
    await waitFor('the root causes told', () => told('disk').length > 0 && told('upgrade').length > 0 && told('nopeers').length > 0, 10_000);
    // The upgrade node's Unhealthy: not raised at all (its rule leaves the futureupgrade symptom to
    // AvalancheNodeUpgradeRequired), or, raised, held back by it.
    const upgradeUnhealthy = (await listed()).filter((a) => a.target === 'upgrade' && a.alertname === 'AvalancheNodeUnhealthy' && a.phase === 'firing');
    expect(upgradeUnhealthy.every((a) => a.inhibitedBy === 'AvalancheNodeUpgradeRequired')).toBe(true);

    expect(told('disk')).toEqual(['firing AvalancheDiskLow']);
    expect(told('upgrade')).toEqual(['firing AvalancheNodeUpgradeRequired']);
    expect(told('nopeers').length).toBeGreaterThan(0);
    expect(told('nopeers').every((a) => a.startsWith('firing AvalancheCheckFailing/')), told('nopeers').join(', ')).toBe(true);
  }, 60_000);

  it('a chain behind under its failing check, a budget under its reward at risk, a component under its service: held back', async () => {
    const heldBy = (target: string, alertname: string, extra: (a: Listed['alerts'][number] & { labels?: Record<string, string> }) => boolean = () => true) => async () =>
      (await listed()).find((a) => a.target === target && a.alertname === alertname && a.phase === 'firing' && a.inhibitedBy && extra(a))?.inhibitedBy;
    const lagHeld = await waitFor('C behind, held back', heldBy('nopeers', 'AvalancheNodeHeightLag', (a) => a.labels?.chain === 'C'), 60_000).catch(fleet.explain);
    expect(lagHeld).toBe('AvalancheCheckFailing');
    expect(await waitFor('the budget held back', heldBy('reward', 'AvalancheValidatorDowntimeBudgetLow'), 30_000)).toBe('AvalancheValidatorRewardAtRisk');
    expect(await waitFor('the cache held back', heldBy('metrics-api', 'AvalancheServiceComponentDown'), 30_000)).toBe('AvalancheServiceUnhealthy');
    await waitFor('the reward and the service told', () => told('reward').length > 0 && told('metrics-api').length > 0, 10_000);

    expect(told('nopeers').filter((a) => !a.startsWith('firing AvalancheCheckFailing/'))).toEqual([]);
    expect(told('reward')).toEqual(['firing AvalancheValidatorRewardAtRisk']);
    expect(told('metrics-api')).toEqual(['firing AvalancheServiceUnhealthy']);
  }, 90_000);
});
