/**
 * How cost grows with the fleet (issue 47): for each size, simulated nodes (bench/sim.ts, one
 * process per 5,000 nodes) and the daemon as it ships (one process, or `--shard i/N` processes on
 * the same config where one process cannot), then:
 * - after a warm-up (the first validator and observer rounds done), CPU per poll over a window
 *   (the daemons' CPU seconds per request the simulators answered) and RSS (the daemons' summed,
 *   the maximum of 1 s samples from ready to the end);
 * - gzip scrapes as Prometheus makes them (every shard at once; 5 s apart at 15 s, 1 s apart at 1 s)
 *   with `/-/healthy` asked of every shard every 100 ms meanwhile;
 * - the series in the last scrape, and where the RSS is at the end: the `node` binary's pages,
 *   malloc (external ArrayBuffers included), the rest of the anonymous memory (V8's heap pages,
 *   stacks), with V8's own account beside (heap committed and used, its spaces, external).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { healthyProbe, PROMETHEUS_HEADERS, timed, decode } from './fleet.js';
import { cpuSeconds, freePort, median, percentile, rssBreakdown, rssMiB, sleep, spawnDaemon, stop, waitReady } from './lib.js';

/** Nodes per simulator process. */
const SIM_NODES = 5000;

export interface ScaleCase {
  nodes: number;
  intervalS: number;
  /** Daemon processes (`--shard i/N`); 1: one process. */
  shards: number;
}

/** `100,1000,5000,20000:4` and the 1-second fleet `1000@1`: sizes at 15 s, `@S` another interval, `:N` shards. */
export function parseCases(text: string): ScaleCase[] {
  return text.split(',').map((item) => {
    const m = /^(\d+)(?:@(\d+))?(?::(\d+))?$/.exec(item.trim());
    if (!m) throw new Error(`--scale: "${item}" is not NODES[@INTERVAL_S][:SHARDS]`);
    return { nodes: Number(m[1]), intervalS: Number(m[2] ?? 15), shards: Number(m[3] ?? 1) };
  });
}

export const DEFAULT_CASES = '100,1000,5000,20000:4,1000@1';

const round = (n: number) => Math.round(n * 10) / 10;
const MiB = (bytes: number) => round(bytes / 1048576);

interface Sim {
  child: ChildProcess;
  port: number;
  first: number;
  nodes: number;
}

async function startSims(root: string, nodes: number): Promise<Sim[]> {
  const sims: Sim[] = [];
  for (let first = 1; first <= nodes; first += SIM_NODES) {
    const count = Math.min(SIM_NODES, nodes - first + 1);
    const port = await freePort();
    const child = spawn(process.execPath, ['--import', 'tsx', 'bench/sim.ts', String(count), String(port), '30000', '40', String(first)], { stdio: ['ignore', 'ignore', 'inherit', 'ipc'], cwd: root });
    await new Promise((resolve) => child.once('message', resolve));
    sims.push({ child, port, first, nodes: count });
  }
  return sims;
}

const answered = (sim: Sim) =>
  new Promise<number>((resolve) => {
    sim.child.once('message', (m: { requests: number }) => resolve(m.requests));
    sim.child.send({});
  });

/** Samples of a daemon's /metrics, for where its memory is. */
function memoryOf(text: string) {
  const value = (name: string, labels = '') => Number(new RegExp(`^${name}${labels ? `\\{[^}]*${labels}[^}]*\\}` : '(?:\\{[^}]*\\})?'} (\\S+)$`, 'm').exec(text)?.[1] ?? NaN);
  const spaces = [...text.matchAll(/^nodejs_heap_space_size_total_bytes\{space="([^"]+)"\} (\S+)$/gm)].map((m) => [m[1]!, MiB(Number(m[2]))] as const);
  return { heapTotalMiB: MiB(value('nodejs_heap_size_total_bytes')), heapUsedMiB: MiB(value('nodejs_heap_size_used_bytes')), externalMiB: MiB(value('nodejs_external_memory_bytes')), heapSpacesMiB: Object.fromEntries(spaces.filter(([, v]) => v > 0)) };
}

