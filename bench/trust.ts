/**
 * The trust benchmark (`npm run bench:trust`, issue 38): a scripted, accelerated week of a fleet's
 * life (bench/trust/week.txt) played by the simulator against the real daemon (dist/cli.js run),
 * with every page recorded at the daemon's own webhook and at a real Alertmanager fed by the
 * daemon's `alertmanager` receiver, then scored against the ground truth (bench/trust/score.ts).
 * Loopback only; every wait is bounded. Prints a table, then the JSON summary as the last line.
 *
 *   npm run bench:trust [-- --script FILE] [-- --json-only]
 *   TRUST_LOG_LEVEL=info      the daemons' log level (default warn)
 *   TRUST_DUMP=FILE           what each receiver was told and the surfaces showed, as JSON
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { accessSync, constants, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { request } from 'undici';
import { parse, stringify } from 'yaml';
import { l1SubnetIdOf } from '../src/sim/fleet.js';
import type { SimNodeOptions } from '../src/sim/node.js';
import type { ScenarioName } from '../src/sim/scenarios.js';
import { SimServer } from '../src/sim/server.js';
import { freePort, percentile, sleep } from './lib.js';
import { parseScript, type ScriptEvent, type Value } from './trust/script.js';
import { score, type Message, type Score, type SurfaceSample } from './trust/score.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const CLI = join(ROOT, 'dist/cli.js');
const INTERVAL_S = 1;
/** After `end`: how long the receivers may take to hear the last resolves. */
const DRAIN_MS = 40_000;

const args = process.argv.slice(2);
const scriptFile = args.includes('--script') ? args[args.indexOf('--script') + 1]! : join(ROOT, 'bench/trust/week.txt');
const script = parseScript(readFileSync(scriptFile, 'utf8'), relative(ROOT, scriptFile));
const dir = mkdtempSync(join(tmpdir(), 'avahealth-trust-'));
const log = (line: string) => process.stderr.write(`${line}\n`);

// --- the capture server: the daemon's webhook at /daemon, Alertmanager's at /alertmanager
const received: Record<string, Message[]> = { daemon: [], alertmanager: [] };
const capture: Server = createServer((req, res) => {
  const chunks: Buffer[] = [];
  let size = 0;
  req.on('data', (c: Buffer) => {
    size += c.length;
    if (size <= 4 << 20) chunks.push(c);
  });
  req.on('end', () => {
    const path = (req.url ?? '/').slice(1);
    try {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { alerts?: Message['alerts'] };
      if (path in received && Array.isArray(body.alerts)) received[path]!.push({ at: Date.now(), alerts: body.alerts });
    } catch {
      // not JSON: not a notification
    }
    res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
  });
});
await new Promise<void>((resolve) => capture.listen(0, '127.0.0.1', resolve));
const captureUrl = `http://127.0.0.1:${(capture.address() as AddressInfo).port}`;

// --- the simulated fleet; the week's clock starts with it (a fleet line's validationEndsIn counts from here)
const t0 = Date.now();
const sim = new SimServer(
  script.fleet.map(({ name, options }) => {
    const spec: SimNodeOptions = { name, scenario: (options.scenario as ScenarioName | undefined) ?? 'healthy', periodMs: 2000 };
    if (options.validator === false) spec.validator = false;
    if (options.l1 === true) spec.l1 = true;
    if (typeof options.validationEndsIn === 'number') spec.validationEndsIn = options.validationEndsIn;
    return spec;
  }),
);
await sim.listen(0);

// --- a real Alertmanager (Debian's), with the shipped inhibit rules and one webhook to the capture server
const alertmanagerBin = ['prometheus-alertmanager', 'alertmanager'].map(which).find(Boolean);
let alertmanager: ChildProcess | undefined;
let alertmanagerExited = Promise.resolve();
let amUrl: string | undefined;
if (alertmanagerBin) {
  const shipped = parse(readFileSync(join(ROOT, 'deploy/alertmanager/alertmanager.yml'), 'utf8')) as { inhibit_rules: unknown[] };
  const amConfig = {
    // one group per alert, told at once and never repeated within the run: every notification is a page, an update or a resolve
    route: { receiver: 'capture', group_by: ['...'], group_wait: '1s', group_interval: '1s', repeat_interval: '24h' },
    receivers: [{ name: 'capture', webhook_configs: [{ url: `${captureUrl}/alertmanager`, send_resolved: true }] }],
    inhibit_rules: shipped.inhibit_rules,
  };
  writeFileSync(join(dir, 'alertmanager.yml'), stringify(amConfig));
  const port = await freePort();
  amUrl = `http://127.0.0.1:${port}`;
  alertmanager = spawn(alertmanagerBin, [`--config.file=${join(dir, 'alertmanager.yml')}`, `--storage.path=${join(dir, 'am')}`, `--web.listen-address=127.0.0.1:${port}`, '--cluster.listen-address='], { stdio: 'ignore' });
  const child = alertmanager;
  alertmanagerExited = new Promise((resolve) => child.once('exit', () => resolve()));
  await until('Alertmanager ready', async () => (await get(`${amUrl}/-/ready`)).status === 200, 30_000);
} else {
  delete received.alertmanager;
  log('!! prometheus-alertmanager is not installed: only the daemon webhook path is scored (apt-get install prometheus-alertmanager)');
}

