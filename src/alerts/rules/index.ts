/**
 * The registry of alert rules: a new rule is one module in this folder and one line below. Rule
 * names (config keys, `alertname`), defaults, tuning keys, chat phrases and the generated
 * Prometheus rules all derive from it. Order matters only for the order of notifications within
 * one evaluation.
 */
import { z } from 'zod';
import AvalancheCheckFailing from './AvalancheCheckFailing.js';
import AvalancheDiskLow from './AvalancheDiskLow.js';
import AvalancheL1ValidatorBalanceLow from './AvalancheL1ValidatorBalanceLow.js';
import AvalancheL1ValidatorInactive from './AvalancheL1ValidatorInactive.js';
import AvalancheNetworkDegraded from './AvalancheNetworkDegraded.js';
import AvalancheNodeExecutionStalled from './AvalancheNodeExecutionStalled.js';
import AvalancheNodeHeightLag from './AvalancheNodeHeightLag.js';
import AvalancheNodeNotReady from './AvalancheNodeNotReady.js';
import AvalancheNodeUnhealthy from './AvalancheNodeUnhealthy.js';
import AvalancheNodeUnreachable from './AvalancheNodeUnreachable.js';
import AvalancheNodeUpgradeRequired from './AvalancheNodeUpgradeRequired.js';
import AvalancheNodeUpgradeUnknown from './AvalancheNodeUpgradeUnknown.js';
import AvalancheNodeVersionBehind from './AvalancheNodeVersionBehind.js';
import AvalancheServiceComponentDown from './AvalancheServiceComponentDown.js';
import AvalancheServiceUnhealthy from './AvalancheServiceUnhealthy.js';
import AvalancheValidatorDowntimeBudgetLow from './AvalancheValidatorDowntimeBudgetLow.js';
import AvalancheValidatorEndingSoon from './AvalancheValidatorEndingSoon.js';
import AvalancheValidatorPublicIpChanged from './AvalancheValidatorPublicIpChanged.js';
import AvalancheValidatorRewardAtRisk from './AvalancheValidatorRewardAtRisk.js';
import AvalancheValidatorRewardMissed from './AvalancheValidatorRewardMissed.js';
import AvalancheValidatorUnreachableByPeers from './AvalancheValidatorUnreachableByPeers.js';
import type { AlertRule, Inhibition, RuleSettings, RuleSource, Severity } from './rule.js';

export const RULES = [
  AvalancheNodeUnreachable,
  AvalancheNodeNotReady,
  AvalancheNodeUnhealthy,
  AvalancheCheckFailing,
  AvalancheDiskLow,
  AvalancheNodeUpgradeRequired,
  AvalancheNodeUpgradeUnknown,
  AvalancheServiceUnhealthy,
  AvalancheServiceComponentDown,
  AvalancheNodeHeightLag,
  AvalancheNodeExecutionStalled,
  AvalancheValidatorEndingSoon,
  AvalancheValidatorRewardAtRisk,
  AvalancheValidatorDowntimeBudgetLow,
  AvalancheValidatorRewardMissed,
  AvalancheValidatorUnreachableByPeers,
  AvalancheValidatorPublicIpChanged,
  AvalancheL1ValidatorBalanceLow,
  AvalancheL1ValidatorInactive,
  AvalancheNodeVersionBehind,
  AvalancheNetworkDegraded,
] as const;

export type AlertName = (typeof RULES)[number]['name'];
/** Any rule of the registry, as the engine runs it. */
export type AnyRule = AlertRule<AlertName, RuleSource, unknown>;

export const ALERT_NAMES = RULES.map((r) => r.name) as [AlertName, ...AlertName[]];

const BY_NAME = new Map<string, AnyRule>(RULES.map((r) => [r.name, r as AnyRule]));

export function ruleNamed(name: string): AnyRule | undefined {
  return BY_NAME.get(name);
}

