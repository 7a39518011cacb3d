/**
 * `avahealth check`: one poll round of every target, printed as text (Nagios/Icinga plugin
 * convention on the first line), JSON or Prometheus exposition. Exit 0 OK, 1 WARNING, 2 CRITICAL.
 * A target's state is the daemon's verdict (status/verdict.ts): what its own answer says, raised
 * by the incidents its rules find in this round (every rule the daemon runs, as if its for_polls
 * were 1), with their severity and scope. `--target` reports one target but polls what its
 * verdict depends on: with chain data, every node (the reference height of the height lag); with the
 * fleet as observers, every node too; the fleet's views of a validator are read again once the
 * round has its network's baseline.
 */
import { sourceUpdate } from '../alerts/engine.js';
import { RULE_SOURCE_NAMES, RULE_SOURCES, ruleNamed, ruleSettings, rulesOf, UNKNOWN, type AnyRule } from '../alerts/rules/index.js';
import type { Config, Target } from '../config/load.js';
import type { Logger } from '../log.js';
import { MetricsView } from '../metrics/view.js';
import { OBSERVED_ENDPOINT } from '../model/observed.js';
import { targetsOf } from '../model/targets.js';
import { Poller } from '../poller.js';
import { jobsOf } from '../probes/registry.js';
import { probeMemory } from '../state/ledger.js';
import { STATE_SEVERITY, targetStatus, type TargetStatus } from '../status/status.js';
import { withIncidents, type TargetIncident } from '../status/verdict.js';
import { Store } from '../store.js';
import { sanitizeLabelValue } from '../util/labels.js';
import { nagiosText } from '../util/visible.js';

export type CheckFormat = 'text' | 'json' | 'prometheus';
export const EXIT = { OK: 0, WARNING: 1, CRITICAL: 2, UNKNOWN: 3 } as const;
const STATE_NAMES = ['OK', 'WARNING', 'CRITICAL', 'UNKNOWN'];

export async function runCheck(config: Config, options: { format: CheckFormat; target?: string; logger: Logger; color: boolean }): Promise<{ exitCode: number; output: string }> {
  const wanted = <T extends { name: string }>(list: T[]) => (options.target ? list.filter((t) => t.name === options.target) : list);
  const scoped: Config = { ...config, nodes: wanted(config.nodes), services: wanted(config.services) };
  const targets = targetsOf(scoped);
  if (options.target && targets.length === 0) {
    return { exitCode: EXIT.UNKNOWN, output: `UNKNOWN - no target named "${options.target}" in ${config.file}\n` };
  }
  // The height lag is measured against the fleet's highest node too, a validator's views against
  // the fleet's observers: `--target` polls every node then.
  const fleetWide = scoped.chainData !== undefined || config.nodes.some((n) => n.validator && n.validator.network);
  const polled: Config = fleetWide ? { ...scoped, nodes: config.nodes } : scoped;
  const store = new Store();
  const metrics = options.format === 'prometheus' ? new MetricsView(scoped, { defaultMetrics: false }) : undefined;
  metrics?.attach(store);
  // What the daemon's probes remember (periods, missed upgrades, a restart's snapshot), read from its state_dir, never written.
  const memory = probeMemory(config.stateDir, true);
  const poller = new Poller(polled, store, options.logger, undefined, memory);
  try {
    await poller.round();
    // What the fleet sees of a validator is judged against its network's baseline, which the
    // observers' baseline jobs record in the same round: read once more after it, as the daemon's next poll does.
    await Promise.all(jobsOf(polled).filter((j) => j.kind === OBSERVED_ENDPOINT).map((j) => poller.run(j.key)));
  } finally {
    await poller.close();
  }
  // The other nodes polled for the lag reference are not printed.
  for (const node of polled.nodes) if (!scoped.nodes.includes(node)) metrics?.removeTarget(node.name);
  const statuses = targets.map((target) => {
    const status = targetStatus(target, store);
    if (polled.chainData && target.kind === 'node') for (const lag of store.lagsOf(target.name)) status.lag[lag.chain] = lag.lagBlocks;
    return withIncidents(status, status.state === 'pending' ? [] : incidentsOf(target, store, polled));
  });
  const exitCode = statuses.reduce<number>((worst, s) => Math.max(worst, STATE_SEVERITY[s.state]), EXIT.OK);
  let output: string;
  if (options.format === 'json') output = `${JSON.stringify({ state: STATE_NAMES[exitCode], exitCode, targets: statuses }, null, 2)}\n`;
  else if (options.format === 'prometheus') output = await metrics!.render();
  else output = formatText(statuses, exitCode, options.color);
  return { exitCode, output };
}

