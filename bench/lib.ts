/** Shared by the benchmarks: child processes, their CPU time from /proc, percentiles, free ports. */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync, realpathSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { request } from 'undici';
import { parse } from 'yaml';

const TICKS_PER_SECOND = 100;

/** User + system CPU seconds a process has used so far. */
export function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
}

export function rssMiB(pid: number): number {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8').split('\n').find((l) => l.startsWith('VmRSS:'))!;
  return Number(line.split(/\s+/)[1]) / 1024;
}

const ARENA_BYTES = 64 * 1024 * 1024;
/**
 * What glibc malloc holds resident: the main arena (the brk `[heap]`) plus the per-thread arenas
 * (anonymous 64 MiB-aligned reservations of 64 MiB, read-write part then `---p` rest), from
 * /proc/<pid>/smaps. The rest of RssAnon is V8's heap pages, thread stacks and other mmaps.
 */
export function mallocResident(pid: number | undefined): { arenas: number; mallocMiB: number } {
  try {
    const maps: Array<{ start: bigint; end: bigint; perm: string; anon: boolean; name: string; rssKiB: number }> = [];
    for (const line of readFileSync(`/proc/${pid}/smaps`, 'utf8').split('\n')) {
      const head = /^([0-9a-f]+)-([0-9a-f]+) (\S+) \S+ \S+ (\d+)\s*(.*)$/.exec(line);
      if (head) maps.push({ start: BigInt(`0x${head[1]}`), end: BigInt(`0x${head[2]}`), perm: head[3]!, anon: head[4] === '0' && !head[5], name: head[5] ?? '', rssKiB: 0 });
      const rss = /^Rss:\s+(\d+) kB/.exec(line);
      if (rss && maps.length > 0) maps.at(-1)!.rssKiB = Number(rss[1]);
    }
    let arenas = 0;
    let kib = 0;
    maps.forEach((m, i) => {
      if (m.name === '[heap]') kib += m.rssKiB;
      if (!m.anon || !m.perm.startsWith('rw') || m.start % BigInt(ARENA_BYTES) !== 0n) return;
      const next = maps[i + 1];
      const end = next && next.anon && next.perm === '---p' && next.start === m.end ? next.end : m.end;
      if (end - m.start !== BigInt(ARENA_BYTES)) return;
      arenas++;
      kib += m.rssKiB;
    });
    return { arenas, mallocMiB: Math.round(kib / 1024) };
  } catch {
    return { arenas: NaN, mallocMiB: NaN };
  }
}

