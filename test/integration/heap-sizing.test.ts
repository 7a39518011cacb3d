/**
 * V8 sized for the fleet (src/util/heap.ts): a one-node daemon keeps its young generation at the
 * initial semi-space and runs JavaScript interpreted, a large fleet lets the young generation grow
 * and gets the optimising compilers, and flags the operator gave node win.
 */
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SimServer } from '../../src/sim/server.js';
import { startCli } from '../helpers/cli.js';
import { sample, scrape, startSim, waitFor, writeConfig, get } from '../helpers/harness.js';

const HEAP = fileURLToPath(new URL('../../dist/util/heap.js', import.meta.url));
const MiB = 1024 * 1024;

/** Runs `tuneForFleet(targets)` in a fresh node, allocates garbage of which much survives a scavenge, returns the young generation's size. */
/**
 * Runs `tuneForFleet(targets)` (after `startSmall()`, as the CLI does) in a fresh node, allocates
 * garbage of which much survives a scavenge, returns the young generation's size and whether a hot
 * function ended up interpreted (V8's own status bits: 128 interpreted, 64 TurboFan code; a
 * TurboFan compile runs in a background thread, so the check waits for it, whatever the load).
 */
function afterChurn(targets: number, nodeArgs: string[] = [], compilersNeeded = false): Promise<{ newSpace: number; tuning: Record<string, unknown>; interpreted: boolean; turbofanned: boolean }> {
  const script = `
    import v8 from 'node:v8';
    const { startSmall, tuneForFleet, optimisingCompilersNeeded } = await import(${JSON.stringify(HEAP)});
    startSmall();
    if (${compilersNeeded}) optimisingCompilersNeeded();
    const tuning = tuneForFleet(${targets});
    let keep = [];
    const entry = (i) => ({ i, s: 'x' + i });
    for (let i = 0; i < 3e6; i++) { keep.push(entry(i)); if (keep.length > 200000) keep = []; }
    const newSpace = v8.getHeapSpaceStatistics().find((s) => s.space_name === 'new_space').space_size;
    %WaitForBackgroundOptimization();
    entry(0);
    const status = %GetOptimizationStatus(entry);
    process.stdout.write(JSON.stringify({ newSpace, tuning, interpreted: (status & 128) !== 0, turbofanned: (status & 64) !== 0 }));`;
  return new Promise((resolve, reject) =>
    execFile(process.execPath, [...nodeArgs, '--allow-natives-syntax', '--input-type=module', '-e', script], { env: { ...process.env, NODE_OPTIONS: '' } }, (err, stdout) => (err ? reject(err) : resolve(JSON.parse(stdout)))),
  );
}

describe('V8 sized for the fleet', () => {
  it('keeps the young generation at its initial size and JavaScript interpreted for a small fleet', async () => {
    const small = await afterChurn(1);
    expect(small.tuning).toEqual({ semiSpaceGrowthFactor: 1, liftoffOnly: true, optimisingCompilers: false });
    expect(small.newSpace).toBeLessThanOrEqual(2 * MiB);
    expect(small.interpreted).toBe(true);
    expect(small.turbofanned).toBe(false);
  });

  it('lets the young generation grow and optimises hot code for a large fleet', async () => {
    const large = await afterChurn(1000);
    expect(large.tuning).toEqual({ semiSpaceGrowthFactor: 2, liftoffOnly: false, optimisingCompilers: true });
    expect(large.newSpace).toBeGreaterThan(4 * MiB);
    expect(large.turbofanned).toBe(true);
  });

  it('keeps the optimising compilers for a small fleet once something needs them (basic auth hashes with bcryptjs)', async () => {
    const small = await afterChurn(1, [], true);
    expect(small.tuning).toEqual({ semiSpaceGrowthFactor: 1, liftoffOnly: true, optimisingCompilers: true });
    expect(small.turbofanned).toBe(true);
  });

  it('leaves the sizes and the compilers to the operator when node was given them', async () => {
    const own = await afterChurn(1, ['--max-semi-space-size=8', '--no-liftoff-only', '--opt']);
    expect(own.tuning).toEqual({});
    expect(own.newSpace).toBeGreaterThan(4 * MiB);
    expect(own.turbofanned).toBe(true);
    const interpreted = await afterChurn(1000, ['--no-opt', '--no_sparkplug']);
    expect(interpreted.tuning).toEqual({ semiSpaceGrowthFactor: 2, liftoffOnly: false });
    expect(interpreted.interpreted).toBe(true);
  });
});

describe('a one-node daemon', () => {
  let sim: SimServer;
  beforeAll(async () => {
    sim = await startSim([{ name: 'n', scenario: 'healthy' }]);
  });
  afterAll(async () => {
    await sim?.close();
  });

  it('polls with a young generation of its initial size (the modules it loads at start do not grow it)', async () => {
    const file = writeConfig(`listen: 127.0.0.1:0\nstate_dir: ./state\nnodes:\n  - {name: n, url: "${sim.nodeUrl('n')}", interval: 1s}\n`);
    const daemon = startCli(['run', '--config', file], { NODE_OPTIONS: '' });
    try {
      const [, address] = await daemon.waitForOutput(/"address":"([^"]+)"/);
      const base = `http://${address}`;
      await waitFor('ready', async () => (await get(`${base}/-/ready`)).status === 200);
      const samples = await scrape(base);
      expect(sample(samples, 'avahealth_probe_success', { target: 'n', endpoint: 'health' })).toBe(1);
      const newSpace = sample(samples, 'nodejs_heap_space_size_total_bytes', { space: 'new' });
      expect(newSpace).toBeGreaterThan(0);
      expect(newSpace).toBeLessThanOrEqual(2 * MiB);
    } finally {
      daemon.child.kill('SIGTERM');
      await daemon.exit;
    }
  });
});