// --- the daemon's config: the fleet, the hosted APIs, a webhook and an alertmanager receiver
const configFile = join(dir, 'avahealth.yaml');
writeFileSync(
  configFile,
  stringify({
    listen: '127.0.0.1:0',
    state_dir: '${AVAHEALTH_STATE_DIR}',
    defaults: { interval: `${INTERVAL_S}s`, timeout: '2s', validator: { interval: '2s', network: { interval: '3s' } } },
    nodes: script.fleet.map(({ name, options }) => ({
      name,
      url: sim.nodeUrl(name),
      labels: typeof options.role === 'string' ? { role: options.role } : {},
      ...(options.l1 === true ? { validator: { subnets: [l1SubnetIdOf(name)] } } : {}),
    })),
    services: [
      // polled every 2 s (not 30 s): the week is accelerated
      { name: 'data-api', kind: 'data-api', url: `${sim.baseUrl}/data-api`, interval: '2s', timeout: '2s' },
      { name: 'metrics-api', kind: 'metrics-api', url: `${sim.baseUrl}/metrics-api`, interval: '2s', timeout: '2s' },
    ],
    alerts: {
      receivers: [
        { name: 'oncall', webhook: { url: `${captureUrl}/daemon` } },
        ...(amUrl ? [{ name: 'alertmanager', alertmanager: { url: amUrl, resend_interval: '5s' } }] : []),
      ],
    },
  }),
);

// --- the daemons: one per shard, each on its own state directory
interface Daemon { child: ChildProcess; url: string; stateDir: string; shard: string; exited: Promise<void> }
let daemons: Daemon[] = [];
let shardCount = 1;

