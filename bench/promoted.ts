/**
 * What reaches V8's old generation while one daemon polls N simulated nodes on its real schedule
 * (docs/scaling.md, "Where a 1,000-node daemon's RSS goes"): after a warm-up, V8's sampling heap
 * profiler keeps only the objects no scavenge collected (promoted, allocated straight into the old
 * generation by allocation-site pretenuring, or still alive at the end), per request the simulator
 * answered, by allocating function. The daemon's own components run in this process, the simulator
 * (bench/sim.ts) in its own; node flags given to this process are the daemon's (an experiment).
 *   node --max-semi-space-size=16 --import tsx bench/promoted.ts [NODES] [INTERVAL] [WARM_S] [WINDOW_S] [--top N]
 *   node --max-semi-space-size=16 --no-allocation-site-pretenuring --import tsx bench/promoted.ts 1000
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { parseArgs } from 'node:util';
import { Daemon } from '../src/app/daemon.js';
import { loadConfigFile } from '../src/config/load.js';
import { createLogger } from '../src/log.js';
import { simNodes, sleep, startSim } from './lib.js';

const { values: args, positionals } = parseArgs({ allowPositionals: true, options: { top: { type: 'string', default: '20' } } });
const [nodes = '1000', interval = '1s', warm = '20', window = '20'] = positionals;

interface ProfileNode { callFrame: { functionName: string; url: string; lineNumber: number }; selfSize: number; children: ProfileNode[] }

// health results that change once an hour: every poll in the window sees the body it saw before
const sim = await startSim(Number(nodes), 3_600_000);
const dir = mkdtempSync(join(tmpdir(), 'avahealth-promoted-'));
const file = join(dir, 'config.yaml');
writeFileSync(file, `state_dir: ${dir}/state\ndefaults: {interval: ${interval}, timeout: 5s}\nnodes:\n${simNodes(sim.port, Number(nodes))}\n`);
const daemon = new Daemon(loadConfigFile(file), { logger: createLogger({ level: 'error', format: 'json', destination: new PassThrough().resume() }), listen: { host: '127.0.0.1', port: 0 } });
await daemon.start();
await sleep(Number(warm) * 1000);

const session = new Session();
session.connect();
const before = await sim.answered();
await session.post('HeapProfiler.startSampling', { samplingInterval: 1024, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: false });
await sleep(Number(window) * 1000);
const { profile } = (await session.post('HeapProfiler.stopSampling')) as unknown as { profile: { head: ProfileNode } };
const requests = (await sim.answered()) - before;

// each sample under the function that allocated it, and the nearest function of our own above it
const sites = new Map<string, number>();
let bytes = 0;
const name = (frame: ProfileNode['callFrame']) => `${frame.functionName || '(anonymous)'} ${frame.url.replace(/^.*\/(src|node_modules)\//, '$1/') || '(runtime)'}`;
const walk = (node: ProfileNode, ours: string | undefined) => {
  const here = node.callFrame.url.includes('/src/') ? name(node.callFrame) : ours;
  if (node.selfSize) {
    bytes += node.selfSize;
    const own = name(node.callFrame);
    const key = here && here !== own ? `${own} ← ${here}` : own;
    sites.set(key, (sites.get(key) ?? 0) + node.selfSize);
  }
  for (const child of node.children) walk(child, here);
};
walk(profile.head, undefined);
process.stdout.write(`${JSON.stringify({
  nodes: Number(nodes),
  interval,
  requests,
  oldGenerationBytesPerRequest: Math.round(bytes / requests),
  top: [...sites].sort((a, b) => b[1] - a[1]).slice(0, Number(args.top)).map(([site, b]) => `${Math.round(b / requests)} ${site}`),
}, null, 2)}\n`);
await daemon.stop();
sim.child.kill('SIGTERM');
rmSync(dir, { recursive: true, force: true });