/** A rule's settings for a target, as the alert engine resolves them. */
function settingsOf(rule: AnyRule, target: string, config: Config) {
  const name = rule.name as keyof typeof config.alerts.rules;
  return ruleSettings(rule, [config.alerts.rules[name], config.alerts.targetRules[target]?.[name]], config.alerts.bootstrapGraceMs);
}

/**
 * The incidents this round finds for the target: every enabled rule over what its sources
 * reported, as the engine evaluates them (rules/sources.ts), each finding one incident as if its
 * for_polls were 1. A rule that must hold for a time first (`for`, the bootstrap grace of
 * AvalancheNodeNotReady) cannot fire in one round and is left out.
 */
function incidentsOf(target: Target, store: Store, config: Config): TargetIncident[] {
  const incidents: TargetIncident[] = [];
  const state = store.get(target.name);
  const now = Date.now();
  const label = (v: string) => sanitizeLabelValue(v, config.limits.maxLabelLength);
  const enabled = (name: string) => !settingsOf(ruleNamed(name)!, target.name, config).disabled;
  for (const source of RULE_SOURCE_NAMES) {
    const feed = RULE_SOURCES[source];
    const input = feed.input(sourceUpdate(feed.from, target, state, store, config));
    if (!input) continue;
    // One round is all a check sees: a verdict's scope is decided with it (the daemon waits for the first baseline).
    if ('scopeAwaited' in input) delete input.scopeAwaited;
    if ('viewPending' in input) delete input.viewPending;
    // nor does it wait for a later baseline read (validator-facts.ts, scopeWaits): this round's is the one
    if ('observed' in input && input.observed?.baseline) delete input.observed.baseline.refreshSeconds;
    for (const rule of rulesOf(source)) {
      const settings = settingsOf(rule, target.name, config);
      if (settings.disabled || settings.forMs > 0) continue;
      const findings = rule.evaluate(input, { target: target.name, settings, enabled, now, label }, rule.newState?.());
      if (findings === UNKNOWN) continue;
      for (const f of findings) {
        const severity = f.severity === 'critical' || settings.severity === 'critical' ? 'critical' : 'warning';
        incidents.push({ alertname: rule.name, severity, summary: f.summary, labels: { ...f.identity } });
      }
    }
  }
  return incidents;
}

const COLORS: Record<TargetStatus['state'], string> = { healthy: '32', pending: '90', warning: '33', unhealthy: '31', unreachable: '31' };

function formatText(statuses: TargetStatus[], exitCode: number, color: boolean): string {
  const count = (state: TargetStatus['state']) => statuses.filter((s) => s.state === state).length;
  const bad = statuses.filter((s) => STATE_SEVERITY[s.state] > 0);
  const summary =
    bad.length === 0
      ? `${statuses.length} target${statuses.length === 1 ? '' : 's'} healthy`
      : bad.map((s) => nagiosText(`${s.name} ${s.failure ?? s.state}${s.failingChecks.length ? ` (${s.failingChecks.join(', ')})` : ''}`)).join('; ');
  const perfdata = [
    `healthy=${count('healthy')};;;0;${statuses.length}`,
    `warning=${count('warning')};;;0;${statuses.length}`,
    `unhealthy=${count('unhealthy')};;;0;${statuses.length}`,
    `unreachable=${count('unreachable')};;;0;${statuses.length}`,
  ].join(' ');
  const lines = [`${STATE_NAMES[exitCode]} - ${summary} | ${perfdata}`];
  const width = Math.max(...statuses.map((s) => nagiosText(s.name).length), 4);
  for (const s of statuses) {
    const state = (s.failure ?? s.state).toUpperCase().padEnd(12);
    const heights = Object.entries(s.heights)
      .map(([chain, h]) => `${chain}=${h}`)
      .join(' ');
    const paint = (text: string) => (color ? `\u001b[${COLORS[s.state]}m${text}\u001b[0m` : text);
    // Every long-output line is Nagios text too: a `|` there starts performance data as well.
    lines.push(`${nagiosText(s.name).padEnd(width)}  ${paint(state)} ${nagiosText(`${s.summary}${heights ? `  [${heights}]` : ''}${s.nodeId ? `  ${s.nodeId}` : ''}`)}`);
  }
  return `${lines.join('\n')}\n`;
}