/**
 * What a resolve says, after `target: `: the rule's account of what is true now (`facts`, from its
 * `recovered`), else its resolved phrase with its subject ("C caught up"). A resolve no evaluation
 * decided (the target or its source left: `gone`) says the alert is no longer watched, and why.
 */
export function resolveSummary(alertname: string, target: string, labels: Readonly<Record<string, string>>, facts?: string, gone?: string): string {
  const phrases = BY_NAME.get(alertname)?.phrases;
  const subject = phrases?.subject ? labels[phrases.subject] : undefined;
  const said = (words: string | undefined) => (words ? `${subject ? `${subject} ` : ''}${words}` : alertname);
  if (gone !== undefined) return `${target}: ${said(phrases?.firing)}: no longer watched (${gone})`;
  return `${target}: ${facts ?? (phrases ? said(phrases.resolved) : `${alertname} resolved`)}`;
}

/** Every root-cause → symptom relationship the rule modules declare (`inhibits`), with the rule that declares it. */
export const INHIBITIONS: ReadonlyArray<Inhibition & { source: AlertName }> = RULES.flatMap((r) => ((r as AnyRule).inhibits ?? []).map((i) => ({ ...i, source: r.name })));

export function rulesOf(source: RuleSource): AnyRule[] {
  return (RULES as readonly AnyRule[]).filter((r) => r.source === source);
}

/**
 * The `alerts.rules` (and per-target) config schema: each rule's common keys plus its own. The
 * common keys come from the config layer (they use its duration type).
 */
export function ruleTuningSchema(common: z.ZodRawShape): z.ZodType<RuleTunings, Partial<Record<AlertName, Record<string, unknown>>>> {
  return z.strictObject(Object.fromEntries(RULES.map((r) => [r.name, z.strictObject({ ...common, ...r.tuning.shape }).optional()]))) as never;
}

/** One rule's tuning as parsed from config (durations already in milliseconds). */
export interface RuleTuning {
  disabled?: boolean;
  for_polls?: number;
  for?: number;
  severity?: Severity;
  critical_after?: number;
  threshold?: number;
  critical_threshold?: number;
}
export type RuleTunings = Partial<Record<AlertName, RuleTuning>>;

/** A rule's settings for a target: its defaults, then `alerts.rules`, then `alerts.targets.<target>.rules`. */
export function ruleSettings(rule: AnyRule, tunings: Array<RuleTuning | undefined>, bootstrapGraceMs: number): RuleSettings {
  const { forMs, ...defaults } = rule.defaults;
  const merged: Omit<RuleSettings, 'forMs'> & { forMs?: number } = { disabled: false, ...defaults, ...(typeof forMs === 'number' ? { forMs } : {}) };
  for (const tuning of tunings) {
    if (!tuning) continue;
    if (tuning.disabled !== undefined) merged.disabled = tuning.disabled;
    if (tuning.for_polls !== undefined) merged.forPolls = tuning.for_polls;
    if (tuning.for !== undefined) merged.forMs = tuning.for;
    if (tuning.severity !== undefined) merged.severity = tuning.severity;
    if (tuning.critical_after !== undefined) merged.criticalAfterMs = tuning.critical_after;
    if (tuning.threshold !== undefined) merged.threshold = tuning.threshold;
    if (tuning.critical_threshold !== undefined) merged.criticalThreshold = tuning.critical_threshold;
  }
  return { ...merged, forMs: merged.forMs ?? (forMs === 'bootstrap_grace' ? bootstrapGraceMs : 0) };
}

export type { AlertRule, ChainInput, Finding, FleetInput, Inhibition, RuleContext, RuleResult, RuleInputs, RuleSettings, RuleSource, Severity, ValidatorInput } from './rule.js';
export { UNKNOWN, Unknown } from './rule.js';
export { RULE_SOURCE_NAMES, RULE_SOURCES, type SourceUpdate } from './sources.js';