async function startDaemon(index: number, count: number, stateDir = mkdtempSync(join(dir, `state-${index}-`))): Promise<Daemon> {
  const port = await freePort();
  const shard = `${index}/${count}`;
  const child = spawn(process.execPath, [CLI, 'run', '--config', configFile, '--listen', `127.0.0.1:${port}`, '--shard', shard, '--web.enable-admin-api', '--log.level', process.env.TRUST_LOG_LEVEL ?? 'warn'], {
    env: { ...process.env, AVAHEALTH_STATE_DIR: stateDir },
    stdio: ['ignore', 2, 2], // its log to our stderr: stdout ends with the JSON summary
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const daemon = { child, url: `http://127.0.0.1:${port}`, stateDir, shard, exited };
  await until(`the daemon (shard ${shard}) ready`, async () => (await get(`${daemon.url}/-/ready`)).status === 200, 60_000);
  return daemon;
}

async function startAll(stateDirs: string[] = daemons.map((d) => d.stateDir)): Promise<void> {
  daemons = await Promise.all(Array.from({ length: shardCount }, (_, i) => startDaemon(i, shardCount, stateDirs[i])));
}

async function stopAll(signal: NodeJS.Signals): Promise<void> {
  for (const d of daemons) d.child.kill(signal);
  await Promise.all(daemons.map((d) => d.exited));
}

// --- surfaces: `check --format json` and /api/v1/status (of every shard), targets not healthy
type TargetRow = { name: string; state: string };
const notHealthy = (targets: TargetRow[]) => targets.filter((t) => t.state !== 'healthy' && t.state !== 'pending').map((t) => t.name);

async function sampleSurfaces(): Promise<SurfaceSample[]> {
  const at = Date.now();
  const status: string[] = [];
  for (const d of daemons) status.push(...notHealthy((JSON.parse((await get(`${d.url}/api/v1/status`)).body) as { targets: TargetRow[] }).targets));
  const check = await new Promise<string>((resolve) =>
    // Beside the daemon, as an operator runs it (`kubectl exec … avahealth check`): it reads what the
    // daemon's probes remember from its state_dir (shard 0's: the one the single daemon had), never writes it.
    execFile(process.execPath, [CLI, 'check', '--config', configFile, '--format', 'json'], { env: { ...process.env, AVAHEALTH_STATE_DIR: daemons[0]!.stateDir }, timeout: 30_000, maxBuffer: 16 << 20 }, (_err, stdout) => resolve(stdout)),
  );
  let checked: string[] = [];
  try {
    checked = notHealthy((JSON.parse(check) as { targets: TargetRow[] }).targets);
  } catch {
    checked = ['(check gave no JSON)'];
  }
  return [{ at, surface: '/api/v1/status', unhealthy: status }, { at, surface: 'check', unhealthy: checked }];
}

// --- the week
const silences = new Map<string, string>();
const appliedAt = new Map<number, number>();
const samples: SurfaceSample[] = [];
const skipped: ScriptEvent[] = [];

async function apply(event: ScriptEvent): Promise<void> {
  const [first, second] = event.args;
  const post = (url: string, body: unknown) => send('POST', url, body);
  switch (event.action) {
    case 'scenario':
      return post(`${sim.baseUrl}/sim/nodes/${first}/scenario`, { scenario: second, ...event.params });
    case 'restart':
      return post(`${sim.baseUrl}/sim/nodes/${first}/restart`, event.params);
    case 'dip':
      return post(`${sim.baseUrl}/sim/network`, { dip: first === 'off' ? null : event.params });
    case 'service':
      return post(`${sim.baseUrl}/sim/services/${first}/scenario`, { scenario: second, ...event.params });
    case 'silence': {
      const { for: seconds, comment, ...matchers } = event.params as Record<string, Value>;
      const endsAt = new Date(Date.now() + Number(seconds ?? 60) * 1000).toISOString();
      const ids = await Promise.all(daemons.map(async (d) => (JSON.parse(await sendText('POST', `${d.url}/api/v1/silences`, { matchers, endsAt, comment: String(comment ?? `bench: ${first}`) })) as { id: string }).id));
      silences.set(first!, ids.join(','));
      return;
    }
    case 'unsilence': {
      const ids = (silences.get(first!) ?? '').split(',');
      await Promise.all(daemons.map((d, i) => send('DELETE', `${d.url}/api/v1/silences/${ids[i]}`)));
      return;
    }
    case 'kill-daemon':
      return stopAll('SIGKILL');
    case 'start-daemon':
      return startAll();
    case 'shards': {
      const keep = daemons[0]!.stateDir;
      await stopAll('SIGTERM');
      shardCount = Number(first);
      return startAll([keep]);
    }
    case 'sample':
      samples.push(...(await sampleSurfaces()));
      return;
    case 'expect': // a moment the fleet line set up (a period's end): nothing to do
    case 'end':
      return;
  }
}

/** The whole run is capped: past this, everything started here is stopped and the run fails. */
const cap = setTimeout(() => {
  log('!! the trust benchmark ran past its 9-minute cap');
  for (const d of daemons) d.child.kill('SIGKILL');
  alertmanager?.kill('SIGKILL');
  process.exit(1);
}, 9 * 60_000);
cap.unref();
try {
  await startAll();
  log(`== trust: ${script.fleet.length} nodes + 2 hosted APIs, ${script.events.length} events, receivers: ${Object.keys(received).join(', ')}`);
  for (const event of script.events) {
    const wait = t0 + event.at * 1000 - Date.now();
    if (wait > 0) await sleep(wait);
    if (event.pending) {
      skipped.push(event);
      log(`   ${String(event.at).padStart(4)}s  skipped (pending: ${event.pending}): ${event.text}`);
      continue;
    }
    const started = Date.now();
    try {
      await apply(event);
    } catch (err) {
      log(`!! ${event.at}s ${event.text}: ${(err as Error).message}`);
    }
    // silences and starts take effect when they are done; the rest when they are asked
    appliedAt.set(event.line, ['start-daemon', 'shards', 'silence'].includes(event.action) ? Date.now() : started);
    log(`   ${String(event.at).padStart(4)}s  ${event.text}`);
  }

  // Let the last resolves arrive: until every key at every receiver is resolved but those the truth holds open.
  const drainEnd = Date.now() + DRAIN_MS;
  while (Date.now() < drainEnd) {
    const result = score({ script, appliedAt, receivers: received, samples: [], intervalS: INTERVAL_S });
    if (Object.values(result.receivers).every((r) => r.openAtEnd.length === 0)) break;
    await sleep(1000);
  }
  const result = score({ script, week: relative(ROOT, scriptFile), appliedAt, receivers: received, samples, intervalS: INTERVAL_S });
  // TRUST_DUMP=file: what each receiver was told and what the surfaces showed, for a closer look
  if (process.env.TRUST_DUMP) writeFileSync(process.env.TRUST_DUMP, JSON.stringify({ t0, received, samples, appliedAt: [...appliedAt] }, null, 1));
  printTable(result);
  process.stdout.write(`${JSON.stringify(result.summary)}\n`);
} finally {
  await stopAll('SIGTERM');
  alertmanager?.kill('SIGTERM');
  await alertmanagerExited;
  await sim.close();
  capture.close();
  rmSync(dir, { recursive: true, force: true });
  clearTimeout(cap);
}

// --- printing
function printTable(r: Score): void {
  const out = (line = '') => process.stdout.write(`${line}\n`);
  const lat = (values: number[]) => {
    const p = (q: number) => percentile(values.length ? values : [NaN], q);
    return values.length ? `${p(50).toFixed(1)} / ${p(95).toFixed(1)} s (${(p(50) / INTERVAL_S).toFixed(1)} / ${(p(95) / INTERVAL_S).toFixed(1)} polls)` : '–';
  };
  out(`trust: ${r.summary.week}: ${r.summary.incidents} incidents in the truth, ${skipped.length} events pending, ${r.samples} surface samples`);
  out();
  out('| receiver | pages | false | missed | duplicates | false resolves | open at end | page latency p50 / p95 | resolve latency p50 / p95 | network notices |');
  out('|---|---|---|---|---|---|---|---|---|---|');
  for (const [name, s] of Object.entries(r.receivers))
    out(`| ${name} | ${s.pages} | ${s.falsePages.length} | ${s.missed.length} | ${s.duplicates.reduce((n, d) => n + d.pages - 1, 0)} | ${s.falseResolves.length} | ${s.openAtEnd.length} | ${lat(s.pageLatencyS)} | ${lat(s.resolveLatencyS)} | ${s.notices} |`);
  out();
  for (const [name, s] of Object.entries(r.receivers)) {
    for (const f of s.falsePages) out(`${name}: false page at ${((f.at - t0) / 1000).toFixed(0)}s: ${f.key}`);
    for (const m of s.missed) out(`${name}: missed ${m}`);
    for (const d of s.duplicates) out(`${name}: ${d.id} paged ${d.pages} times: ${d.keys.map((k) => `${k.key} at ${((k.at - t0) / 1000).toFixed(0)}s`).join(', ')}`);
    for (const k of s.openAtEnd) out(`${name}: open at end: ${k}`);
    for (const f of s.falseResolves) out(`${name}: ${f.id} resolved at ${((f.at - t0) / 1000).toFixed(0)}s while the truth holds it open: ${f.key} ${JSON.stringify(f.labels)}`);
  }
  for (const d of r.surfaceDisagreements) out(`surface ${d.surface} at ${((d.at - t0) / 1000).toFixed(0)}s: truth [${d.expected.join(' ')}], shown [${d.shown.join(' ')}]`);
  for (const e of skipped) out(`pending (${e.pending}): week.txt:${e.line} ${e.text}`);
  const stillOpen = [...script.incidents.values()].filter((i) => !i.closedBy && appliedAt.has(i.openedBy.line));
  if (stillOpen.length) out(`held open by the truth at the end: ${stillOpen.map((i) => i.id).join(', ')}`);
}

// --- small helpers
function which(name: string): string | undefined {
  return (process.env.PATH ?? '').split(':').map((d) => join(d, name)).find((path) => {
    try {
      accessSync(path, constants.X_OK);
      return true;
    } catch {
      return false;
    }
  });
}

async function get(url: string): Promise<{ status: number; body: string }> {
  try {
    const res = await request(url, { headersTimeout: 10_000, bodyTimeout: 10_000 });
    return { status: res.statusCode, body: await res.body.text() };
  } catch {
    return { status: 0, body: '' };
  }
}

async function sendText(method: 'POST' | 'DELETE', url: string, body?: unknown): Promise<string> {
  const res = await request(url, { method, headers: body === undefined ? {} : { 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body), headersTimeout: 10_000, bodyTimeout: 10_000 });
  const text = await res.body.text();
  if (res.statusCode >= 300) throw new Error(`${method} ${url}: ${res.statusCode} ${text.slice(0, 200)}`);
  return text;
}

async function send(method: 'POST' | 'DELETE', url: string, body?: unknown): Promise<void> {
  await sendText(method, url, body);
}

async function until(what: string, condition: () => Promise<boolean>, timeoutMs: number): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (Date.now() < end) {
    if (await condition()) return;
    await sleep(250);
  }
  throw new Error(`timed out waiting for ${what}`);
}
