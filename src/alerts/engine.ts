/**
 * The alert state machine: inactive → pending → firing → resolved. A condition must hold for N
 * evaluations (or the node's own contiguousFailures reach N) before it fires; severity escalates
 * with time or value; a firing alert resolves after resolve_polls good evaluations. Notifications
 * follow from the difference between an alert's state and what receivers were last told, so
 * silences, maintenance windows and flapping simply hold them. States are persisted, and at start
 * reconciled with what the outboxes say receivers were told (reconcile), so a restart, even after a
 * crash, neither repeats a firing alert nor forgets to resolve it.
 */
import { createHash, randomUUID } from 'node:crypto';
import { join } from 'node:path';
import type { AlertsConfig, Config, Target } from '../config/load.js';
import type { Logger } from '../log.js';
import { DependentFile, readJsonFile } from '../state/atomic.js';
import { alertStateFileSchema, type OpenIncident } from './persisted.js';
import { targetNamed, targetsOf } from '../model/targets.js';
import { jobsOf } from '../probes/registry.js';
import type { Store, TargetState } from '../store.js';
import { sanitizeLabelValue } from '../util/labels.js';
import { RULE_SOURCE_NAMES, RULE_SOURCES, ruleNamed, rulesOf, ruleSettings, UNKNOWN, type AnyRule, type RuleInputs, type RuleSettings, type RuleSource, type SourceUpdate } from './rules/index.js';
import { Flaps } from './flaps.js';
import { NotificationGate } from './gate.js';
import { Silences } from './silences.js';
import { ZERO_TIME, type AlertName, type AlertNotice, type AlertState, type Condition, type Evaluation, type NoticeKind, type NotificationBatch, type Severity } from './types.js';
import type { ConfigDiff } from '../config/diff.js';

const PERSIST_DELAY_MS = 1000;
const SHARED_RULES = ''; // see rule(); target names are never empty
/** Alerts tracked per target: enough for every real check of a node, few enough to keep state and notifications small. */
export const MAX_ALERTS_PER_TARGET = 100;

export interface EngineOptions {
  log: Logger;
  /** Receives what one evaluation changed (already persisted in the outboxes before states are saved). */
  onBatch: (batch: NotificationBatch) => void;
  /** Settles once every batch handed to onBatch is on disk in the outboxes (undefined: all are); states are saved after. */
  outboxesWritten?: () => Promise<unknown> | undefined;
}

export class AlertEngine {
  readonly silences: Silences;
  /** Silences, maintenance windows and flap holds: every notification to every receiver passes it. */
  readonly gate: NotificationGate;
  /** Alert states by target, then by key: an evaluation only ever touches its own target's. */
  private readonly states = new Map<string, Map<string, AlertState>>();
  /** Times of firing/resolved changes per alert key; outlives the states (a resolved alert is removed). */
  private readonly flaps: Flaps;
  /** Alert keys under a flap hold (for the log lines when a hold begins and ends). */
  private readonly flapHeld = new Set<string>();
  /** Each rule's own state, by target then rule name. */
  private readonly ruleStates = new Map<string, Map<string, unknown>>();
  /** Targets whose last evaluation was over MAX_ALERTS_PER_TARGET (warned once until it is not). */
  private readonly overLimit = new Set<string>();
  private readonly file: DependentFile;
  private config: Config;
  private persistTimer?: NodeJS.Timeout;
  private readonly rules = new Map<string, Map<string, RuleSettings>>();

  constructor(config: Config, private readonly options: EngineOptions) {
    this.config = config;
    this.file = new DependentFile(join(config.stateDir, 'alerts.json'), (err) => options.log.debug({ err, file: this.file.path }, 'cannot save alert states'));
    this.silences = new Silences(config.alerts, config.stateDir, options.log);
    const read = readJsonFile(this.file.path, alertStateFileSchema);
    const restored = read.status === 'ok' ? read.value : { alerts: [], flaps: {} };
    for (const state of restored.alerts) {
      this.statesOf(state.target).set(state.key, state);
      if (state.state === 'flapping') this.flapHeld.add(state.key);
    }
    this.flaps = new Flaps(config.alerts.flapThreshold, config.alerts.flapWindowMs, new Map(Object.entries(restored.flaps ?? {})));
    this.gate = new NotificationGate(this.silences, this.flaps);
    if (read.status === 'corrupt') options.log.error({ file: this.file.path, movedTo: read.movedTo, error: read.error }, 'alert state file unreadable; set aside, starting empty');
    if (this.states.size > 0) options.log.info({ alerts: this.list().length }, 'alert states restored');
  }

