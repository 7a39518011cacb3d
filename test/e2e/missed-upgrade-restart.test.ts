/**
 * A missed upgrade survives a restart of avahealth. After the deadline the node's upgraded peers
 * drop it (network/peer/peer.go) and its futureupgrade check passes again (node/node.go): a daemon
 * started then could not learn the deadline from the node any more. The deadline the check named
 * is remembered in state_dir (missed-upgrades.json), so AvalancheNodeUpgradeRequired stays firing
 * across the restart, and resolves only once the node's build knows the upgrade.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SimServer } from '../../src/sim/server.js';
import { startCapture } from '../helpers/capture.js';
import { runDaemon, stopCli, type RunningCli } from '../helpers/cli.js';
import { sample, scrape, setScenario, waitFor, writeConfig } from '../helpers/harness.js';

type Alert = { status: string; labels: Record<string, string>; annotations: Record<string, string>; fingerprint: string };

describe('a missed upgrade across a restart of avahealth', () => {
  let sim: SimServer;
  let capture: Awaited<ReturnType<typeof startCapture>>;
  let daemon: RunningCli;
  let url: string;
  let file: string;
  const stateDir = mkdtempSync(join(tmpdir(), 'avahealth-missed-'));

  const start = async () => {
    daemon = await runDaemon(file);
    url = daemon.url;
  };

  beforeAll(async () => {
    sim = new SimServer([{ name: 'upg', scenario: 'upgrade-required', upgradeIn: 12 * 3600, periodMs: 500 }]);
    await sim.listen(0);
    capture = await startCapture();
    file = writeConfig(`
listen: 127.0.0.1:0
state_dir: ${stateDir}
defaults: {interval: 1s, timeout: 1500ms, endpoints: [health], validator: false}
nodes:
  - {name: upg, url: "${sim.nodeUrl('upg')}"}
alerts:
  for_polls: 1
  resolve_polls: 1
  receivers:
    - {name: oncall, webhook: {url: "${capture.url}/hook"}}
`);
    await start();
  }, 60_000);

  afterAll(async () => {
    await stopCli(daemon);
    await sim?.close();
    await capture?.close();
  });

  const told = (status: string) => capture.on('/hook').flatMap((r) => (r.json as { alerts: Alert[] }).alerts).filter((a) => a.status === status && a.labels.alertname === 'AvalancheNodeUpgradeRequired');

  it('stays firing, critical, after a restart past the deadline; resolves once the build knows it', { timeout: 150_000 }, async () => {
    const critical = await waitFor('UpgradeRequired critical', () => told('firing').find((a) => a.labels.severity === 'critical'), 30_000);
    await setScenario(sim, 'upg', 'upgrade-required', { upgradeIn: 4 });
    await waitFor('futureupgrade passing again (dropped by its peers)', async () => sample(await scrape(url), 'avahealth_node_check_passing', { target: 'upg', check: 'futureupgrade' }) === 1, 60_000);
    const deadline = sample(await scrape(url), 'avahealth_node_upgrade_deadline_timestamp_seconds', { target: 'upg' });
    // written within a second of the change (state/ledger.ts)
    const remembered = () => {
      try {
        return (JSON.parse(readFileSync(join(stateDir, 'missed-upgrades.json'), 'utf8')) as { nodes: Record<string, { deadline: number }> }).nodes.upg?.deadline;
      } catch {
        return undefined;
      }
    };
    await waitFor('the deadline remembered in state_dir', () => remembered() === deadline, 10_000);

    daemon.child.kill('SIGTERM');
    await daemon.exit;
    await start();
    // Its check passes now: only what was remembered tells the new daemon of the deadline.
    const polled = sim.nodes.get('upg')!.requests;
    await waitFor('four polls of upg by the new daemon', () => sim.nodes.get('upg')!.requests >= polled + 4, 30_000);
    const m = await scrape(url);
    expect(sample(m, 'avahealth_node_check_passing', { target: 'upg', check: 'futureupgrade' })).toBe(1);
    expect(sample(m, 'avahealth_node_upgrade_deadline_timestamp_seconds', { target: 'upg' })).toBe(deadline);
    expect(sample(m, 'avahealth_alerts', { alertname: 'AvalancheNodeUpgradeRequired', severity: 'critical', state: 'firing' })).toBe(1);
    expect(told('resolved')).toEqual([]);

    await setScenario(sim, 'upg', 'healthy');
    const resolved = await waitFor('UpgradeRequired resolved', () => told('resolved')[0], 30_000);
    expect(resolved.fingerprint).toBe(critical.fingerprint);
  });
});
