/**
 * avahealth benchmarks, measured side by side in one run on this machine (read the ratios and
 * per-CPU-second rates first; absolute times depend on the machine's load). Prints the results as
 * JSON with the runtime, machine, date and load, and the issue's targets met or missed; a full run
 * of every scenario also writes them to bench/results-node<major>.json (bench/RESULTS.md: method).
 *   npm run bench                                   full run (several minutes)
 *   npm run bench -- --node /path/to/node           the daemon (and the bare loop) on that runtime
 *   npm run bench -- --node-options=--max-semi-space-size=8   the daemon's NODE_OPTIONS, every scenario's (default: the
 *                                                   image's, and the sidecar component's for the sidecar)
 *   npm run bench -- --node-flags='--trace-gc'      flags between node and dist/cli.js (experiments only: none ship)
 *   npm run bench -- --only fleet1000,sidecar       some scenarios only (fleet1000 fleet5000 sidecar alerts startup scale heap; poll and scrape only when named)
 *   npm run bench -- --only scale --scale 100,1000,5000,20000:4,1000@1   how cost grows: NODES[@INTERVAL_S][:SHARDS] (bench/scale.ts)
 *   npm run bench -- --quick --check                reduced, compared with bench/baseline.json (a report, never a failure);
 *                                                   scale and heap only when --only names them (CI runs it in 300 s)
 */