  private get alerts(): AlertsConfig {
    return this.config.alerts;
  }

  /** A reload: new rules, routes and silences; alerts of targets that left the config resolve. */
  reconfigure(diff: ConfigDiff): void {
    this.setConfig(diff.next);
    for (const name of diff.targets.removed) this.removeTarget(name);
  }

  setConfig(config: Config): void {
    this.config = config;
    this.rules.clear();
    this.silences.setConfig(config.alerts);
    this.flaps.setLimits(config.alerts.flapThreshold, config.alerts.flapWindowMs);
  }

  /** Merged rule settings until the config changes: one per rule for all targets without a tuning of their own for it (SHARED_RULES), else per target. */
  private rule(name: string, target: string): RuleSettings {
    const definition = ruleNamed(name);
    const own = definition ? this.alerts.targetRules[target]?.[definition.name] : undefined;
    let byRule = this.rules.get(own ? target : SHARED_RULES);
    if (!byRule) this.rules.set(own ? target : SHARED_RULES, (byRule = new Map()));
    let rule = byRule.get(name);
    if (!rule) {
      rule = definition ? ruleSettings(definition, [this.alerts.rules[definition.name], own], this.alerts.bootstrapGraceMs) : { disabled: true, forMs: 0, severity: 'warning' };
      byRule.set(name, rule);
    }
    return rule;
  }

  list(): AlertState[] {
    return [...this.states.values()].flatMap((byKey) => [...byKey.values()]);
  }

  /**
   * What Alertmanager receivers are re-sent while it lasts: the firing alerts receivers were told
   * of, and only those the gate lets through now (a silenced or flapping alert is not re-sent).
   */
  firing(now = Date.now()): AlertNotice[] {
    return this.list()
      .filter((s) => s.phase === 'firing' && s.notified?.phase === 'firing' && !this.gate.hold(this.gateView(s), now))
      .map((s) => this.notice(s, 'firing', now));
  }

  /**
   * Follows the store: every report on a target (a probe job's observation, a job turned off, a
   * chain-data refresh for every target) evaluates the rules it feeds (rules/sources.ts). What the
   * store holds already is evaluated at once.
   */
  attach(store: Store): void {
    const updated = (source: string, name: string, state: TargetState | undefined) => {
      const target = targetNamed(this.config, name);
      if (target) this.updated(sourceUpdate(source, target, state, store, this.config));
    };
    store.onUpdate((name, state, source) => updated(source, name, state));
    store.onChainData(() => {
      for (const target of targetsOf(this.config)) updated('chaindata', target.name, store.get(target.name));
    });
    for (const [name, state] of store.entries()) for (const source of state.jobs.keys()) updated(source, name, state);
  }

  /** One report on a target: the rules of every source it feeds evaluate (a source that stopped resolves its alerts at once). */
  updated(update: SourceUpdate, now = Date.now()): void {
    for (const source of RULE_SOURCE_NAMES) {
      const feed = RULE_SOURCES[source];
      if (feed.from !== update.source) continue;
      const input = feed.input(update);
      if (input === null) this.evaluate({ target: update.target, covers: rulesOf(source).map((r) => r.name), unknown: [], conditions: [] }, now, { resolveAtOnce: true });
      else if (input !== undefined) this.observe(source, update.target, input, now);
    }
  }

