/**
 * The alert state machine: inactive → pending → firing → resolved. A condition must hold for N
 * evaluations (or the node's own contiguousFailures reach N) before it fires; severity escalates
 * with time or value; a firing alert resolves after resolve_polls good evaluations. Notifications
 * follow from the difference between an alert's state and what receivers were last told, so
 * silences, maintenance windows and flapping simply hold them. States are persisted, so a restart
 * neither repeats a firing alert nor forgets to resolve it.
 */
import { createHash, randomUUID } from 'node:crypto';
import { join } from 'node:path';
import type { ChainDataSnapshot } from '../chaindata/chaindata.js';
import type { ChainLag } from '../chaindata/lag.js';
import type { AlertsConfig, Config, NodeTarget, ServiceTarget } from '../config/load.js';
import type { Logger } from '../log.js';
import { readJsonFile, writeJsonAtomic } from '../state/atomic.js';
import type { TargetState } from '../store.js';
import { evaluateChainData, evaluateNode, evaluateService, isNotReady, ruleFor, type DiskTrend, type RuleSettings } from './rules.js';
import { Silences } from './silences.js';
import { ZERO_TIME, type AlertName, type AlertNotice, type AlertState, type Evaluation, type NoticeKind, type NotificationBatch, type Severity } from './types.js';

const DISK_WINDOW_MS = 3600_000;
const PERSIST_DELAY_MS = 1000;

export interface EngineOptions {
  log: Logger;
  /** Receives what one evaluation changed (already persisted in the outboxes before states are saved). */
  onBatch: (batch: NotificationBatch) => void;
}

export class AlertEngine {
  readonly silences: Silences;
  /** Alert states by target, then by key: an evaluation only ever touches its own target's. */
  private readonly states = new Map<string, Map<string, AlertState>>();
  /** Times of firing/resolved changes per alert key; outlives the states (a resolved alert is removed). */
  private readonly flaps = new Map<string, number[]>();
  private readonly disk = new Map<string, Array<[number, number]>>();
  private readonly file: string;
  private config: Config;
  private persistTimer?: NodeJS.Timeout;
  private readonly rules = new Map<string, RuleSettings>();

  constructor(config: Config, private readonly options: EngineOptions) {
    this.config = config;
    this.file = join(config.stateDir, 'alerts.json');
    this.silences = new Silences(config.alerts, config.stateDir, options.log);
    const read = readJsonFile(this.file, (v): v is { alerts: AlertState[]; flaps?: Record<string, number[]> } => typeof v === 'object' && v !== null && Array.isArray((v as { alerts?: unknown }).alerts));
    if (read.status === 'ok') {
      for (const state of read.value.alerts) this.statesOf(state.target).set(state.key, state);
      for (const [key, times] of Object.entries(read.value.flaps ?? {})) this.flaps.set(key, times);
    }
    if (read.status === 'corrupt') options.log.error({ file: this.file, movedTo: read.movedTo, error: read.error }, 'alert state file unreadable; set aside, starting empty');
    if (this.states.size > 0) options.log.info({ alerts: this.list().length }, 'alert states restored');
  }

  private get alerts(): AlertsConfig {
    return this.config.alerts;
  }

  setConfig(config: Config): void {
    this.config = config;
    this.rules.clear();
    this.silences.setConfig(config.alerts);
  }

  /** Merged rule settings, computed once per rule and target until the config changes. */
  private rule(name: AlertName, target: string): RuleSettings {
    const key = `${name}\u0000${target}`;
    let rule = this.rules.get(key);
    if (!rule) this.rules.set(key, (rule = ruleFor(this.alerts, name, target)));
    return rule;
  }

  list(): AlertState[] {
    return [...this.states.values()].flatMap((byKey) => [...byKey.values()]);
  }

  /** Every firing alert as receivers see it (Alertmanager re-sends these). */
  firing(now = Date.now()): AlertNotice[] {
    return this.list()
      .filter((s) => s.phase === 'firing')
      .map((s) => this.notice(s, 'firing', now));
  }

