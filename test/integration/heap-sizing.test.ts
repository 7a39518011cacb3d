/**
 * V8 sized for the fleet (src/util/heap.ts): a one-node daemon keeps its young generation at the
 * initial semi-space and runs JavaScript interpreted, a large fleet lets the young generation grow
 * (up to 16 MiB while held, whatever worker threads start) and gets the optimising compilers, and
 * flags the operator gave node win.
 */
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SimServer } from '../../src/sim/server.js';
import { startCli } from '../helpers/cli.js';
import { sample, scrape, startSim, waitFor, writeConfig, get } from '../helpers/harness.js';

const HEAP = fileURLToPath(new URL('../../dist/util/heap.js', import.meta.url));
const MiB = 1024 * 1024;
const V8_MAJOR = Number(process.versions.v8.split('.')[0]);

interface Churn {
  nodeArgs?: string[];
  compilersNeeded?: boolean;
  /** Hold the young generation (holdYoungGeneration), letting it grow only after the first half of the churn. */
  held?: boolean;
  /** Start a worker thread (its isolate resets V8's semi-space growth factor) before churning. */
  worker?: boolean;
  /** Afterwards, run a hot WebAssembly function until V8 tiers it up (or long enough that it would have). */
  wasm?: boolean;
}
interface AfterChurn {
  newSpace: number;
  /** The young generation's size after the first half of the churn. */
  newSpaceHalfway: number;
  tuning: Record<string, unknown>;
  interpreted: boolean;
  turbofanned: boolean;
  /** With `wasm`: the hot WebAssembly function's tier at the end. */
  wasmTier?: 'liftoff' | 'turbofan';
}

/** (func (param i32) (result i32)): adds n, n-1, … 1 in a loop: hot enough for V8's dynamic tiering. */
const HOT_WASM = [0, 97, 115, 109, 1, 0, 0, 0, 1, 6, 1, 96, 1, 127, 1, 127, 3, 2, 1, 0, 7, 5, 1, 1, 102, 0, 0, 10, 27, 1, 25, 1, 1, 127, 3, 64, 32, 1, 32, 0, 106, 33, 1, 32, 0, 65, 1, 107, 34, 0, 13, 0, 11, 32, 1, 11];

/**
 * Runs `tuneForFleet(targets)` (after `startSmall()`, as the CLI does) in a fresh node, allocates
 * garbage of which much survives a scavenge, in slices as a poll loop does (so a hold's callbacks
 * run between them), returns the young generation's size and whether a hot function ended up
 * interpreted (V8's own status bits: 128 interpreted, 64 TurboFan code; a TurboFan compile runs in
 * a background thread, so the check waits for it, whatever the load).
 */
