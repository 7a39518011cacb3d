/**
 * The rules stage: turns what the store reports about a target into verdicts (an Evaluation per
 * report: what each rule found true, which rules it speaks for, which cannot know now). It owns the
 * rules' merged settings per target and the state each rule keeps between evaluations; it knows
 * nothing of incidents, receivers or files.
 */
import type { AlertsConfig, Config, Target } from '../config/load.js';
import type { Logger } from '../log.js';
import { targetNamed, targetsOf } from '../model/targets.js';
import { decidesReachability, jobsOf } from '../probes/registry.js';
import type { Store, TargetState } from '../store.js';
import { sanitizeLabelValue } from '../util/labels.js';
import { RULE_SOURCE_NAMES, RULE_SOURCES, ruleNamed, rulesOf, ruleSettings, Unknown, UNKNOWN, type AnyRule, type RuleInputs, type RuleSettings, type RuleSource, type SourceUpdate } from './rules/index.js';
import type { Evaluation, UnknownVerdict } from './types.js';

const SHARED_RULES = ''; // see settings(); target names are never empty
/** Alerts tracked per target: enough for every real check of a node, few enough to keep state and notifications small. */
export const MAX_ALERTS_PER_TARGET = 100;

/** One verdict and how it is to be applied: `resolveAtOnce` when a source stopped reporting on the target. */
export interface Verdict {
  evaluation: Evaluation;
  now: number;
  resolveAtOnce?: boolean;
  /** Why, for the resolves' words. */
  gone?: string;
}

export interface RuleStageOptions {
  /**
   * The only round there is (`avahealth check`): the rules are told so (`SourceUpdate.oneRound`),
   * and decide on what the round knows instead of waiting for a later poll or baseline.
   */
  oneRound?: boolean;
}

export class RuleStage {
  /** Each rule's own state, by target then rule name. */
  private readonly ruleStates = new Map<string, Map<string, unknown>>();
  private readonly settingsCache = new Map<string, Map<string, RuleSettings>>();
  /** Targets whose last evaluation was over MAX_ALERTS_PER_TARGET (warned once until it is not). */
  private readonly overLimit = new Set<string>();
  /** `target\0rule` of the rules whose last evaluation threw (logged once until they stop). */
  private readonly throwing = new Set<string>();

  constructor(
    private config: Config,
    private readonly log: Logger,
    private readonly options: RuleStageOptions = {},
  ) {}

  private get alerts(): AlertsConfig {
    return this.config.alerts;
  }

  setConfig(config: Config): void {
    this.config = config;
    this.settingsCache.clear();
  }

  /** Merged rule settings until the config changes: one per rule for all targets without a tuning of their own for it (SHARED_RULES), else per target. */
  settings(name: string, target: string): RuleSettings {
    const definition = ruleNamed(name);
    const own = definition ? this.alerts.targetRules[target]?.[definition.name] : undefined;
    let byRule = this.settingsCache.get(own ? target : SHARED_RULES);
    if (!byRule) this.settingsCache.set(own ? target : SHARED_RULES, (byRule = new Map()));
    let rule = byRule.get(name);
    if (!rule) {
      rule = definition ? ruleSettings(definition, [this.alerts.rules[definition.name], own], this.alerts.bootstrapGraceMs) : { disabled: true, forMs: 0, severity: 'warning' };
      byRule.set(name, rule);
    }
    return rule;
  }

  /**
   * Follows the store: every report on a target (a probe job's observation, a job turned off, a
   * chain-data refresh for every target) evaluates the rules it feeds (rules/sources.ts), and each
   * verdict goes to `next`. What the store holds already is evaluated at once.
   */
  attach(store: Store, next: (verdict: Verdict) => void): void {
    const updated = (source: string, name: string, state: TargetState | undefined) => {
      const target = targetNamed(this.config, name);
      if (target) for (const verdict of this.updated(this.updateOf(source, target, state, store))) next(verdict);
    };
    store.onUpdate((name, state, source) => updated(source, name, state));
    store.onChainData(() => {
      for (const target of targetsOf(this.config)) updated('chaindata', target.name, store.get(target.name));
    });
    for (const [name, state] of store.entries()) for (const source of state.jobs.keys()) updated(source, name, state);
  }

  /**
   * The verdicts of one round over what the store holds (the one-round mode's only evaluation):
   * every report on every target of the config (each job's, and chain data's), once, after the
   * round's polls, as `attach` hands them one by one.
   */
  round(store: Store, now = Date.now()): Verdict[] {
    return targetsOf(this.config).flatMap((target) => {
      const state = store.get(target.name);
      const reports = [...(state?.jobs.keys() ?? []), ...(this.config.chainData ? ['chaindata'] : [])];
      return reports.flatMap((report) => this.updated(this.updateOf(report, target, state, store), now));
    });
  }