  /** Runs every rule of a source over what it reported about a target, and applies the outcome. */
  observe<S extends RuleSource>(source: S, target: string, input: RuleInputs[S], now = Date.now()): void {
    const rules = rulesOf(source);
    const evaluation: Evaluation = { target, covers: rules.map((r) => r.name), unknown: [], conditions: [] };
    const label = (value: string) => sanitizeLabelValue(value, this.config.limits.maxLabelLength);
    const enabled = (name: string) => !this.rule(name, target).disabled;
    for (const rule of rules) {
      const result = rule.evaluate(input, { target, settings: this.rule(rule.name, target), enabled, now, label }, this.ruleState(rule, target));
      if (result === UNKNOWN) evaluation.unknown.push(rule.name);
      else for (const finding of result) evaluation.conditions.push({ ...finding, alertname: rule.name, target });
    }
    this.evaluate(evaluation, now);
  }

  private ruleState(rule: AnyRule, target: string): unknown {
    if (!rule.newState) return undefined;
    let ofTarget = this.ruleStates.get(target);
    if (!ofTarget) this.ruleStates.set(target, (ofTarget = new Map()));
    if (!ofTarget.has(rule.name)) ofTarget.set(rule.name, rule.newState());
    return ofTarget.get(rule.name);
  }

  /** The alerts receivers were told fire (whatever the gate says now): what an outbox journal from before open incidents were recorded is seeded with. */
  toldFiring(now = Date.now()): AlertNotice[] {
    return this.list()
      .filter((s) => s.notified?.phase === 'firing')
      .map((s) => ({ ...this.notice(s, 'firing', now), labels: { ...s.labels, severity: s.notified!.severity } }));
  }

  /**
   * After a start, before any evaluation: the alert states follow what the outboxes say receivers
   * were told, which is on disk before anything is sent while the states are saved up to a second
   * later. An incident open at a receiver is firing here, under the startsAt it was announced
   * with, so its resolve comes when the condition clears; an alert these states say was announced
   * but every receiver routing it was last told resolved starts over (it fires afresh if it still
   * holds). Alerts no receiver routes are left as saved.
   */
  reconcile(told: { open: ReadonlyMap<string, OpenIncident>; routed: (alert: AlertNotice) => boolean }, now = Date.now()): void {
    let reopened = 0;
    let closed = 0;
    for (const { at, alert } of told.open.values()) {
      const labels = Object.fromEntries(Object.entries(alert.labels).filter(([name]) => name !== 'severity'));
      const key = alert.key ?? this.list().find((s) => s.fingerprint === alert.fingerprint)?.key;
      if (!key || !labels.alertname || !labels.target || fingerprint(key) !== alert.fingerprint) continue;
      const states = this.statesOf(labels.target);
      const state = states.get(key);
      const severity: Severity = alert.labels.severity === 'critical' ? 'critical' : 'warning';
      const startedAt = Date.parse(alert.startsAt);
      if (state?.notified?.phase === 'firing' && (state.notified.since ?? state.firingSince) === startedAt) continue;
      reopened++;
      const notified = { phase: 'firing' as const, severity, at, since: startedAt };
      if (state && state.phase !== 'pending') {
        // firing (or resolved, its resolve held by the gate): the announced incident is this one
        Object.assign(state, { notified, firingSince: startedAt });
        continue;
      }
      states.set(key, {
        key,
        fingerprint: alert.fingerprint,
        alertname: labels.alertname as AlertName,
        target: labels.target,
        labels,
        annotations: { ...alert.annotations },
        phase: 'firing',
        state: 'firing',
        severity,
        consecutive: state?.consecutive ?? 1,
        okPolls: 0,
        activeSince: startedAt,
        firingSince: startedAt,
        notified,
      });
    }
    for (const [target, states] of this.states) {
      for (const state of [...states.values()]) {
        if (state.notified?.phase !== 'firing' || told.open.has(state.fingerprint)) continue;
        const announced = { ...this.notice(state, 'firing', now), labels: { ...state.labels, severity: state.notified.severity } };
        if (!told.routed(announced)) continue;
        closed++;
        if (state.phase === 'pending') delete state.notified;
        else states.delete(state.key);
      }
      if (states.size === 0) this.states.delete(target);
    }
    if (reopened + closed === 0) return;
    this.options.log.info({ reopened, closed }, 'alert states reconciled with what receivers were told');
    this.schedulePersist();
  }