import { execFile, execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { cpus, hostname, loadavg, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { parseArgs } from 'node:util';
import { request } from 'undici';
import { SimServer } from '../src/sim/server.js';
import { blackboxProbesPerCpuSecond, fleet1000, fleet5000 } from './fleet.js';
import { DEFAULT_CASES, parseCases, scaleCase, scaleTable, type ScaleResult } from './scale.js';
import { cpuSeconds, freePort, median, percentile, rssBreakdown, rssMiB, runtime, sleep, spawnDaemon, stop, waitReady } from './lib.js';

const { values: args } = parseArgs({
  options: { quick: { type: 'boolean', default: false }, check: { type: 'boolean', default: false }, only: { type: 'string' }, node: { type: 'string' }, 'node-options': { type: 'string' }, 'node-flags': { type: 'string' }, scale: { type: 'string', default: DEFAULT_CASES } },
});
if (args.node) runtime.node = args.node;
if (args['node-options'] !== undefined) runtime.nodeOptions = runtime.sidecarNodeOptions = args['node-options'];
if (args['node-flags'] !== undefined) runtime.nodeFlags = args['node-flags'].split(' ').filter(Boolean);
const RUNTIME_VERSION = execFileSync(runtime.node, ['--version'], { encoding: 'utf8' }).trim();
const QUICK = args.quick!;
/**
 * `--only fleet1000,alerts`: run just those (fleet1000, fleet5000, poll, scrape, alerts, startup,
 * sidecar, scale, heap; poll and scrape only when named, and under --quick scale and heap too: the
 * scaling runs up to 20,000 nodes and would take the quick run, .ci/run's report, past its 300 s).
 */
const ONLY = args.only ? new Set(args.only.split(',')) : undefined;
const ON_REQUEST = ['poll', 'scrape', ...(QUICK ? ['scale', 'heap'] : [])];
const wanted = (name: string) => (ONLY ? ONLY.has(name) : !ON_REQUEST.includes(name));
const DIR = mkdtempSync(join(tmpdir(), 'avahealth-bench-'));
const ROOT = new URL('../', import.meta.url).pathname;
const log = (text: string) => process.stderr.write(`${new Date().toISOString().slice(11, 19)} ${text} (load ${loadavg()[0]!.toFixed(1)})\n`);
const LOAD_AT_START = loadavg().map((l) => Math.round(l * 10) / 10);

// ---------- bodies served by a plain HTTP server (its CPU is in none of the measured processes)
const SMALL = readFileSync(join(ROOT, 'test/fixtures/shared/avalanchego/health-unhealthy-bootstrapping.json'), 'utf8');
function largeBody(): string {
  const report = JSON.parse(SMALL) as { checks: Record<string, { message?: { networking?: { disconnectedValidators?: string[] } } }> };
  const ids = Array.from({ length: 800 }, (_, i) => `NodeID-${String(i).padStart(5, '0')}BanSkJPoyUFEaZZH5Su79HUuiPTNx`);
  for (const chain of ['C', 'P', 'X']) report.checks[chain]!.message!.networking!.disconnectedValidators = ids;
  return JSON.stringify(report, null, 1);
}
const BODIES = { '3KB': SMALL, '100KB': largeBody() };

async function bodyServer(body: string): Promise<{ server: Server; url: string; served: () => number }> {
  let served = 0;
  const server = createServer((req, res) => {
    req.resume();
    served++;
    res.writeHead(503, { 'content-type': 'application/json', 'node-id': 'NodeID-7Xhw2mDxuDS44j42TCB6U5579esbSt3Lg' });
    res.end(body);
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, served: () => served };
}

// ---------- 1. poll efficiency: daemon vs bare undici loop vs blackbox_exporter
async function daemonPollsPerCpuSecond(url: string, served: () => number, seconds: number): Promise<number> {
  const targets = 600;
  const file = join(DIR, 'poll.yaml');
  writeFileSync(file, `state_dir: ./state\ndefaults: {interval: 1s, timeout: 5s, endpoints: [health]}\nnodes:\n${Array.from({ length: targets }, (_, i) => `  - {name: t${i}, url: "${url}/t${i}"}`).join('\n')}\n`);
  const port = await freePort();
  const daemon = spawnDaemon(file, port);
  await waitReady(port);
  await sleep(2000);
  const [cpu0, n0] = [cpuSeconds(daemon.pid!), served()];
  await sleep(seconds * 1000);
  const [cpu1, n1] = [cpuSeconds(daemon.pid!), served()];
  await stop(daemon);
  return (n1 - n0) / (cpu1 - cpu0);
}

async function barePollsPerCpuSecond(url: string, seconds: number): Promise<number> {
  const { stdout } = await promisify(execFile)(runtime.node, ['--import', 'tsx', join(ROOT, 'bench/bare-loop.ts'), `${url}/ext/health`, String(seconds * 1000), '16'], { cwd: ROOT });
  const r = JSON.parse(stdout) as { polls: number; cpuSeconds: number };
  return r.polls / r.cpuSeconds;
}

// ---------- 2 and 3. scrape cost and memory with N simulated nodes
async function scrapeAndMemory(nodes: number) {
  const simPort = await freePort();
  const sim = spawn(process.execPath, ['dist/cli.js', 'simulate', '--nodes', String(nodes), '--port', String(simPort), '--period', '30s'], { stdio: 'ignore', cwd: ROOT });
  for (let up = false; !up; await sleep(50)) up = await request(`http://127.0.0.1:${simPort}/sim/nodes`).then((r) => (r.body.dump(), r.statusCode === 200), () => false);
  const file = join(DIR, `scrape-${nodes}.yaml`);
  writeFileSync(file, `state_dir: ./state\nnodes:\n${Array.from({ length: nodes }, (_, i) => `  - {name: node-${i + 1}, url: "http://127.0.0.1:${simPort}/nodes/node-${i + 1}"}`).join('\n')}\n`);
  const port = await freePort();
  const daemon = spawnDaemon(file, port);
  await waitReady(port, 300_000);
  await sleep(QUICK ? 2000 : 5000);
  const url = `http://127.0.0.1:${port}/metrics`;
  const scrape = async () => {
    const t = performance.now();
    const res = await request(url);
    const body = await res.body.text();
    return { ms: performance.now() - t, bytes: body.length, body };
  };
  const single: number[] = [];
  let last = await scrape();
  for (let i = 0; i < (QUICK ? 15 : 40); i++) {
    last = await scrape();
    single.push(last.ms);
    await sleep(100);
  }
  const concurrent: number[] = [];
  for (let i = 0; i < (QUICK ? 5 : 15); i++) {
    const round = await Promise.all([scrape(), scrape(), scrape()]);
    concurrent.push(...round.map((r) => r.ms));
    await sleep(100);
  }
  const metric = (name: string) => Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(last.body)?.[1]);
  const result = {
    nodes,
    series: last.body.split('\n').filter((l) => l.startsWith('avahealth_')).length,
    sizeKiB: Math.round(last.bytes / 1024),
    p50ms: round(median(single)),
    p99ms: round(percentile(single, 99)),
    p99msThreeScrapers: round(percentile(concurrent, 99)),
    eventLoopDelayP99ms: round(metric('nodejs_eventloop_lag_p99_seconds') * 1000),
    rssMiB: Math.round(rssMiB(daemon.pid!)),
  };
  await stop(daemon);
  sim.kill('SIGTERM');
  return result;
}

// ---------- 4. alert latency
async function alertLatency(flips: number) {
  const sim = new SimServer(Array.from({ length: 10 }, (_, i) => ({ name: `n${i}`, scenario: 'healthy' as const, periodMs: 3_600_000 })));
  await sim.listen(0);
  const arrivals: number[] = [];
  const receiver = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      arrivals.push(performance.now());
      res.end('ok');
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const intervalMs = 1000;
  const file = join(DIR, 'alert.yaml');
  writeFileSync(
    file,
    `state_dir: ./alert-state\ndefaults: {interval: 1s, endpoints: [health]}\nnodes:\n${Array.from({ length: 10 }, (_, i) => `  - {name: n${i}, url: "${sim.nodeUrl(`n${i}`)}"}`).join('\n')}\nalerts:\n  for_polls: 1\n  flap_threshold: 1000\n  rules: {AvalancheNodeUnhealthy: {disabled: true}}\n  receivers:\n    - {name: hook, webhook: {url: "http://127.0.0.1:${(receiver.address() as AddressInfo).port}/"}}\n`,
  );
  const port = await freePort();
  const daemon = spawnDaemon(file, port);
  await waitReady(port);
  const latencies: number[] = [];
  // flip 0 warms the path (first journal file, first connection to the receiver) and is not counted
  for (let i = 0; i <= flips; i++) {
    const before = arrivals.length;
    const flippedAt = performance.now();
    await request(`${sim.baseUrl}/sim/nodes/n0/scenario`, { method: 'POST', body: JSON.stringify({ scenario: i % 2 === 0 ? 'disk-low' : 'healthy' }) }).then((r) => r.body.dump());
    while (arrivals.length === before) await sleep(2);
    if (i > 0) latencies.push(arrivals[before]! - flippedAt);
    await sleep(300 + Math.random() * 700); // land anywhere in the next poll interval
  }
  await stop(daemon);
  await sim.close();
  receiver.close();
  return { intervalMs, flips, warmUpFlipsExcluded: 1, p50ms: round(median(latencies)), p99ms: round(percentile(latencies, 99)), p99MinusIntervalMs: round(percentile(latencies, 99) - intervalMs) };
}

// ---------- 5. start-up, and the sidecar's memory
async function startup(nodes: number) {
  const sim = new SimServer(Array.from({ length: nodes }, (_, i) => ({ name: `n${i}`, scenario: 'healthy' as const, periodMs: 3_600_000 })));
  await sim.listen(0);
  const file = join(DIR, 'startup.yaml');
  writeFileSync(file, `state_dir: ./state\nnodes:\n${Array.from({ length: nodes }, (_, i) => `  - {name: n${i}, url: "${sim.nodeUrl(`n${i}`)}"}`).join('\n')}\n`);
  const port = await freePort();
  const started = performance.now();
  const daemon = spawnDaemon(file, port);
  let listeningMs = NaN;
  for (;;) {
    const ok = await request(`http://127.0.0.1:${port}/-/healthy`).then((r) => (r.body.dump(), true), () => false);
    if (ok) {
      listeningMs = performance.now() - started;
      break;
    }
    await sleep(5);
  }
  await waitReady(port);
  const readyMs = performance.now() - started;
  await stop(daemon);
  await sim.close();
  return { nodes, listeningMs: round(listeningMs), readyMs: round(readyMs), firstRoundMs: round(readyMs - listeningMs) };
}

async function sidecarRss(seconds: number) {
  const sim = new SimServer([{ name: 'node', scenario: 'healthy' }]);
  await sim.listen(0);
  const file = join(DIR, 'sidecar.yaml');
  writeFileSync(file, `state_dir: ./state\nnodes:\n  - {name: node, url: "${sim.nodeUrl('node')}"}\n`);
  const port = await freePort();
  // as the sidecar component starts it (the image's command, its NODE_OPTIONS), unless --node-options says otherwise
  const daemon = spawnDaemon(file, port, runtime.sidecarNodeOptions);
  await waitReady(port);
  // RSS moves by ≈ 1 MiB with each garbage collection: the median of the last five seconds' samples.
  // The full run samples after V8's memory reducer has shrunk the young generation of an idle
  // process (tens of seconds after start), the state a sidecar spends its life in.
  await sleep(Math.max(0, seconds - 4) * 1000);
  const samples: number[] = [];
  for (let i = 0; i < 5; i++) {
    samples.push(rssMiB(daemon.pid!));
    if (i < 4) await sleep(1000);
  }
  const where = rssBreakdown(daemon.pid!);
  const metrics = await request(`http://127.0.0.1:${port}/metrics`).then((r) => r.body.text());
  const heapMiB = (name: string) => Math.round((Number(new RegExp(`^${name} (\\S+)`, 'm').exec(metrics)?.[1]) / 1048576) * 10) / 10;
  await stop(daemon);
  await sim.close();
  return { rssMiB: round(median(samples)), rssSamplesMiB: samples.map(round), ...where, heapUsedMiB: heapMiB('nodejs_heap_size_used_bytes'), heapTotalMiB: heapMiB('nodejs_heap_size_total_bytes') };
}

/**
 * What a poll allocates and keeps, and the heap per node, counted (bench/heap.ts: the daemon's own
 * components in a child process with --expose-gc, the runtime under test): these counts do not
 * depend on how busy the machine is.
 */
async function heapCounts(nodes: number): Promise<Record<string, unknown>> {
  const { stdout } = await promisify(execFile)(runtime.node, ['--expose-gc', '--import', 'tsx', join(ROOT, 'bench/heap.ts'), String(nodes), '--json', '--top', '8'], { cwd: ROOT, maxBuffer: 16 << 20 });
  return JSON.parse(stdout) as Record<string, unknown>;
}

const round = (n: number) => Math.round(n * 10) / 10;
const spread = (xs: number[]) => ({ median: Math.round(median(xs)), min: Math.round(Math.min(...xs)), max: Math.round(Math.max(...xs)) });

async function main() {
  const reps = QUICK ? 1 : 3;
  const seconds = QUICK ? 4 : 10;
  const poll: Record<string, unknown> = {};
  for (const [label, body] of wanted('poll') ? Object.entries(BODIES) : []) {
    const server = await bodyServer(body);
    const daemon: number[] = [];
    const bare: number[] = [];
    const blackbox: number[] = [];
    for (let r = 0; r < reps; r++) {
      log(`poll efficiency ${label}: run ${r + 1}/${reps}`);
      daemon.push(await daemonPollsPerCpuSecond(server.url, server.served, seconds));
      bare.push(await barePollsPerCpuSecond(server.url, seconds));
      const bb = await blackboxProbesPerCpuSecond(DIR, `${server.url}/ext/health`, seconds);
      if (bb !== undefined) blackbox.push(bb);
    }
    server.server.close();
    const ratios = daemon.map((d, i) => ({ ofBare: d / bare[i]!, ofBlackbox: blackbox[i] ? d / blackbox[i]! : NaN }));
    poll[label] = {
      bytes: body.length,
      daemonPollsPerCpuSecond: spread(daemon),
      bareUndiciPollsPerCpuSecond: spread(bare),
      blackboxProbesPerCpuSecond: blackbox.length ? spread(blackbox) : 'not installed',
      daemonShareOfBare: round(median(ratios.map((r) => r.ofBare)) * 100) / 100,
      daemonTimesBlackbox: blackbox.length ? round(median(ratios.map((r) => r.ofBlackbox))) : null,
    };
  }
  const scrape = [];
  for (const nodes of !wanted('scrape') ? [] : QUICK ? [100, 1000] : [100, 1000, 5000]) {
    log(`scrape cost and memory: ${nodes} nodes`);
    scrape.push(await scrapeAndMemory(nodes));
  }
  const fleet = {
    nodes1000: wanted('fleet1000') ? (log('fleet: 1,000 nodes x 3 endpoints every second'), await fleet1000(ROOT, DIR, { nodes: 1000, reps: QUICK ? 1 : 3, seconds: QUICK ? 5 : 10, scrapes: 20 })) : undefined,
    nodes5000: wanted('fleet5000') ? (log('fleet: 5,000 nodes at 15 s, gzip scrapes every 5 s'), await fleet5000(ROOT, DIR, { nodes: 5000, scrapes: QUICK ? 6 : 12 })) : undefined,
  };
  const alerts = wanted('alerts') ? (log('alert latency'), await alertLatency(QUICK ? 6 : 20)) : undefined;
  const start = wanted('startup') ? (log('start-up'), await startup(100)) : undefined;
  const sidecar = wanted('sidecar') ? (log('sidecar memory'), await sidecarRss(QUICK ? 3 : 50)) : undefined;
  const heap: Record<string, unknown>[] = [];
  for (const nodes of wanted('heap') ? (QUICK ? [200] : [1000, 5000]) : []) {
    log(`heap counts: ${nodes} nodes`);
    heap.push(await heapCounts(nodes));
  }
  const scaling: ScaleResult[] = [];
  for (const c of wanted('scale') ? parseCases(args.scale!) : []) {
    log(`scale: ${c.nodes} nodes at ${c.intervalS} s${c.shards > 1 ? `, ${c.shards} shards` : ''}`);
    scaling.push(await scaleCase(ROOT, DIR, c, QUICK ? { warmS: 10, cpuWindowS: 5, scrapes: c.intervalS < 5 ? 5 : 3 } : { warmS: 60, cpuWindowS: 20, scrapes: c.intervalS < 5 ? 20 : 12 }));
  }
  const results = {
    date: new Date().toISOString(),
    runtime: { node: RUNTIME_VERSION, binary: runtime.node, nodeOptions: runtime.nodeOptions, sidecarNodeOptions: runtime.sidecarNodeOptions, nodeFlags: runtime.nodeFlags.join(' ') },
    machine: `${hostname()}: ${cpus()[0]?.model ?? 'unknown'} × ${cpus().length}, ${Math.round(totalmem() / 1073741824)} GiB`,
    quick: QUICK,
    only: ONLY ? [...ONLY] : undefined,
    loadAverageAtStart: LOAD_AT_START,
    loadAverageAtEnd: loadavg().map((l) => Math.round(l * 10) / 10),
    fleet,
    pollEfficiency: poll,
    scrape,
    alertLatency: alerts,
    startup: start,
    sidecar,
    heap: heap.length ? heap : undefined,
    scaling: scaling.length ? scaling : undefined,
    scalingTable: scaling.length ? scaleTable(scaling) : undefined,
  };
  const report = { ...results, targets: targets(results) };
  // only a full run is the current record of its runtime; the others go to the temporary directory
  const out = ONLY || QUICK ? join(DIR, 'results.json') : join(ROOT, `bench/results-node${RUNTIME_VERSION.slice(1).split('.')[0]}.json`);
  writeFileSync(out, `${JSON.stringify(report, null, 2)}\n`);
  process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
  log(`results: ${out}\n${report.targets.map((t) => `  ${t.met ? 'met   ' : 'MISSED'} ${t.target}: ${t.measured}`).join('\n')}${results.scalingTable ? `\n${results.scalingTable}` : ''}`);
  if (args.check) check(results);
}

/** The issue's targets (#23) against what this run measured; a scenario not run has none. */
function targets(results: { fleet: { nodes1000?: Awaited<ReturnType<typeof fleet1000>>; nodes5000?: Awaited<ReturnType<typeof fleet5000>> }; sidecar?: { rssMiB: number } }) {
  const list: Array<{ target: string; measured: string; met: boolean }> = [];
  const add = (target: string, value: number, limit: number, unit: string, atLeast = false) =>
    list.push({ target, measured: `${value} ${unit}`, met: atLeast ? value >= limit : value <= limit });
  const k1 = results.fleet.nodes1000;
  if (k1) {
    if (k1.daemonTimesBlackbox) add('1,000 nodes: CPU per poll ≥ 6× below blackbox_exporter per probe (median)', k1.daemonTimesBlackbox.median, 6, '×', true);
    add('1,000 nodes: gzip /metrics median of 20 ≤ 60 ms', k1.metricsGzipMs.median, 60, 'ms');
    add('1,000 nodes: gzip /metrics worst of 20 ≤ 250 ms', k1.metricsGzipMs.worst, 250, 'ms');
    add('1,000 nodes: /-/healthy worst ≤ 100 ms', k1.healthyMs.worst, 100, 'ms');
    add('1,000 nodes: RSS ≤ 224 MiB (max)', k1.rssMiB.max, 224, 'MiB');
  }
  const k5 = results.fleet.nodes5000;
  if (k5) {
    add('5,000 nodes: /-/healthy p99 ≤ 100 ms', k5.healthyMs.p99, 100, 'ms');
    add('5,000 nodes: /-/healthy worst ≤ 250 ms', k5.healthyMs.worst, 250, 'ms');
    add('5,000 nodes: gzip /metrics worst ≤ 500 ms', k5.metricsGzipMs.worst, 500, 'ms');
    add('5,000 nodes: RSS ≤ 512 MiB (max)', k5.rssMiB.max, 512, 'MiB');
  }
  if (results.sidecar) add('sidecar: RSS ≤ 88 MiB', results.sidecar.rssMiB, 88, 'MiB');
  return list;
}

/** Compares with bench/baseline.json: a report of what moved a lot, never a failure. */
function check(results: Record<string, any>) {
  const file = join(ROOT, 'bench/baseline.json');
  if (!existsSync(file)) return log('bench --check: no bench/baseline.json to compare with');
  const base = JSON.parse(readFileSync(file, 'utf8'));
  const lines: string[] = [];
  const compare = (what: string, now: number, before: number, higherIsBetter: boolean) => {
    if (!Number.isFinite(now) || !Number.isFinite(before) || before === 0) return;
    const change = now / before;
    const worse = higherIsBetter ? change < 0.5 : change > 2;
    lines.push(`${worse ? 'REGRESSION?' : 'ok'}  ${what}: ${round(now)} (baseline ${round(before)})`);
  };
  for (const label of Object.keys(results.pollEfficiency)) {
    compare(`poll efficiency ${label}, share of bare loop`, results.pollEfficiency[label].daemonShareOfBare, base.pollEfficiency?.[label]?.daemonShareOfBare, true);
  }
  for (const s of results.scrape) {
    const b = base.scrape?.find((x: { nodes: number }) => x.nodes === s.nodes);
    if (b) compare(`/metrics p99 at ${s.nodes} nodes (ms)`, s.p99ms, b.p99ms, false);
  }
  log(`bench --check (generous tolerance; timing on a shared machine is noisy):\n${lines.join('\n')}`);
}

await main();
