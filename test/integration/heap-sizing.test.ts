/**
 * V8 sized for the fleet (src/util/heap.ts): a one-node daemon keeps its young generation at the
 * initial semi-space, a large fleet lets it grow, and flags the operator gave node win.
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
function newSpaceAfterChurn(targets: number, nodeArgs: string[] = []): Promise<{ newSpace: number; tuning: Record<string, unknown> }> {
  const script = `
    import v8 from 'node:v8';
    const { tuneForFleet } = await import(${JSON.stringify(HEAP)});
    const tuning = tuneForFleet(${targets});
    let keep = [];
    for (let i = 0; i < 3e6; i++) { keep.push({ i, s: 'x' + i }); if (keep.length > 200000) keep = []; }
    const newSpace = v8.getHeapSpaceStatistics().find((s) => s.space_name === 'new_space').space_size;
    process.stdout.write(JSON.stringify({ newSpace, tuning }));`;
  return new Promise((resolve, reject) =>
    execFile(process.execPath, [...nodeArgs, '--input-type=module', '-e', script], { env: { ...process.env, NODE_OPTIONS: '' } }, (err, stdout) => (err ? reject(err) : resolve(JSON.parse(stdout)))),
  );
}

describe('V8 sized for the fleet', () => {
  it('keeps the young generation at its initial size for a small fleet and lets it grow for a large one', async () => {
    const small = await newSpaceAfterChurn(1);
    expect(small.tuning).toEqual({ semiSpaceGrowthFactor: 1, liftoffOnly: true });
    expect(small.newSpace).toBeLessThanOrEqual(2 * MiB);
    const large = await newSpaceAfterChurn(1000);
    expect(large.tuning).toEqual({ semiSpaceGrowthFactor: 2, liftoffOnly: false });
    expect(large.newSpace).toBeGreaterThan(4 * MiB);
  });

  it('leaves the sizes to the operator when node was given them', async () => {
    const own = await newSpaceAfterChurn(1, ['--max-semi-space-size=8', '--no-liftoff-only']);
    expect(own.tuning).toEqual({});
    expect(own.newSpace).toBeGreaterThan(4 * MiB);
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
