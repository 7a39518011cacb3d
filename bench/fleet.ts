/**
 * The fleet scenarios of issue 16, each against `avahealth simulate` in its own process:
 * - 1,000 nodes × 3 endpoints every 1 s: CPU per poll (next to blackbox_exporter's CPU per probe of
 *   the same simulated health endpoint), 20 gzip scrapes of /metrics a second apart while /-/healthy
 *   is asked every 50 ms, RSS;
 * - 5,000 nodes at the default 15 s, scraped with gzip every 5 s the way Prometheus asks
 *   (OpenMetrics, gzip), /-/healthy every 100 ms meanwhile, RSS.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { request } from 'undici';
import { cpuSeconds, freePort, median, percentile, rssMiB, sleep, spawnDaemon, stop, waitReady } from './lib.js';

export const PROMETHEUS_HEADERS = { accept: 'application/openmetrics-text;version=1.0.0,application/openmetrics-text;version=0.0.1;q=0.75,text/plain;version=0.0.4;q=0.5,*/*;q=0.1', 'accept-encoding': 'gzip' };
const round = (n: number) => Math.round(n * 10) / 10;
const spread = (xs: number[]) => ({ median: round(median(xs)), min: round(Math.min(...xs)), max: round(Math.max(...xs)) });

interface Fleet {
  sim: ChildProcess;
  /** Requests the simulator has answered so far. */
  requests: () => Promise<number>;
  daemon: ChildProcess;
  port: number;
  simPort: number;
  rss: number[];
  stop: () => Promise<void>;
}

async function startFleet(root: string, dir: string, nodes: number, settings: string): Promise<Fleet> {
  const simPort = await freePort();
  const sim = spawn(process.execPath, ['--import', 'tsx', 'bench/sim.ts', String(nodes), String(simPort), '30000'], { stdio: ['ignore', 'ignore', 'inherit', 'ipc'], cwd: root });
  await new Promise((resolve) => sim.once('message', resolve));
  const file = join(dir, `fleet-${nodes}.yaml`);
  writeFileSync(file, `state_dir: ./state-${nodes}\n${settings}nodes:\n${Array.from({ length: nodes }, (_, i) => `  - {name: node-${i + 1}, url: "http://127.0.0.1:${simPort}/nodes/node-${i + 1}"}`).join('\n')}\n`);
  const port = await freePort();
  const daemon = spawnDaemon(file, port);
  await waitReady(port, 300_000);
  const rss: number[] = [];
  const sampler = setInterval(() => {
    try {
      rss.push(rssMiB(daemon.pid!));
    } catch {
      // exited
    }
  }, 1000);
  return {
    sim,
    requests: () =>
      new Promise<number>((resolve) => {
        sim.once('message', (m: { requests: number }) => resolve(m.requests));
        sim.send({});
      }),
    daemon,
    port,
    simPort,
    rss,
    stop: async () => {
      clearInterval(sampler);
      await stop(daemon);
      await stop(sim);
    },
  };
}

/** One request, timed until the last byte; the body is decoded later (a sync gunzip here would stall the /-/healthy probe running beside it). */
export async function timed(url: string, headers: Record<string, string> = {}): Promise<{ ms: number; bytes: number; raw: Buffer; gzip: boolean; failed?: string }> {
  const t = performance.now();
  try {
    const res = await request(url, { headers });
    const raw = Buffer.from(await res.body.arrayBuffer());
    return { ms: performance.now() - t, bytes: raw.length, raw, gzip: res.headers['content-encoding'] === 'gzip' };
  } catch (err) {
    // a scrape the daemon cut (its 30 s response deadline) counts with the time it took, and is said
    const ms = performance.now() - t;
    process.stderr.write(`  /metrics failed after ${ms.toFixed(0)} ms: ${(err as Error).message}\n`);
    return { ms, bytes: 0, raw: Buffer.alloc(0), gzip: false, failed: (err as Error).message };
  }
}

export const decode = (r: { raw: Buffer; gzip: boolean }) => (r.gzip ? gunzipSync(r.raw) : r.raw).toString();