  /**
   * After a start, the restored alerts of targets this daemon does not watch: those of a target
   * that now belongs to another shard (the shard count changed) resolve, saying so: its new owner
   * never knew them and announces what still holds afresh; those of a target that left the config
   * while the daemon was down resolve, as on a reload (unless `resolveUnwatched` is false, as with
   * discovery, whose answer may still be incomplete).
   */
  settleRestored(watched: ReadonlySet<string>, ownedHere: (name: string) => boolean, resolveUnwatched: boolean, now = Date.now()): void {
    for (const name of [...this.states.keys()]) {
      if (watched.has(name)) continue;
      if (!ownedHere(name)) {
        this.options.log.info({ target: name, alerts: this.states.get(name)?.size ?? 0 }, 'restored alerts of a target that moved to another shard resolved');
        this.removeTarget(name, now, { because: 'target moved to another shard', handover: true });
      } else if (resolveUnwatched) this.removeTarget(name, now);
    }
  }

  /** Resolves every alert of a target at once, gate or not; `because` is added to what their resolves say. */
  removeTarget(name: string, now = Date.now(), { because, handover = false }: { because?: string; handover?: boolean } = {}): void {
    this.ruleStates.delete(name);
    if (because) for (const s of this.states.get(name)?.values() ?? []) s.annotations = { ...s.annotations, description: `${s.annotations.description} Resolved by avahealth: ${because}.` };
    const covers = [...new Set(this.list().filter((s) => s.target === name).map((s) => s.alertname))];
    const heldBy = (s: AlertState) => (s.notified?.phase === 'firing' ? this.gate.hold(this.gateView(s), now)?.reason : undefined);
    for (const s of this.states.get(name)?.values() ?? []) if (heldBy(s)) this.options.log.info({ target: name, alertname: s.alertname, labels: s.labels, heldBy: heldBy(s) }, 'alert of a target that left the config resolved despite its silence or hold: the page it sent is closed');
    if (covers.length > 0) this.evaluate({ target: name, covers, unknown: [], conditions: [] }, now, { resolveAtOnce: true, handover });
    this.flaps.forgetTarget(name, this.flapHeld);
  }

  /** At most MAX_ALERTS_PER_TARGET conditions of one evaluation: a target reporting thousands of failures is not thousands of alerts. */
  private capped(evaluation: Evaluation): Condition[] {
    const { conditions, target } = evaluation;
    if (conditions.length <= MAX_ALERTS_PER_TARGET) {
      this.overLimit.delete(target);
      return conditions;
    }
    if (!this.overLimit.has(target)) this.options.log.warn({ target, conditions: conditions.length, kept: MAX_ALERTS_PER_TARGET }, 'too many alert conditions for one target; only the first are tracked');
    this.overLimit.add(target);
    return conditions.slice(0, MAX_ALERTS_PER_TARGET);
  }