export async function scaleCase(root: string, dir: string, c: ScaleCase, options: { warmS: number; cpuWindowS: number; scrapes: number }) {
  const sims = await startSims(root, c.nodes);
  const urlOf = (i: number) => {
    const sim = sims.find((s) => i >= s.first && i < s.first + s.nodes)!;
    return `http://127.0.0.1:${sim.port}/nodes/node-${i}`;
  };
  const nodes = Array.from({ length: c.nodes }, (_, k) => `  - {name: node-${k + 1}, url: "${urlOf(k + 1)}"}`).join('\n');
  const daemons: Array<{ child: ChildProcess; port: number }> = [];
  const rss: number[] = [];
  const started = performance.now();
  for (let shard = 0; shard < c.shards; shard++) {
    const file = join(dir, `scale-${c.nodes}-${c.intervalS}-${shard}.yaml`);
    writeFileSync(file, `state_dir: ./state-scale-${c.nodes}-${c.intervalS}-${shard}\ndefaults: {interval: ${c.intervalS}s, timeout: 5s}\nnodes:\n${nodes}\n`);
    const port = await freePort();
    daemons.push({ child: spawnDaemon(file, port, undefined, c.shards > 1 ? ['--shard', `${shard}/${c.shards}`] : []), port });
  }
  const sampler = setInterval(() => {
    try {
      rss.push(daemons.reduce((sum, d) => sum + rssMiB(d.child.pid!), 0));
    } catch {
      // exited
    }
  }, 1000);
  try {
    await Promise.all(daemons.map((d) => waitReady(d.port, 600_000)));
    const readyS = round((performance.now() - started) / 1000);
    await sleep(options.warmS * 1000);
    const cpu = () => daemons.reduce((sum, d) => sum + cpuSeconds(d.child.pid!), 0);
    const requests = async () => (await Promise.all(sims.map(answered))).reduce((a, b) => a + b, 0);
    const [cpu0, n0, t0] = [cpu(), await requests(), performance.now()];
    await sleep(options.cpuWindowS * 1000);
    const [cpu1, n1, t1] = [cpu(), await requests(), performance.now()];
    // scrapes as Prometheus makes them: every shard at once
    const healthy = daemons.map((d) => healthyProbe(d.port, 100));
    const scrapeMs: number[] = [];
    let last: Array<Awaited<ReturnType<typeof timed>>> = [];
    const every = c.intervalS < 5 ? 1000 : 5000;
    for (let i = 0; i < options.scrapes; i++) {
      const begun = performance.now();
      last = await Promise.all(daemons.map((d) => timed(`http://127.0.0.1:${d.port}/metrics`, PROMETHEUS_HEADERS)));
      scrapeMs.push(...last.map((s) => s.ms));
      await sleep(Math.max(0, every - (performance.now() - begun)));
    }
    const healthyMs = (await Promise.all(healthy.map((h) => h.stop()))).flat();
    const texts = last.map((s) => (s.failed ? '' : decode(s)));
    const where = daemons.map((d, i) => ({ ...rssBreakdown(d.child.pid!), ...memoryOf(texts[i]!) }));
    const sum = (key: 'anonMiB' | 'fileMiB' | 'nodeBinaryMiB' | 'mallocMiB' | 'heapTotalMiB' | 'heapUsedMiB' | 'externalMiB') => round(where.reduce((n, w) => n + w[key], 0));
    return {
      nodes: c.nodes,
      intervalS: c.intervalS,
      shards: c.shards,
      readyS,
      series: texts.reduce((n, t) => n + t.split('\n').filter((l) => l.startsWith('avahealth_')).length, 0),
      gzipKiB: Math.round(last.reduce((n, s) => n + s.bytes, 0) / 1024),
      pollsPerSecond: Math.round((n1 - n0) / ((t1 - t0) / 1000)),
      cpuMicrosecondsPerPoll: Math.round(((cpu1 - cpu0) / (n1 - n0)) * 1e6),
      cpuShare: round((cpu1 - cpu0) / ((t1 - t0) / 1000)),
      metricsGzipMs: { median: round(median(scrapeMs)), worst: round(Math.max(...scrapeMs)), first: round(scrapeMs[0] ?? NaN), scrapes: scrapeMs.length, failed: last.filter((s) => s.failed).length },
      healthyMs: { p50: round(median(healthyMs)), p99: round(percentile(healthyMs, 99)), worst: round(Math.max(...healthyMs)), requests: healthyMs.length },
      rssMiB: { max: Math.round(Math.max(...rss)), end: Math.round(rss.at(-1) ?? NaN) },
      // resident: the binary's pages, other files, malloc (external ArrayBuffers are in it), and the rest of the anonymous memory (V8's heap pages, stacks); V8's own account beside
      rssEndByPartMiB: { nodeBinary: sum('nodeBinaryMiB'), otherFiles: round(sum('fileMiB') - sum('nodeBinaryMiB')), malloc: sum('mallocMiB'), v8HeapAndOtherAnon: round(sum('anonMiB') - sum('mallocMiB')) },
      v8MiB: { heapCommitted: sum('heapTotalMiB'), heapUsed: sum('heapUsedMiB'), external: sum('externalMiB') },
      v8HeapSpacesMiB: where.length === 1 ? where[0]!.heapSpacesMiB : undefined,
    };
  } finally {
    clearInterval(sampler);
    await Promise.all(daemons.map((d) => stop(d.child)));
    await Promise.all(sims.map((s) => stop(s.child)));
  }
}

export type ScaleResult = Awaited<ReturnType<typeof scaleCase>>;

/** The table for bench/RESULTS.md, and the slope per 1,000 nodes between the 1,000- and 5,000-node fleets at 15 s. */
export function scaleTable(results: ScaleResult[]): string {
  const rows = results.map(
    (r) =>
      `| ${r.nodes.toLocaleString('en')} at ${r.intervalS} s${r.shards > 1 ? `, ${r.shards} shards` : ''} | ${r.rssMiB.max} | ${r.cpuMicrosecondsPerPoll} | ${r.series.toLocaleString('en')} | ${r.metricsGzipMs.median} / ${r.metricsGzipMs.worst} | ${r.healthyMs.worst} |`,
  );
  const at = (n: number) => results.find((r) => r.nodes === n && r.intervalS === 15 && r.shards === 1);
  const [small, large] = [at(1000), at(5000)];
  const slope = small && large ? `\n\nPer 1,000 nodes more (1,000 → 5,000 at 15 s): RSS +${round((large.rssMiB.max - small.rssMiB.max) / 4)} MiB, series +${Math.round((large.series - small.series) / 4).toLocaleString('en')}, gzip scrape median +${round((large.metricsGzipMs.median - small.metricsGzipMs.median) / 4)} ms.` : '';
  return ['| fleet | RSS MiB (max) | CPU µs per poll | series | gzip `/metrics` ms median / worst | `/-/healthy` worst ms |', '|---|---|---|---|---|---|', ...rows].join('\n') + slope;
}