  nodeUpdated(target: NodeTarget, state: TargetState, now = Date.now()): void {
    const ratio = state.observation.endpoints.flatMap((e) => e.report?.checks ?? []).find((c) => c.disk?.availableRatio !== undefined)?.disk?.availableRatio;
    if (ratio !== undefined) this.recordDisk(target.name, now, ratio);
    this.evaluate(evaluateNode(target, state, this.alerts, this.diskTrend(target.name), this.config.limits.maxLabelLength), now);
  }

  serviceUpdated(target: ServiceTarget, state: TargetState, now = Date.now()): void {
    this.evaluate(evaluateService(target, state, this.config.limits.maxLabelLength), now);
  }

  chainDataUpdated(snapshot: ChainDataSnapshot, lags: ChainLag[], stateOf: (target: string) => TargetState | undefined, now = Date.now()): void {
    for (const node of this.config.nodes) {
      const validator = [...snapshot.validators.values()].find((v) => v.target === node.name);
      const nodeLags = lags.filter((l) => l.target === node.name);
      this.evaluate(evaluateChainData(node, nodeLags, validator, isNotReady(stateOf(node.name)), this.alerts, now / 1000, this.config.limits.maxLabelLength), now);
    }
  }

  /** A target that left the config: its alerts are resolved (and receivers told). */
  removeTarget(name: string, now = Date.now()): void {
    const covers = [...new Set(this.list().filter((s) => s.target === name).map((s) => s.alertname))];
    if (covers.length === 0) return;
    this.evaluate({ target: name, covers, unknown: [], conditions: [] }, now, { resolveAtOnce: true });
    this.disk.delete(name);
  }

  evaluate(evaluation: Evaluation, now = Date.now(), options: { resolveAtOnce?: boolean } = {}): void {
    const { target } = evaluation;
    const states = this.statesOf(target);
    const active = new Set<string>();
    let changed = false;

    for (const condition of evaluation.conditions) {
      const rule = this.rule(condition.alertname, target);
      if (rule.disabled) continue;
      const labels = { alertname: condition.alertname, target, ...condition.identity, ...this.targetLabels(target) };
      const key = keyOf(labels);
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
        this.recordTransition(key, now);
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
        this.recordTransition(state.key, now);
        changed = true;
      }
    }

    const notices = this.decideNotifications(states, now);
    if (states.size === 0) this.states.delete(target);
    if (notices.length > 0) {
      this.options.onBatch({ id: randomUUID(), target, createdAt: now, alerts: notices });
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
    this.persistTimer = setTimeout(() => this.flush(), PERSIST_DELAY_MS);
    this.persistTimer.unref();
  }

  /** Writes the alert states now (on stop, and before reading them back in tests). */
  flush(): void {
    clearTimeout(this.persistTimer);
    this.persistTimer = undefined;
    this.persist();
  }

  /** Compares each alert of the target with what receivers were last told. */
  private decideNotifications(states: Map<string, AlertState>, now: number): AlertNotice[] {
    const notices: AlertNotice[] = [];
    for (const state of [...states.values()]) {
      if (state.phase === 'pending') continue;
      const holdReason = this.silences.holds({ ...state.labels, severity: state.severity }, now) ?? (this.isFlapping(state.key, now) ? 'flapping' : undefined);
      if (state.phase === 'resolved') {
        if (!state.notified || state.notified.phase === 'resolved') {
          states.delete(state.key); // never announced: nothing to take back
        } else if (!holdReason) {
          notices.push(this.notice(state, 'resolved', now));
          states.delete(state.key);
        }
        continue;
      }
      if (holdReason) continue;
      const told = state.notified;
      let kind: NoticeKind | undefined;
      if (!told || told.phase !== 'firing') kind = 'firing';
      else if (told.severity !== state.severity) kind = 'severity_changed';
      else if (this.alerts.repeatIntervalMs > 0 && now - told.at >= this.alerts.repeatIntervalMs) kind = 'reminder';
      if (!kind) continue;
      notices.push(this.notice(state, kind, now));
      state.notified = { phase: 'firing', severity: state.severity, at: now };
    }
    return notices;
  }