function afterChurn(targets: number, churn: Churn = {}): Promise<AfterChurn> {
  const script = `
    import v8 from 'node:v8';
    import { once } from 'node:events';
    import { Worker } from 'node:worker_threads';
    import { setImmediate as slice } from 'node:timers/promises';
    const { startSmall, tuneForFleet, optimisingCompilersNeeded, holdYoungGeneration } = await import(${JSON.stringify(HEAP)});
    startSmall();
    if (${churn.compilersNeeded === true}) optimisingCompilersNeeded();
    const tuning = tuneForFleet(${targets});
    const hold = ${churn.held === true} ? holdYoungGeneration() : undefined;
    if (${churn.worker === true}) {
      const worker = new Worker('setTimeout(() => {}, 60000)', { eval: true });
      await once(worker, 'online');
      worker.unref();
      await slice();
    }
    const newSpaceNow = () => v8.getHeapSpaceStatistics().find((s) => s.space_name === 'new_space').space_size;
    // the smallest of the samples of the last 300,000 iterations before a point: V8 13 counts extra
    // pages in the young generation for a while around a full collection (6.25 MiB for 2, 19.25 for 16)
    const settled = (xs) => Math.min(...xs);
    let keep = [];
    const entry = (i) => ({ i, s: 'x' + i });
    const samples = [];
    let newSpaceHalfway = 0;
    for (let i = 0; i < 3e6; i++) {
      keep.push(entry(i));
      if (keep.length > 200000) keep = [];
      if (i % 20000 === 0) {
        await slice();
        samples.push(newSpaceNow());
      }
      if (i === 1.5e6) {
        newSpaceHalfway = settled(samples.slice(-15));
        hold?.grow();
      }
    }
    hold?.release();
    const newSpace = settled(samples.slice(-15));
    %WaitForBackgroundOptimization();
    entry(0);
    const status = %GetOptimizationStatus(entry);
    let wasmTier;
    if (${churn.wasm === true}) {
      const hot = new WebAssembly.Instance(new WebAssembly.Module(new Uint8Array(${JSON.stringify(HOT_WASM)}))).exports.f;
      // tier-up compiles in a background thread once the function has run enough: up to 200 rounds of 10^6 iterations
      for (let round = 0; round < 200 && !%IsTurboFanFunction(hot); round++) {
        for (let i = 0; i < 100; i++) hot(10000);
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      wasmTier = %IsTurboFanFunction(hot) ? 'turbofan' : %IsLiftoffFunction(hot) ? 'liftoff' : 'other';
    }
    process.stdout.write(JSON.stringify({ newSpace, newSpaceHalfway, tuning, interpreted: (status & 128) !== 0, turbofanned: (status & 64) !== 0, wasmTier }));`;
  return new Promise((resolve, reject) =>
    execFile(process.execPath, [...(churn.nodeArgs ?? []), '--allow-natives-syntax', '--input-type=module', '-e', script], { env: { ...process.env, NODE_OPTIONS: '' } }, (err, stdout) => (err ? reject(err) : resolve(JSON.parse(stdout)))),
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

  it('runs WebAssembly (undici\'s HTTP parser) as Liftoff compiled it for a small fleet, and tiers it up for a large one', async () => {
    // V8 13 (Node.js 24) does not apply --liftoff-only's implications to a flag set at runtime: without its own flags the small fleet got TurboFan
    expect((await afterChurn(1, { wasm: true })).wasmTier).toBe('liftoff');
    expect((await afterChurn(1000, { wasm: true })).wasmTier).toBe('turbofan');
  });

  it('holds a large fleet\'s young generation until told, then lets it grow to 16 MiB, not V8\'s 32', async () => {
    const held = await afterChurn(1000, { held: true });
    expect(held.newSpaceHalfway).toBeLessThanOrEqual(2 * MiB);
    expect(held.newSpace).toBeGreaterThan(4 * MiB);
    expect(held.newSpace).toBeLessThanOrEqual(16 * MiB);
    const unheld = await afterChurn(1000);
    expect(unheld.newSpace).toBeGreaterThan(16 * MiB);
  });

  it('keeps holding after a worker thread starts (a new isolate resets V8\'s growth factor to 2)', async () => {
    const small = await afterChurn(1, { held: true, worker: true });
    expect(small.newSpace).toBeLessThanOrEqual(2 * MiB);
    const large = await afterChurn(1000, { held: true, worker: true });
    expect(large.newSpaceHalfway).toBeLessThanOrEqual(2 * MiB);
    expect(large.newSpace).toBeLessThanOrEqual(16 * MiB);
    // V8 up to 12 (Node.js 20 and 22) raises the factor again whenever it makes an isolate; V8 13 no longer does
    const unheld = await afterChurn(1, { worker: true });
    if (V8_MAJOR < 13) expect(unheld.newSpace).toBeGreaterThan(16 * MiB);
    else expect(unheld.newSpace).toBeLessThanOrEqual(2 * MiB);
  });

  it('keeps the optimising compilers for a small fleet once something needs them (basic auth hashes with bcryptjs)', async () => {
    const small = await afterChurn(1, { compilersNeeded: true });
    expect(small.tuning).toEqual({ semiSpaceGrowthFactor: 1, liftoffOnly: true, optimisingCompilers: true });
    expect(small.turbofanned).toBe(true);
  });

  it('leaves the sizes and the compilers to the operator when node was given them', async () => {
    const own = await afterChurn(1, { nodeArgs: ['--max-semi-space-size=8', '--no-liftoff-only', '--opt'] });
    expect(own.tuning).toEqual({});
    expect(own.newSpace).toBeGreaterThan(4 * MiB);
    expect(own.turbofanned).toBe(true);
    const interpreted = await afterChurn(1000, { nodeArgs: ['--no-opt', '--no_sparkplug', '--no-maglev'] });
    expect(interpreted.tuning).toEqual({ semiSpaceGrowthFactor: 2, liftoffOnly: false });
    expect(interpreted.interpreted).toBe(true);
  });
});

describe('the daemon\'s modules', () => {
  it('load neither fetch nor WebSocket (Node.js 22 and later bring their own undici for them through `import … from \'node:http\'`)', async () => {
    const daemon = fileURLToPath(new URL('../../dist/app/daemon.js', import.meta.url));
    const loaded = await new Promise<string>((resolve, reject) =>
      execFile(process.execPath, ['--input-type=module', '-e', `await import(${JSON.stringify(daemon)}); process.stdout.write(process.moduleLoadList.join('\\n'))`], { env: { ...process.env, NODE_OPTIONS: '' } }, (err, stdout) => (err ? reject(err) : resolve(stdout))),
    );
    expect(loaded).toContain('NativeModule http');
    expect(loaded).not.toContain('internal/deps/undici/undici');
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
