/**
 * Is it my validator or the network? The real daemon (dist/cli.js) against simulated validators that
 * observe each other (each answers platform.getCurrentValidators with its own view:
 * vms/platformvm/service.go) and a local webhook: a drop of one validator alone arrives with
 * scope="self", a network-wide dip (connections lost at once, observed uptime cumulative) as one
 * AvalancheNetworkDegraded notice holding back the validators' scope="network" verdicts, and a validator its peers cannot reach as
 * AvalancheValidatorUnreachableByPeers naming its staking port.
 */
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFleet, type Fleet } from '../helpers/fleet.js';
import { get, sample, scrape, series, setScenario, waitFor } from '../helpers/harness.js';

describe('the fleet as observers, end to end through the real daemon', () => {
  let fleet: Fleet;

  const alerts = () => fleet.told({ path: '/hook' });
  const named = (alertname: string, target: string) => fleet.told({ path: '/hook', alertname, target });

  beforeAll(async () => {
    fleet = await startFleet({
      nodes: ['v1', 'v2', 'v3', 'v4'].map((name) => ({ name, scenario: 'healthy' as const, periodMs: 5_000 })),
      config: ({ hook, node }) => `
defaults: {interval: 2s, timeout: 1500ms, endpoints: [health], validator: {interval: 2s, network: {interval: 2s, observers: 2}}}
nodes:
${node('v1')}
${node('v2', ', validator: {staking_port: 19651}')}
${node('v3')}
${node('v4')}
alerts:
  for_polls: 2
  rules:
    AvalancheValidatorRewardAtRisk: {for_polls: 4}
  receivers:
    - {name: oncall, webhook: {url: "${hook}"}}
`,
    });
    await waitFor(
      'every validator observed by the others, and the baseline',
      async () => {
        const m = await scrape(fleet.url);
        return ['v1', 'v2', 'v3', 'v4'].every((t) => series(m, 'avahealth_validator_observed_connected', { target: t }).length === 3) && series(m, 'avahealth_network_connected_stake_ratio').length === 2;
      },
      30_000,
    );
  }, 45_000);

  afterAll(() => fleet?.stop());

  it('exports own validators × own observers only, and the baseline per observer with stake-weighted quantiles', async () => {
    const m = await scrape(fleet.url);
    const observed = series(m, 'avahealth_validator_observed_uptime_ratio');
    expect(observed).toHaveLength(4 * 3); // 40 other validators in every answer, none of them here
    expect(new Set(observed.map((s) => s.labels.node_id))).toEqual(new Set(['v1', 'v2', 'v3', 'v4'].map((n) => fleet.sim.nodes.get(n)!.nodeId)));
    expect(series(m, 'avahealth_validator_observed_uptime_ratio', { target: 'v1' }).map((s) => s.labels.observer).sort()).toEqual(['v2', 'v3', 'v4']);
    // the first 2 nodes of the network read the whole list
    expect(series(m, 'avahealth_network_observed_uptime_ratio').map((s) => `${s.labels.observer}/${s.labels.quantile}`).sort()).toEqual(['v1/0.1', 'v1/0.5', 'v1/0.9', 'v2/0.1', 'v2/0.5', 'v2/0.9']);
    expect(sample(m, 'avahealth_network_observed_uptime_ratio', { observer: 'v1', quantile: '0.5', network: 'mainnet' })).toBeGreaterThan(0.97);
    expect(sample(m, 'avahealth_network_observed_uptime_ratio', { observer: 'v1', quantile: '0.1' })).toBeLessThan(sample(m, 'avahealth_network_observed_uptime_ratio', { observer: 'v1', quantile: '0.5' })!);
    expect(sample(m, 'avahealth_network_connected_stake_ratio', { observer: 'v1', network: 'mainnet' })).toBeGreaterThan(0.8);
  });

  it('a validator its peers cannot reach: UnreachableByPeers (scope="self") saying it cannot reach them either, who sees what, its observed uptime not collapsed', async () => {
    await setScenario(fleet.sim, 'v2', 'unreachable-by-peers');
    const firing = await waitFor('AvalancheValidatorUnreachableByPeers for v2', () => named('AvalancheValidatorUnreachableByPeers', 'v2').find((a) => a.status === 'firing'), 30_000);
    expect(firing.labels).toMatchObject({ severity: 'warning', scope: 'self' });
    // validators see it disconnected: a node dials every validator, so it cannot reach them either (service.go: connected either way)
    expect(firing.annotations.summary).toBe('v2: 3 of 3 witnessing fleet nodes (v1, v3 and v4) see it disconnected while its own health passes: it cannot reach them either');
    expect(firing.annotations.description).toContain('look for a network partition, an outbound firewall or a node that is stuck');
    expect(firing.annotations.description).toMatch(/^v1 sees it disconnected \(uptime [\d.]+ %\), v3 sees it disconnected/);
    // its own health passes all along: no node alert for it
    expect(alerts().filter((a) => a.labels.target === 'v2' && (a.labels.alertname ?? '').startsWith('AvalancheNode'))).toEqual([]);
    // observed uptime is cumulative (snow/uptime/manager.go): it has not collapsed when the page arrives
    expect(Number(/^v1 sees it disconnected \(uptime ([\d.]+) %\)/.exec(firing.annotations.description!)![1])).toBeGreaterThan(90);
    // with no peer connected its info.uptime is its own share of the stake (network/network.go NodeUptime), the
    // shape of a restart's snapshot: the reward verdict is held (SETTLE_MAX_SECONDS) and its figures not exported
    const rewarding = 'avahealth_validator_uptime_rewarding_stake_ratio';
    const m = await waitFor('v2\'s info.uptime figures held', async () => {
      const now = await scrape(fleet.url);
      return series(now, rewarding, { target: 'v2' }).length === 0 ? now : undefined;
    }, 20_000);
    expect(series(m, rewarding, { target: 'v1' })).toHaveLength(1);
    await setScenario(fleet.sim, 'v2', 'healthy');
    await waitFor('UnreachableByPeers for v2 to resolve', () => named('AvalancheValidatorUnreachableByPeers', 'v2').find((a) => a.status === 'resolved'), 30_000);
  }, 120_000);

  it('a network-wide dip: connections drop at once, observed uptime does not; one notice for the network, the reward verdicts with scope="network" naming the connected stake held back under it', async () => {
    const dip = await request(`${fleet.sim.baseUrl}/sim/network`, { method: 'POST', body: JSON.stringify({ dip: { connectedPercent: 70 } }) });
    await dip.body.dump();
    try {
      // `connected` is instantaneous (service.go Peers().Has); `uptime` is cumulative since the validation's
      // start (snow/uptime/manager.go): when the observers first see the stake cut off, the median has not jumped
      const seen = await waitFor('v1 to see 30 % of the stake cut off', async () => {
        const m = await scrape(fleet.url);
        const connected = sample(m, 'avahealth_network_connected_stake_ratio', { observer: 'v1' });
        return connected !== undefined && connected < 0.8 ? m : undefined;
      }, 30_000);
      expect(sample(seen, 'avahealth_network_observed_uptime_ratio', { observer: 'v1', quantile: '0.5' })).toBeGreaterThan(0.9);
      type Listed = { alertname: string; target: string; phase: string; inhibitedBy?: string; labels: Record<string, string>; annotations: { summary: string } };
      const listed = async () => (JSON.parse((await get(`${fleet.url}/api/v1/alerts`)).body) as { alerts: Listed[] }).alerts;
      for (const target of ['v1', 'v3']) {
        const held = await waitFor(`AvalancheValidatorRewardAtRisk for ${target}, held back`, async () => (await listed()).find((a) => a.alertname === 'AvalancheValidatorRewardAtRisk' && a.target === target && a.phase === 'firing' && a.labels.scope === 'network'), 60_000);
        expect(held.inhibitedBy).toBe('AvalancheNetworkDegraded');
        // decided from what AvalancheGo shows at once (the connected stake), or later from the median once it has fallen
        expect(held.annotations.summary).toMatch(
          new RegExp(`^${target}: (the network looks cut off from here: \\d+ % of the stake connected|every validator looks down from here: median observed uptime \\d+ % \\(\\d+ % of the stake connected\\)) as v1 and v2 see it; `),
        );
      }
      // one notice for the network, naming the validators; none of theirs told, as their own problem or otherwise
      const notice = await waitFor('the network alert', () => named('AvalancheNetworkDegraded', 'mainnet network').find((a) => a.status === 'firing'), 10_000);
      expect(notice.labels).toMatchObject({ scope: 'network', network: 'mainnet', severity: 'warning' });
      expect(notice.annotations.summary).toMatch(/^mainnet: every validator looks down from the fleet: \d of your 4 validators affected \(.*v1.*v3.*\)$/);
      expect(alerts().filter((a) => a.labels.alertname === 'AvalancheValidatorRewardAtRisk')).toEqual([]);

      // Below 80 % connected every node's C, P and X checks fail alike (snow/networking/handler/health.go):
      // the network's notice speaks for them, no node pages its chains.
      const failingChains = async () => {
        const m = await scrape(fleet.url);
        return series(m, 'avahealth_node_check_passing', { check: 'C', endpoint: 'health', view: 'all' }).filter((s) => s.value === 0).map((s) => s.labels.target);
      };
      await waitFor('every node to report its C check failing', async () => ((await failingChains()).length === 4 ? true : undefined), 60_000);
      // a daemon killed and started again inside the dip: its first polls see every chain failing
      // before any observer has reported; they wait for that first baseline
      await fleet.restart('SIGKILL');
      await waitFor('the new daemon to see every C check failing', async () => ((await failingChains()).length === 4 ? true : undefined), 60_000);
      const chainsTold = () => alerts().filter((a) => ['AvalancheCheckFailing', 'AvalancheNodeUnhealthy'].includes(a.labels.alertname ?? ''));
      // a node whose own network goes down inside the dip is its own problem: it pages, its chains with it
      await setScenario(fleet.sim, 'v4', 'network-down');
      const own = await waitFor('v4 to page its own network', () => named('AvalancheCheckFailing', 'v4').find((a) => a.status === 'firing' && a.labels.check === 'network'), 30_000);
      expect(own.labels.check).toBe('network');
      await waitFor("v4's chains to page with it", () => (['C', 'P', 'X'].every((c) => named('AvalancheCheckFailing', 'v4').some((a) => a.labels.check === c)) ? true : undefined), 30_000);
      // in one notification: its chains, failing since the dip began, wait for their cause
      const v4Deliveries = fleet.capture
        .on('/hook')
        .map((r) => (r.json as { alerts: Array<{ status: string; labels: Record<string, string> }> }).alerts.filter((a) => a.status === 'firing' && a.labels.alertname === 'AvalancheCheckFailing' && a.labels.target === 'v4'))
        .filter((firing) => firing.length > 0);
      expect(v4Deliveries.map((firing) => firing.map((a) => a.labels.check).sort())).toEqual([['C', 'P', 'X', 'network']]);
      await setScenario(fleet.sim, 'v4', 'healthy');
      expect(chainsTold().filter((a) => a.labels.target !== 'v4')).toEqual([]);
    } finally {
      const end = await request(`${fleet.sim.baseUrl}/sim/network`, { method: 'POST', body: JSON.stringify({ dip: null }) });
      await end.body.dump();
    }
    // the dip ends: each node's chains pass again at their next health run, read before or after the
    // baseline sees the network normal again; none of the other nodes pages on the way out
    await waitFor('every C check to pass again', async () => {
      const m = await scrape(fleet.url);
      const c = series(m, 'avahealth_node_check_passing', { check: 'C', endpoint: 'health', view: 'all' });
      return c.length === 4 && c.every((s) => s.value === 1) ? true : undefined;
    }, 60_000);
    await waitFor('the network alert to resolve', () => named('AvalancheNetworkDegraded', 'mainnet network').find((a) => a.status === 'resolved'), 60_000);
    expect(alerts().filter((a) => ['AvalancheCheckFailing', 'AvalancheNodeUnhealthy'].includes(a.labels.alertname ?? '') && a.labels.target !== 'v4')).toEqual([]);
  }, 240_000);
});
