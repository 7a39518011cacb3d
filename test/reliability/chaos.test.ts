/**
 * Chaos: 50 flapping simulated nodes, the daemon SIGKILLed at random moments ten times (restarted
 * after each; half the kills land the moment a notification reaches the receiver), then every node
 * healthy. Every incident the receiver was ever told of ends resolved, and no firing is announced
 * under a new startsAt while the earlier one is still open there.
 */
import { request } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { SimServer } from '../../src/sim/server.js';
import { startCapture } from '../helpers/capture.js';
import { startCli, type LongRunning } from '../helpers/cli.js';
import { waitWhileProgressing, writeConfig } from '../helpers/harness.js';
import { incidentsOf } from '../helpers/incidents.js';

const NODES = 50;
const KILLS = 10;

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

describe('chaos: SIGKILL during a flapping fleet', () => {
  // Its waits count progress (polls the simulator served, notifications received), not wall time:
  // beside CPU-bound processes everything is slower, and only a daemon that stopped moving fails.
  it('every incident ends resolved at the receiver, none re-announced under a new startsAt', { timeout: 900_000 }, async () => {
    const names = Array.from({ length: NODES }, (_, i) => `flap-${i + 1}`);
    // Each node's C-Chain check flips every period; periods differ so the fleet never flips in step.
    const sim = new SimServer(names.map((name, i) => ({ name, scenario: 'flapping' as const, periodMs: 700 + (i % 7) * 150 })));
    await sim.listen(0);
    cleanups.push(() => sim.close());

    const polls = () => [...sim.nodes.values()].reduce((sum, node) => sum + node.requests, 0);
    let daemon: LongRunning | undefined;
    let killOnRequest = false;
    const capture = await startCapture(() => {
      if (killOnRequest) {
        killOnRequest = false;
        daemon?.child.kill('SIGKILL'); // the receiver holds this notification; the daemon never hears back
      }
      return { status: 200 };
    });
    cleanups.push(() => capture.close());
    const file = writeConfig(`
listen: 127.0.0.1:0
state_dir: ./state
defaults: {interval: 1s, timeout: 1s, validator: false, endpoints: [health]}
nodes:
${names.map((name) => `  - {name: ${name}, url: "${sim.nodeUrl(name)}"}`).join('\n')}
alerts:
  for_polls: 1
  resolve_polls: 1
  flap_threshold: 6
  flap_window: 3s
  receivers:
    - {name: hook, webhook: {url: "${capture.url}/hook"}}
`);
    /**
     * A flapping fleet changes state on every poll (with resolve_polls 1: at the default 3, a C-Chain
     * check failing every other period of 0.7–1.6 s never resolves, so once every incident is told a
     * daemon rightly has nothing to say), so a daemon that polls on tells something soon. The
     * budget is polls, not seconds: a slow machine polls slower too, and a daemon that polls but has
     * stopped telling (a wedged outbox) fails here with its log instead of running into the timeout.
     */
    const waitForNotification = async (told: number) => {
      const budget = polls() + NODES * 120;
      await waitWhileProgressing(
        'a notification to kill on',
        () => capture.requests.length > told || daemon!.child.exitCode !== null || daemon!.child.signalCode !== null,
        () => Math.min(polls(), budget),
      ).catch((err: Error) => {
        throw new Error(`${err.message} (${NODES * 120} polls served, ${capture.requests.length - told} notifications)\n${daemon!.output().slice(-6000)}`);
      });
    };
    const start = () => {
      const started = startCli(['run', '--config', file]);
      cleanups.push(() => {
        started.child.kill('SIGKILL');
        return started.exit;
      });
      return started;
    };

    for (let kill = 0; kill < KILLS; kill++) {
      daemon = start();
      await daemon.waitForOutput(/avahealth started/, 120_000);
      const told = capture.requests.length;
      await new Promise((resolve) => setTimeout(resolve, 200 + Math.random() * 1800));
      if (kill % 2 === 1) {
        killOnRequest = true;
        await waitForNotification(told);
        killOnRequest = false;
      }
      daemon.child.kill('SIGKILL');
      await daemon.exit;
    }
    const before = incidentsOf(capture.requests);
    expect(before.seen.size).toBeGreaterThan(NODES / 2);

    const healthy = await request(`${sim.baseUrl}/sim/scenario`, { method: 'POST', body: JSON.stringify({ scenario: 'healthy' }) });
    expect(healthy.statusCode).toBe(200);
    await healthy.body.text();
    daemon = start();
    // Here progress is resolves arriving: a daemon that polls on but never resolves fails after a minute
    // without one, and one that keeps telling but never closes them all once every node was polled 300 times more.
    const budget = polls() + NODES * 300;
    await waitWhileProgressing('every incident resolved at the receiver', () => incidentsOf(capture.requests).open.size === 0, () => (polls() > budget ? -1 : capture.requests.length), 60_000).catch((err: Error) => {
      const open = [...incidentsOf(capture.requests).open.keys()];
      throw new Error(`${err.message}: ${open.length} still open (${open.slice(0, 5).join(', ')})\n${daemon!.output().slice(-3000)}`);
    });
    expect(incidentsOf(capture.requests).reannounced).toEqual([]);
  });
});
