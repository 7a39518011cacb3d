/**
 * `avahealth check`: every target's verdict, printed as text (Nagios/Icinga plugin convention on
 * the first line), JSON or Prometheus exposition. Exit 0 OK, 1 WARNING, 2 CRITICAL, 3 UNKNOWN.
 *
 * Where the verdicts come from:
 * - a daemon running on the same state_dir (app/running-daemon.ts): its verdicts, since its open
 *   incidents are what on-call was told, for every target it watches; the output says so;
 * - else (and for targets that daemon does not watch: another shard's) one round of this check's
 *   own: every target polled once, then one round of the alert pipeline's verdict and incident
 *   stages on a private book (alerts/round.ts), the state raised by its incidents
 *   (status/verdict.ts) as the daemon's is.
 * `--target` narrows what is printed, never what is evaluated: the round polls and judges the
 * whole config (a node's height lag needs the fleet's heights, a validator's scope its observers).
 * `--format prometheus` is always the round's observations, as a textfile collector wants them.
 */
import { oneRound } from '../alerts/round.js';
import type { Config } from '../config/load.js';
import type { Logger } from '../log.js';
import { MetricsView } from '../metrics/view.js';
import { OBSERVED_ENDPOINT } from '../model/observed.js';
import { targetsOf } from '../model/targets.js';
import { Poller } from '../poller.js';
import { jobsOf } from '../probes/registry.js';
import { comparedTooEarly } from '../probes/node.js';
import { probeMemory } from '../state/ledger.js';
import { STATE_SEVERITY, targetStatus, type TargetState, type TargetStatus } from '../status/status.js';
import { openIncidents, withIncidents } from '../status/verdict.js';
import { Store } from '../store.js';
import { nagiosText } from '../util/visible.js';
import { otherShardsIncidents, toldIncident, type OtherShards } from './other-shards.js';
import { daemonVerdicts, type DaemonVerdicts } from './running-daemon.js';

export type CheckFormat = 'text' | 'json' | 'prometheus';
export const EXIT = { OK: 0, WARNING: 1, CRITICAL: 2, UNKNOWN: 3 } as const;
const STATE_NAMES = ['OK', 'WARNING', 'CRITICAL', 'UNKNOWN'];

export interface CheckOptions {
  format: CheckFormat;
  target?: string;
  logger: Logger;
  color: boolean;
}

/** Where the printed verdicts came from. */
interface Provenance {
  daemon?: { pid: number; url?: string; error?: string; targets: string[] };
  /** Targets this check's own round judged. */
  round: string[];
  /** Those, when they are other shards': the Alertmanagers whose signed incidents were taken for them, or why none could be read. */
  otherShards?: { alertmanager: string[] } | { error: string };
}

