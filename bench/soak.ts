/**
 * Soak: a time-compressed run against a few hundred simulated nodes under `churn`. Every node is
 * polled every second, so `--duration 240` is the polling of an hour at the default 15 s interval.
 * Samples the daemon's RSS (anonymous/file, V8 heap total and old space, external, malloc arenas), heap, open handles and file descriptors, CPU, the load average, and
 * the outbox journal's fsyncs per notification, and checks every notification it sent arrived.
 *   npm run soak -- --nodes 300 --duration 240
 */
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { gunzipSync } from 'node:zlib';
import { request } from 'undici';
import { SimServer } from '../src/sim/server.js';
import { mallocResident } from './lib.js';

const { values } = parseArgs({ options: { nodes: { type: 'string', default: '300' }, duration: { type: 'string', default: '240' }, out: { type: 'string' } } });
const nodes = Number(values.nodes);
const durationS = Number(values.duration);

const sim = new SimServer(Array.from({ length: nodes }, (_, i) => ({ name: `n${i}`, scenario: 'churn' as const, periodMs: 1000 })));
await sim.listen(0);
let received = 0;
const receiver = createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    received++;
    res.end('ok');
  });
});
await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
const receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;

const dir = mkdtempSync(join(tmpdir(), 'avahealth-soak-'));
const configFile = join(dir, 'soak.yaml');
writeFileSync(
  configFile,
  `listen: 127.0.0.1:0\nstate_dir: ./state\ndefaults: {interval: 1s, timeout: 900ms, endpoints: [health]}\nnodes:\n${Array.from({ length: nodes }, (_, i) => `  - {name: n${i}, url: "${sim.nodeUrl(`n${i}`)}"}`).join('\n')}\nalerts:\n  for_polls: 1\n  flap_threshold: 100000\n  flap_window: 1m\n  receivers:\n    - {name: hook, webhook: {url: "${receiverUrl}"}}\n`,
);
const port = await freePort();
const daemon = spawn(process.execPath, ['dist/cli.js', 'run', '--config', configFile, '--listen', `127.0.0.1:${port}`, '--log.level', 'error'], { stdio: ['ignore', 'ignore', 'inherit'] });
const metricsUrl = `http://127.0.0.1:${port}/metrics`;
for (let ready = false; !ready; ) {
  await new Promise((resolve) => setTimeout(resolve, 100));
  ready = await request(`http://127.0.0.1:${port}/-/ready`).then((r) => (r.body.dump(), r.statusCode === 200), () => false);
}

async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port: free } = probe.address() as AddressInfo;
  await new Promise((resolve) => probe.close(resolve));
  return free;
}

async function metric(text: string, name: string, labels = ''): Promise<number> {
  const m = new RegExp(`^${name}${labels ? `\\{${labels}\\}` : '(?:\\{[^}]*\\})?'} (\\S+)$`, 'm').exec(text);
  return m ? Number(m[1]) : NaN;
}

/** Open file descriptors of the daemon (sockets, files), from /proc: what a leak of sockets shows in. */
function openFds(pid: number | undefined): number {
  try {
    return readdirSync(`/proc/${pid}/fd`).length;
  } catch {
    return NaN;
  }
}

