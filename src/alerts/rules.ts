/**
 * The built-in alert rules, as pure functions of what the store and chain data say about a target.
 * They also decide what cannot be known (an unreachable node's checks) and what must not page yet
 * (chain checks of a node still bootstrapping, checks the node has not run).
 */
import type { ChainLag } from '../chaindata/lag.js';
import type { ValidatorInfo } from '../chaindata/chaindata.js';
import type { AlertsConfig, NodeTarget, ServiceTarget } from '../config/load.js';
import type { AlertName } from '../config/schema.js';
import { sanitizeLabelValue } from '../util/labels.js';
import type { CheckResult, EndpointObservation } from '../model/observation.js';
import type { TargetState } from '../store.js';
import type { Condition, Evaluation, Severity } from './types.js';

export interface RuleSettings {
  disabled: boolean;
  forPolls?: number;
  forMs: number;
  severity: Severity;
  criticalAfterMs?: number;
  threshold?: number;
  criticalThreshold?: number;
}

const DAY = 86_400;

/** Defaults per rule; `alerts.rules` and `alerts.targets.<name>.rules` override them. */
export const RULE_DEFAULTS: Record<AlertName, Omit<RuleSettings, 'forMs'> & { forMs?: number }> = {
  AvalancheNodeUnreachable: { disabled: false, severity: 'warning', criticalAfterMs: 5 * 60_000 },
  AvalancheNodeUnhealthy: { disabled: false, severity: 'warning', criticalAfterMs: 15 * 60_000 },
  AvalancheCheckFailing: { disabled: false, severity: 'warning', criticalAfterMs: 30 * 60_000 },
  AvalancheNodeNotReady: { disabled: false, severity: 'warning', criticalAfterMs: 2 * 3600_000 },
  AvalancheServiceUnhealthy: { disabled: false, severity: 'warning', criticalAfterMs: 15 * 60_000 },
  AvalancheServiceComponentDown: { disabled: false, severity: 'warning' },
  AvalancheNodeHeightLag: { disabled: false, severity: 'warning', threshold: 50, criticalThreshold: 500 },
  AvalancheValidatorEndingSoon: { disabled: false, severity: 'warning', forPolls: 1, threshold: 7 * DAY, criticalThreshold: DAY },
  AvalancheDiskLow: { disabled: false, severity: 'warning', threshold: 0.15, criticalThreshold: 0.11 },
};

export function ruleFor(config: AlertsConfig, name: AlertName, target: string): RuleSettings {
  const merged = { ...RULE_DEFAULTS[name] };
  for (const tuning of [config.rules[name], config.targetRules[target]?.[name]]) {
    if (!tuning) continue;
    if (tuning.disabled !== undefined) merged.disabled = tuning.disabled;
    if (tuning.for_polls !== undefined) merged.forPolls = tuning.for_polls;
    if (tuning.for !== undefined) merged.forMs = tuning.for;
    if (tuning.severity !== undefined) merged.severity = tuning.severity;
    if (tuning.critical_after !== undefined) merged.criticalAfterMs = tuning.critical_after;
    if (tuning.threshold !== undefined) merged.threshold = tuning.threshold;
    if (tuning.critical_threshold !== undefined) merged.criticalThreshold = tuning.critical_threshold;
  }
  const forMs = merged.forMs ?? (name === 'AvalancheNodeNotReady' ? config.bootstrapGraceMs : 0);
  return { ...merged, forMs };
}

const NODE_RULES: AlertName[] = ['AvalancheNodeUnreachable', 'AvalancheNodeUnhealthy', 'AvalancheCheckFailing', 'AvalancheNodeNotReady', 'AvalancheDiskLow'];
const NODE_HEALTH_RULES: AlertName[] = NODE_RULES.slice(1);

/** The disk's free ratio over time, for the DiskLow trend. */
export interface DiskTrend {
  /** Seconds until the free ratio reaches `floor` at the recent rate, or undefined when not falling. */
  secondsUntil(floor: number): number | undefined;
}

/** AvalancheGo's own warning threshold for free disk: DiskLow fires before it. */
const NODE_DISK_WARNING = 0.1;