  private notice(state: AlertState, kind: NoticeKind, now: number): AlertNotice {
    const resolved = state.phase === 'resolved';
    return {
      status: resolved ? 'resolved' : 'firing',
      kind,
      labels: { ...state.labels, severity: state.severity },
      annotations: { ...state.annotations },
      startsAt: new Date(state.firingSince ?? state.activeSince).toISOString(),
      endsAt: resolved ? new Date(state.endedAt ?? now).toISOString() : ZERO_TIME,
      fingerprint: state.fingerprint,
      generatorURL: `${this.config.externalUrl}/targets/${encodeURIComponent(state.target)}`,
    };
  }

  /** Only the last flap_threshold + 1 changes matter: more are never kept, whatever the churn. */
  private statesOf(target: string): Map<string, AlertState> {
    let byKey = this.states.get(target);
    if (!byKey) this.states.set(target, (byKey = new Map()));
    return byKey;
  }

  private recordTransition(key: string, now: number): void {
    this.flaps.set(key, [...(this.flaps.get(key) ?? []), now].slice(-(this.alerts.flapThreshold + 1)));
  }

  /** More changes than flap_threshold within flap_window: notifications wait until it settles. */
  private isFlapping(key: string, now: number): boolean {
    const recent = (this.flaps.get(key) ?? []).filter((t) => now - t < this.alerts.flapWindowMs);
    if (recent.length === 0) this.flaps.delete(key);
    else this.flaps.set(key, recent);
    return recent.length > this.alerts.flapThreshold;
  }

  private targetLabels(name: string): Record<string, string> {
    const target = this.config.nodes.find((n) => n.name === name) ?? this.config.services.find((s) => s.name === name);
    return { ...target?.labels };
  }

  private recordDisk(target: string, now: number, ratio: number): void {
    const samples = (this.disk.get(target) ?? []).filter(([t]) => now - t <= DISK_WINDOW_MS);
    samples.push([now, ratio]);
    this.disk.set(target, samples.slice(-240));
  }

  /** Least-squares slope of the free ratio over the last hour (needs ≥ 10 minutes of samples). */
  private diskTrend(target: string): DiskTrend {
    const samples = this.disk.get(target) ?? [];
    return {
      secondsUntil: (floor) => {
        if (samples.length < 5 || samples.at(-1)![0] - samples[0]![0] < 600_000) return undefined;
        const n = samples.length;
        const meanT = samples.reduce((a, [t]) => a + t, 0) / n;
        const meanR = samples.reduce((a, [, r]) => a + r, 0) / n;
        const num = samples.reduce((a, [t, r]) => a + (t - meanT) * (r - meanR), 0);
        const den = samples.reduce((a, [t]) => a + (t - meanT) ** 2, 0);
        const slopePerMs = den === 0 ? 0 : num / den;
        const current = samples.at(-1)![1];
        if (slopePerMs >= 0 || current <= floor) return current <= floor ? 0 : undefined;
        return (current - floor) / -slopePerMs / 1000;
      },
    };
  }

  private persist(): void {
    try {
      writeJsonAtomic(this.file, { version: 1, alerts: this.list(), flaps: Object.fromEntries(this.flaps) });
    } catch (err) {
      this.options.log.error({ err, file: this.file }, 'cannot save alert states');
    }
  }
}

function keyOf(labels: Record<string, string>): string {
  return [labels.alertname, labels.target, labels.check ?? '', labels.component ?? '', labels.chain ?? ''].join('|');
}

/** Stable across restarts and replicas: the dedup key at every receiver. */
function fingerprint(key: string): string {
  return createHash('sha256').update(key).digest('hex').slice(0, 16);
}
