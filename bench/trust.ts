/**
 * The trust benchmark (`npm run bench:trust`, issue 38): an accelerated week of a fleet's life
 * played by the simulator against the real daemon (dist/cli.js run), with every page recorded at
 * the daemon's own webhook and at a real Alertmanager fed by the daemon's `alertmanager` receiver,
 * then scored against the ground truth (bench/trust/score.ts). The week is bench/trust/week.txt, a
 * file given, or one built at random from the event vocabulary (bench/trust/generate.ts). Loopback
 * only; every wait is bounded. Prints a table, then the JSON summary, per week.
 *
 *   npm run bench:trust [-- --script FILE | --seed N | --seeds K] [-- --print]
 *     --seed N      the week generated from seed N (deterministic)
 *     --seeds K     the weeks of seeds 1..K, one after the other
 *     --print       print the week (the generated one) and exit
 *   TRUST_LOG_LEVEL=info      the daemons' log level (default warn)
 *   TRUST_DUMP=FILE           what each receiver was told and the surfaces showed, as JSON (per week: FILE.<week>)
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { accessSync, constants, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { request } from 'undici';
import { parse, stringify } from 'yaml';
import { l1SubnetIdOf } from '../src/sim/fleet.js';
import type { SimNodeOptions } from '../src/sim/node.js';
import type { ScenarioName } from '../src/sim/scenarios.js';
import { SimServer } from '../src/sim/server.js';
import { inShard } from '../src/shard.js';
import { freePort, percentile, sleep } from './lib.js';
import { generateWeek } from './trust/generate.js';
import { parseScript, type Script, type ScriptEvent, type Value } from './trust/script.js';
import { score, type Message, type Score, type SurfaceSample } from './trust/score.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const CLI = join(ROOT, 'dist/cli.js');
const INTERVAL_S = 1;
/** After `end`: how long the receivers may take to hear the last resolves. */
const DRAIN_MS = 40_000;
/** One week's cap: past this, everything it started is stopped and the run fails. */
const WEEK_CAP_MS = 9.5 * 60_000;
const log = (line: string) => process.stderr.write(`${line}\n`);

const { values: flags } = parseArgs({
  options: { script: { type: 'string' }, seed: { type: 'string' }, seeds: { type: 'string' }, print: { type: 'boolean' } },
  allowPositionals: false,
});
const positiveInt = (text: string, flag: string) => {
  if (!/^[1-9]\d{0,8}$/.test(text)) throw new Error(`${flag} wants a positive integer, got "${text}"`);
  return Number(text);
};
const weeks: Array<{ name: string; text: string }> = flags.seed
  ? [{ name: `seed:${positiveInt(flags.seed, '--seed')}`, text: generateWeek(positiveInt(flags.seed, '--seed')) }]
  : flags.seeds
    ? Array.from({ length: positiveInt(flags.seeds, '--seeds') }, (_, i) => ({ name: `seed:${i + 1}`, text: generateWeek(i + 1) }))
    : [(() => {
        const file = flags.script ?? join(ROOT, 'bench/trust/week.txt');
        return { name: relative(ROOT, file), text: readFileSync(file, 'utf8') };
      })()];

if (flags.print) {
  for (const week of weeks) process.stdout.write(week.text);
  process.exit(0);
}

let failed = false;
for (const week of weeks) {
  const script = parseScript(week.text, week.name);
  try {
    const summary = await runWeek(week.name, script);
    process.stdout.write(`${JSON.stringify(summary)}\n`);
  } catch (err) {
    failed = true;
    log(`!! ${week.name}: ${(err as Error).message}`);
  }
}
process.exit(failed ? 1 : 0);

