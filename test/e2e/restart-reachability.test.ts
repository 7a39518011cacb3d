/**
 * A SIGKILL of the daemon in the middle of two reachability incidents (issue 38: the trust bench's
 * repeats after the kill): the restarted daemon knows nothing of the fleet for its first polls (the
 * validators' NodeIDs are learnt again by their validator polls, the observers' own health by their
 * polls), and must neither resolve the open incidents on that nor page them again, nor page the
 * closed port's CheckFailing{check="network"} meanwhile. Real processes (dist/cli.js), simulated
 * AvalancheGo nodes (src/sim: `unreachable-by-peers`, `inbound-closed` past AvalancheGo's grace).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFleet, type Fleet } from '../helpers/fleet.js';
import { get, setScenario, waitFor } from '../helpers/harness.js';

describe('a restart in the middle of reachability incidents', () => {
  const names = Array.from({ length: 6 }, (_, i) => `validator-${i + 1}`);
  let fleet: Fleet;

  beforeAll(async () => {
    fleet = await startFleet({
      nodes: names.map((name) => ({ name, periodMs: 3_600_000 })),
      config: ({ hook, node }) => `
defaults: {interval: 1s, timeout: 1s, validator: {interval: 2s, network: {interval: 3s}}}
nodes:
${names.map((n) => node(n)).join('\n')}
alerts:
  receivers:
    - {name: oncall, webhook: {url: "${hook}"}}
`,
    });
  }, 60_000);

  afterAll(() => fleet?.stop());

  const alerts = () => fleet.told({ path: '/hook' });
  const about = (target: string) => fleet.told({ path: '/hook', target });
  const firingHere = async () => (JSON.parse((await get(`${fleet.url}/api/v1/alerts`)).body) as { alerts: Array<{ alertname: string; target: string; state: string }> }).alerts.filter((a) => a.state === 'firing');

  it('keeps both incidents open, pages nothing again, and holds the closed port\'s network check back', { timeout: 120_000 }, async () => {
    await setScenario(fleet.sim, 'validator-5', 'unreachable-by-peers');
    await setScenario(fleet.sim, 'validator-6', 'inbound-closed');
    await waitFor('both pages', () => ['validator-5', 'validator-6'].every((t) => about(t).some((a) => a.status === 'firing' && a.labels.alertname === 'AvalancheValidatorUnreachableByPeers')), 45_000);
    const paged = new Set(alerts().map((a) => `${a.labels.alertname} ${a.labels.target} ${a.startsAt}`));
    const before = alerts().length;

    await fleet.restart('SIGKILL');
    // the fleet's view asked again several times since the restart (the observed job's `observed` endpoint)
    const served = () => fleet.sim.nodes.get('validator-1')!.economics.calls.filter((m) => m === 'platform.getCurrentValidators').length;
    const asked = served();
    await waitFor('four more rounds of the fleet asked', () => served() >= asked + 4, 45_000);
    // Delivery is at least once: a page whose delivery was not on disk at the kill may come again, as
    // the same incident (same startsAt). Nothing else: no resolve, no new incident.
    const since = alerts().slice(before);
    expect(since.filter((a) => a.status !== 'firing' || !paged.has(`${a.labels.alertname} ${a.labels.target} ${a.startsAt}`))).toEqual([]);
    const open = (await firingHere()).map((a) => `${a.alertname} ${a.target}`);
    expect(open).toEqual(expect.arrayContaining(['AvalancheValidatorUnreachableByPeers validator-5', 'AvalancheValidatorUnreachableByPeers validator-6']));
  });
});
