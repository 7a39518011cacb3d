/** Shared by the benchmarks: child processes, their CPU time from /proc, percentiles, free ports. */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { request } from 'undici';

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

export function spawnDaemon(configFile: string, port: number): ChildProcess {
  return spawn(process.execPath, ['dist/cli.js', 'run', '--config', configFile, '--listen', `127.0.0.1:${port}`, '--log.level', 'error'], { stdio: ['ignore', 'ignore', 'inherit'] });
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