export function evaluateNode(target: NodeTarget, state: TargetState, config: AlertsConfig, disk: DiskTrend, maxLabelLength: number): Evaluation {
  const endpoints = state.observation.endpoints;
  const health = endpoints.find((e) => e.endpoint === 'health' && e.view === 'all') ?? endpoints[0];
  const evaluation: Evaluation = { target: target.name, covers: NODE_RULES, unknown: [], conditions: [] };
  if (!health) return evaluation;
  const add = (c: Omit<Condition, 'target'>) => evaluation.conditions.push({ ...c, target: target.name });

  if (!health.ok) {
    add({
      alertname: 'AvalancheNodeUnreachable',
      identity: {},
      severity: 'warning',
      summary: `${target.name} is unreachable (${health.reason})`,
      description: `${endpointName(health)}: ${health.error ?? health.reason}`,
    });
    // Nothing can be said about its checks: their alerts neither fire nor resolve meanwhile.
    evaluation.unknown = NODE_HEALTH_RULES;
    return evaluation;
  }
  const report = health.report!;
  const readiness = endpoints.find((e) => e.endpoint === 'readiness' && e.report);
  const bootstrapped = report.checks.find((c) => c.name === 'bootstrapped');
  const notReady = readiness ? !readiness.report!.healthy : bootstrapped !== undefined && !bootstrapped.passing && !bootstrapped.notYetRun;
  if (notReady) {
    const subnets = bootstrapped?.bootstrappingSubnets?.length;
    add({
      alertname: 'AvalancheNodeNotReady',
      identity: {},
      severity: 'warning',
      summary: `${target.name} is not ready (still bootstrapping)`,
      description: `readiness reports not bootstrapped${subnets ? ` (${subnets} subnet${subnets === 1 ? '' : 's'} bootstrapping)` : ''}`,
    });
  }
  // A bootstrapping node's chains are expected to fail: only AvalancheNodeNotReady speaks for them.
  const pageable = (c: CheckResult) => !c.passing && !c.notYetRun && !(notReady && (c.chain !== undefined || c.name === 'bootstrapped' || isChainName(c.name)));
  const diskCheck = report.checks.find((c) => c.disk?.availableRatio !== undefined);
  const diskRuleOn = diskCheck !== undefined && !ruleFor(config, 'AvalancheDiskLow', target.name).disabled;
  const failing = report.checks.filter(pageable);
  if (failing.length > 0) {
    add({
      alertname: 'AvalancheNodeUnhealthy',
      identity: {},
      severity: 'warning',
      summary: `${target.name} is unhealthy: ${listNames(failing.map((c) => c.name))} failing`,
      description: failing.map((c) => `${c.name}: ${c.error ?? 'failing'}`).join('\n'),
    });
  }
  for (const check of failing) {
    // With the free ratio known, AvalancheDiskLow speaks for the disk (with its runway): one alert, not two.
    if (check === diskCheck && diskRuleOn) continue;
    add({
      alertname: 'AvalancheCheckFailing',
      identity: { check: sanitizeLabelValue(check.name, maxLabelLength) },
      severity: 'warning',
      summary: `${target.name}: check ${check.name} failing`,
      description: check.error ?? 'failing',
      nodeFailures: check.contiguousFailures,
    });
  }
  if (diskCheck) {
    const rule = ruleFor(config, 'AvalancheDiskLow', target.name);
    const ratio = diskCheck.disk!.availableRatio!;
    const untilNodeWarning = disk.secondsUntil(NODE_DISK_WARNING);
    const critical = ratio <= (rule.criticalThreshold ?? 0.11) || (untilNodeWarning !== undefined && untilNodeWarning < 6 * 3600);
    const warning = ratio <= (rule.threshold ?? 0.15) || (untilNodeWarning !== undefined && untilNodeWarning < 24 * 3600);
    if (critical || warning) {
      const runway = untilNodeWarning !== undefined ? `; at the current rate it reaches the node's 10% warning in ${formatDuration(untilNodeWarning)}` : '';
      add({
        alertname: 'AvalancheDiskLow',
        identity: {},
        severity: critical ? 'critical' : 'warning',
        summary: `${target.name}: disk ${(ratio * 100).toFixed(0)}% free`,
        description: `${formatBytes(diskCheck.disk!.availableBytes)} free (${(ratio * 100).toFixed(1)}%)${runway}. Below 3% AvalancheGo shuts down.`,
      });
    }
  }
  return evaluation;
}