export async function runCheck(config: Config, options: CheckOptions): Promise<{ exitCode: number; output: string }> {
  const printed = targetsOf(config).filter((t) => options.target === undefined || t.name === options.target);
  if (options.target !== undefined && printed.length === 0) {
    const message = `no target named "${options.target}" in ${config.file}`;
    return { exitCode: EXIT.UNKNOWN, output: options.format === 'json' ? failureJson(message) : `UNKNOWN - ${message}\n` };
  }
  if (options.format === 'prometheus') {
    const metrics = new MetricsView(config, { defaultMetrics: false });
    // The config loaded: a textfile collector's usual reload alert must not fire on check's output.
    metrics.setReloadResult(true);
    const { statuses } = await ownRound(config, options.logger, metrics);
    for (const t of targetsOf(config)) if (!printed.includes(t)) metrics.removeTarget(t.name);
    return { exitCode: worst(statuses.filter((s) => printed.some((t) => t.name === s.name))), output: await metrics.render() };
  }

  const daemon = await daemonVerdicts(config.stateDir, options.target);
  const fromDaemon = new Map((daemon?.targets ?? []).map((t) => [t.name, t]));
  const rest = printed.filter((t) => !fromDaemon.has(t.name));
  // Beside one shard: the rest are other shards' targets, whose owners told Alertmanager what is open.
  const others = daemon?.targets && rest.length > 0 ? await otherShardsIncidents(config, rest.map((t) => t.name)) : undefined;
  const told = others && 'incidents' in others ? others : undefined;
  const round = rest.length > 0 ? await ownRound(config, options.logger, undefined, daemon, told) : undefined;
  const judged = new Map(round?.statuses.map((s) => [s.name, s]));
  const statuses = printed.map((t) => fromDaemon.get(t.name) ?? judged.get(t.name)!);
  const provenance: Provenance = {
    ...(daemon ? { daemon: { pid: daemon.pid, ...(daemon.url ? { url: daemon.url } : {}), ...(daemon.error ? { error: daemon.error } : {}), targets: printed.filter((t) => fromDaemon.has(t.name)).map((t) => t.name) } } : {}),
    round: rest.map((t) => t.name),
    ...(others ? { otherShards: 'error' in others ? { error: others.error } : { alertmanager: others.receivers } } : {}),
  };
  const exitCode = worst(statuses);
  const output =
    options.format === 'json'
      ? `${JSON.stringify({ state: STATE_NAMES[exitCode], exitCode, verdicts: provenance, targets: statuses }, null, 2)}\n`
      : formatText(statuses, exitCode, options.color, provenance, config.stateDir);
  return { exitCode, output };
}

/** A JSON document for a check that could not run (state UNKNOWN, the error). */
export function failureJson(error: string): string {
  return `${JSON.stringify({ state: 'UNKNOWN', exitCode: EXIT.UNKNOWN, error, targets: [] }, null, 2)}\n`;
}

function worst(statuses: readonly TargetStatus[]): number {
  return statuses.reduce<number>((w, s) => Math.max(w, STATE_SEVERITY[s.state]), EXIT.OK);
}

/**
 * One poll round of every target (the fleet's observers read once more after their network's
 * baseline, as the daemon's next poll does), then one round of the pipeline's stages on it. With a
 * daemon whose API could not be asked, its saved open incidents raise the states too.
 */
async function ownRound(config: Config, logger: Logger, metrics?: MetricsView, daemon?: DaemonVerdicts, others?: OtherShards): Promise<{ statuses: TargetStatus[] }> {
  const store = new Store();
  metrics?.attach(store);
  // What the daemon's probes remember (periods, missed upgrades, a restart's snapshot), read from its state_dir, never written.
  const poller = new Poller(config, store, logger, undefined, probeMemory(config.stateDir, true));
  try {
    await poller.round();
    await Promise.all(jobsOf(config).filter((j) => j.kind === OBSERVED_ENDPOINT).map((j) => poller.run(j.key)));
    // A node compared with the fleet's upgrade schedules before the others' were recorded is polled once more, as the daemon's next poll does.
    await Promise.all(comparedTooEarly(store).map((target) => poller.run(target)));
  } finally {
    await poller.close();
  }
  const verdicts = oneRound(config, store, logger);
  const open = openIncidents(verdicts.incidents);
  const saved = openIncidents(daemon?.incidents ?? []);
  const lags = config.chainData ? store.lags() : new Map<string, never[]>();
  const statuses = targetsOf(config).map((target) => {
    const status = targetStatus(target, store);
    for (const lag of lags.get(target.name) ?? []) status.lag[lag.chain] = lag.lagBlocks;
    const own = open.get(target.name) ?? [];
    // Another shard's target: its owner's incidents, not this round's (which cannot know its holds).
    const toldByOwner = others?.incidents.get(target.name);
    if (toldByOwner) return withIncidents(status, toldByOwner.map((alert) => toldIncident(alert, own)), verdicts.unknown.get(target.name) ?? []);
    const theirs = (saved.get(target.name) ?? []).filter((i) => !own.some((o) => incidentKey(o) === incidentKey(i)));
    return withIncidents(status, [...own, ...theirs], verdicts.unknown.get(target.name) ?? []);
  });
  return { statuses };
}