  evaluate(evaluation: Evaluation, now = Date.now(), options: { resolveAtOnce?: boolean; handover?: boolean } = {}): void {
    const { target } = evaluation;
    const states = this.statesOf(target);
    const active = new Set<string>();
    let changed = false;

    for (const condition of this.capped(evaluation)) {
      const rule = this.rule(condition.alertname, target);
      if (rule.disabled) continue;
      const labels = { alertname: condition.alertname, target, ...condition.identity, ...this.targetLabels(target) };
      const key = keyOf(condition.alertname, target, condition.identity);
      active.add(key);
      let state = states.get(key);
      if (!state || state.phase === 'resolved') {
        const previous = state;
        state = {
          key,
          fingerprint: fingerprint(key),
          alertname: condition.alertname,
          target,
          labels,
          annotations: { summary: condition.summary, description: condition.description },
          phase: 'pending',
          state: 'pending',
          severity: rule.severity,
          consecutive: 0,
          okPolls: 0,
          activeSince: now,
          ...(previous?.notified ? { notified: previous.notified } : {}),
        };
        states.set(key, state);
        changed = true;
      }
      state.consecutive++;
      state.okPolls = 0;
      state.annotations = { summary: condition.summary, description: condition.description };
      const forPolls = rule.forPolls ?? this.alerts.forPolls;
      const held = state.consecutive >= forPolls || (condition.nodeFailures ?? 0) >= forPolls;
      if (state.phase === 'pending' && held && now - state.activeSince >= rule.forMs) {
        state.phase = 'firing';
        state.firingSince = now;
        this.flaps.record(key, now);
        changed = true;
      }
      if (state.phase === 'firing') {
        const escalated = rule.criticalAfterMs !== undefined && now - state.firingSince! >= rule.criticalAfterMs;
        const severity: Severity = condition.severity === 'critical' || rule.severity === 'critical' || escalated ? 'critical' : 'warning';
        if (severity !== state.severity) [state.severity, changed] = [severity, true];
      }
    }

    for (const state of states.values()) {
      if (active.has(state.key) || state.phase === 'resolved') continue;
      if (!evaluation.covers.includes(state.alertname) || evaluation.unknown.includes(state.alertname)) continue;
      if (state.phase === 'pending') {
        states.delete(state.key);
        changed = true;
        continue;
      }
      state.okPolls++;
      state.consecutive = 0;
      if (options.resolveAtOnce || state.okPolls >= this.alerts.resolvePolls) {
        state.phase = 'resolved';
        state.endedAt = now;
        this.flaps.record(state.key, now);
        changed = true;
      }
    }

    // A target that left the config: nothing holds its resolves (a held one would never be let out).
    const notices = this.decideNotifications(states, now, { gone: options.resolveAtOnce === true });
    this.endFlapHolds(target, now);
    if (states.size === 0) this.states.delete(target);
    if (notices.length > 0) {
      this.options.onBatch({ id: randomUUID(), target, createdAt: now, alerts: notices, ...(options.handover ? { handover: true } : {}) });
      changed = true;
    }
    if (changed) this.schedulePersist();
  }

  /**
   * Alert states are written at most once a second (PERSIST_DELAY_MS). Their notifications are already in
   * the outbox journals (durable first), so a crash inside the window can repeat a notification
   * (same fingerprint, at-least-once) but never lose one.
   */
  private schedulePersist(): void {
    if (this.persistTimer) return;
    this.persistTimer = setTimeout(() => void this.flush(), PERSIST_DELAY_MS);
    this.persistTimer.unref();
  }

  /** Writes the alert states now (on stop, and before reading them back in tests). */
  flush(): Promise<void> {
    clearTimeout(this.persistTimer);
    this.persistTimer = undefined;
    return this.persist();
  }

  /** Compares each alert of the target with what receivers were last told, through the gate. */
  private decideNotifications(states: Map<string, AlertState>, now: number, gate: { gone: boolean }): AlertNotice[] {
    const notices: AlertNotice[] = [];
    for (const state of [...states.values()]) {
      if (state.phase === 'pending') {
        state.state = 'pending';
        continue;
      }
      const hold = this.gate.hold(this.gateView(state), now, gate);
      this.showFlapping(state, hold?.kind === 'flapping');
      if (state.phase === 'resolved') {
        if (!state.notified || state.notified.phase === 'resolved') {
          states.delete(state.key); // never announced: nothing to take back
        } else if (!hold) {
          notices.push(this.notice(state, 'resolved', now));
          states.delete(state.key);
        }
        continue;
      }
      if (hold) continue;
      const told = state.notified;
      let kind: NoticeKind | undefined;
      if (!told || told.phase !== 'firing') kind = 'firing';
      else if (told.severity !== state.severity) kind = 'severity_changed';
      else if (this.alerts.repeatIntervalMs > 0 && now - told.at >= this.alerts.repeatIntervalMs) kind = 'reminder';
      if (!kind) continue;
      notices.push(this.notice(state, kind, now));
      state.notified = { phase: 'firing', severity: state.severity, at: now, since: this.startsAt(state) };
    }
    return notices;
  }

