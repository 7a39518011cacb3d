/**
 * A validator's public IP changed (issue #44). info.getNodeIP answers the IP:port the node
 * advertises to its peers (api/info/service.go GetNodeIP: myIP, which --public-ip-resolution-service
 * re-resolves every --public-ip-resolution-frequency, utils/dynamicip/updater.go); its peers learn a
 * new one from its signed IP gossip. AvalancheValidatorPublicIpChanged tells it, a warning for an
 * hour (its `threshold`), for a validator only: a node with no validation has no uptime to lose.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SimServer } from '../../src/sim/server.js';
import { startCapture } from '../helpers/capture.js';
import { sample, scrape, setScenario, startDaemon, startSim, waitFor, waitForRounds, type RunningDaemon } from '../helpers/harness.js';


describe('a validator whose public IP changed', () => {
  let sim: SimServer;
  let hook: Awaited<ReturnType<typeof startCapture>>;
  let d: RunningDaemon;

  beforeAll(async () => {
    sim = await startSim([
      { name: 'val', scenario: 'healthy' },
      { name: 'rpc', scenario: 'not-validator', validator: false },
    ]);
    hook = await startCapture();
    d = await startDaemon(`
listen: 127.0.0.1:0
defaults: {interval: 1s, timeout: 1s, endpoints: [health], validator: {interval: 1s, network: false}}
nodes:
  - {name: val, url: "${sim.nodeUrl('val')}"}
  - {name: rpc, url: "${sim.nodeUrl('rpc')}"}
alerts:
  for_polls: 1
  resolve_polls: 1
  rules:
    AvalancheValidatorPublicIpChanged: {threshold: 6}
  receivers:
    - {name: oncall, webhook: {url: "${hook.url}/hook"}}
`);
  }, 30_000);

  afterAll(async () => {
    await d?.stop();
    await sim?.close();
    await hook?.close();
  });

  const told = (status: string, target: string) => hook.told({ path: '/hook', status, alertname: 'AvalancheValidatorPublicIpChanged', target });
  const polls = (target: string) => d.daemon.store.get(target)?.rounds ?? 0;

  it('says nothing on the first reading, warns at a change, and resolves once the window has passed', async () => {
    const before = sim.nodes.get('val')!.economics.publicIp;
    await waitFor('a validator poll of val', async () => sample(await scrape(d.url), 'avahealth_probe_success', { target: 'val', endpoint: 'validator' }) === 1, 15_000);
    await waitForRounds(d, 'val', polls('val') + 2);
    expect(told('firing', 'val')).toEqual([]);
    expect(sample(await scrape(d.url), 'avahealth_validator_public_ip_changed_timestamp_seconds', { target: 'val' })).toBeUndefined();

    await setScenario(sim, 'val', 'healthy', { publicIp: '198.51.100.23:9651' });
    const alert = await waitFor('PublicIpChanged for val', () => told('firing', 'val')[0], 15_000);
    expect(alert.labels.severity).toBe('warning');
    expect(alert.annotations.summary).toMatch(new RegExp(`^val: public IP changed from ${before.replaceAll('.', '\\.')} to 198\\.51\\.100\\.23:9651 \\(.+ ago\\): check that its staking port is reachable there$`));
    expect(sample(await scrape(d.url), 'avahealth_validator_public_ip_changed_timestamp_seconds', { target: 'val' })).toBeGreaterThan(0);
    expect(d.logs()).toContain('"msg":"public IP changed"');

    const resolved = await waitFor('resolved after the window', () => told('resolved', 'val')[0], 20_000);
    expect(resolved.annotations.summary).toBe('val: public IP unchanged for 6s: 198.51.100.23:9651');
  });

  it('a node that validates nothing is not told', async () => {
    await setScenario(sim, 'rpc', 'not-validator', { publicIp: '198.51.100.99:9651' });
    await waitForRounds(d, 'rpc', polls('rpc') + 3);
    await waitFor('the change seen', async () => (sample(await scrape(d.url), 'avahealth_validator_public_ip_changed_timestamp_seconds', { target: 'rpc' }) ?? 0) > 0, 15_000);
    expect(told('firing', 'rpc')).toEqual([]);
  });
});
