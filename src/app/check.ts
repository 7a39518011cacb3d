/**
 * `avahealth check`: one poll round of every target, printed as text (Nagios/Icinga plugin
 * convention on the first line), JSON or Prometheus exposition. Exit 0 OK, 1 WARNING, 2 CRITICAL.
 * With chain data, a node's height lag counts too, at the AvalancheNodeHeightLag rule's thresholds;
 * so do the alerts that count in a target's state (`countsInState`: the validator poll's, reward at
 * risk, L1 balance, …).
 */
import { sourceUpdate } from '../alerts/engine.js';
import { RULE_SOURCE_NAMES, RULE_SOURCES, ruleNamed, ruleSettings, rulesOf, UNKNOWN, type AnyRule } from '../alerts/rules/index.js';
import type { Config, NodeTarget, Target } from '../config/load.js';
import type { Logger } from '../log.js';
import { MetricsView } from '../metrics/view.js';
import { targetsOf } from '../model/targets.js';
import { Poller } from '../poller.js';
import { countsInState, STATE_SEVERITY, targetStatus, withAlerts, type TargetAlert, type TargetStatus } from '../status/status.js';
import { Store } from '../store.js';
import { sanitizeLabelValue } from '../util/labels.js';

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
  const store = new Store();
  const metrics = options.format === 'prometheus' ? new MetricsView(scoped, { defaultMetrics: false }) : undefined;
  metrics?.attach(store);
  const poller = new Poller(scoped, store, options.logger);
  try {
    await poller.round();
  } finally {
    await poller.close();
  }
  const statuses = targets.map((t) => targetStatus(t, store));
  if (scoped.chainData) for (const [i, node] of scoped.nodes.entries()) addHeightLag(statuses[i]!, node, store, scoped);
  for (const [i, target] of targets.entries()) if (statuses[i]!.state !== 'unreachable') withAlerts(statuses[i]!, stateAlerts(target, store, scoped));
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

/** The alerts that count in the target's state (`countsInState`) found in this round's polls of it: those that would fire (their for_polls is 1). */
function stateAlerts(target: Target, store: Store, config: Config): TargetAlert[] {
  const alerts: TargetAlert[] = [];
  for (const source of RULE_SOURCE_NAMES) {
    const feed = RULE_SOURCES[source];
    const counting = rulesOf(source).filter((rule) => countsInState(rule.name));
    if (counting.length === 0) continue;
    const input = feed.input(sourceUpdate(feed.from, target, store.get(target.name), store, config));
    if (!input) continue;
    for (const rule of counting) {
      const settings = settingsOf(rule, target.name, config);
      if (settings.disabled) continue;
      const context = { target: target.name, settings, enabled: (name: string) => !settingsOf(ruleNamed(name)!, target.name, config).disabled, now: Date.now(), label: (v: string) => sanitizeLabelValue(v, config.limits.maxLabelLength) };
      const findings = rule.evaluate(input, context, rule.newState?.());
      if (findings === UNKNOWN) continue;
      for (const f of findings) alerts.push({ alertname: rule.name, severity: f.severity === 'critical' || settings.severity === 'critical' ? 'critical' : 'warning', summary: f.summary });
    }
  }
  return alerts;
}

/** The node's lag per chain, and WARNING/CRITICAL where the AvalancheNodeHeightLag rule would fire (from the fleet polled in this round and chain data). */
function addHeightLag(status: TargetStatus, node: NodeTarget, store: Store, config: Config): void {
  const state = store.get(node.name);
  const lags = store.lagsOf(node.name);
  for (const lag of lags) status.lag[lag.chain] = lag.lagBlocks;
  const rule = ruleNamed('AvalancheNodeHeightLag');
  if (!rule || !state || status.state === 'unreachable') return;
  const settings = settingsOf(rule, node.name, config);
  if (settings.disabled) return;
  const context = { target: node.name, settings, enabled: () => true, now: Date.now(), label: (v: string) => sanitizeLabelValue(v, config.limits.maxLabelLength) };
  const findings = rule.evaluate({ lags, node: state.observation }, context, undefined);
  if (findings === UNKNOWN || findings.length === 0) return;
  const critical = findings.some((f) => f.severity === 'critical');
  const worse = critical ? 'unhealthy' : 'warning';
  if (STATE_SEVERITY[worse] > STATE_SEVERITY[status.state]) status.state = worse;
  const behind = findings.map((f) => `${f.identity.chain} ${lags.find((l) => context.label(l.chain) === f.identity.chain)?.lagBlocks ?? '?'} blocks behind`);
  status.summary = status.summary === 'healthy' ? behind.join(', ') : `${status.summary}; ${behind.join(', ')}`;
  status.failingChecks.push(...behind);
}

const COLORS: Record<TargetStatus['state'], string> = { healthy: '32', pending: '90', warning: '33', unhealthy: '31', unreachable: '31' };

function formatText(statuses: TargetStatus[], exitCode: number, color: boolean): string {
  const count = (state: TargetStatus['state']) => statuses.filter((s) => s.state === state).length;
  const bad = statuses.filter((s) => STATE_SEVERITY[s.state] > 0);
  const summary =
    bad.length === 0
      ? `${statuses.length} target${statuses.length === 1 ? '' : 's'} healthy`
      : bad.map((s) => `${s.name} ${s.failure ?? s.state}${s.failingChecks.length ? ` (${s.failingChecks.join(', ')})` : ''}`).join('; ');
  const perfdata = [
    `healthy=${count('healthy')};;;0;${statuses.length}`,
    `warning=${count('warning')};;;0;${statuses.length}`,
    `unhealthy=${count('unhealthy')};;;0;${statuses.length}`,
    `unreachable=${count('unreachable')};;;0;${statuses.length}`,
  ].join(' ');
  const lines = [`${STATE_NAMES[exitCode]} - ${summary} | ${perfdata}`];
  const width = Math.max(...statuses.map((s) => s.name.length), 4);
  for (const s of statuses) {
    const state = (s.failure ?? s.state).toUpperCase().padEnd(12);
    const heights = Object.entries(s.heights)
      .map(([chain, h]) => `${chain}=${h}`)
      .join(' ');
    const paint = (text: string) => (color ? `\u001b[${COLORS[s.state]}m${text}\u001b[0m` : text);
    lines.push(`${s.name.padEnd(width)}  ${paint(state)} ${s.summary}${heights ? `  [${heights}]` : ''}${s.nodeId ? `  ${s.nodeId}` : ''}`);
  }
  return `${lines.join('\n')}\n`;
}
