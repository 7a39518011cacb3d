/** avahealth command line: run, check, validate, schema, simulate, demo (started by cli.ts). */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import type { CheckFormat } from '../app/check.js';
import { closest, ConfigError, formatProblem } from '../config/errors.js';
import { StateDirError } from '../state/lock.js';
import { keyPosition, loadConfigFile, parseConfig, type Config } from '../config/load.js';
import { listenProblem, listenUrl, parseListen, type ListenAddress } from '../config/primitives.js';
import { Daemon } from '../app/daemon.js';
import { parseShard, readReplicas, statefulSetSource, type Shard, type StatefulSetSource } from '../shard.js';
import { createLogger, type Logger } from '../log.js';
import type { FleetNode } from '../sim/fleet.js';
import type { SimServer } from '../sim/server.js';
import { parseGoDuration } from '../util/go-duration.js';
import { redact } from '../util/text.js';
import { VERSION } from '../version.js';
import { COMMAND_HELP, HELP } from './help.js';
import { StartError } from '../app/daemon.js';
import { idleSilenceWarnings } from '../app/components.js';
import { listenOrExplain } from '../app/listen.js';

const OPTIONS = {
  config: { type: 'string' },
  listen: { type: 'string' },
  'web.listen-address': { type: 'string' },
  'log.level': { type: 'string' },
  'log.format': { type: 'string' },
  'web.enable-lifecycle': { type: 'boolean' },
  'web.enable-admin-api': { type: 'boolean' },
  'web.config.file': { type: 'string' },
  'config.watch': { type: 'boolean' },
  shard: { type: 'string' },
  receiver: { type: 'string' },
  format: { type: 'string' },
  target: { type: 'string' },
  nodes: { type: 'string' },
  port: { type: 'string' },
  scenario: { type: 'string' },
  fleet: { type: 'string' },
  'config-out': { type: 'string' },
  period: { type: 'string' },
  version: { type: 'boolean', short: 'v' },
  help: { type: 'boolean', short: 'h' },
} satisfies ParseArgsConfig['options'];

type Values = ReturnType<typeof parseArgs<{ options: typeof OPTIONS; allowPositionals: true }>>['values'];

class UsageError extends Error {}

/** How often `--shard auto` re-reads its StatefulSet's replicas. */
const SHARD_WATCH_MS = Number(process.env.AVAHEALTH_SHARD_WATCH_MS ?? 30_000);

const COMMANDS = ['run', 'check', 'validate', 'schema', 'simulate', 'demo', 'notify-test'];

const LOG_LEVELS = ['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent'];

/** Set once the options are read: an unexpected error shows its stack only at debug or trace. */
let showStacks = false;