  /** A flap hold is visible: state `flapping` (metrics, API, status page) and a log line when it begins. */
  private showFlapping(state: AlertState, flapping: boolean): void {
    state.state = flapping ? 'flapping' : state.phase;
    if (!flapping || this.flapHeld.has(state.key)) return;
    this.flapHeld.add(state.key);
    const window = `${this.alerts.flapWindowMs / 1000}s`;
    this.options.log.info({ alertname: state.alertname, target: state.target, labels: state.labels, flapThreshold: this.alerts.flapThreshold, flapWindow: window }, 'alert is flapping: its notifications are held until it is stable for the flap window');
  }

  /** The hold of an alert of this target ends once it has been stable for the window (even if it resolved meanwhile). */
  private endFlapHolds(target: string, now: number): void {
    for (const key of this.flapHeld) {
      if (key.split('|')[1] !== target || this.flaps.isFlapping(key, now)) continue;
      this.flapHeld.delete(key);
      const [alertname] = key.split('|');
      const state = this.states.get(target)?.get(key);
      this.options.log.info({ alertname, target, ...(state ? { labels: state.labels } : {}), state: state?.phase ?? 'inactive' }, 'alert stopped flapping: its current state is told once');
    }
  }

  private gateView(state: AlertState): { key: string; labels: Record<string, string> } {
    return { key: state.key, labels: { ...state.labels, severity: state.severity } };
  }

  /** While receivers have it open, the startsAt they were told; else when it fired. */
  private startsAt(state: AlertState): number {
    return (state.notified?.phase === 'firing' ? state.notified.since : undefined) ?? state.firingSince ?? state.activeSince;
  }

  private notice(state: AlertState, kind: NoticeKind, now: number): AlertNotice {
    const resolved = state.phase === 'resolved';
    return {
      status: resolved ? 'resolved' : 'firing',
      kind,
      labels: { ...state.labels, severity: state.severity },
      annotations: { ...state.annotations },
      startsAt: new Date(this.startsAt(state)).toISOString(),
      endsAt: resolved ? new Date(state.endedAt ?? now).toISOString() : ZERO_TIME,
      fingerprint: state.fingerprint,
      key: state.key,
      generatorURL: `${this.config.externalUrl}/targets/${encodeURIComponent(state.target)}`,
    };
  }

  /** Only the last flap_threshold + 1 changes matter: more are never kept, whatever the churn. */
  private statesOf(target: string): Map<string, AlertState> {
    let byKey = this.states.get(target);
    if (!byKey) this.states.set(target, (byKey = new Map()));
    return byKey;
  }

  private targetLabels(name: string): Record<string, string> {
    const target = this.config.nodes.find((n) => n.name === name) ?? this.config.services.find((s) => s.name === name);
    return { ...target?.labels };
  }

  private persist(): Promise<void> {
    return this.file.write(JSON.stringify({ version: 1, alerts: this.list(), flaps: this.flaps.toJSON() }), this.options.outboxesWritten?.());
  }
}

const SUBJECT_LABELS = ['check', 'component', 'chain'];

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

/**
 * alertname, target and every identity label a rule gave the finding (one alert per distinct
 * identity). The subject labels keep their fixed places, so keys and fingerprints of alerts that
 * have only those stay what earlier versions persisted; any other identity label follows, sorted.
 */
function keyOf(alertname: string, target: string, identity: Record<string, string>): string {
  const others = Object.keys(identity)
    .filter((name) => !SUBJECT_LABELS.includes(name))
    .sort()
    .map((name) => `${name}=${identity[name]}`);
  return [alertname, target, ...SUBJECT_LABELS.map((name) => identity[name] ?? ''), ...others].join('|');
}

/** Stable across restarts and replicas: the dedup key at every receiver. */
function fingerprint(key: string): string {
  return createHash('sha256').update(key).digest('hex').slice(0, 16);
}