export function evaluateService(target: ServiceTarget, state: TargetState, maxLabelLength: number): Evaluation {
  const evaluation: Evaluation = { target: target.name, covers: ['AvalancheServiceUnhealthy', 'AvalancheServiceComponentDown'], unknown: [], conditions: [] };
  const health = state.observation.endpoints.filter((e) => e.endpoint === 'health-check' || e.endpoint === 'live-check');
  // Our own back-off is not the service's fault: while rate limited, nothing changes.
  if (health.some((e) => e.reason === 'rate_limited')) {
    evaluation.unknown = evaluation.covers;
    return evaluation;
  }
  const bad = health.filter((e) => !e.ok || !e.service?.healthy);
  if (bad.length > 0) {
    add('AvalancheServiceUnhealthy', {}, `${target.name} is unhealthy`, bad.map((e) => `${e.endpoint}: ${e.ok ? `${e.service!.status}${e.service!.message ? ` (${e.service!.message})` : ''}` : `${e.reason} (${e.error ?? ''})`}`).join('\n'));
  }
  const seen = new Set<string>();
  for (const e of health) {
    for (const component of e.service?.components ?? []) {
      if (component.up || seen.has(component.name)) continue;
      seen.add(component.name);
      add('AvalancheServiceComponentDown', { component: sanitizeLabelValue(component.name, maxLabelLength) }, `${target.name}: component ${component.name} is ${component.status}`, component.message ?? component.status);
    }
  }
  return evaluation;

  function add(alertname: AlertName, identity: Record<string, string>, summary: string, description: string) {
    evaluation.conditions.push({ alertname, target: target.name, identity, severity: 'warning', summary, description });
  }
}

/** Chain data rules for one node: height lag per chain, and the end of its validation. */
export function evaluateChainData(
  target: NodeTarget,
  lags: ChainLag[],
  validator: ValidatorInfo | undefined,
  notReady: boolean,
  config: AlertsConfig,
  nowSeconds: number,
  maxLabelLength: number,
): Evaluation {
  const evaluation: Evaluation = { target: target.name, covers: ['AvalancheNodeHeightLag', 'AvalancheValidatorEndingSoon'], unknown: [], conditions: [] };
  const lagRule = ruleFor(config, 'AvalancheNodeHeightLag', target.name);
  if (notReady) evaluation.unknown.push('AvalancheNodeHeightLag');
  else {
    for (const lag of lags) {
      if (lag.lagBlocks < (lagRule.threshold ?? 50)) continue;
      evaluation.conditions.push({
        alertname: 'AvalancheNodeHeightLag',
        target: target.name,
        identity: { chain: sanitizeLabelValue(lag.chain, maxLabelLength) },
        severity: lag.lagBlocks >= (lagRule.criticalThreshold ?? 500) ? 'critical' : 'warning',
        summary: `${target.name}: ${lag.chain} is ${lag.lagBlocks} blocks behind the network`,
        description: `lastAcceptedHeight trails the best-known height of ${lag.chain} by ${lag.lagBlocks} blocks`,
      });
    }
  }
  const endRule = ruleFor(config, 'AvalancheValidatorEndingSoon', target.name);
  if (validator?.status === 'active' && validator.endTimestamp !== undefined) {
    const left = validator.endTimestamp - nowSeconds;
    if (left < (endRule.threshold ?? 7 * DAY)) {
      evaluation.conditions.push({
        alertname: 'AvalancheValidatorEndingSoon',
        target: target.name,
        identity: {},
        severity: left < (endRule.criticalThreshold ?? DAY) ? 'critical' : 'warning',
        summary: `${target.name}: validation of ${validator.nodeId} ends in ${formatDuration(Math.max(0, left))}`,
        description: `the current validation ends at ${new Date(validator.endTimestamp * 1000).toISOString()}; re-stake to keep validating`,
      });
    }
  }
  return evaluation;
}

/** Whether a node's latest health says it is not ready (for rules evaluated outside a poll). */
export function isNotReady(state: TargetState | undefined): boolean {
  const readiness = state?.observation.endpoints.find((e) => e.endpoint === 'readiness' && e.report);
  return readiness ? !readiness.report!.healthy : false;
}

function isChainName(name: string): boolean {
  return name === 'C' || name === 'P' || name === 'X' || /^[1-9A-HJ-NP-Za-km-z]{49,50}$/.test(name);
}

function endpointName(e: EndpointObservation): string {
  return e.view === 'all' ? e.endpoint : `${e.endpoint}[${e.view}]`;
}

/** "C", "C and P", "C, P, X and network". */
export function listNames(names: string[]): string {
  if (names.length <= 1) return names.join('');
  return `${names.slice(0, -1).join(', ')} and ${names.at(-1)}`;
}

export function formatDuration(seconds: number): string {
  if (seconds >= 2 * DAY) return `${Math.round(seconds / DAY)}d`;
  if (seconds >= 2 * 3600) return `${Math.round(seconds / 3600)}h`;
  if (seconds >= 120) return `${Math.round(seconds / 60)}m`;
  return `${Math.round(seconds)}s`;
}

function formatBytes(bytes: number | undefined): string {
  if (bytes === undefined) return 'unknown';
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) [value, unit] = [value / 1024, unit + 1];
  return `${value.toFixed(1)} ${units[unit]}`;
}
