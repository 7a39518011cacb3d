/**
 * What an alert rule is: one module under src/alerts/rules/<AlertName>.ts that owns its name, its
 * defaults, its tuning keys, its words, its evaluation, the state it keeps between evaluations and
 * its PromQL twin. The engine knows none of them by name: it runs the registry (./index.ts).
 *
 * Rule modules sit at the bottom of the layers: they import only model/, util/, zod and this folder.
 */
import { z } from 'zod';
import { parseGoDuration } from '../../util/go-duration.js';
import type { RuleInputs, RuleSource } from './sources.js';

export type Severity = 'warning' | 'critical';

/**
 * What each source hands its rules: derived from the sources' registry (./sources.ts), where a new
 * source is one entry (which report feeds it, and how its input is derived); the input shapes are in
 * ./inputs.ts.
 */
export type { RuleInputs, RuleSource } from './sources.js';
export type { ChainInput, FleetInput, LagInput, ObservedInput, ValidatorInput } from './inputs.js';

/** A rule's settings after defaults, `alerts.rules.<name>` and `alerts.targets.<t>.rules.<name>`. */
export interface RuleSettings {
  disabled: boolean;
  /** Consecutive evaluations before firing; `alerts.for_polls` when unset. */
  forPolls?: number;
  forMs: number;
  severity: Severity;
  criticalAfterMs?: number;
  threshold?: number;
  criticalThreshold?: number;
}

export interface RuleDefaults {
  severity: Severity;
  forPolls?: number;
  /** A duration, or 'bootstrap_grace' for `alerts.bootstrap_grace`. */
  forMs?: number | 'bootstrap_grace';
  criticalAfterMs?: number;
  threshold?: number;
  criticalThreshold?: number;
}

/**
 * Every label a rule's finding may put in its `identity` (a test reads the rule modules for them):
 * Alertmanager's inhibit rules compare them to tell one alert from another
 * (deploy/alertmanager/inhibit-rules.ts).
 */
export const IDENTITY_LABELS = ['check', 'chain', 'component', 'subnet_id', 'validation_id', 'scope', 'observer', 'node_id', 'network'] as const;

/** One thing a rule found true about a target on one evaluation. */
export interface Finding {
  /** Extra identity labels (`check`, `component`, `chain`): one alert per distinct identity. */
  identity: Record<string, string>;
  /** Severity the value alone calls for; time-based escalation is the engine's. */
  severity: Severity;
  summary: string;
  description: string;
  /** The node's own contiguousFailures: enough of them fire at once (they survive our restarts). */
  nodeFailures?: number;
  /** True while the rule still gathers what its first notice must say: the incident stays pending (holding back its symptoms) and does not fire yet. */
  settling?: boolean;
  /**
   * Epoch milliseconds from which a pending incident holds its for_polls over: the finding's cause
   * changed then (a chain's lost stake, held as a network dip's, became the node's own when its
   * network check failed), so it pages with that cause, not ahead of it.
   */
  holdFrom?: number;
  /**
   * Epoch milliseconds after which the finding is no longer true whatever the next evaluation says
   * (a validation's end): from then the target's state does not count the incident, while it waits
   * for the evaluation that ends it.
   */
  until?: number;
}

/** Returned by a rule whose truth cannot be known now (an unreachable node's checks): its alerts stay as they are. */
export const UNKNOWN = 'unknown' as const;

/**
 * UNKNOWN, saying what is unknown and why (`version drift`, `the Data API could not be read (…)`):
 * its alerts stay as they are, and `check`, the status page and the API say "version drift
 * unknown: the Data API could not be read (…)".
 */
export class Unknown {
  constructor(
    readonly what: string,
    readonly because: string,
    /**
     * Set by a `scoped` rule when, whatever the truth turns out to be, it is the target's own and not
     * network-wide (a closed port only the node itself can tell of): the fleet's network alert does
     * not wait for it.
     */
    readonly options: { ownOnly?: boolean } = {},
  ) {}
}