  /** One report on a target: the verdicts of the rules of every source it feeds (a source that stopped resolves its alerts at once). */
  updated(update: SourceUpdate, now = Date.now()): Verdict[] {
    const verdicts: Verdict[] = [];
    for (const source of RULE_SOURCE_NAMES) {
      const feed = RULE_SOURCES[source];
      if (feed.from !== update.source) continue;
      const input = this.isolated(`${source} input`, update.target, () => feed.input(update));
      if (input === UNKNOWN) verdicts.push({ evaluation: { target: update.target, covers: rulesOf(source).map((r) => r.name), unknown: rulesOf(source).map((r) => r.name), conditions: [] }, now });
      else if (input === null) verdicts.push({ evaluation: { target: update.target, covers: rulesOf(source).map((r) => r.name), unknown: [], conditions: [] }, now, resolveAtOnce: true, gone: `its ${feed.from} poll was turned off` });
      else if (input !== undefined) verdicts.push({ evaluation: this.explained(this.observe(source, update.target, input, now), update), now });
    }
    return verdicts;
  }

  /** Runs every rule of a source over what it reported about a target. */
  observe<S extends RuleSource>(source: S, target: string, input: RuleInputs[S], now = Date.now()): Evaluation {
    const rules = rulesOf(source);
    const evaluation: Evaluation = { target, covers: rules.map((r) => r.name), unknown: [], conditions: [] };
    const label = (value: string) => sanitizeLabelValue(value, this.config.limits.maxLabelLength);
    const enabled = (name: string) => !this.settings(name, target).disabled;
    const contextOf = (rule: AnyRule) => ({ target, settings: this.settings(rule.name, target), enabled, now, label });
    for (const rule of rules) {
      const settings = this.settings(rule.name, target);
      const result = this.isolated(rule.name, target, () => rule.evaluate(input, contextOf(rule), this.ruleState(rule, target)));
      if (result === UNKNOWN || result instanceof Unknown) {
        evaluation.unknown.push(rule.name);
        if (result instanceof Unknown && !settings.disabled) (evaluation.unknownWhy ??= {})[rule.name] = { what: result.what, because: result.because };
        if (result instanceof Unknown && result.options.ownOnly) (evaluation.unknownOwnOnly ??= []).push(rule.name);
      } else {
        for (const finding of result) evaluation.conditions.push({ ...finding, alertname: rule.name, target });
        if (result.length === 0 && rule.over && this.isolated(`${rule.name} over`, target, () => rule.over!(input, contextOf(rule), this.ruleState(rule, target))) === true) (evaluation.over ??= []).push(rule.name);
      }
    }
    evaluation.conditions = this.capped(evaluation);
    // Asked only for an incident this evaluation resolves; made only where a rule of the source has words for it.
    if (rules.some((r) => r.recovered)) {
      evaluation.recovered = (alertname, labels) => {
        const rule = rules.find((r) => r.name === alertname);
        try {
          return rule?.recovered?.(input, contextOf(rule), labels, this.ruleState(rule, target));
        } catch (err) {
          this.log.warn({ target, alertname, error: (err as Error).message }, "a rule's resolve words failed; its resolved phrase is said instead");
          return undefined;
        }
      };
    }
    return evaluation;
  }

  /**
   * Says why a rule that did not say is unknown, when the extra job feeding it failed ("the
   * validator poll failed (timeout)"); a target's own poll failing is its state (unreachable), said there.
   */
  private explained(evaluation: Evaluation, update: SourceUpdate): Evaluation {
    if (evaluation.unknown.length === 0 || decidesReachability(update.source)) return evaluation;
    const failed = update.jobs.get(update.source)?.endpoints.find((e) => !e.ok);
    if (!failed) return evaluation;
    const because = `the ${update.source} poll failed (${failed.reason ?? 'error'}${failed.error ? `: ${failed.error}` : ''})`;
    for (const name of evaluation.unknown) {
      if (evaluation.unknownWhy?.[name] !== undefined || this.settings(name, update.target).disabled) continue;
      (evaluation.unknownWhy ??= {})[name] = { what: name, because };
    }
    return evaluation;
  }

