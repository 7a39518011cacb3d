/**
 * One end-to-end fleet (issue 48): simulated AvalancheGo nodes and hosted APIs on port 0
 * (src/sim), a webhook receiver that records every request (capture.ts), and the built daemon
 * (dist/cli.js run) with a config made from both, in a state_dir of its own. `told()` is what the
 * receivers heard, alert by alert; `stop()` ends whatever of the three started.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { SimNodeOptions } from '../../src/sim/node.js';
import { SimServer } from '../../src/sim/server.js';
import { startCapture, type Responder, type ToldAlert, type ToldMatch } from './capture.js';
import { runDaemon, stopCli, type RunningCli } from './cli.js';
import { writeConfig } from './harness.js';

export type { ToldAlert, ToldMatch } from './capture.js';

export interface FleetSetup {
  sim: SimServer;
  /** The webhook receiver's URL (`…/hook`); other paths of the same server are recorded as well. */
  hook: string;
  /** A node of the simulator as a line of `nodes:`: `  - {name: NAME, url: "…"EXTRA}`. */
  node: (name: string, extra?: string, as?: string) => string;
}

export interface FleetOptions {
  /** The simulated nodes (their health period as given: the simulator's default when none). */
  nodes: SimNodeOptions[];
  /** The simulator's own options (block time, uptime clock). */
  simOptions?: ConstructorParameters<typeof SimServer>[1];
  /** Changes to the simulated nodes before the daemon starts, so it never sees another state. */
  prepare?: (sim: SimServer) => void | Promise<void>;
  /** The config after `listen:` and `state_dir:`, which the fleet writes (its own temporary directory). */
  config: (setup: FleetSetup) => string;
  /** How the receiver answers (200 by default). */
  respond?: Responder;
  /** Arguments after `run --config FILE` (`--shard 0/2`). */
  args?: string[];
  /** Wait for the first poll round too, not only the start. */
  firstRound?: boolean;
}

export interface Fleet {
  sim: SimServer;
  capture: Awaited<ReturnType<typeof startCapture>>;
  /** The running daemon (a new one after `restart()`). */
  readonly daemon: RunningCli;
  /** The running daemon's base URL. */
  readonly url: string;
  file: string;
  stateDir: string;
  /** Every alert the receiver was told, in the order it heard them; `match` keeps some. */
  told: (match?: ToldMatch) => ToldAlert[];
  /**
   * Ends the daemon (SIGTERM, or SIGKILL as a crash) and starts it again on the same config and
   * state_dir; `meanwhile` runs while no daemon runs (what changes while avahealth is down).
   */
  restart: (signal?: 'SIGTERM' | 'SIGKILL', meanwhile?: () => Promise<void>) => Promise<void>;
  /** For `.catch()` of a wait: the error again, with the daemon's last output. */
  explain: (err: Error) => never;
  stop: () => Promise<void>;
}

export async function startFleet(options: FleetOptions): Promise<Fleet> {
  const sim = new SimServer(options.nodes, options.simOptions);
  let capture: Fleet['capture'] | undefined;
  let daemon: RunningCli | undefined;
  const stop = async () => {
    await stopCli(daemon);
    await capture?.close();
    await sim.close();
  };
  try {
    await sim.listen(0);
    await options.prepare?.(sim);
    capture = await startCapture(options.respond);
    const stateDir = mkdtempSync(join(tmpdir(), 'avahealth-fleet-'));
    const hook = `${capture.url}/hook`;
    const node = (name: string, extra = '', as = name) => `  - {name: ${as}, url: "${sim.nodeUrl(name)}"${extra}}`;
    const file = writeConfig(`listen: 127.0.0.1:0\nstate_dir: ${stateDir}\n${options.config({ sim, hook, node }).replace(/^\n/, '')}`);
    const start = async () => {
      daemon = await runDaemon(file, {}, options.args ?? []);
      if (options.firstRound) await daemon.waitForOutput(/first poll round complete/, 30_000);
    };
    await start();
    const recorded = capture;
    return {
      sim,
      capture: recorded,
      get daemon() {
        return daemon!;
      },
      get url() {
        return daemon!.url;
      },
      file,
      stateDir,
      told: recorded.told,
      restart: async (signal = 'SIGTERM', meanwhile) => {
        daemon!.child.kill(signal);
        await daemon!.exit;
        daemon = undefined;
        await meanwhile?.();
        await start();
      },
      explain: (err: Error) => {
        throw new Error(`${err.message}\n${daemon?.output().slice(-3000) ?? '(no daemon)'}`);
      },
      stop,
    };
  } catch (err) {
    await stop();
    throw err;
  }
}
