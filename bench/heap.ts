/**
 * What a poll costs in memory, counted rather than timed (the counts do not depend on how busy the
 * machine is): one daemon in this process (the daemon's own components, scheduled once an hour, so
 * the rounds below are the only polls) watches N simulated nodes (bench/sim.ts, its own process,
 * health results that change once an hour), and after a warm-up of three rounds:
 * - live: the heap the daemon holds after a full collection, per node, and the objects in it
 *   (a heap snapshot's node count, less the process' own before the daemon started);
 * - one poll of every node (its own job: health, readiness, liveness) with every body as before:
 *   the bytes it allocates, per target poll (V8's
 *   sampling heap profiler, collected objects included), and the bytes it keeps (the same, only
 *   what is still alive after it and two full collections: what replaced the poll before's), with
 *   the functions that allocate most;
 * - one run of every job of every node (the validator poll, the fleet as observers and the
 *   network baseline besides the health poll): the bytes it allocates per node.
 *   node --expose-gc --import tsx bench/heap.ts [NODES] [--top N] [--json] [--snapshot FILE]
 * `--snapshot` also writes a heap snapshot at the end (for DevTools' Memory panel).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { parseArgs } from 'node:util';
import { writeHeapSnapshot } from 'node:v8';
import { Daemon } from '../src/app/daemon.js';
import { loadConfigFile } from '../src/config/load.js';
import { createLogger } from '../src/log.js';
import { simNodes, startSim } from './lib.js';

const { values: args, positionals } = parseArgs({ allowPositionals: true, options: { top: { type: 'string', default: '12' }, json: { type: 'boolean', default: false }, snapshot: { type: 'string' } } });
const NODES = Number(positionals[0] ?? 1000);
const gc = (globalThis as { gc?: (o?: object) => void }).gc;
if (!gc) throw new Error('run with --expose-gc');
const session = new Session();
session.connect();

interface ProfileNode { callFrame: { functionName: string; url: string; lineNumber: number }; selfSize: number; children: ProfileNode[] }

/** Heap objects now (a heap snapshot's node count, read from its header). */
async function heapObjects(): Promise<number> {
  let head = '';
  const take = (m: { params: { chunk: string } }) => void (head.length < 4096 && (head += m.params.chunk));
  session.on('HeapProfiler.addHeapSnapshotChunk', take);
  await session.post('HeapProfiler.takeHeapSnapshot', { reportProgress: false });
  session.off('HeapProfiler.addHeapSnapshotChunk', take);
  return Number(/"node_count":(\d+)/.exec(head)?.[1]);
}

const fullGc = () => {
  gc();
  gc();
};

/** Bytes allocated while `run` runs (`kept`: only what is still alive after it and two full collections), and the top sites. */
async function sampled(run: () => Promise<void>, kept: boolean, samplingInterval = 256): Promise<{ bytes: number; sites: Array<[string, number]> }> {
  fullGc();
  await session.post('HeapProfiler.startSampling', { samplingInterval, includeObjectsCollectedByMajorGC: !kept, includeObjectsCollectedByMinorGC: !kept });
  await run();
  if (kept) fullGc();
  const { profile } = (await session.post('HeapProfiler.stopSampling')) as unknown as { profile: { head: ProfileNode } };
  const sites = new Map<string, number>();
  let bytes = 0;
  const walk = (n: ProfileNode, site: string | undefined) => {
    const here = n.callFrame.url.includes('/src/') ? `${n.callFrame.functionName || '(anonymous)'} ${n.callFrame.url.replace(/^.*\/src\//, 'src/')}` : site;
    if (n.selfSize) {
      bytes += n.selfSize;
      const key = here ?? `${n.callFrame.functionName || '(anonymous)'} ${n.callFrame.url.replace(/^.*\/node_modules\//, '') || '(runtime)'}`;
      sites.set(key, (sites.get(key) ?? 0) + n.selfSize);
    }
    for (const c of n.children) walk(c, here);
  };
  walk(profile.head, undefined);
  return { bytes, sites: [...sites].sort((a, b) => b[1] - a[1]) };
}

async function main() {
  // health results that change once an hour: every round below sees the bodies it saw before
  const sim = await startSim(NODES, 3_600_000);
  const dir = mkdtempSync(join(tmpdir(), 'avahealth-heap-'));
  const file = join(dir, 'config.yaml');
  writeFileSync(file, `state_dir: ${dir}/state\ndefaults: {interval: 1h, timeout: 10s, validator: {interval: 1h, network: {interval: 1h}}}\nnodes:\n${simNodes(sim.port, NODES)}\n`);
  fullGc();
  const before = { heap: process.memoryUsage().heapUsed, external: process.memoryUsage().external, objects: await heapObjects() };
  const daemon = new Daemon(loadConfigFile(file), { logger: createLogger({ level: 'error', format: 'json', destination: new PassThrough().resume() }), listen: { host: '127.0.0.1', port: 0 } });
  await daemon.start();
  const poller = (daemon as unknown as { parts: { poller: { round(): Promise<void>; run(key: string): Promise<void> } } }).parts.poller;
  for (let i = 0; i < 3; i++) await poller.round();
  // a target poll: the node's own job (its health endpoints), as every interval; the validator and observer jobs run once a minute
  const names = Array.from({ length: NODES }, (_, i) => `node-${i + 1}`);
  const round = async () => void (await Promise.all(names.map((name) => poller.run(name))));
  const targetPolls = NODES;
  const allocated = await sampled(round, false);
  const kept = await sampled(round, true);
  // every job of every node once: the health poll, the validator poll, the fleet as observers, the network baseline
  const everyJob = await sampled(() => poller.round(), false, 4096);
  fullGc();
  const m = process.memoryUsage();
  const objects = await heapObjects();
  const result = {
    nodes: NODES,
    liveHeapKiBPerNode: Math.round(((m.heapUsed - before.heap) / 1024 / NODES) * 10) / 10,
    externalKiBPerNode: Math.round(((m.external - before.external) / 1024 / NODES) * 10) / 10,
    objectsPerNode: Math.round((objects - before.objects) / NODES),
    allocatedBytesPerPoll: Math.round(allocated.bytes / targetPolls),
    keptBytesPerPoll: Math.round(kept.bytes / targetPolls),
    allocatedBytesPerNodeEveryJob: Math.round(everyJob.bytes / NODES),
    topAllocating: allocated.sites.slice(0, Number(args.top)).map(([site, b]) => `${Math.round(b / targetPolls)} ${site}`),
    topKept: kept.sites.slice(0, Number(args.top)).map(([site, b]) => `${Math.round(b / targetPolls)} ${site}`),
    topEveryJob: everyJob.sites.slice(0, Number(args.top)).map(([site, b]) => `${Math.round(b / NODES)} ${site}`),
  };
  if (args.snapshot) writeHeapSnapshot(args.snapshot);
  process.stdout.write(args.json ? `${JSON.stringify(result)}\n` : `${JSON.stringify(result, null, 2)}\n`);
  await daemon.stop();
  sim.child.kill('SIGTERM');
  rmSync(dir, { recursive: true, force: true });
}

await main();
