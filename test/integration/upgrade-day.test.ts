/**
 * Upgrade day (issue 44, point 4), through the real daemon, its webhook and its API, against the
 * simulator on port 0.
 *
 * What AvalancheGo does: a node whose P-Chain is still bootstrapping cannot compute anyone's uptime
 * (snow/uptime/locked_calculator.go: errStillBootstrapping), so every Ping it sends says 0 %
 * (network/peer/peer.go, getUptime: `primaryUptime = 0` on error; handlePing keeps it as the peer's
 * `observedUptime`, which api/info/service.go Peers shows). info.uptime counts each connected
 * validator with its last Ping, 0 % and not rewarding (network/network.go, NodeUptime). So when
 * many validators restart at once, every validator's figures fall though nobody was down, while
 * every node's own measure of the others (platform.getCurrentValidators, the fleet's baseline, and
 * the reward vote) does not move.
 *
 * Before: AvalancheValidatorRewardAtRisk paged each validator with scope="self" (its own fault).
 * After: the poll finds the peers reporting 0 % in info.peers and weighs them; without them the
 * figures clear the requirement, so each verdict says they are bootstrapping, scope="network" and
 * never critical, held under the network's one notice (AvalancheNetworkDegraded) that says why.
 */
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCapture, type ToldAlert } from '../helpers/capture.js';
import { get, sample, scrape, startDaemon, startSim, waitFor, type RunningDaemon } from '../helpers/harness.js';
import type { SimServer } from '../../src/sim/server.js';

type Incident = { alertname: string; severity: string; scope?: string; summary: string };
type Target = { name: string; incidents: Incident[] };

const VALIDATOR_ALERTS = ['AvalancheValidatorRewardAtRisk', 'AvalancheValidatorDowntimeBudgetLow'];

describe('upgrade day: peers bootstrapping report 0 % for everyone', () => {
  let sim: SimServer;
  let hook: Awaited<ReturnType<typeof startCapture>>;
  let d: RunningDaemon;

  const told = (): ToldAlert[] => hook.told({ path: '/hook' });
  const statusOf = async () => (JSON.parse((await get(`${d.url}/api/v1/status`)).body) as { targets: Target[] }).targets;

  beforeAll(async () => {
    sim = await startSim(['v1', 'v2', 'v3'].map((name) => ({ name, scenario: 'healthy' as const })));
    hook = await startCapture(() => ({ status: 200 }));
    d = await startDaemon(`
defaults: {interval: 1s, timeout: 1500ms, endpoints: [health], validator: {interval: 1s, network: {interval: 2s, observers: 2}}}
nodes:
${['v1', 'v2', 'v3'].map((n) => `  - {name: ${n}, url: "${sim.nodeUrl(n)}"}`).join('\n')}
alerts:
  for_polls: 1
  resolve_polls: 1
  receivers:
    - {name: hook, webhook: {url: "${hook.url}/hook"}}
`);
    // Polled as usual first (a new verdict waits for the fleet's baseline to decide its scope anyway).
    await waitFor('a validator poll of each node', () => ['v1', 'v2', 'v3'].every((t) => d.daemon.store.get(t)?.jobs.get('validator') !== undefined), 30_000);
  }, 60_000);

  afterAll(async () => {
    await d?.stop();
    await sim?.close();
    await hook?.close();
  });

  it('pages no validator as its own fault: one notice for the network names the bootstrapping peers, each verdict scope="network", a warning', { timeout: 90_000 }, async () => {
    // Other validators holding 30 % of the stake restart and bootstrap at once.
    const res = await request(`${sim.baseUrl}/sim/network`, { method: 'POST', body: JSON.stringify({ bootstrapping: { stakePercent: 30 } }) });
    expect(res.statusCode).toBe(200);
    await res.body.dump();
    const uptime = sim.nodes.get('v1')!.economics.infoUptime();
    expect(uptime.rewarding).toBeLessThan(80); // every validator's info.uptime falls, as AvalancheGo's would

    // Whatever is told first about the validators: each's own verdict, or the network's one notice.
    await waitFor('a verdict told', () => told().some((a) => a.status === 'firing' && [...VALIDATOR_ALERTS, 'AvalancheNetworkDegraded'].includes(a.labels.alertname!)), 60_000);
    const selfPages = () => told().filter((a) => VALIDATOR_ALERTS.includes(a.labels.alertname!) && a.labels.scope !== 'network');
    expect(selfPages()).toEqual([]);

    // One notice for the network (chat: scope="network"), saying why, and the validators' verdicts held under it.
    const network = await waitFor('the network notice', () => told().find((a) => a.status === 'firing' && a.labels.alertname === 'AvalancheNetworkDegraded'), 60_000);
    expect(network.labels).toMatchObject({ scope: 'network', severity: 'warning' });
    expect(network.annotations.summary).toBe('mainnet: peers bootstrapping report 0 % for every validator, as on an upgrade day: 3 of your 3 validators affected (v1, v2 and v3)');
    const held = await waitFor('every validator\'s reward verdict', async () => {
      const incidents = (await statusOf()).flatMap((t) => t.incidents.filter((i) => i.alertname === 'AvalancheValidatorRewardAtRisk'));
      return incidents.length === 3 ? incidents : undefined;
    }, 30_000);
    for (const incident of held) {
      expect(incident).toMatchObject({ scope: 'network', severity: 'warning' });
      expect(incident.summary).toMatch(/^v\d: \d+ peers holding \d+(\.\d)? % of the stake are bootstrapping and report 0 % for everyone; only \d+(\.\d)? % of stake sees its uptime at or above the 90 % requirement now, and not for any downtime of its own$/);
    }
    expect(network.annotations.description).toContain(`As v1 sees it: ${held.find((i) => i.summary.startsWith('v1:'))!.summary}`);
    expect(selfPages()).toEqual([]);
    expect(told().filter((a) => a.labels.severity === 'critical')).toEqual([]);

    // The Prometheus twins read the peers' share of the stake (deploy/prometheus/tests/validator.rules.test.yml, "upgrade day").
    const m = await scrape(d.url);
    for (const target of ['v1', 'v2', 'v3']) {
      const share = sample(m, 'avahealth_validator_bootstrapping_peers_stake_ratio', { target });
      expect(share, target).toBeGreaterThan(0.2);
      expect(share, target).toBeLessThan(0.5);
    }
  });
});