/** What an evaluation may return: the findings, or that its truth cannot be known now (with why, when the rule says). */
export type RuleResult = Finding[] | typeof UNKNOWN | Unknown;

export interface RuleContext {
  target: string;
  settings: RuleSettings;
  /** Whether another rule is on for this target (one alert speaks for a fact, not two). */
  enabled(rule: string): boolean;
  /** Epoch milliseconds of this evaluation. */
  now: number;
  /** An untrusted string as a bounded identity label value. */
  label(value: string): string;
}

/**
 * Words for chat receivers' one-line headline. `subject` rules are grouped by that label
 * ("C, P and X failing"); the others say their own word ("unreachable").
 */
export interface RulePhrases {
  subject?: 'check' | 'component' | 'chain';
  firing: string;
  resolved: string;
}

/** A Prometheus alerting rule (the same alert, written in PromQL, for teams that alert from Prometheus). */
export interface PrometheusAlert {
  alert: string;
  expr: string;
  for: string;
  /** `scope` (validator alerts): a template that says `network` when every validator looks down from here; `target` when the alert is about no one target (a template). */
  labels: { severity: Severity; scope?: string; target?: string };
  annotations: { summary: string; description: string };
}

export interface AlertRule<Name extends string = string, Source extends RuleSource = RuleSource, State = unknown> {
  name: Name;
  source: Source;
  /** One line for docs: when it fires. */
  fires: string;
  defaults: RuleDefaults;
  /** The rule's own tuning keys beyond the common ones (`threshold`, …); empty when it has none. */
  tuning: z.ZodObject;
  phrases?: RulePhrases;
  /** Its Prometheus twin(s), in deploy/prometheus/avahealth.rules.yml after `npm run generate`. */
  prometheus: PrometheusAlert[];
  /**
   * Whether it counts in its target's state while it fires (status page, /api/v1, `check`), when
   * not as its source says (`RuleFeed.countsInState`): for a fact the health replies tell less
   * sharply than the alert does.
   */
  countsInState?: boolean;
  /** Alerts whose text already says this one's: while one of them fires for the target, the target's summary leaves this one's out. */
  toldBy?: readonly string[];
  /**
   * The symptoms this alert is the root cause of: while it is active for a target, their pages for
   * the same target are held back (one page per problem). The daemon's policy stage and the shipped
   * Alertmanager config's inhibit_rules are both generated from these declarations.
   */
  inhibits?: readonly Inhibition[];
  /**
   * Its findings say whether the problem is the validator's own or the whole network's (`scope`:
   * `self` or `network`): the fleet rules read its network-wide findings (`source: 'fleet'`), and the
   * network's alert holds them back while it lasts.
   */
  scoped?: true;
  /** State kept per target between evaluations (dropped when the target leaves the config). */
  newState?(): State;
  evaluate(input: RuleInputs[Source], ctx: RuleContext, state: State): RuleResult;
  /**
   * What its resolve says, from what is true now (the evaluation that resolves the incident, whose
   * labels are `labels`): "L1 validation 2H7p… topped up to 31.2 AVAX: 61.0 days of runway", after
   * `target: `. Undefined: the resolved phrase alone says it. Never the firing's words again.
   */
  recovered?(input: RuleInputs[Source], ctx: RuleContext, labels: Readonly<Record<string, string>>, state?: State): string | undefined;
  /**
   * Resolve words (`recovered`) that say an outcome still to come ("validation period ended; outcome
   * not known yet") are `pending`; receivers then hear the outcome on the same incident once
   * `recovered` says words that are `told` ("validation period ended, paid 117.4 AVAX").
   */
  outcome?: { pending(words: string): boolean; told(words: string): boolean };
  /**
   * Whether what its incidents are about is over for good now (a validation period ended): asked
   * when an evaluation finds nothing, its incidents then resolve at once instead of after
   * `resolve_polls` good polls.
   */
  over?(input: RuleInputs[Source], ctx: RuleContext, state: State): boolean;
}