async function runWeek(weekName: string, script: Script): Promise<Score['summary']> {
  const dir = mkdtempSync(join(tmpdir(), 'avahealth-trust-'));
  const stopped: Array<() => Promise<void> | void> = [];
  /** Every process this week started, for the cap. */
  const children: ChildProcess[] = [];

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
  stopped.push(() => void capture.close());
  const captureUrl = `http://127.0.0.1:${(capture.address() as AddressInfo).port}`;

  // --- the simulated fleet; the week's clock starts with it (a fleet line's validationEndsIn counts from here)
  const t0 = Date.now();
  const sim = new SimServer(
    script.fleet.map(({ name, options }) => {
      const spec: SimNodeOptions = { name, scenario: (options.scenario as ScenarioName | undefined) ?? 'healthy', periodMs: 2000 };
      if (options.validator === false) spec.validator = false;
      if (options.l1 === true) spec.l1 = true;
      if (typeof options.validationEndsIn === 'number') spec.validationEndsIn = options.validationEndsIn;
      if (typeof options.ingressGraceSeconds === 'number') spec.ingressGraceMs = options.ingressGraceSeconds * 1000;
      return spec;
    }),
  );
  await sim.listen(0);
  stopped.push(() => sim.close());
  // `validation_id=#1`: the node's L1 validation number 1 (the simulator's IDs), `subnet_id=#`: its L1
  for (const incident of script.incidents.values()) {
    const node = sim.nodes.get(incident.labels.target ?? '');
    if (!node) continue;
    for (const [key, value] of Object.entries(incident.labels)) {
      if (key === 'validation_id' && /^#\d+$/.test(value)) incident.labels[key] = node.economics.l1ValidationIdOf(Number(value.slice(1)));
      if (key === 'subnet_id' && value === '#') incident.labels[key] = l1SubnetIdOf(node.name);
    }
  }

  // --- a real Alertmanager (Debian's), with the shipped grouping and inhibit rules and one webhook to the capture server
  const alertmanagerBin = ['prometheus-alertmanager', 'alertmanager'].map(which).find(Boolean);
  let amUrl: string | undefined;
  if (alertmanagerBin) {
    const shipped = parse(readFileSync(join(ROOT, 'deploy/alertmanager/alertmanager.yml'), 'utf8')) as { route: { group_by?: string[] }; inhibit_rules: unknown[] };
    const amConfig = {
      // the shipped grouping, told at once and never repeated within the run: every notification is a page, an update or a resolve
      route: { receiver: 'capture', group_by: shipped.route.group_by ?? ['...'], group_wait: '1s', group_interval: '1s', repeat_interval: '24h' },
      receivers: [{ name: 'capture', webhook_configs: [{ url: `${captureUrl}/alertmanager`, send_resolved: true }] }],
      inhibit_rules: shipped.inhibit_rules,
    };
    writeFileSync(join(dir, 'alertmanager.yml'), stringify(amConfig));
    const port = await freePort();
    amUrl = `http://127.0.0.1:${port}`;
    const alertmanager = spawn(alertmanagerBin, [`--config.file=${join(dir, 'alertmanager.yml')}`, `--storage.path=${join(dir, 'am')}`, `--web.listen-address=127.0.0.1:${port}`, '--cluster.listen-address='], { stdio: 'ignore' });
    const exited = new Promise<void>((resolve) => alertmanager.once('exit', () => resolve()));
    children.push(alertmanager);
    stopped.push(async () => {
      alertmanager.kill('SIGTERM');
      await exited;
    });
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
        // the key the shards share, as the sharded overlay's Secret gives it: incidents are handed over at a reshard (docs/scaling.md)
        handover_key: randomBytes(32).toString('hex'),
        receivers: [
          { name: 'oncall', webhook: { url: `${captureUrl}/daemon` } },
          ...(amUrl ? [{ name: 'alertmanager', alertmanager: { url: amUrl, resend_interval: '5s' } }] : []),
        ],
      },
    }),
  );

  // --- the daemons: one per shard; shard i keeps its own state directory across changes of the
  // shard count, as a StatefulSet's pod keeps its volume (docs/scaling.md)
  interface Daemon { child: ChildProcess; url: string; stateDir: string; shard: string; exited: Promise<void> }
  let daemons: Daemon[] = [];
  let shardCount = 1;
  const stateDirs: string[] = [];

  async function startDaemon(index: number, count: number): Promise<Daemon> {
    stateDirs[index] ??= mkdtempSync(join(dir, `state-${index}-`));
    const stateDir = stateDirs[index]!;
    const port = await freePort();
    const shard = `${index}/${count}`;
    const child = spawn(process.execPath, [CLI, 'run', '--config', configFile, '--listen', `127.0.0.1:${port}`, '--shard', shard, '--web.enable-admin-api', '--log.level', process.env.TRUST_LOG_LEVEL ?? 'warn'], {
      env: { ...process.env, AVAHEALTH_STATE_DIR: stateDir },
      stdio: ['ignore', 2, 2], // its log to our stderr: stdout holds the tables and JSON summaries
    });
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    children.push(child);
    const daemon = { child, url: `http://127.0.0.1:${port}`, stateDir, shard, exited };
    await until(`the daemon (shard ${shard}) ready`, async () => (await get(`${daemon.url}/-/ready`)).status === 200, 60_000);
    return daemon;
  }
  const startAll = async () => {
    daemons = await Promise.all(Array.from({ length: shardCount }, (_, i) => startDaemon(i, shardCount)));
  };
  const stopAll = async (signal: NodeJS.Signals) => {
    for (const d of daemons) d.child.kill(signal);
    await Promise.all(daemons.map((d) => d.exited));
    daemons = [];
  };
  /**
   * Stopping and starting daemons takes seconds (a start waits for ready): it runs beside the week,
   * whose simulated events keep their time; what needs the daemons (silences, samples) waits for it.
   */
  let lifecycle: Promise<void> = Promise.resolve();
  const lifecycleStep = (step: () => Promise<void>) => {
    lifecycle = lifecycle.then(step, step);
    return lifecycle;
  };

  stopped.push(async () => {
    await lifecycle.catch(() => undefined);
    await stopAll('SIGTERM');
  });

  // --- surfaces: `check --format json` and /api/v1/status (of every shard), targets not healthy
  type TargetRow = { name: string; state: string; summary?: string };
  const notHealthy = (targets: TargetRow[]) => targets.filter((t) => t.state !== 'healthy' && t.state !== 'pending');
  const shown = (rows: TargetRow[]) => ({ unhealthy: rows.map((t) => t.name), detail: Object.fromEntries(rows.map((t) => [t.name, `${t.state}: ${t.summary ?? ''}`.slice(0, 300)])) });

  /** Every shard's /api/v1/status, at once. */
  async function sampleStatus(): Promise<SurfaceSample> {
    const at = Date.now();
    const rows: TargetRow[] = [];
    for (const d of daemons) {
      try {
        rows.push(...notHealthy((JSON.parse((await get(`${d.url}/api/v1/status`)).body) as { targets: TargetRow[] }).targets));
      } catch {
        rows.push({ name: `(shard ${d.shard} gave no status)`, state: 'none' });
      }
    }
    return { at, until: Date.now(), surface: '/api/v1/status', ...shown(rows) };
  }

  /**
   * `check`, beside the daemon as an operator runs it (`kubectl exec … avahealth check`): it reads
   * what the daemon's probes remember from its state_dir (shard 0's: the one the single daemon had),
   * never writes it. Its one round takes seconds: the week goes on meanwhile (one check at a time).
   */
  async function sampleCheck(): Promise<SurfaceSample> {
    const at = Date.now();
    const output = await new Promise<string>((resolve) =>
      execFile(process.execPath, [CLI, 'check', '--config', configFile, '--format', 'json'], { env: { ...process.env, AVAHEALTH_STATE_DIR: stateDirs[0]! }, timeout: 30_000, maxBuffer: 16 << 20 }, (_err, stdout) => resolve(stdout)),
    );
    try {
      return { at, until: Date.now(), surface: 'check', ...shown(notHealthy((JSON.parse(output) as { targets: TargetRow[] }).targets)) };
    } catch {
      return { at, until: Date.now(), surface: 'check', unhealthy: ['(check gave no JSON)'] };
    }
  }
  let checking: Promise<void> = Promise.resolve();

  // --- the week
  const silences = new Map<string, { ids: Array<string | undefined>; endsAt: number }>();
  const appliedAt = new Map<number, number>();
  const samples: SurfaceSample[] = [];
  const skipped: ScriptEvent[] = [];
  const notPlayed: string[] = [];

  /** Applies an event; resolves with when it took effect when that is not when it was asked. */
  async function apply(event: ScriptEvent): Promise<number | undefined> {
    const [first, second] = event.args;
    const post = (url: string, body: unknown) => send('POST', url, body).then(() => undefined);
    if (['silence', 'unsilence', 'sample'].includes(event.action)) await lifecycle;
    switch (event.action) {
      case 'scenario': {
        // `a+b`: the scenario a, with b held besides it (the simulator's `also`)
        const [scenario, ...also] = second!.split('+');
        return post(`${sim.baseUrl}/sim/nodes/${first}/scenario`, { ...event.params, scenario, also });
      }
      case 'restart':
        return post(`${sim.baseUrl}/sim/nodes/${first}/restart`, event.params);
      case 'dip':
        return post(`${sim.baseUrl}/sim/network`, { dip: first === 'off' ? null : event.params });
      case 'service':
        return post(`${sim.baseUrl}/sim/services/${first}/scenario`, { scenario: second, ...event.params });
      case 'silence': {
        const { for: seconds, comment, ...matchers } = event.params as Record<string, Value>;
        const endsAt = Date.now() + Number(seconds ?? 60) * 1000;
        // a silence of one target goes to the shard that polls it (the API refuses it elsewhere: docs/scaling.md)
        const owns = (i: number) => typeof matchers.target !== 'string' || inShard(matchers.target, { index: i, count: daemons.length });
        const ids = await Promise.all(daemons.map(async (d, i) => (owns(i) ? (JSON.parse(await sendText('POST', `${d.url}/api/v1/silences`, { matchers, endsAt: new Date(endsAt).toISOString(), comment: String(comment ?? `bench: ${first}`) })) as { id: string }).id : undefined)));
        silences.set(first!, { ids, endsAt });
        return Date.now();
      }
      case 'unsilence': {
        const ids = silences.get(first!)?.ids ?? [];
        await Promise.all(daemons.map((d, i) => (ids[i] ? send('DELETE', `${d.url}/api/v1/silences/${ids[i]}`) : undefined)));
        return Date.now();
      }
      case 'kill-daemon':
        await lifecycleStep(() => stopAll('SIGKILL'));
        return Date.now();
      case 'start-daemon':
        void lifecycleStep(startAll).then(() => appliedAt.set(event.line, Date.now()), (err: Error) => (notPlayed.push(`${event.at}s ${event.text}: ${err.message}`), log(`!! ${event.at}s ${event.text}: ${err.message}`)));
        return undefined;
      case 'shards':
        void lifecycleStep(async () => {
          await stopAll('SIGTERM');
          shardCount = Number(first);
          await startAll();
        }).then(() => appliedAt.set(event.line, Date.now()), (err: Error) => (notPlayed.push(`${event.at}s ${event.text}: ${err.message}`), log(`!! ${event.at}s ${event.text}: ${err.message}`)));
        return undefined;
      case 'sample':
        samples.push(await sampleStatus());
        checking = checking.then(async () => void samples.push(await sampleCheck()));
        return undefined;
      case 'expect':
        // a silence's end is when it really ends (it counts from when it was made); a period's end
        // when the simulator's clock (started with t0) says, in whole seconds as a node's endTime is
        if (first === 'silence-end') return silences.get(second!)?.endsAt;
        return Math.floor(t0 / 1000 + event.at) * 1000;
      default:
        return undefined;
    }
  }

  const abort = (why: string) => {
    log(`!! ${weekName}: ${why}`);
    for (const child of children) child.kill('SIGKILL');
    process.exit(1);
  };
  const cap = setTimeout(() => abort('the trust benchmark ran past its cap'), WEEK_CAP_MS);
  cap.unref();
  // stopped from outside: nothing it started outlives it
  const interrupted = (signal: NodeJS.Signals) => abort(`stopped by ${signal}`);
  process.once('SIGINT', interrupted).once('SIGTERM', interrupted);
  try {
    await startAll();
    log(`== trust ${weekName}: ${script.fleet.length} nodes + 2 hosted APIs, ${script.events.length} events, receivers: ${Object.keys(received).join(', ')}`);
    for (const event of script.events) {
      const wait = t0 + event.at * 1000 - Date.now();
      if (wait > 0) await sleep(wait);
      if (event.pending) {
        skipped.push(event);
        log(`   ${String(event.at).padStart(4)}s  skipped (pending: ${event.pending}): ${event.text}`);
        continue;
      }
      const started = Date.now();
      let tookEffect: number | undefined;
      try {
        tookEffect = await apply(event);
      } catch (err) {
        notPlayed.push(`${event.at}s ${event.text}: ${(err as Error).message}`);
        log(`!! ${event.at}s ${event.text}: ${(err as Error).message}`);
      }
      // a start takes effect when the daemons are ready (set then); the rest when apply says, else when asked
      if (!['start-daemon', 'shards'].includes(event.action)) appliedAt.set(event.line, tookEffect ?? started);
      log(`   ${String(event.at).padStart(4)}s  ${event.text}${Date.now() - t0 > event.at * 1000 + 3000 ? ` (${((started - t0) / 1000).toFixed(0)}s)` : ''}`);
    }

    await lifecycle;
    await checking;
    // Let the last resolves arrive: until every key at every receiver is resolved but those the truth holds open.
    const drainEnd = Date.now() + DRAIN_MS;
    while (Date.now() < drainEnd) {
      const result = score({ script, appliedAt, receivers: received, samples: [], intervalS: INTERVAL_S });
      if (Object.values(result.receivers).every((r) => r.openAtEnd.length === 0)) break;
      await sleep(1000);
    }
    const result = score({ script, week: weekName, appliedAt, receivers: received, samples, intervalS: INTERVAL_S });
    if (process.env.TRUST_DUMP) {
      const file = weeks.length > 1 ? `${process.env.TRUST_DUMP}.${weekName.replace(/\W+/g, '-')}` : process.env.TRUST_DUMP;
      const incidents = [...script.incidents.values()].map((i) => ({ id: i.id, labels: i.labels }));
      writeFileSync(file, JSON.stringify({ week: weekName, t0, incidents, received, samples, appliedAt: [...appliedAt] }, null, 1));
    }
    printTable(result, script, t0, skipped, appliedAt);
    // a week not played as written is not scored
    if (notPlayed.length > 0) throw new Error(`${notPlayed.length} event(s) could not be played, the score above does not count:\n  ${notPlayed.join('\n  ')}`);
    return result.summary;
  } finally {
    clearTimeout(cap);
    process.off('SIGINT', interrupted).off('SIGTERM', interrupted);
    for (const stop of stopped.reverse()) await stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

// --- printing
function printTable(r: Score, script: Script, t0: number, skipped: ScriptEvent[], appliedAt: Map<number, number>): void {
  const out = (line = '') => process.stdout.write(`${line}\n`);
  const s = (at: number) => `${((at - t0) / 1000).toFixed(0)}s`;
  const lat = (values: number[]) => {
    const p = (q: number) => percentile(values.length ? values : [NaN], q);
    return values.length ? `${p(50).toFixed(1)} / ${p(95).toFixed(1)} s (${(p(50) / INTERVAL_S).toFixed(1)} / ${(p(95) / INTERVAL_S).toFixed(1)} polls)` : '–';
  };
  out(`trust: ${r.summary.week}: ${r.summary.incidents} incidents in the truth over ${script.fleet.length} nodes, ${skipped.length} events pending, ${r.samples} surface samples`);
  out();
  out('| receiver | pages | false | missed | duplicates | false resolves | open at end | page latency p50 / p95 | resolve latency p50 / p95 | network notices |');
  out('|---|---|---|---|---|---|---|---|---|---|');
  for (const [name, x] of Object.entries(r.receivers))
    out(`| ${name} | ${x.pages} | ${x.falsePages.length} | ${x.missed.length} | ${x.duplicates.reduce((n, d) => n + d.pages - 1, 0)} | ${x.falseResolves.length} | ${x.openAtEnd.length} | ${lat(x.pageLatencyS)} | ${lat(x.resolveLatencyS)} | ${x.notices} |`);
  out();
  for (const [name, x] of Object.entries(r.receivers)) {
    for (const f of x.falsePages) out(`${name}: false page at ${s(f.at)}: ${f.key}`);
    for (const m of x.missed) out(`${name}: missed ${m}`);
    for (const d of x.duplicates) out(`${name}: ${d.id} paged ${d.pages} times: ${d.keys.map((k) => `${k.key} at ${s(k.at)}`).join(', ')}`);
    for (const f of x.falseResolves) out(`${name}: ${f.id} resolved at ${s(f.at)} while the truth holds it open: ${f.key} ${JSON.stringify(f.labels)}`);
    for (const k of x.openAtEnd) out(`${name}: open at end: ${k}`);
  }
  for (const d of r.surfaceDisagreements) out(`surface ${d.surface} at ${s(d.at)}: truth [${d.expected.join(' ')}], shown [${d.shown.join(' ')}]${d.detail ? ` ${JSON.stringify(d.detail)}` : ''}`);
  for (const e of skipped) out(`pending (${e.pending}): ${r.summary.week}:${e.line} ${e.text}`);
  const stillOpen = [...script.incidents.values()].filter((i) => !i.closedBy && appliedAt.has(i.openedBy.line) && !i.quiet);
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
