/**
 * The cost of the fleet as observers (#27, docs/validators.md "Is it my validator or the network?") at
 * 1,000 simulated validators whose whole getCurrentValidators list is mainnet-sized (1,000 fleet + 600
 * other validators ≈ 1.5 MB): three runs of the daemon from dist/cli.js, each for --seconds,
 *   none      `validator: false` (no validator poll, no observers, no baseline)
 *   observers the validator poll and the fleet as observers (`network: false`)
 *   baseline  the same plus the network baseline read every 10 s by 3 nodes (18 reads a minute,
 *             30 times the default 5 m; the default's cost is this one's extra ÷ 30)
 * and reports CPU (seconds per minute), RSS and the reads made. The simulator runs in its own process.
 *   npx tsx bench/observers.ts [--nodes 1000] [--others 600] [--seconds 120] [--node PATH]   (after `npm run build`)
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { request } from 'undici';
import { cpuSeconds, freePort, rssMiB, runtime, sleep, spawnDaemon, stop, waitReady } from './lib.js';

const ROOT = new URL('../', import.meta.url).pathname;
const { values: args } = parseArgs({ options: { nodes: { type: 'string', default: '1000' }, others: { type: 'string', default: '600' }, seconds: { type: 'string', default: '120' }, node: { type: 'string' } } });
if (args.node) runtime.node = args.node;
const NODES = Number(args.nodes);
const SECONDS = Number(args.seconds);
const DIR = mkdtempSync(join(tmpdir(), 'avahealth-bench-observers-'));
type Mode = 'none' | 'observers' | 'baseline';
const VALIDATOR: Record<Mode, string> = {
  none: 'false',
  observers: '{network: false}',
  baseline: '{network: {interval: 10s, observers: 3}}',
};

async function run(mode: Mode) {
  const simPort = await freePort();
  const sim = spawn(process.execPath, ['--import', 'tsx', 'bench/sim.ts', String(NODES), String(simPort), '30000', args.others!], { stdio: ['ignore', 'ignore', 'inherit', 'ipc'], cwd: ROOT });
  await new Promise((resolve) => sim.once('message', resolve));
  const file = join(DIR, `${mode}.yaml`);
  const nodes = Array.from({ length: NODES }, (_, i) => `  - {name: node-${i + 1}, url: "http://127.0.0.1:${simPort}/nodes/node-${i + 1}"}`).join('\n');
  writeFileSync(file, `state_dir: ./state-${mode}\ndefaults: {validator: ${VALIDATOR[mode]}}\nnodes:\n${nodes}\n`);
  const port = await freePort();
  const daemon = spawnDaemon(file, port);
  await waitReady(port, 300_000);
  await sleep(15_000); // past the first rounds (every job polls once at start)
  const cpuStart = cpuSeconds(daemon.pid!);
  const rss: number[] = [];
  for (let s = 0; s < SECONDS; s += 5) {
    await sleep(5000);
    rss.push(rssMiB(daemon.pid!));
  }
  const cpu = cpuSeconds(daemon.pid!) - cpuStart;
  const body = await request(`http://127.0.0.1:${port}/metrics`).then((r) => r.body.text());
  const lines = body.split('\n').filter((l) => l.startsWith('avahealth_'));
  const count = (re: RegExp) => lines.filter((l) => re.test(l)).length;
  const result = {
    mode,
    nodes: NODES,
    seconds: SECONDS,
    cpuSecondsPerMinute: Math.round((cpu / SECONDS) * 60 * 100) / 100,
    rssMaxMiB: Math.round(Math.max(...rss)),
    observedSeries: count(/^avahealth_validator_observed_connected\{/),
    baselineSeries: count(/^avahealth_network_observed_uptime_ratio\{/),
    baselineOk: count(/^avahealth_probe_success\{[^}]*endpoint="baseline"[^}]*\} 1$/),
    skippedPolls: lines.filter((l) => l.startsWith('avahealth_scheduler_skipped_polls_total{')).reduce((s, l) => s + Number(l.slice(l.lastIndexOf(' ') + 1)), 0),
  };
  await stop(daemon);
  sim.kill('SIGTERM');
  return result;
}

const load = () => loadavg().map((l) => l.toFixed(1)).join(' ');
console.log(JSON.stringify({ date: new Date().toISOString(), node: runtime.node, loadStart: load() }));
for (const mode of ['none', 'observers', 'baseline'] as const) console.log(JSON.stringify(await run(mode)));
console.log(JSON.stringify({ loadEnd: load() }));