/** Asks /-/healthy every `everyMs` until stopped; returns the latencies. */
export function healthyProbe(port: number, everyMs: number): { stop: () => Promise<number[]> } {
  const latencies: number[] = [];
  let running = true;
  const loop = (async () => {
    while (running) {
      const t = performance.now();
      // a refused or reset probe counts with the time it took, and is said: it is an answer too
      await request(`http://127.0.0.1:${port}/-/healthy`).then(
        (r) => r.body.dump(),
        (err: Error) => process.stderr.write(`  /-/healthy failed after ${(performance.now() - t).toFixed(0)} ms: ${err.message}\n`),
      );
      latencies.push(performance.now() - t);
      await sleep(everyMs);
    }
  })();
  return {
    stop: async () => {
      running = false;
      await loop;
      return latencies;
    },
  };
}

const sum = (text: string, name: string) => [...text.matchAll(new RegExp(`^${name}(?:\\{[^}]*\\})? (\\S+)$`, 'gm'))].reduce((n, m) => n + Number(m[1]), 0);

export async function blackboxProbesPerCpuSecond(dir: string, url: string, seconds: number): Promise<number | undefined> {
  const binary = ['/usr/bin/prometheus-blackbox-exporter', '/usr/bin/blackbox_exporter'].find((b) => existsSync(b));
  if (!binary) return undefined;
  const config = join(dir, 'blackbox.yml');
  writeFileSync(config, 'modules:\n  avalanche:\n    prober: http\n    timeout: 5s\n    http:\n      valid_status_codes: [200, 503]\n      fail_if_body_not_matches_regexp: [\'"healthy"\']\n      preferred_ip_protocol: ip4\n');
  const port = await freePort();
  const bb = spawn(binary, [`--config.file=${config}`, `--web.listen-address=127.0.0.1:${port}`], { stdio: 'ignore' });
  const probe = `http://127.0.0.1:${port}/probe?module=avalanche&target=${encodeURIComponent(url)}`;
  for (let up = false; !up; await sleep(50)) up = await request(probe).then((r) => (r.body.dump(), r.statusCode === 200), () => false);
  let probes = 0;
  let counting = false;
  const end = Date.now() + 1000 + seconds * 1000;
  let cpu0 = 0;
  setTimeout(() => {
    cpu0 = cpuSeconds(bb.pid!);
    counting = true;
  }, 1000);
  await Promise.all(
    Array.from({ length: 16 }, async () => {
      while (Date.now() < end) {
        const res = await request(probe);
        const text = await res.body.text();
        if (!text.includes('probe_success 1')) throw new Error('blackbox probe failed');
        if (counting) probes++;
      }
    }),
  );
  const cpu1 = cpuSeconds(bb.pid!);
  await stop(bb);
  return probes / (cpu1 - cpu0);
}

