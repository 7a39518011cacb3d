/**
 * The incidents stage: a pure state machine (no I/O, no clock of its own) that turns one target's
 * verdicts (an Evaluation) into incidents with a stable identity. inactive → pending → firing →
 * resolved: a condition must hold for N evaluations (or the node's own contiguousFailures reach N)
 * before it fires; severity escalates with time or value; a firing incident resolves after
 * resolve_polls good evaluations. An incident is `alertname` + `target` + its identity labels
 * (`check`, `component`, `chain`, `subnet_id`, `validation_id`, …) for its whole life: labels that
 * describe it rather than name it (`scope`) follow the verdict until receivers are told the
 * incident, and stay as told from then on (its text keeps saying what is true now).
 */
import { createHash } from 'node:crypto';
import { resolveSummary, ruleNamed, type RuleSettings } from './rules/index.js';
import { ZERO_TIME, type AlertNotice, type AlertState, type Condition, type Evaluation, type NoticeKind, type Severity } from './types.js';

/** Finding labels that describe an incident rather than name it: a change of one never opens another incident, and once told it stays as told. */
export const ATTRIBUTE_LABELS: readonly string[] = ['scope'];
const SUBJECT_LABELS = ['check', 'component', 'chain'];

/** What the machine needs to know besides the verdicts: the rules' settings and the target's static labels. */
export interface StepContext {
  now: number;
  settings(alertname: string): RuleSettings;
  /** `alerts.for_polls` and `alerts.resolve_polls`. */
  forPolls: number;
  resolvePolls: number;
  /** The target's static labels from config. */
  targetLabels: Record<string, string>;
  /** A source that stopped, or a target that left: its firing incidents resolve now. */
  resolveAtOnce?: boolean;
  /** Why they resolve at once, for their resolve's words ("target removed from the config"). */
  gone?: string;
  /**
   * The only round there is (`avahealth check`): a condition holds for as many polls as it can
   * (for_polls counts as 1; a `for` duration still cannot pass in one round), and the round's
   * last verdict on an incident is its word (resolve_polls counts as 1).
   */
  oneRound?: boolean;
}

export interface StepResult {
  changed: boolean;
  /** Keys of incidents whose state really changed (began firing, or resolved): what flap damping counts. */
  transitions: string[];
}

/** Applies one evaluation of one target to that target's incidents (keyed by incident key), in place. */
export function step(incidents: Map<string, AlertState>, evaluation: Evaluation, conditions: readonly Condition[], ctx: StepContext): StepResult {
  const { target } = evaluation;
  const { now } = ctx;
  const active = new Set<string>();
  const transitions: string[] = [];
  let changed = false;

  for (const condition of conditions) {
    const rule = ctx.settings(condition.alertname);
    if (rule.disabled) continue;
    let labels: Record<string, string> = { alertname: condition.alertname, target, ...condition.identity, ...ctx.targetLabels };
    const key = keyOf(condition.alertname, target, condition.identity);
    active.add(key);
    let state = incidents.get(key);
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
      incidents.set(key, state);
      changed = true;
    }
    // Once receivers have the incident, its attributes stay as told: Alertmanager keys an alert by its
    // labels, so a flipped `scope` would be a resolve and a new alert there. Its text says what is true now.
    const told = state.notified?.phase === 'firing' ? state.notified.labels : undefined;
    if (told) labels = { ...labels, ...Object.fromEntries(ATTRIBUTE_LABELS.filter((name) => told[name] !== undefined).map((name) => [name, told[name]!])) };
    // Not told yet and the network's until now (a notice held under the network's alert): as the
    // validator's own problem it holds for its own for_polls first, from fresh answers (the views
    // read inside a dip outlive it by up to an interval).
    else if (state.labels.scope === 'network' && labels.scope === 'self') {
      state.consecutive = 0;
      state.activeSince = now;
      if (state.phase === 'firing') {
        state.phase = 'pending';
        delete state.firingSince;
      }
    }
    // Its cause changed while it was pending: it holds from then, with that cause's own alert.
    else if (condition.holdFrom !== undefined && state.phase === 'pending' && state.activeSince < condition.holdFrom) {
      state.consecutive = 0;
      state.activeSince = now;
    }
    if (!sameLabels(state.labels, labels)) [state.labels, changed] = [labels, true];
    state.consecutive++;
    state.okPolls = 0;
    state.annotations = { summary: condition.summary, description: condition.description };
    if (condition.until !== undefined) state.until = condition.until;
    else delete state.until;
    const forPolls = ctx.oneRound ? 1 : (rule.forPolls ?? ctx.forPolls);
    const held = (state.consecutive >= forPolls || (condition.nodeFailures ?? 0) >= forPolls) && condition.settling !== true;
    if (state.phase === 'pending' && held && now - state.activeSince >= rule.forMs) {
      state.phase = 'firing';
      state.firingSince = now;
      transitions.push(key);
      changed = true;
    }
    if (state.phase === 'firing') {
      const escalated = rule.criticalAfterMs !== undefined && now - state.firingSince! >= rule.criticalAfterMs;
      const severity: Severity = condition.severity === 'critical' || rule.severity === 'critical' || escalated ? 'critical' : 'warning';
      if (severity !== state.severity) [state.severity, changed] = [severity, true];
      // An acknowledgement holds until the incident escalates past what was acknowledged.
      if (state.acknowledged && severity === 'critical' && state.acknowledged.severity === 'warning') delete state.acknowledged;
    }
  }

  for (const state of incidents.values()) {
    if (active.has(state.key) || state.phase === 'resolved') continue;
    if (!evaluation.covers.includes(state.alertname) || evaluation.unknown.includes(state.alertname)) continue;
    if (state.phase === 'pending') {
      incidents.delete(state.key);
      changed = true;
      continue;
    }
    state.okPolls++;
    state.consecutive = 0;
    if (ctx.resolveAtOnce || ctx.oneRound || evaluation.over?.includes(state.alertname) || state.okPolls >= ctx.resolvePolls) {
      state.phase = 'resolved';
      state.endedAt = now;
      // A resolve says what ended and how, from what is true now: never the firing's words again.
      const facts = ctx.resolveAtOnce ? undefined : evaluation.recovered?.(state.alertname, state.labels);
      state.annotations = { ...state.annotations, summary: resolveSummary(state.alertname, target, state.labels, facts, ctx.resolveAtOnce ? (ctx.gone ?? 'no longer evaluated') : undefined) };
      // "outcome not known yet": receivers hear the outcome on this incident once its rule says it (engine.ts).
      if (facts !== undefined && ruleNamed(state.alertname)?.outcome?.pending(facts)) state.awaitsOutcome = { since: startsAt(state) };
      transitions.push(state.key);
      changed = true;
    }
  }
  return { changed, transitions };
}

