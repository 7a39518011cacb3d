/**
 * A closed staking port across a restart of the node and of the daemon, in a fleet with no node that
 * is not a validator (issue 43, seed 6: a new shard owner resolved the incident one second before the
 * node's own check failed again). AvalancheGo's `network` check reports the inbound connection count
 * only after `--network-no-ingress-connections-grace-period`, counted from the node's start
 * (network/network.go HealthCheck, network/no_ingress_conn_alert.go), and validators see a node whose
 * port is closed connected over its own dials (vms/platformvm/service.go: Network.Peers().Has). So
 * inside the grace, with no non-validator witness, nothing says whether the port is open: the incident
 * stays open (the daemon does not resolve what it cannot judge) and the target says it is unknown;
 * the node's own count, once reported, ends it. Real processes (dist/cli.js), simulated nodes
 * (src/sim: `inbound-closed`, POST /sim/nodes/<n>/restart with `ingressGraceSeconds`).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFleet, type Fleet } from '../helpers/fleet.js';
import { get, setScenario, waitFor } from '../helpers/harness.js';

describe('a closed port inside the ingress grace', () => {
  const names = Array.from({ length: 4 }, (_, i) => `validator-${i + 1}`);
  let fleet: Fleet;

  beforeAll(async () => {
    fleet = await startFleet({
      nodes: names.map((name) => ({ name })),
      config: ({ hook, node }) => `
defaults: {interval: 1s, timeout: 1s, validator: {interval: 1s, network: {interval: 3s}}}
nodes:
${names.map((n) => node(n)).join('\n')}
alerts:
  receivers:
    - {name: oncall, webhook: {url: "${hook}"}}
`,
    });
  }, 60_000);

  afterAll(() => fleet?.stop());

  const port = () => fleet.told({ path: '/hook', target: 'validator-4', alertname: 'AvalancheValidatorUnreachableByPeers' });
  const restartNode = async (ingressGraceSeconds: number) => {
    const response = await fetch(`${fleet.sim.baseUrl}/sim/nodes/validator-4/restart`, { method: 'POST', body: JSON.stringify({ ingressGraceSeconds, snapshotSeconds: 0 }) });
    expect(response.status).toBe(200);
  };
  const shown = async () =>
    JSON.parse((await get(`${fleet.url}/api/v1/targets/validator-4`)).body) as { unknown?: string[]; incidents?: Array<{ alertname: string }> };
  const asked = () => fleet.sim.nodes.get('validator-1')!.economics.calls.filter((m) => m === 'platform.getCurrentValidators').length;

  it('is neither resolved nor called healthy by a daemon that cannot judge it, and ends on the node\'s own count', { timeout: 150_000 }, async () => {
    await setScenario(fleet.sim, 'validator-4', 'inbound-closed');
    await waitFor('the closed port paged', () => port().some((a) => a.status === 'firing'), 45_000);
    const [paged] = port();

    // The node restarts (its grace starts over), then the daemon is killed and starts knowing nothing of the port.
    await restartNode(600);
    await fleet.restart('SIGKILL');
    const since = asked();
    await waitFor('four rounds of the fleet asked since', () => asked() >= since + 4, 45_000);
    const target = await waitFor('the port shown unknown', async () => ((await shown()).unknown?.some((u) => u.startsWith('whether its staking port is open unknown')) ? shown() : undefined), 30_000);
    expect(target.incidents?.map((i) => i.alertname)).toContain('AvalancheValidatorUnreachableByPeers');
    expect(port().filter((a) => a.status === 'resolved')).toEqual([]);
    expect(new Set(port().map((a) => a.startsAt))).toEqual(new Set([paged!.startsAt]));

    // The port opens; the node's own count (reported once its grace is over) ends the incident, once.
    await setScenario(fleet.sim, 'validator-4', 'healthy');
    await restartNode(0);
    await waitFor('the incident resolved', () => port().some((a) => a.status === 'resolved'), 45_000);
    const resolved = port().filter((a) => a.status === 'resolved');
    expect(resolved).toHaveLength(1);
    expect(resolved[0]!.startsAt).toBe(paged!.startsAt);
    expect((await shown()).unknown ?? []).not.toContainEqual(expect.stringContaining('staking port'));
  });

  // Issue 43, seed 9: a daemon restarted just after a dip kept the network's alert open while a
  // validator's port could not be judged, though whatever it is, it is that node's own.
  it("a port nobody can judge does not keep the network's alert open after a dip", { timeout: 180_000 }, async () => {
    const network = () => fleet.told({ path: '/hook', alertname: 'AvalancheNetworkDegraded' });
    const dip = async (value: { connectedPercent: number } | null) => {
      const response = await fetch(`${fleet.sim.baseUrl}/sim/network`, { method: 'POST', body: JSON.stringify({ dip: value }) });
      expect(response.status).toBe(200);
    };
    // The node restarts (its grace starts over) and runs healthy through a dip.
    await restartNode(600);
    const node = fleet.sim.nodes.get('validator-4')!;
    await waitFor('the restarted node healthy', () => node.health(undefined).healthy, 30_000);
    await dip({ connectedPercent: 70 });
    await waitFor("the network's alert", () => network().some((a) => a.status === 'firing'), 60_000);
    // The dip ends and the daemon starts again, knowing nothing of the port.
    await dip(null);
    await fleet.restart('SIGKILL');
    await waitFor('the port shown unknown', async () => (await shown()).unknown?.some((u) => u.startsWith('whether its staking port is open unknown')), 60_000);
    // FLEET_WAIT_MS (5 minutes) is what a network with a validator still to hear from waits after a start.
    await waitFor("the network's alert resolved", () => network().some((a) => a.status === 'resolved'), 90_000);
    expect(new Set(network().map((a) => a.startsAt)).size).toBe(1);
  });

  // Issue 43, seed 29: a validator its peers saw disconnected, paged for that inside its grace, stayed
  // paged once they saw it connected again, because the port (which that incident never spoke of)
  // could not be judged.
  it('peers that see it connected again end an incident opened because they saw it disconnected', { timeout: 150_000 }, async () => {
    // The node restarts (its grace starts over), and so does the daemon: nothing says whether the port is open.
    await restartNode(600);
    await fleet.restart('SIGKILL');
    const node = fleet.sim.nodes.get('validator-4')!;
    await waitFor('the port shown unknown', async () => (await shown()).unknown?.some((u) => u.startsWith('whether its staking port is open unknown')), 60_000);
    const before = port().length;
    const since = () => port().slice(before);
    await setScenario(fleet.sim, 'validator-4', 'unreachable-by-peers');
    await waitFor('its peers seeing it disconnected paged', () => since().some((a) => a.status === 'firing' && /see it disconnected/.test(a.annotations.summary ?? '')), 60_000);
    const [paged] = since();

    await setScenario(fleet.sim, 'validator-4', 'healthy');
    await waitFor('the incident resolved', () => since().some((a) => a.status === 'resolved'), 60_000);
    expect(since().filter((a) => a.status === 'resolved').map((a) => a.startsAt)).toEqual([paged!.startsAt]);
    expect(node.health(undefined).healthy).toBe(true);
  });
});