  /** What the rules fed by `source` are handed about a target now (told when this is the only round). */
  private updateOf(source: string, target: Target, state: TargetState | undefined, store: Store): SourceUpdate {
    const update = sourceUpdate(source, target, state, store, this.config);
    return this.options.oneRound ? { ...update, oneRound: true } : update;
  }

  /** A target that left: its rules' state is let go. */
  forgetTarget(name: string): void {
    this.ruleStates.delete(name);
    for (const key of this.throwing) if (key.startsWith(`${name}\u0000`)) this.throwing.delete(key);
  }

  /**
   * One rule's evaluation, isolated from the others: a rule that throws (a value no parser should
   * have let through) cannot know, so its alerts stay as they are, and the other rules and the
   * target's page go on. Logged once per target and rule until it stops throwing.
   */
  private isolated<T>(rule: string, target: string, evaluate: () => T): T | typeof UNKNOWN {
    const key = `${target}\u0000${rule}`;
    try {
      const result = evaluate();
      if (this.throwing.delete(key)) this.log.info({ target, rule }, 'alert rule evaluates again');
      return result;
    } catch (err) {
      if (!this.throwing.has(key)) this.log.error({ target, rule, error: err instanceof Error ? `${err.name}: ${err.message}` : String(err) }, 'alert rule failed; its alerts for this target stay as they are');
      this.throwing.add(key);
      return UNKNOWN;
    }
  }

  private ruleState(rule: AnyRule, target: string): unknown {
    if (!rule.newState) return undefined;
    let ofTarget = this.ruleStates.get(target);
    if (!ofTarget) this.ruleStates.set(target, (ofTarget = new Map()));
    if (!ofTarget.has(rule.name)) ofTarget.set(rule.name, rule.newState());
    return ofTarget.get(rule.name);
  }

  /** At most MAX_ALERTS_PER_TARGET conditions of one evaluation: a target reporting thousands of failures is not thousands of alerts. */
  private capped(evaluation: Evaluation): Evaluation['conditions'] {
    const { conditions, target } = evaluation;
    if (conditions.length <= MAX_ALERTS_PER_TARGET) {
      this.overLimit.delete(target);
      return conditions;
    }
    if (!this.overLimit.has(target)) this.log.warn({ target, conditions: conditions.length, kept: MAX_ALERTS_PER_TARGET }, 'too many alert conditions for one target; only the first are tracked');
    this.overLimit.add(target);
    return conditions.slice(0, MAX_ALERTS_PER_TARGET);
  }
}

/** The probe kinds each target of a config has jobs of, computed once per config. */
const probeKindsOf = new WeakMap<Config, Map<string, Set<string>>>();

/** Whether the config has a job of this kind for the target that has not reported on it yet (asked only by the sources that care, not per poll). */
function awaits(config: Config, target: string, state: TargetState | undefined, kind: string): boolean {
  let kinds = probeKindsOf.get(config);
  if (!kinds) {
    kinds = new Map();
    for (const job of jobsOf(config)) if (job.target) kinds.set(job.target, (kinds.get(job.target) ?? new Set()).add(job.kind));
    probeKindsOf.set(config, kinds);
  }
  return kinds.get(target)?.has(kind) === true && !state?.jobs.has(kind);
}

/** What the rules fed by `source` are handed about a target, from the store (chain data only while it is configured). */
export function sourceUpdate(source: string, target: Target, state: TargetState | undefined, store: Store, config: Config): SourceUpdate {
  const chainData = config.chainData ? store.chainData : undefined;
  return {
    awaits: (kind) => awaits(config, target.name, state, kind),
    source,
    target: target.name,
    kind: target.kind,
    ...(target.kind === 'node' ? { network: target.network } : {}),
    ...(state ? { observation: state.observation } : {}),
    jobs: state?.jobs ?? new Map(),
    lags: () => store.lagsOf(target.name),
    ...(chainData ? { chainData } : {}),
  };
}

/** What cannot be known now, by target then rule: kept from each evaluation, for the views. */
export type UnknownBook = Map<string, Map<string, UnknownVerdict>>;

/** Records what an evaluation says cannot be known (and forgets what it now knows, for the rules it covers). */
export function noteUnknown(book: UnknownBook, evaluation: Evaluation): void {
  let ofTarget = book.get(evaluation.target);
  for (const name of evaluation.covers) {
    const why = evaluation.unknown.includes(name) ? evaluation.unknownWhy?.[name] : undefined;
    if (why) {
      if (!ofTarget) book.set(evaluation.target, (ofTarget = new Map()));
      ofTarget.set(name, why);
    } else ofTarget?.delete(name);
  }
  if (ofTarget?.size === 0) book.delete(evaluation.target);
}
