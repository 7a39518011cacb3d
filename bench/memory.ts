/**
 * RSS, V8 heap spaces (new, old and the others together), malloc's resident part and CPU per poll
 * of one daemon polling N simulated nodes (bench/RESULTS.md, "Memory"; docs/scaling.md, "Where a
 * 1,000-node daemon's RSS goes"): for A/B runs of builds (ROOT=<checkout with dist/>), environment variables and node
 * flags. Prints one JSON line. A node flag `--heapsnapshot-signal=SIGUSR2` also writes a heap
 * snapshot into the working directory at the end.
 *   node --import tsx bench/memory.ts NODES INTERVAL WARM_S WINDOW_S [ENV=VALUE ...] [-- node flags]
 *   node --import tsx bench/memory.ts 1000 1s 15 15 -- --max-semi-space-size=4
 * With `--trace-gc-nvp` among the node flags it also counts the collections in the window, their pauses and
 * the bytes allocated and promoted (per poll: per request the simulator answered).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'undici';
import { cpuSeconds, freePort, mallocResident, simNodes, sleep, startSim, stop, waitReady } from './lib.js';
const ROOT = process.env.ROOT ?? new URL('../', import.meta.url).pathname;
const argv = process.argv.slice(2);
const [nodes, interval, warm, window] = argv.slice(0, 4);
const dd = argv.indexOf('--');
const envs = Object.fromEntries(argv.slice(4, dd < 0 ? undefined : dd).map((s) => s.split(/=(.*)/s).slice(0, 2)));
const flags = dd < 0 ? [] : argv.slice(dd + 1);
const sim = await startSim(Number(nodes), 30_000);
const requests = sim.answered;
const dir = mkdtempSync(join(tmpdir(), 'fleetmem-'));
const file = join(dir, 'c.yaml');
writeFileSync(file, `state_dir: ${dir}/state\ndefaults: {interval: ${interval}, timeout: 5s}\nnodes:\n${simNodes(sim.port, Number(nodes))}\n`);
const port = await freePort();
const traceGc = flags.includes('--trace-gc-nvp');
const d = spawn(process.execPath, [...flags, join(ROOT, 'dist/cli.js'), 'run', '--config', file, '--listen', `127.0.0.1:${port}`, '--log.level', 'error'], { stdio: ['ignore', traceGc ? 'pipe' : 'ignore', 'inherit'], env: { ...process.env, ...envs } });
// With --trace-gc-nvp: collections, their pauses and the bytes allocated and promoted during the window (the daemon logs only errors, to stderr).
const gc = { counting: false, markCompacts: 0, scavenges: 0, maxPauseMs: 0, pauseMs: 0, allocatedMiB: 0, promotedMiB: 0 };
let gcTail = '';
d.stdout?.on('data', (chunk: Buffer) => {
  const lines = (gcTail + chunk.toString('utf8')).split('\n');
  gcTail = lines.pop()!;
  for (const line of lines) {
    const field = (name: string) => Number(new RegExp(` ${name}=([\\d.]+)`).exec(line)?.[1] ?? 0);
    const kind = / gc=(\w+)/.exec(line)?.[1];
    if (!kind || !gc.counting) continue;
    if (kind === 'mc') gc.markCompacts++;
    else gc.scavenges++;
    gc.pauseMs += field('pause');
    gc.maxPauseMs = Math.max(gc.maxPauseMs, field('pause'));
    gc.allocatedMiB += field('allocated') / 1048576;
    gc.promotedMiB += field('promoted') / 1048576;
  }
});
await waitReady(port, 300_000);
await sleep(Number(warm) * 1000);
const st = () => { const s = readFileSync(`/proc/${d.pid}/status`, 'utf8'); return (k: string) => Number(new RegExp(`^${k}:\\s+(\\d+)`, 'm').exec(s)?.[1]) / 1024; };
const rss: number[] = [];
const [c0, n0] = [cpuSeconds(d.pid!), await requests()];
gc.counting = true;
for (let i = 0; i < Number(window); i++) { await sleep(1000); rss.push(st()('VmRSS')); }
gc.counting = false;
const [c1, n1] = [cpuSeconds(d.pid!), await requests()];
const text = await (await request(`http://127.0.0.1:${port}/metrics`)).body.text();
const m = (n: string, l = '') => Number(new RegExp(`^${n}${l ? `\\{[^}]*${l}[^}]*\\}` : '(?:\\{[^}]*\\})?'} (\\S+)$`, 'm').exec(text)?.[1]) / 1048576;
const s = st();
const r1 = (x: number) => Math.round(x * 10) / 10;
console.log(JSON.stringify({ nodes, interval, envs, flags, load: loadavg().map(r1), rssEnd: r1(s('VmRSS')), rssMax: r1(Math.max(...rss)), rssMedian: r1(rss.sort((a, b) => a - b)[rss.length >> 1]!), anon: r1(s('RssAnon')), file: r1(s('RssFile')), pollsPerCpuSecond: Math.round((n1 - n0) / (c1 - c0)), pollsPerSecond: Math.round((n1 - n0) / Number(window)), heapTotal: r1(m('nodejs_heap_size_total_bytes')), heapUsed: r1(m('nodejs_heap_size_used_bytes')), external: r1(m('nodejs_external_memory_bytes')), newSpace: r1(m('nodejs_heap_space_size_total_bytes', 'space="new"')), oldSpace: r1(m('nodejs_heap_space_size_total_bytes', 'space="old"')), oldUsed: r1(m('nodejs_heap_space_size_used_bytes', 'space="old"')), otherSpaces: r1(['code', 'trusted', 'large_object', 'code_large_object', 'new_large_object'].reduce((n, space) => n + m('nodejs_heap_space_size_total_bytes', `space="${space}"`), 0)), malloc: mallocResident(d.pid).mallocMiB, ...(traceGc ? { gc: { markCompacts: gc.markCompacts, scavenges: gc.scavenges, pauseMs: Math.round(gc.pauseMs), maxPauseMs: r1(gc.maxPauseMs), allocatedMiB: Math.round(gc.allocatedMiB), promotedMiB: r1(gc.promotedMiB), promotedBytesPerPoll: Math.round((gc.promotedMiB * 1048576) / (n1 - n0)) } } : {}) }));
if (flags.some((f) => f.startsWith("--heapsnapshot-signal"))) { d.kill("SIGUSR2"); await sleep(25000); }
await stop(d); sim.child.kill('SIGTERM');