/**
 * What receivers should hear about an incident now, comparing it with what they were last told
 * (undefined: nothing). Whether they may hear it now is the policy stage's call.
 */
export function dueNotice(state: AlertState, repeatIntervalMs: number, now: number): NoticeKind | undefined {
  const told = state.notified;
  if (state.phase === 'pending') return undefined;
  if (state.phase === 'resolved') return told?.phase === 'firing' ? 'resolved' : undefined;
  if (!told || told.phase !== 'firing') return 'firing';
  if (told.severity !== state.severity) return 'severity_changed';
  if (told.labels && !sameLabels(told.labels, state.labels)) return 'updated';
  if (repeatIntervalMs > 0 && now - told.at >= repeatIntervalMs && !state.acknowledged) return 'reminder';
  return undefined;
}

/** Records that receivers were told this (firing) incident as it is now. */
export function markTold(state: AlertState, now: number): void {
  state.notified = { phase: 'firing', severity: state.severity, at: now, since: startsAt(state), labels: { ...state.labels } };
}

/** Resolved, its resolve told, and kept only for the outcome its rule tells later (`awaitsOutcome`): not an alert any more. */
export function awaitingOutcomeOnly(state: AlertState): boolean {
  return state.phase === 'resolved' && state.notified?.phase === 'resolved';
}

/** While receivers have it open, the startsAt they were told; else when it fired. */
export function startsAt(state: AlertState): number {
  return (state.notified?.phase === 'firing' ? state.notified.since : undefined) ?? state.firingSince ?? state.activeSince;
}

/**
 * The incident as receivers see it. `previousLabels`: the labels (with severity) receivers hold it
 * under when they differ from today's, so a receiver that keys alerts by labels (Alertmanager)
 * ends that copy at once.
 */
export function noticeOf(state: AlertState, kind: NoticeKind, now: number, externalUrl: string): AlertNotice {
  const resolved = state.phase === 'resolved';
  const labels = { ...state.labels, severity: state.severity };
  const told = state.notified?.phase === 'firing' ? { ...(state.notified.labels ?? state.labels), severity: state.notified.severity } : undefined;
  return {
    status: resolved ? 'resolved' : 'firing',
    kind,
    labels,
    annotations: { ...state.annotations },
    startsAt: new Date(startsAt(state)).toISOString(),
    endsAt: resolved ? new Date(state.endedAt ?? now).toISOString() : ZERO_TIME,
    fingerprint: state.fingerprint,
    key: state.key,
    generatorURL: `${externalUrl}/targets/${encodeURIComponent(state.target)}`,
    ...(told && !sameLabels(told, labels) ? { previousLabels: told } : {}),
  };
}

export function sameLabels(a: Record<string, string>, b: Record<string, string>): boolean {
  const names = Object.keys(a);
  return names.length === Object.keys(b).length && names.every((name) => a[name] === b[name]);
}

/**
 * alertname, target and every identity label a rule gave the finding but its attributes (one
 * incident per distinct identity). The subject labels keep their fixed places, so keys and
 * fingerprints of alerts that have only those stay what earlier versions persisted; any other
 * identity label follows, sorted.
 */
export function keyOf(alertname: string, target: string, identity: Record<string, string>): string {
  const others = Object.keys(identity)
    .filter((name) => !SUBJECT_LABELS.includes(name) && !ATTRIBUTE_LABELS.includes(name))
    .sort()
    .map((name) => `${name}=${identity[name]}`);
  return [alertname, target, ...SUBJECT_LABELS.map((name) => identity[name] ?? ''), ...others].join('|');
}

/** Stable across restarts and replicas: the dedup key at every receiver. */
export function fingerprint(key: string): string {
  return createHash('sha256').update(key).digest('hex').slice(0, 16);
}