/** Node's message, or for an unknown option the nearest known one ("--confg": did you mean --config?). */
function parseArgsMessage(err: NodeJS.ErrnoException): string {
  const unknown = err.code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION' ? /'(-{1,2}[^'=]+)/.exec(err.message)?.[1] : undefined;
  if (!unknown) return err.message;
  const hint = closest(unknown.replace(/^-+/, ''), Object.keys(OPTIONS));
  return `unknown option ${unknown}${hint ? ` (did you mean --${hint}?)` : ''}`;
}

async function main(argv: string[]): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({ args: argv, options: OPTIONS, allowPositionals: true, strict: true });
  } catch (err) {
    process.stderr.write(`avahealth: ${parseArgsMessage(err as NodeJS.ErrnoException)}\nRun avahealth --help for usage.\n`);
    return 2;
  }
  const { values, positionals } = parsed;
  const level = values['log.level'];
  showStacks = level === 'debug' || level === 'trace';
  if (values.version) return out(`avahealth ${VERSION}\n`);
  const command = positionals[0] ?? 'run';
  if (values.help) {
    if (positionals[0] === undefined) return out(HELP);
    if (command === 'simulate') return out(`${COMMAND_HELP.simulate}${await scenarioHelp()}`);
    return out(COMMAND_HELP[command] ?? HELP);
  }
  if (positionals.length > 1) return usage(`unexpected argument "${positionals[1]}"`);
  if (level !== undefined && !LOG_LEVELS.includes(level)) return usage(`--log.level must be one of ${LOG_LEVELS.join(', ')} (got "${level}")`);
  try {
    switch (command) {
      case 'run':
        return await run(values);
      case 'check':
        return await check(values);
      case 'validate':
        return validate(values);
      case 'schema':
        return out(`${JSON.stringify((await import('../config/schema.js')).jsonSchema(), null, 2)}\n`);
      case 'simulate':
        return await simulate(values);
      case 'demo':
        return await demo(values);
      case 'notify-test':
        return await notifyTest(values);
      default: {
        const hint = closest(command, COMMANDS);
        return usage(`unknown command "${command}"${hint ? ` (did you mean ${hint}?)` : ''}`);
      }
    }
  } catch (err) {
    if (err instanceof UsageError) return usage(err.message);
    // the simulator's port taken (a demo still running): one line, as for the daemon's own
    if (err instanceof StartError) {
      process.stderr.write(`avahealth: ${err.message}\n`);
      return 1;
    }
    if (!(err instanceof ConfigError || err instanceof StateDirError)) throw err;
    // a config that does not load (or a state_dir in use): its message, FILE:LINE:COL first
    // A config error's lines start FILE:LINE:COL already; a state_dir that cannot be used points at its key.
    const message = err instanceof StateDirError ? `avahealth: ${keyPosition(configPath(values), 'state_dir')}: ${err.message}` : err.message;
    process.stderr.write(`${message}\n`);
    if (command !== 'check') return 1;
    const { EXIT, failureJson } = await import('../app/check.js');
    if (values.format === 'json') process.stdout.write(failureJson(`invalid config: ${message}`));
    else if (values.format === 'prometheus') process.stdout.write('# UNKNOWN - invalid config\n');
    else process.stdout.write('UNKNOWN - invalid config\n');
    return EXIT.UNKNOWN;
  }
}

function out(text: string): number {
  process.stdout.write(text);
  return 0;
}

function usage(message: string): number {
  process.stderr.write(`avahealth: ${message}\nRun avahealth --help for usage.\n`);
  return 2;
}

function configPath(values: Values): string {
  const path = values.config ?? process.env.AVAHEALTH_CONFIG;
  if (!path) throw new UsageError('--config FILE is required (or set AVAHEALTH_CONFIG)');
  return path;
}

function loggerFor(values: Values, config: Config | undefined, fallbackLevel = 'info'): Logger {
  const format = values['log.format'] ?? config?.log.format ?? 'json';
  if (format !== 'json' && format !== 'pretty') throw new UsageError('--log.format must be json or pretty');
  return createLogger({ level: values['log.level'] ?? config?.log.level ?? fallbackLevel, format });
}

