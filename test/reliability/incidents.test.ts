/**
 * No incident is left open at a receiver, whatever happens to the daemon: a SIGKILL right after a
 * firing reached the receiver, a shard count change that moves a target away.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { startCapture } from '../helpers/capture.js';
import { startCli, type LongRunning } from '../helpers/cli.js';
import { setScenario, startSim, waitFor, writeConfig } from '../helpers/harness.js';
import { incidentsOf } from '../helpers/incidents.js';

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
});