/** 1,000 nodes × 3 endpoints every second. */
export async function fleet1000(root: string, dir: string, options: { nodes: number; reps: number; seconds: number; scrapes: number }) {
  const endpoints = 3;
  const fleet = await startFleet(root, dir, options.nodes, 'defaults: {interval: 1s, timeout: 5s}\n');
  const metricsUrl = `http://127.0.0.1:${fleet.port}/metrics`;
  await sleep(5000);
  const daemonRates: number[] = [];
  const blackboxRates: number[] = [];
  const skippedShare: number[] = [];
  const pollsPerSecond: number[] = [];
  for (let r = 0; r < options.reps; r++) {
    const before = await timed(metricsUrl, PROMETHEUS_HEADERS);
    const [cpu0, n0] = [cpuSeconds(fleet.daemon.pid!), await fleet.requests()];
    const t0 = performance.now();
    await sleep(options.seconds * 1000);
    const [cpu1, n1] = [cpuSeconds(fleet.daemon.pid!), await fleet.requests()];
    const elapsed = (performance.now() - t0) / 1000;
    const after = await timed(metricsUrl, PROMETHEUS_HEADERS);
    const skipped = sum(decode(after), 'avahealth_scheduler_skipped_polls_total') - sum(decode(before), 'avahealth_scheduler_skipped_polls_total');
    daemonRates.push((n1 - n0) / (cpu1 - cpu0));
    pollsPerSecond.push((n1 - n0) / elapsed);
    skippedShare.push(skipped / (options.nodes * elapsed));
    const bb = await blackboxProbesPerCpuSecond(dir, `http://127.0.0.1:${fleet.simPort}/nodes/node-1/ext/health`, options.seconds);
    if (bb !== undefined) blackboxRates.push(bb);
  }
  // scrapes as Prometheus makes them, /-/healthy asked every 50 ms meanwhile
  await timed(metricsUrl, PROMETHEUS_HEADERS);
  const healthy = healthyProbe(fleet.port, 50);
  const scrapes: Array<Awaited<ReturnType<typeof timed>>> = [];
  for (let i = 0; i < options.scrapes; i++) {
    scrapes.push(await timed(metricsUrl, PROMETHEUS_HEADERS));
    await sleep(1000);
  }
  const healthyMs = await healthy.stop();
  const plain = await timed(metricsUrl);
  const lastText = decode(scrapes.findLast((x) => !x.failed) ?? scrapes.at(-1)!);
  const rssEnd = rssMiB(fleet.daemon.pid!);
  await fleet.stop();
  const ratios = daemonRates.map((d, i) => (blackboxRates[i] ? d / blackboxRates[i]! : NaN));
  return {
    nodes: options.nodes,
    endpoints,
    intervalS: 1,
    series: lastText.split('\n').filter((l) => l.startsWith('avahealth_')).length,
    plainMiB: round(plain.bytes / 1048576),
    gzipKiB: Math.round(scrapes.at(-1)!.bytes / 1024),
    gzipScrapesAnsweredUncompressed: scrapes.filter((s) => !s.gzip).length,
    daemonPollsPerCpuSecond: spread(daemonRates),
    pollsPerSecond: spread(pollsPerSecond),
    skippedPollPercent: spread(skippedShare.map((s) => s * 100)),
    blackboxProbesPerCpuSecond: blackboxRates.length ? spread(blackboxRates) : 'not installed',
    daemonTimesBlackbox: blackboxRates.length ? spread(ratios) : null,
    metricsGzipMs: { ...spread(scrapes.map((s) => s.ms)), worst: round(Math.max(...scrapes.map((s) => s.ms))), scrapes: scrapes.length, failed: scrapes.filter((s) => s.failed).length },
    healthyMs: { p50: round(median(healthyMs)), p99: round(percentile(healthyMs, 99)), worst: round(Math.max(...healthyMs)), requests: healthyMs.length },
    rssMiB: { end: Math.round(rssEnd), max: Math.round(Math.max(rssEnd, ...fleet.rss)) },
  };
}

/** 5,000 nodes at the default 15 s, scraped with gzip every 5 s. */
export async function fleet5000(root: string, dir: string, options: { nodes: number; scrapes: number }) {
  const fleet = await startFleet(root, dir, options.nodes, '');
  const metricsUrl = `http://127.0.0.1:${fleet.port}/metrics`;
  const healthy = healthyProbe(fleet.port, 100);
  const scrapes: Array<Awaited<ReturnType<typeof timed>>> = [];
  for (let i = 0; i < options.scrapes; i++) {
    const started = performance.now();
    scrapes.push(await timed(metricsUrl, PROMETHEUS_HEADERS));
    await sleep(Math.max(0, 5000 - (performance.now() - started)));
  }
  const healthyMs = await healthy.stop();
  const last = scrapes.findLast((x) => !x.failed) ?? scrapes.at(-1)!;
  const lastText = decode(last);
  const lag = Number(/^nodejs_eventloop_lag_p99_seconds (\S+)$/m.exec(lastText)?.[1]) * 1000;
  const rssEnd = rssMiB(fleet.daemon.pid!);
  await fleet.stop();
  return {
    nodes: options.nodes,
    intervalS: 15,
    series: lastText.split('\n').filter((l) => l.startsWith('avahealth_')).length,
    plainMiB: round(Buffer.byteLength(lastText) / 1048576),
    gzipKiB: Math.round(last.bytes / 1024),
    gzipScrapesAnsweredUncompressed: scrapes.filter((s) => !s.gzip).length,
    metricsGzipMs: { ...spread(scrapes.map((s) => s.ms)), worst: round(Math.max(...scrapes.map((s) => s.ms))), scrapes: scrapes.length, failed: scrapes.filter((s) => s.failed).length, each: scrapes.map((s) => Math.round(s.ms)) },
    healthyMs: { p50: round(median(healthyMs)), p99: round(percentile(healthyMs, 99)), worst: round(Math.max(...healthyMs)), requests: healthyMs.length },
    eventLoopDelayP99ms: round(lag),
    rssMiB: { end: Math.round(rssEnd), max: Math.round(Math.max(rssEnd, ...fleet.rss)) },
  };
}