/** A symptom an alert holds back on the same target: an alert name, and the labels it must have (e.g. `check`). */
export interface Inhibition {
  alertname: string;
  labels?: Record<string, string>;
  /** Labels the root cause must carry to hold the symptom back (the network check, not any failing check). */
  from?: Record<string, string>;
  /**
   * A label the symptom shares with its root cause under another name: the symptom's `label` equals
   * the root cause's `as` (a chain's lag under that chain's failing check: `chain` = `check`).
   * Alertmanager compares only labels of one name, so the generated inhibit rules list `values`
   * one by one, and `rest` (a regex) as one rule for the values not listed.
   */
  sameAs?: { label: string; as: string; values: readonly string[]; rest?: string };
  /**
   * `network`: the root cause is a fleet alert about the symptom's network (its target is the
   * network, not a node): it holds the symptom back on every target of that network.
   */
  across?: 'network';
  /** Why, for docs/alerting.md's root-cause table and the generated config's comments. */
  because: string;
}

/** Keeps the name a literal type, so the registry yields the `AlertName` union. */
export function defineRule<const Name extends string, Source extends RuleSource, State = undefined>(rule: AlertRule<Name, Source, State>): AlertRule<Name, Source, State> {
  return rule;
}

/** No tuning keys of its own. */
export const NO_TUNING = z.strictObject({});

/** `threshold` and `critical_threshold`, described in the rule's own unit, with its defaults shown. */
export function thresholdTuning(unit: string, defaults: RuleDefaults): z.ZodObject {
  return z.strictObject({
    threshold: z.number().optional().meta({ default: defaults.threshold }).describe(`Fires at this ${unit} (default ${defaults.threshold}).`),
    critical_threshold: z.number().optional().meta({ default: defaults.criticalThreshold }).describe(`Critical at once at this ${unit} (default ${defaults.criticalThreshold}).`),
  });
}

const DAYS = /^(?:(\d+(?:\.\d+)?)d)?(.*)$/;

/** Seconds from a duration such as `14d`, `36h` or `1d12h` (Go's units plus `d` for 24h), or undefined. */
export function durationSeconds(text: string): number | undefined {
  const match = DAYS.exec(text); // none across a line break: `.` stops there
  if (!match) return undefined;
  const [, days, rest] = match;
  if (days === undefined && rest === '') return undefined;
  const seconds = rest === '' ? 0 : parseGoDuration(rest!);
  return seconds === undefined || seconds < 0 ? undefined : Number(days ?? 0) * 86_400 + seconds;
}

/** A threshold in seconds, also written as a duration (`14d`, `36h`). */
const secondsOrDuration = z.union([z.number(), z.string()]).transform((value, ctx) => {
  const seconds = typeof value === 'number' ? value : durationSeconds(value);
  if (seconds === undefined) ctx.addIssue({ code: 'custom', message: 'must be a number of seconds or a duration such as 14d, 36h or 90m' });
  return seconds ?? 0;
});

/** `threshold` and `critical_threshold` for a rule whose unit is seconds: a number or a duration (`14d`). */
export function durationThresholdTuning(what: string, defaults: RuleDefaults): z.ZodObject {
  const show = (seconds: number | undefined) => (seconds !== undefined && seconds % 86_400 === 0 ? `${seconds / 86_400}d` : `${seconds}s`);
  return z.strictObject({
    threshold: secondsOrDuration.optional().meta({ default: defaults.threshold }).describe(`Fires at this ${what}, in seconds or as a duration such as 14d (default ${show(defaults.threshold)}).`),
    critical_threshold: secondsOrDuration.optional().meta({ default: defaults.criticalThreshold }).describe(`Critical at once at this ${what}, in seconds or as a duration (default ${show(defaults.criticalThreshold)}).`),
  });
}

/** A Prometheus alert rule. */
export function promAlert(alert: string, expr: string, forDuration: string, severity: Severity, summary: string, description: string, labels: { scope?: string; target?: string } = {}): PrometheusAlert {
  return { alert, expr, for: forDuration, labels: { severity, ...labels }, annotations: { summary, description } };
}