function shardOption(text: string): Shard {
  try {
    return parseShard(text);
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
}

/** `--listen`, or `--web.listen-address` (the Prometheus exporters' name for it). */
function listenText(values: Values): string | undefined {
  const listen = values.listen;
  const alias = values['web.listen-address'];
  if (listen !== undefined && alias !== undefined && listen !== alias) throw new UsageError('--listen and --web.listen-address name the same setting: give one of them');
  return listen ?? alias;
}

function listenOption(values: Values): ListenAddress | undefined {
  const text = listenText(values);
  if (text === undefined) return undefined;
  const problem = listenProblem(text);
  if (problem) throw new UsageError(`${values.listen !== undefined ? '--listen' : '--web.listen-address'} ${problem} (got "${text}")`);
  return parseListen(text);
}

async function run(values: Values, preloaded?: Config, onListening?: (daemon: Daemon) => void): Promise<number> {
  const config = preloaded ?? loadConfigFile(configPath(values));
  const logger = loggerFor(values, config);
  const listenOverride = listenOption(values);
  // `--shard auto`: N is the pod's own StatefulSet's replicas, read now and watched while running.
  let statefulSet: StatefulSetSource | undefined;
  let shard: Shard | undefined;
  if (values.shard === 'auto') {
    try {
      statefulSet = statefulSetSource();
      shard = { index: statefulSet.index, count: await readReplicas(statefulSet) };
      if (shard.index >= shard.count) throw new Error(`pod ordinal ${shard.index} is not below the StatefulSet's ${shard.count} replicas (scaling down?)`);
    } catch (err) {
      process.stderr.write(`avahealth: --shard auto: ${(err as Error).message}\n`);
      return 1;
    }
    logger.info({ shard: `${shard.index}/${shard.count}` }, 'shard count read from the StatefulSet');
  } else if (values.shard) shard = shardOption(values.shard);
  const daemon = new Daemon(config, {
    logger,
    enableLifecycle: values['web.enable-lifecycle'] ?? false,
    enableAdminApi: values['web.enable-admin-api'] ?? false,
    watchConfig: values['config.watch'] ?? false,
    ...(shard ? { shard } : {}),
    ...(values['web.config.file'] ? { webConfigFile: values['web.config.file'] } : {}),
    ...(listenOverride ? { listen: listenOverride } : {}),
  });
  // Signal handlers go in before start(): a SIGHUP that arrives while the
  // daemon is starting would otherwise take Node's default action and kill it.
  const started = daemon.start();
  if (onListening) void started.then(() => onListening(daemon), () => undefined);
  return new Promise<number>((resolve, reject) => {
    let stopping = false;
    const stop = (signal: string) => {
      if (stopping) {
        logger.warn({ signal }, 'second signal: exiting now');
        resolve(1);
        return;
      }
      stopping = true;
      logger.info({ signal }, 'signal received');
      started.catch(() => undefined).then(() => daemon.stop()).then(() => resolve(0), (err: unknown) => {
        logger.error({ err }, 'error while stopping');
        resolve(1);
      });
    };
    process.on('SIGTERM', () => stop('SIGTERM'));
    process.on('SIGINT', () => stop('SIGINT'));
    if (statefulSet && shard) {
      // Rescaled (kubectl scale, a new replicas:): stop, and Kubernetes restarts us on the new split;
      // at start the alerts of targets now in another shard resolve here (AlertEngine.settleRestored).
      const from = shard.count;
      const watch = setInterval(() => {
        readReplicas(statefulSet).then(
          (replicas) => {
            if (replicas === from || stopping) return;
            clearInterval(watch);
            logger.warn({ from, to: replicas }, 'the StatefulSet was rescaled: stopping to restart on the new split of the fleet');
            stop('rescale');
          },
          (err: unknown) => logger.warn({ error: (err as Error).message }, 'cannot read the StatefulSet\'s replicas; keeping the current split'),
        );
      }, SHARD_WATCH_MS);
      watch.unref();
    }
    process.on('SIGHUP', () => void started.then(() => daemon.reload(), () => undefined));
    started.catch((err: unknown) => {
      if (!(err instanceof StartError)) return reject(err);
      logger.flush?.();
      process.stderr.write(`avahealth: ${err.message}\n`);
      resolve(1);
    });
  });
}

async function check(values: Values): Promise<number> {
  const format = (values.format ?? 'text') as CheckFormat;
  if (!['text', 'json', 'prometheus'].includes(format)) throw new UsageError('--format must be text, json or prometheus');
  // check sends nothing: a receiver's secret it cannot read is not its concern
  const config = loadConfigFile(configPath(values), process.env, { receiverSecretsOptional: true });
  const logger = createLogger({ level: values['log.level'] ?? 'error', format: 'json', destination: process.stderr });
  const { runCheck } = await import('../app/check.js');
  const result = await runCheck(config, { format, logger, color: process.stdout.isTTY === true && !process.env.NO_COLOR, ...(values.target ? { target: values.target } : {}) });
  process.stdout.write(result.output);
  return result.exitCode;
}

function validate(values: Values): number {
  const path = configPath(values);
  const config = loadConfigFile(path);
  for (const warning of config.warnings) process.stderr.write(`${formatProblem(warning)} (warning)\n`);
  for (const warning of idleSilenceWarnings(config)) process.stderr.write(`${warning} (warning)\n`);
  const count = (n: number, what: string) => `${n} ${what}${n === 1 ? '' : 's'}`;
  const services = config.services.length > 0 ? `, ${count(config.services.length, 'service')}` : '';
  process.stdout.write(`${path}: valid (${count(config.nodes.length, 'node')}${services})\n`);
  return 0;
}

async function notifyTest(values: Values): Promise<number> {
  const config = loadConfigFile(configPath(values));
  const names = config.alerts.receivers.map((r) => r.name);
  const receiver = config.alerts.receivers.find((r) => r.name === values.receiver);
  if (!receiver) throw new UsageError(`--receiver must name a receiver of ${config.file}${names.length ? ` (${names.join(', ')})` : ' (it has none)'}`);
  const [{ HttpClient }, { Notifier }] = await Promise.all([import('../transport/client.js'), import('../alerts/notifier.js')]);
  const http = new HttpClient({ maxResponseBytes: 1024 * 1024, userAgent: `avahealth/${VERSION}` });
  try {
    await Notifier.sendTest(config, receiver, http);
    process.stdout.write(`test notification delivered to ${receiver.name} (${receiver.kind})\n`);
    return 0;
  } catch (err) {
    process.stderr.write(`test notification to ${receiver.name} failed: ${redact(err instanceof Error ? err.message : String(err), receiver.secrets)}\n`);
    return 1;
  } finally {
    await http.close();
  }
}

/** The simulator's modules: loaded by simulate and demo only, never by a daemon's `run`. */
async function simulator() {
  const [fleet, scenarios, server] = await Promise.all([import('../sim/fleet.js'), import('../sim/scenarios.js'), import('../sim/server.js')]);
  return { ...fleet, ...scenarios, ...server };
}

async function fleetFrom(values: Values): Promise<FleetNode[]> {
  const { demoFleet, isScenario, SCENARIOS, uniformFleet } = await simulator();
  const periodMs = values.period ? Math.round((parseGoDuration(values.period) ?? NaN) * 1000) : 3000;
  if (!Number.isFinite(periodMs) || periodMs < 100) throw new UsageError('--period must be a duration of at least 100ms, e.g. 3s');
  let fleet: FleetNode[];
  if (values.fleet === 'demo') fleet = demoFleet();
  else if (values.fleet !== undefined) throw new UsageError('--fleet must be "demo"');
  else {
    const count = Number(values.nodes ?? '3');
    if (!Number.isInteger(count) || count < 1 || count > 100_000) throw new UsageError('--nodes must be a whole number from 1 to 100000');
    const scenario = values.scenario ?? 'healthy';
    if (!isScenario(scenario)) throw new UsageError(`unknown scenario "${scenario}"; known: ${Object.keys(SCENARIOS).join(', ')}`);
    fleet = uniformFleet(count, scenario);
  }
  return fleet.map((node) => ({ ...node, periodMs }));
}

/** `--port` of simulate and demo: a port number (0 picks a free one), else a usage error before anything starts. */
function portOption(values: Values, fallback: number): number {
  const text = values.port;
  if (text === undefined) return fallback;
  const port = /^\d{1,5}$/.test(text) ? Number(text) : NaN;
  if (!(port <= 65_535)) throw new UsageError(`--port must be a port number from 0 to 65535 (0 picks a free one) (got "${text}")`);
  return port;
}

async function startSimulator(fleet: FleetNode[], port: number): Promise<SimServer> {
  const { SimServer } = await simulator();
  const sim = new SimServer(fleet);
  await listenOrExplain(() => sim.listen(port), '127.0.0.1', port);
  return sim;
}

async function simulate(values: Values): Promise<number> {
  const fleet = await fleetFrom(values);
  const { DEMO_SIM_PORT, fleetConfigYaml, SCENARIOS } = await simulator();
  const sim = await startSimulator(fleet, portOption(values, values.fleet === 'demo' ? DEMO_SIM_PORT : 9650));
  const listen = listenText(values);
  const problem = listen === undefined ? undefined : listenProblem(listen);
  if (problem) throw new UsageError(`--listen ${problem} (got "${listen}")`);
  const yaml = fleetConfigYaml(fleet, { baseUrl: sim.baseUrl, ...(listen ? { listen } : {}) });
  if (values['config-out']) {
    writeFileSync(values['config-out'], yaml);
    // The config names ./avahealth.schema.json for editor completion: write it beside.
    const { jsonSchema } = await import('../config/schema.js');
    writeFileSync(join(dirname(values['config-out']), 'avahealth.schema.json'), `${JSON.stringify(jsonSchema(), null, 2)}\n`);
  }
  process.stdout.write(
    `Simulating ${fleet.length} AvalancheGo node${fleet.length === 1 ? '' : 's'} on ${sim.baseUrl}\n` +
      `  nodes:    ${sim.baseUrl}/nodes/{name}/ext/health (the first node also at ${sim.baseUrl}/ext/health)\n` +
      `  control:  curl ${sim.baseUrl}/sim/nodes\n` +
      `            curl -X POST ${sim.baseUrl}/sim/nodes/${fleet[0]!.name}/scenario -d '{"scenario":"network-down"}'\n` +
      `            curl -X POST ${sim.baseUrl}/sim/nodes/${fleet[0]!.name}/restart -d '{"l1":true}'   (restart it with an L1 chain)\n` +
      (values['config-out'] ? `  config:   ${values['config-out']}\n` : '') +
      `Scenarios: ${Object.keys(SCENARIOS).join(', ')}\n`,
  );
  return new Promise<number>((resolve) => {
    const stop = () => void sim.close().then(() => resolve(0));
    process.once('SIGTERM', stop);
    process.once('SIGINT', stop);
  });
}

async function demo(values: Values): Promise<number> {
  listenOption(values); // a bad --listen is a usage error before anything starts
  const fleet = await fleetFrom({ ...values, fleet: 'demo' });
  const { DEMO_SIM_PORT, fleetConfigYaml } = await simulator();
  const sim = await startSimulator(fleet, portOption(values, DEMO_SIM_PORT));
  const listen = listenText(values) ?? '127.0.0.1:9660';
  const dir = mkdtempSync(join(tmpdir(), 'avahealth-demo-'));
  const file = join(dir, 'demo.yaml');
  writeFileSync(file, fleetConfigYaml(fleet, { baseUrl: sim.baseUrl, listen }));
  const config = parseConfig(fleetConfigYaml(fleet, { baseUrl: sim.baseUrl, listen }), file);
  // Printed once the daemon listens: with --listen HOST:0 only then is the port known.
  const banner = (daemon: Daemon) => {
    const url = listenUrl({ ...config.listen, port: daemon.address?.port ?? config.listen.port });
    process.stderr.write(
      `\navahealth demo: ${fleet.length} simulated nodes (${fleet.map((n) => `${n.name}: ${n.scenario}`).join(', ')})\n` +
        `  status page:  ${url}/\n` +
        `  metrics:      ${url}/metrics\n` +
        `  status JSON:  ${url}/api/v1/status\n` +
        `  simulator:    ${sim.baseUrl}/sim/nodes\n` +
        `  try:          curl -X POST ${sim.baseUrl}/sim/nodes/validator-1/scenario -d '{"scenario":"network-down"}'\n` +
        `  config:       ${file}\n` +
        `Press Ctrl+C to stop.\n\n`,
    );
  };
  try {
    return await run({ ...values, 'log.format': values['log.format'] ?? 'pretty' }, config, banner);
  } finally {
    await sim.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

// A reader that stops early (`avahealth schema | head`) closes the pipe: the end of the output, not a crash.
process.stdout.on('error', (err: NodeJS.ErrnoException) => {
  if (err.code !== 'EPIPE') throw err;
  process.exit(typeof process.exitCode === 'number' ? process.exitCode : 0);
});

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
    // Let stdout drain, then leave even if a socket lingers.
    setTimeout(() => process.exit(code), 50).unref();
  },
  (err: unknown) => {
    const text = err instanceof Error ? (showStacks ? err.stack : err.message) : String(err);
    process.stderr.write(`avahealth: unexpected error: ${text}${showStacks ? '' : ' (--log.level debug shows where)'}\n`);
    process.exit(3);
  },
);

/** The scenarios `avahealth simulate --help` lists, read from the simulator itself. */
async function scenarioHelp(): Promise<string> {
  const [{ SCENARIOS }, { SERVICE_SCENARIOS }] = await Promise.all([import('../sim/scenarios.js'), import('../sim/services.js')]);
  const list = (entries: Record<string, string>) => Object.entries(entries).map(([name, what]) => `  ${name.padEnd(24)} ${what}\n`).join('');
  return `\nNode scenarios (--scenario, POST /sim/nodes/NAME/scenario):\n${list(SCENARIOS)}\nService scenarios (POST /sim/services/KIND/scenario):\n${list(SERVICE_SCENARIOS)}`;
}