/** RSS split (anonymous vs file-backed pages) from /proc/<pid>/status, MiB. */
function rssSplit(pid: number | undefined): { rssAnonMiB: number; rssFileMiB: number } {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kib = (key: string) => Number(new RegExp(`^${key}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN);
    return { rssAnonMiB: Math.round(kib('RssAnon') / 1024), rssFileMiB: Math.round(kib('RssFile') / 1024) };
  } catch {
    return { rssAnonMiB: NaN, rssFileMiB: NaN };
  }
}

/** The sum over every series of a family (e.g. active handles by type). */
function sum(text: string, name: string): number {
  let total = 0;
  for (const m of text.matchAll(new RegExp(`^${name}(?:\\{[^}]*\\})? (\\S+)$`, 'gm'))) total += Number(m[1]);
  return total;
}

/** Scrapes the way Prometheus does: OpenMetrics, gzip. */
async function scrape(): Promise<string> {
  const res = await request(metricsUrl, { headers: { accept: 'application/openmetrics-text;version=1.0.0,text/plain;version=0.0.4;q=0.5', 'accept-encoding': 'gzip' } });
  const raw = Buffer.from(await res.body.arrayBuffer());
  return (res.headers['content-encoding'] === 'gzip' ? gunzipSync(raw) : raw).toString('utf8');
}

const samples: Array<{ t: number; rssMiB: number; rssAnonMiB: number; rssFileMiB: number; heapTotalMiB: number; oldSpaceTotalMiB: number; externalMiB: number; mallocMiB: number; arenas: number; handles: number; fds: number; heapMiB: number; delivered: number; queued: number; dropped: number; syncs: number; records: number; cpuSeconds: number; eventLoopP99Ms: number; load1: number }> = [];
const start = Date.now();
const startedAt = new Date(start).toISOString();
while (Date.now() - start < durationS * 1000) {
  await new Promise((resolve) => setTimeout(resolve, 10_000));
  const text = await scrape();
  samples.push({
    t: Math.round((Date.now() - start) / 1000),
    rssMiB: Math.round((await metric(text, 'process_resident_memory_bytes')) / 1048576),
    heapMiB: Math.round((await metric(text, 'nodejs_heap_size_used_bytes')) / 1048576),
    heapTotalMiB: Math.round((await metric(text, 'nodejs_heap_size_total_bytes')) / 1048576),
    oldSpaceTotalMiB: Math.round((await metric(text, 'nodejs_heap_space_size_total_bytes', 'space="old"')) / 1048576),
    externalMiB: Math.round((await metric(text, 'nodejs_external_memory_bytes')) / 1048576),
    ...rssSplit(daemon.pid),
    ...mallocResident(daemon.pid),
    handles: sum(text, 'nodejs_active_handles'),
    delivered: await metric(text, 'avahealth_notifications_total', 'receiver="hook"'),
    queued: await metric(text, 'avahealth_notification_queue_length', 'receiver="hook"'),
    dropped: await metric(text, 'avahealth_notifications_failed_total', 'receiver="hook",reason="queue_full"'),
    fds: openFds(daemon.pid),
    syncs: await metric(text, 'avahealth_outbox_journal_syncs_total'),
    records: await metric(text, 'avahealth_outbox_journal_records_total'),
    cpuSeconds: await metric(text, 'process_cpu_seconds_total'),
    eventLoopP99Ms: Math.round((await metric(text, 'nodejs_eventloop_lag_p99_seconds')) * 10000) / 10,
    load1: Math.round(loadavg()[0]! * 100) / 100,
  });
  const last = samples.at(-1)!;
  process.stderr.write(
    `t=${last.t}s rss=${last.rssMiB}MiB (anon ${last.rssAnonMiB}, file ${last.rssFileMiB}) heap=${last.heapMiB}/${last.heapTotalMiB}MiB old=${last.oldSpaceTotalMiB}MiB external=${last.externalMiB}MiB malloc=${last.mallocMiB}MiB arenas=${last.arenas} handles=${last.handles} fds=${last.fds} delivered=${last.delivered} queued=${last.queued} dropped=${last.dropped} syncs=${last.syncs} cpu=${last.cpuSeconds}s loopP99=${last.eventLoopP99Ms}ms load=${last.load1}\n`,
  );
}
// settle: no more churn, then every queued notification must arrive
await request(`${sim.baseUrl}/sim/scenario`, { method: 'POST', body: '{"scenario":"healthy"}' }).then((r) => r.body.dump());
let final = { delivered: NaN, queued: NaN, dropped: NaN, syncs: NaN, records: NaN, fds: NaN, handles: NaN };
for (let i = 0; i < 60; i++) {
  await new Promise((resolve) => setTimeout(resolve, 1000));
  const text = await scrape();
  final = {
    delivered: await metric(text, 'avahealth_notifications_total', 'receiver="hook"'),
    queued: await metric(text, 'avahealth_notification_queue_length', 'receiver="hook"'),
    dropped: await metric(text, 'avahealth_notifications_failed_total', 'receiver="hook",reason="queue_full"'),
    syncs: await metric(text, 'avahealth_outbox_journal_syncs_total'),
    records: await metric(text, 'avahealth_outbox_journal_records_total'),
    fds: openFds(daemon.pid),
    handles: sum(text, 'nodejs_active_handles'),
  };
  if (final.queued === 0 && final.delivered === received) break;
}
const endedAt = new Date().toISOString();
daemon.kill('SIGTERM');
await new Promise((resolve) => daemon.once('exit', resolve));
await sim.close();
receiver.close();

const third = Math.max(1, Math.floor(samples.length / 3));
const avg = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
const early = samples.slice(0, third);
const middle = samples.slice(third, -third);
const late = samples.slice(-third);
const cpuSeconds = (samples.at(-1)?.cpuSeconds ?? NaN) - (samples[0]?.cpuSeconds ?? NaN);
const result = {
  commit: (() => {
    try {
      return execFileSync('git', ['rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).trim();
    } catch {
      return undefined;
    }
  })(),
  startedAt,
  endedAt,
  nodes,
  durationS,
  pollsPerNode: durationS,
  equivalentHoursAt15s: (durationS * 15) / 3600,
  rssMiB: {
    first: samples[0]?.rssMiB,
    early: Math.round(avg(early.map((s) => s.rssMiB))),
    middle: Math.round(avg(middle.map((s) => s.rssMiB))),
    late: Math.round(avg(late.map((s) => s.rssMiB))),
    last: samples.at(-1)?.rssMiB,
    max: Math.max(...samples.map((s) => s.rssMiB)),
  },
  heapMiB: { early: Math.round(avg(early.map((s) => s.heapMiB))), middle: Math.round(avg(middle.map((s) => s.heapMiB))), late: Math.round(avg(late.map((s) => s.heapMiB))) },
  /** Where the RSS is, by thirds (averages of samples): V8's heap total and old space, ArrayBuffers/external, malloc's arenas, file-backed pages. */
  memoryByThirds: Object.fromEntries(
    (['rssAnonMiB', 'rssFileMiB', 'heapTotalMiB', 'oldSpaceTotalMiB', 'externalMiB', 'mallocMiB', 'arenas'] as const).map((key) => [
      key,
      { first: samples[0]?.[key], early: Math.round(avg(early.map((s) => s[key]))), middle: Math.round(avg(middle.map((s) => s[key]))), late: Math.round(avg(late.map((s) => s[key]))), last: samples.at(-1)?.[key], max: Math.max(...samples.map((s) => s[key])) },
    ]),
  ),
  handles: { early: avg(early.map((s) => s.handles)), late: avg(late.map((s) => s.handles)), afterSettle: final.handles },
  openFds: { early: Math.round(avg(early.map((s) => s.fds))), late: Math.round(avg(late.map((s) => s.fds))), max: Math.max(...samples.map((s) => s.fds)), afterSettle: final.fds },
  loadAverage1m: { min: Math.min(...samples.map((s) => s.load1)), median: [...samples.map((s) => s.load1)].sort((a, b) => a - b)[Math.floor(samples.length / 2)], max: Math.max(...samples.map((s) => s.load1)) },
  eventLoopP99Ms: { median: [...samples.map((s) => s.eventLoopP99Ms)].sort((a, b) => a - b)[Math.floor(samples.length / 2)], max: Math.max(...samples.map((s) => s.eventLoopP99Ms)) },
  /** Cores the daemon used on average between the first and the last sample. */
  daemonCores: Math.round((cpuSeconds / ((samples.at(-1)?.t ?? 0) - (samples[0]?.t ?? 0))) * 1000) / 1000,
  notifications: {
    sent: final.delivered,
    received,
    queuedAtEnd: final.queued,
    droppedQueueFull: final.dropped,
    allDelivered: final.queued === 0 && final.delivered === received && final.dropped === 0,
  },
  outboxJournal: { records: final.records, syncs: final.syncs, syncsPerNotification: Math.round((final.syncs / final.delivered) * 1000) / 1000 },
  samples,
};
process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
if (values.out) writeFileSync(values.out, `${JSON.stringify(result, null, 2)}\n`);
