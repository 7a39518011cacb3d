/** Real servers on port 0 for integration tests: the simulator, the daemon, and a fixture server. */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { request } from 'undici';
import { loadConfigFile } from '../../src/config/load.js';
import { Daemon } from '../../src/app/daemon.js';
import { createLogger } from '../../src/log.js';
import type { Shard } from '../../src/shard.js';
import type { SimNodeOptions } from '../../src/sim/node.js';
import type { ScenarioName } from '../../src/sim/scenarios.js';
import { SimServer } from '../../src/sim/server.js';

export async function startSim(nodes: SimNodeOptions[]): Promise<SimServer> {
  // A long health period: results change only when a test switches a scenario.
  const sim = new SimServer(nodes.map((n) => ({ periodMs: 3_600_000, ...n })));
  await sim.listen(0);
  return sim;
}

export async function setScenario(sim: SimServer, node: string, scenario: ScenarioName, extra: Record<string, unknown> = {}): Promise<void> {
  const res = await request(`${sim.baseUrl}/sim/nodes/${node}/scenario`, { method: 'POST', body: JSON.stringify({ scenario, ...extra }) });
  const text = await res.body.text();
  if (res.statusCode !== 200) throw new Error(`scenario switch failed: ${res.statusCode} ${text}`);
}

export function writeConfig(yaml: string): string {
  const file = join(mkdtempSync(join(tmpdir(), 'avahealth-test-')), 'config.yaml');
  writeFileSync(file, yaml);
  return file;
}

export interface RunningDaemon {
  daemon: Daemon;
  url: string;
  logs: () => string;
  stop: () => Promise<void>;
}

export interface DaemonTestOptions {
  adminApi?: boolean;
  lifecycle?: boolean;
  webConfigFile?: string;
  watchConfig?: boolean;
  /** Write the config here instead of a new temporary file. */
  file?: string;
  /** `--shard I/N`. */
  shard?: Shard;
}

export async function startDaemon(yaml: string, options: DaemonTestOptions = {}): Promise<RunningDaemon> {
  const file = options.file ?? writeConfig(yaml);
  if (options.file) writeFileSync(file, yaml);
  const config = loadConfigFile(file);
  const stream = new PassThrough();
  let logText = '';
  stream.on('data', (chunk: Buffer) => (logText += chunk.toString()));
  const logger = createLogger({ level: 'debug', format: 'json', destination: stream });
  const daemon = new Daemon(config, {
    logger,
    listen: { host: '127.0.0.1', port: 0 },
    enableLifecycle: options.lifecycle ?? true,
    enableAdminApi: options.adminApi ?? true,
    watchConfig: options.watchConfig ?? false,
    watchIntervalMs: 100,
    ...(options.webConfigFile ? { webConfigFile: options.webConfigFile } : {}),
    ...(options.shard ? { shard: options.shard } : {}),
  });
  await daemon.start();
  return { daemon, url: `${daemon.scheme}://127.0.0.1:${daemon.address!.port}`, logs: () => logText, stop: () => daemon.stop() };
}

/** Waits until `predicate` holds, checking every 20 ms; fails with `what` after `timeoutMs`. */
export async function waitFor<T>(what: string, probe: () => T | Promise<T>, timeoutMs = 10_000): Promise<NonNullable<T>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value as NonNullable<T>;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/**
 * Waits for a condition as long as the system under test makes progress: it fails only when
 * `progress()` (polls served, requests received, …) has not moved for `stallMs`, so a busy machine
 * that runs everything slower fails nothing, while a stuck daemon still fails.
 */
export async function waitWhileProgressing<T>(what: string, probe: () => T | Promise<T>, progress: () => number, stallMs = 15_000): Promise<NonNullable<T>> {
  let last = progress();
  let deadline = Date.now() + stallMs;
  for (;;) {
    const value = await probe();
    if (value) return value as NonNullable<T>;
    const now = progress();
    if (now !== last) [last, deadline] = [now, Date.now() + stallMs];
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}: no progress for ${stallMs / 1000} s`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Waits until the target has completed `rounds` polls in total. */
export async function waitForRounds(d: RunningDaemon, target: string, rounds: number): Promise<void> {
  await waitFor(`${target} to complete ${rounds} polls`, () => (d.daemon.store.get(target)?.rounds ?? 0) >= rounds, 15_000);
}

export async function get(url: string): Promise<{ status: number; headers: Record<string, unknown>; body: string }> {
  const res = await request(url);
  return { status: res.statusCode, headers: res.headers, body: await res.body.text() };
}

export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** Parses the Prometheus text exposition format. */
export function parseExposition(text: string): Sample[] {
  const samples: Sample[] = [];
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!m) throw new Error(`unparseable exposition line: ${line}`);
    const labels: Record<string, string> = {};
    for (const [, k, v] of (m[2] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)) {
      labels[k!] = v!.replace(/\\(.)/g, (_, c: string) => (c === 'n' ? '\n' : c));
    }
    samples.push({ name: m[1]!, labels, value: Number(m[3]) });
  }
  return samples;
}

export async function scrape(url: string): Promise<Sample[]> {
  const res = await get(`${url}/metrics`);
  if (res.status !== 200) throw new Error(`scrape failed: ${res.status}`);
  return parseExposition(res.body);
}

/** The one sample of `name` whose labels include `match`; undefined when absent, an error when ambiguous. */
export function sample(samples: Sample[], name: string, match: Record<string, string> = {}): number | undefined {
  const found = samples.filter((s) => s.name === name && Object.entries(match).every(([k, v]) => s.labels[k] === v));
  if (found.length > 1) throw new Error(`${found.length} samples of ${name} match ${JSON.stringify(match)}`);
  return found[0]?.value;
}

export function series(samples: Sample[], name: string, match: Record<string, string> = {}): Sample[] {
  return samples.filter((s) => s.name === name && Object.entries(match).every(([k, v]) => s.labels[k] === v));
}

/** A real HTTP server answering every request with a fixed status and body (for payloads the simulator does not make). */
export async function startFixtureServer(handler: (req: IncomingMessage, res: ServerResponse) => void): Promise<{ url: string; server: Server; close: () => Promise<void> }> {
  const server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    server,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

export function serveFile(path: string, status = 200): (req: IncomingMessage, res: ServerResponse) => void {
  const body = readFileSync(path);
  return (_req, res) => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(body);
  };
}

/**
 * A port with nothing listening: one found free below the ephemeral range (Linux 32768–60999, macOS
 * 49152–65535). A released ephemeral port is soon another socket's: any bind to port 0 on the machine,
 * or an outgoing connection's local port, may take it, and a poll meant to be refused connects.
 */
export async function closedPort(): Promise<number> {
  for (;;) {
    const port = 20_000 + Math.floor(Math.random() * 12_000);
    const server = createServer();
    const free = await new Promise<boolean>((resolve) => {
      server.once('error', () => resolve(false));
      server.listen(port, '127.0.0.1', () => resolve(true));
    });
    if (!free) continue;
    await new Promise<void>((resolve) => server.close(() => resolve()));
    return port;
  }
}
