/**
 * No incident is left open at a receiver, whatever happens to the daemon: a SIGKILL right after a
 * firing reached the receiver, a shard count change that moves a target away.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { outboxFile } from '../../src/alerts/outbox.js';
import { afterEach, describe, expect, it } from 'vitest';
import { inShard } from '../../src/shard.js';
import { startCapture } from '../helpers/capture.js';
import { startCli, type LongRunning } from '../helpers/cli.js';
import { closedPort, get, setScenario, startSim, waitFor, writeConfig } from '../helpers/harness.js';
import { requireTool } from '../helpers/tools.js';
import { incidentsOf } from '../helpers/incidents.js';

const alertmanagerBin = requireTool('prometheus-alertmanager', 'the expiry test against a real Alertmanager', ['prometheus-alertmanager', 'alertmanager']);

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function run(file: string, ...args: string[]): LongRunning {
  const daemon = startCli(['run', '--config', file, ...args]);
  cleanups.push(() => {
    daemon.child.kill('SIGKILL');
    return daemon.exit;
  });
  return daemon;
}

describe('no incident left open', () => {
  it('a daemon SIGKILLed as its first firing reaches the receiver resolves it after the restart', { timeout: 60_000 }, async () => {
    const sim = await startSim([{ name: 'n', scenario: 'network-down' }]);
    cleanups.push(() => sim.close());
    let daemon: LongRunning | undefined;
    // The receiver has the firing in hand; the daemon dies before it hears back.
    const capture = await startCapture(() => {
      daemon?.child.kill('SIGKILL');
      return { status: 200 };
    });
    cleanups.push(() => capture.close());
    const file = writeConfig(`
listen: 127.0.0.1:0
state_dir: ./state
nodes:
  - {name: n, url: "${sim.nodeUrl('n')}", interval: 1s, endpoints: [health]}
alerts:
  for_polls: 1
  receivers:
    - {name: hook, webhook: {url: "${capture.url}/hook"}}
`);
    daemon = run(file);
    await daemon.exit;
    const fired = incidentsOf(capture.requests);
    expect(fired.open.size).toBeGreaterThan(0);

    await setScenario(sim, 'n', 'healthy');
    capture.respond(() => ({ status: 200 }));
    daemon = run(file);
    await waitFor('a resolve of every incident the receiver was told of', () => incidentsOf(capture.requests).open.size === 0, 20_000);
    const told = incidentsOf(capture.requests);
    expect(told.reannounced).toEqual([]);
    expect(new Set(told.resolves.map((a) => a.fingerprint))).toEqual(fired.seen);
  });

  it('a shard count change resolves the open incidents of a target that left the shard, saying why', { timeout: 60_000 }, async () => {
    // a node of shard 0/2 that belongs to 1/3 after the change
    const name = Array.from({ length: 100 }, (_, i) => `s${i}`).find((n) => inShard(n, { index: 0, count: 2 }) && inShard(n, { index: 1, count: 3 }))!;
    const sim = await startSim([{ name, scenario: 'network-down' }]);
    cleanups.push(() => sim.close());
    const capture = await startCapture();
    cleanups.push(() => capture.close());
    const file = writeConfig(`
listen: 127.0.0.1:0
state_dir: ./state
nodes:
  - {name: ${name}, url: "${sim.nodeUrl(name)}", interval: 1s, endpoints: [health]}
alerts:
  for_polls: 1
  receivers:
    - {name: hook, webhook: {url: "${capture.url}/hook"}}
`);
    const two = run(file, '--shard', '0/2');
    await waitFor('the firing from shard 0/2', () => incidentsOf(capture.requests).open.size > 0, 20_000);
    two.child.kill('SIGTERM');
    await two.exit;
    const fired = incidentsOf(capture.requests).seen;

    await setScenario(sim, name, 'healthy');
    const three = run(file, '--shard', '0/3');
    await waitFor('a resolve of every incident from shard 0/3', () => incidentsOf(capture.requests).open.size === 0, 20_000);
    const told = incidentsOf(capture.requests);
    expect(new Set(told.resolves.map((a) => a.fingerprint))).toEqual(fired);
    for (const resolve of told.resolves) expect(resolve.annotations.description).toContain('Resolved by avahealth: target moved to another shard.');
    expect(three.output()).toContain('restored alerts of a target that moved to another shard handed over');
  });

  it.skipIf(!alertmanagerBin)('an alert sent to a real Alertmanager expires there when avahealth dies for good', { timeout: 60_000 }, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'avahealth-am-expiry-'));
    writeFileSync(join(dir, 'alertmanager.yml'), 'route: {receiver: none}\nreceivers: [{name: none}]\n');
    const port = await closedPort();
    const am = `http://127.0.0.1:${port}`;
    const alertmanager = spawn(alertmanagerBin!, [`--config.file=${join(dir, 'alertmanager.yml')}`, `--storage.path=${dir}`, `--web.listen-address=127.0.0.1:${port}`, '--cluster.listen-address='], { stdio: 'ignore' });
    cleanups.push(() => alertmanager.kill('SIGTERM'));
    await waitFor('Alertmanager to be ready', async () => (await get(`${am}/-/ready`).catch(() => ({ status: 0 }))).status === 200, 30_000);
    const sim = await startSim([{ name: 'n', scenario: 'network-down' }]);
    cleanups.push(() => sim.close());
    const file = writeConfig(`
listen: 127.0.0.1:0
state_dir: ./state
nodes:
  - {name: n, url: "${sim.nodeUrl('n')}", interval: 1s, endpoints: [health]}
alerts:
  for_polls: 1
  receivers:
    - {name: am, alertmanager: {url: "${am}", resend_interval: 2s}}
`);
    const active = async () => ((JSON.parse((await get(`${am}/api/v2/alerts?active=true`)).body) as Array<{ labels: Record<string, string>; status: { state: string } }>).filter((a) => a.labels.target === 'n' && a.status.state === 'active'));
    const daemon = run(file);
    await waitFor('the alerts active in Alertmanager', async () => (await active()).length > 0, 20_000);
    daemon.child.kill('SIGKILL'); // for good: nobody re-sends or resolves them
    await daemon.exit;
    // endsAt is four re-send intervals (8 s) ahead; without it Alertmanager holds them for its resolve_timeout (5 m)
    await waitFor('the alerts to expire in Alertmanager', async () => (await active()).length === 0, 30_000);
  });

  it('an outbox journal from before open incidents were recorded is seeded from the alert states, so its incidents stay open and resolve', { timeout: 60_000 }, async () => {
    const sim = await startSim([{ name: 'n', scenario: 'network-down' }]);
    cleanups.push(() => sim.close());
    const capture = await startCapture();
    cleanups.push(() => capture.close());
    const file = writeConfig(`
listen: 127.0.0.1:0
state_dir: ./state
nodes:
  - {name: n, url: "${sim.nodeUrl('n')}", interval: 1s, endpoints: [health]}
alerts:
  for_polls: 1
  receivers:
    - {name: hook, webhook: {url: "${capture.url}/hook"}}
`);
    const journal = outboxFile(join(dirname(file), 'state'), 'hook');
    const runFor = async (polls: number) => {
      const daemon = run(file);
      await daemon.waitForOutput(/first poll round complete/);
      // polls with the node still failing, counted where the node answers (however slow the machine)
      const polled = sim.nodes.get('n')!.requests;
      await waitFor(`${polls} more polls`, () => sim.nodes.get('n')!.requests >= polled + polls + 1, 30_000);
      daemon.child.kill('SIGTERM');
      await daemon.exit;
    };
    const first = run(file);
    await waitFor('the firing delivered', () => incidentsOf(capture.requests).open.size > 0, 20_000);
    first.child.kill('SIGTERM');
    await first.exit;
    const fired = incidentsOf(capture.requests);
    // what an earlier version left after compacting delivered batches away: no `open` line, no adds
    expect(readFileSync(journal, 'utf8')).toContain('"open"');
    writeFileSync(journal, '');

    const sent = capture.requests.length;
    await runFor(3); // seeds the journal from alerts.json
    await runFor(3); // the journal alone now says what is open
    expect(capture.requests.length).toBe(sent); // nothing announced again

    await setScenario(sim, 'n', 'healthy');
    run(file);
    await waitFor('the resolves', () => incidentsOf(capture.requests).open.size === 0, 20_000);
    const told = incidentsOf(capture.requests);
    expect(told.reannounced).toEqual([]);
    expect(new Set(told.resolves.map((a) => a.fingerprint))).toEqual(fired.seen);
  });
});