const incidentKey = (i: { alertname: string; labels: Record<string, string> }) => `${i.alertname}${JSON.stringify(Object.entries(i.labels).sort())}`;

const COLORS: Record<TargetState, string> = { healthy: '32', pending: '90', warning: '33', unhealthy: '31', unreachable: '31' };
const STATES: readonly TargetState[] = ['healthy', 'warning', 'unhealthy', 'unreachable', 'pending'];

function formatText(statuses: TargetStatus[], exitCode: number, color: boolean, provenance: Provenance, stateDir: string): string {
  const count = (state: TargetState) => statuses.filter((s) => s.state === state).length;
  const bad = statuses.filter((s) => STATE_SEVERITY[s.state] > 0);
  const plural = (n: number) => `${n} target${n === 1 ? '' : 's'}`;
  const summary =
    bad.length === 0
      ? STATES.filter((state) => count(state) > 0)
          .map((state, i) => `${i === 0 ? plural(count(state)) : count(state)} ${state}`)
          .join(', ') || 'no targets'
      : bad.map((s) => nagiosText(`${s.name} ${s.failure ?? s.state}${s.failingChecks.length ? ` (${s.failingChecks.join(', ')})` : ''}`)).join('; ');
  const perfdata = STATES.map((state) => `${state}=${count(state)};;;0;${statuses.length}`).join(' ');
  const lines = [`${STATE_NAMES[exitCode]} - ${summary} | ${perfdata}`];
  const width = Math.max(...statuses.map((s) => nagiosText(s.name).length), 4);
  for (const s of statuses) {
    const state = (s.failure ?? s.state).toUpperCase().padEnd(12);
    const heights = Object.entries(s.heights)
      .map(([chain, h]) => `${chain}=${h}`)
      .join(' ');
    const paint = (text: string) => (color ? `\u001b[${COLORS[s.state]}m${text}\u001b[0m` : text);
    // Every long-output line is Nagios text too: a `|` there starts performance data as well.
    // A target that answered, but not usably, shows its failure (HTTP_STATUS, BAD_JSON) and is counted unreachable: say so.
    const counted = s.failure ? 'no usable answer (counted unreachable): ' : '';
    lines.push(`${nagiosText(s.name).padEnd(width)}  ${paint(state)} ${nagiosText(`${counted}${s.summary}${heights ? `  [${heights}]` : ''}${s.nodeId ? `  ${s.nodeId}` : ''}`)}`);
  }
  lines.push(...provenanceLines(provenance, stateDir).map(nagiosText));
  return `${lines.join('\n')}\n`;
}

/** Whose verdicts these are, in words. */
function provenanceLines({ daemon, round, otherShards }: Provenance, stateDir: string): string[] {
  if (!daemon) return [`verdicts: this check's own round (no avahealth daemon runs on ${stateDir})`];
  const where = `pid ${daemon.pid}${daemon.url ? ` at ${daemon.url}` : ''}`;
  const lines: string[] = [];
  if (daemon.targets.length > 0) lines.push(`verdicts: the running daemon's (${where}): its open incidents are what on-call was told`);
  if (round.length > 0) {
    lines.push(
      daemon.error
        ? `verdicts: this check's own round, with the open incidents the daemon (${where}) saved in ${stateDir}: its API could not be asked (${daemon.error})`
        : otherShards && 'alertmanager' in otherShards
          ? `verdicts: for ${round.join(', ')} (not watched by the daemon at ${where}: another shard's), the open incidents their shard told Alertmanager (${otherShards.alertmanager.join(', ')}), signed with the fleet's key; their answers from this check's own round`
          : `verdicts: this check's own round for ${round.join(', ')} (not watched by the daemon at ${where}: another shard's${otherShards ? `; Alertmanager could not be read: ${otherShards.error}` : ''})`,
    );
  }
  return lines;
}