/** Where a process' RSS is, MiB: anonymous and file-backed pages, the part of the latter that is the `node` binary, malloc's. */
export function rssBreakdown(pid: number): { anonMiB: number; fileMiB: number; nodeBinaryMiB: number; mallocMiB: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kib = (key: string) => Number(new RegExp(`^${key}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN);
  const binary = realpathSync(runtime.node);
  let binaryKiB = 0;
  let inBinary = false;
  for (const line of readFileSync(`/proc/${pid}/smaps`, 'utf8').split('\n')) {
    const head = /^[0-9a-f]+-[0-9a-f]+ \S+ \S+ \S+ \d+\s*(.*)$/.exec(line);
    if (head) inBinary = head[1] === binary;
    const rss = /^Rss:\s+(\d+) kB/.exec(line);
    if (rss && inBinary) binaryKiB += Number(rss[1]);
  }
  const mib = (k: number) => Math.round((k / 1024) * 10) / 10;
  return { anonMiB: mib(kib('RssAnon')), fileMiB: mib(kib('RssFile')), nodeBinaryMiB: mib(binaryKiB), mallocMiB: mallocResident(pid).mallocMiB };
}

export async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

export function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? NaN;
}

export const median = (values: number[]) => percentile(values, 50);

/** How the image starts the daemon: the Dockerfile's ENTRYPOINT (`node dist/cli.js`, the same command everywhere). */
export function imageCommand(): string[] {
  const entrypoint = /^ENTRYPOINT (\[.*\])$/m.exec(readFileSync(new URL('../Dockerfile', import.meta.url), 'utf8'));
  return entrypoint ? (JSON.parse(entrypoint[1]!) as string[]) : [];
}

/** The image's NODE_OPTIONS: the Dockerfile's `ENV NODE_OPTIONS=…`. */
export function imageNodeOptions(): string {
  return /^ENV NODE_OPTIONS=(\S+)$/m.exec(readFileSync(new URL('../Dockerfile', import.meta.url), 'utf8'))?.[1] ?? '';
}

/** The sidecar's NODE_OPTIONS: the sidecar component's ConfigMap avahealth-node (the container's envFrom). */
export function sidecarNodeOptions(): string {
  const file = readFileSync(new URL('../deploy/kubernetes/components/sidecar/node.yaml', import.meta.url), 'utf8');
  return (parse(file) as { data: { NODE_OPTIONS: string } }).data.NODE_OPTIONS;
}

/**
 * What the measured daemon runs on: the node binary (`npm run bench -- --node PATH`, by default the
 * one running the bench), the image's command (`node dist/cli.js`, flags between the two only with
 * `--node-flags '…'`, for experiments) and its NODE_OPTIONS (by default the image's, and the sidecar
 * component's for the sidecar, whatever the bench's own environment says; `--node-options '…'` for
 * every scenario).
 */
export const runtime = { node: process.execPath, nodeOptions: imageNodeOptions(), sidecarNodeOptions: sidecarNodeOptions(), nodeFlags: [] as string[] };

export function spawnDaemon(configFile: string, port: number, nodeOptions = runtime.nodeOptions, extraArgs: string[] = []): ChildProcess {
  const [, ...cli] = imageCommand();
  return spawn(runtime.node, [...runtime.nodeFlags, ...cli, 'run', '--config', configFile, '--listen', `127.0.0.1:${port}`, '--log.level', 'error', ...extraArgs], {
    stdio: ['ignore', 'ignore', 'inherit'],
    env: { ...process.env, NODE_OPTIONS: nodeOptions },
  });
}

export async function waitReady(port: number, timeoutMs = 120_000): Promise<number> {
  const start = performance.now();
  for (;;) {
    const ok = await request(`http://127.0.0.1:${port}/-/ready`).then((r) => (r.body.dump(), r.statusCode === 200), () => false);
    if (ok) return performance.now() - start;
    if (performance.now() - start > timeoutMs) throw new Error(`not ready after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

export async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  child.kill('SIGTERM');
  await new Promise((resolve) => child.once('exit', resolve));
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A simulator (bench/sim.ts) in its own process, and the requests it has answered so far. */
export interface Sim {
  port: number;
  child: ChildProcess;
  answered(): Promise<number>;
}

/** Starts bench/sim.ts for `nodes` healthy nodes whose health results change every `periodMs`, once it listens. */
export async function startSim(nodes: number, periodMs: number): Promise<Sim> {
  const port = await freePort();
  const child = spawn(process.execPath, ['--import', 'tsx', 'bench/sim.ts', String(nodes), String(port), String(periodMs)], { stdio: ['ignore', 'ignore', 'inherit', 'ipc'], cwd: new URL('../', import.meta.url).pathname });
  await new Promise((resolve) => child.once('message', resolve));
  return {
    port,
    child,
    answered: () =>
      new Promise<number>((resolve) => {
        child.once('message', (m: { requests: number }) => resolve(m.requests));
        child.send({});
      }),
  };
}

/** The `nodes:` entries of a fleet of `count` simulated nodes (node-1 …) on a simulator at `port`. */
export function simNodes(port: number, count: number): string {
  return Array.from({ length: count }, (_, i) => `  - {name: node-${i + 1}, url: "http://127.0.0.1:${port}/nodes/node-${i + 1}"}`).join('\n');
}
