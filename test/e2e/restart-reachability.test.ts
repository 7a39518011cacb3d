/**
 * A SIGKILL of the daemon in the middle of two reachability incidents (issue 38: the trust bench's
 * repeats after the kill): the restarted daemon knows nothing of the fleet for its first polls (the
 * validators' NodeIDs are learnt again by their validator polls, the observers' own health by their
 * polls), and must neither resolve the open incidents on that nor page them again, nor page the
 * closed port's CheckFailing{check="network"} meanwhile. Real processes (dist/cli.js), simulated
 * AvalancheGo nodes (src/sim: `unreachable-by-peers`, `inbound-closed` past AvalancheGo's grace).
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SimServer } from '../../src/sim/server.js';
import { startCapture } from '../helpers/capture.js';
import { runDaemon, stopCli, type RunningCli } from '../helpers/cli.js';
import { get, setScenario, waitFor, writeConfig } from '../helpers/harness.js';

type Alert = { status: string; labels: Record<string, string>; startsAt: string };

describe('a restart in the middle of reachability incidents', () => {
  const names = Array.from({ length: 6 }, (_, i) => `validator-${i + 1}`);
  let sim: SimServer;
  let capture: Awaited<ReturnType<typeof startCapture>>;
  let daemon: RunningCli;
  let url: string;
  let file: string;

  const start = async () => {
    daemon = await runDaemon(file);
    url = daemon.url;
  };

  beforeAll(async () => {
    sim = new SimServer(names.map((name) => ({ name, periodMs: 3_600_000 })));
    await sim.listen(0);
    capture = await startCapture();
    file = writeConfig(`
listen: 127.0.0.1:0
state_dir: ${mkdtempSync(join(tmpdir(), 'avahealth-restart-reach-'))}
defaults: {interval: 1s, timeout: 1s, validator: {interval: 2s, network: {interval: 3s}}}
nodes:
${names.map((n) => `  - {name: ${n}, url: "${sim.nodeUrl(n)}"}`).join('\n')}
alerts:
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

  const alerts = (): Alert[] => capture.on('/hook').flatMap((r) => (r.json as { alerts: Alert[] }).alerts);
  const about = (target: string) => alerts().filter((a) => a.labels.target === target);
  const firingHere = async () => (JSON.parse((await get(`${url}/api/v1/alerts`)).body) as { alerts: Array<{ alertname: string; target: string; state: string }> }).alerts.filter((a) => a.state === 'firing');

  it('keeps both incidents open, pages nothing again, and holds the closed port\'s network check back', { timeout: 120_000 }, async () => {
    await setScenario(sim, 'validator-5', 'unreachable-by-peers');
    await setScenario(sim, 'validator-6', 'inbound-closed');
    await waitFor('both pages', () => ['validator-5', 'validator-6'].every((t) => about(t).some((a) => a.status === 'firing' && a.labels.alertname === 'AvalancheValidatorUnreachableByPeers')), 45_000);
    const paged = new Set(alerts().map((a) => `${a.labels.alertname} ${a.labels.target} ${a.startsAt}`));
    const before = alerts().length;

    daemon.child.kill('SIGKILL');
    await daemon.exit;
    await start();
    // the fleet's view asked again several times since the restart (the observed job's `observed` endpoint)
    const served = () => sim.nodes.get('validator-1')!.economics.calls.filter((m) => m === 'platform.getCurrentValidators').length;
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
