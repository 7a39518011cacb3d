/**
 * The state stage: the incidents and the flap history under state_dir. It restores them at start,
 * reconciles them with what the outboxes say receivers were told, and saves them at most once a
 * second, always after the outboxes' lines of the same changes are on disk (outbox first, state
 * after): a crash inside the window can repeat a notification (same fingerprint, at-least-once)
 * but never lose one, nor lose a resolve.
 */
import type { Logger } from '../log.js';
import { DependentFile, readJsonFile } from '../state/atomic.js';
import { statePath } from '../state/map.js';
import { fingerprint, keyOf } from './incidents.js';
import { alertStateFileSchema, type OpenIncident } from './persisted.js';
import { ZERO_TIME, type AlertName, type AlertNotice, type AlertState, type Severity } from './types.js';

const PERSIST_DELAY_MS = 1000;

/** Incidents by target, then by key: an evaluation only ever touches its own target's. */
export type IncidentBook = Map<string, Map<string, AlertState>>;

/** What receivers were told, from the outboxes: the open incidents, and whether any receiver routes an alert. */
export interface Told {
  open: ReadonlyMap<string, OpenIncident>;
  routed: (alert: AlertNotice) => boolean;
}

export class StateFile {
  private readonly file: DependentFile;
  private timer?: NodeJS.Timeout;

  constructor(
    stateDir: string,
    private readonly log: Logger,
    /** What to write, and what must be on disk before it is. */
    private readonly source: { snapshot(): string; outboxesWritten(): Promise<unknown> | undefined },
  ) {
    this.file = new DependentFile(statePath.alerts(stateDir), (err) => log.debug({ err, file: this.file.path }, 'cannot save alert states'));
  }

  /** The saved incidents and flap history (a file that cannot be read is set aside, and nothing is restored). */
  restore(): { incidents: AlertState[]; flaps: Record<string, number[]> } {
    const read = readJsonFile(this.file.path, alertStateFileSchema);
    if (read.status === 'corrupt') this.log.error({ file: this.file.path, movedTo: read.movedTo, error: read.error }, 'alert state file unreadable; set aside, starting empty');
    if (read.status !== 'ok') return { incidents: [], flaps: {} };
    if (read.value.alerts.length > 0) this.log.info({ alerts: read.value.alerts.length }, 'alert states restored');
    // Good polls count again from this start: the ones missed while the daemon was away are not
    // known to be good, so polls before and after the gap are not consecutive (a flapping check
    // passing at the kill and again at the start resolved its incident at once, then paged it again).
    return { incidents: read.value.alerts.map((a) => ({ ...a, okPolls: 0 })), flaps: read.value.flaps ?? {} };
  }

  /** Saves within PERSIST_DELAY_MS. */
  schedule(): void {
    if (this.timer) return;
    this.timer = setTimeout(() => void this.flush(), PERSIST_DELAY_MS);
    this.timer.unref();
  }

  /** Saves now (on stop, and before reading the file back in tests). */
  flush(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    return this.file.write(this.source.snapshot(), this.source.outboxesWritten());
  }
}

/**
 * After a start, before any evaluation: the incidents follow what the outboxes say receivers were
 * told, which is on disk before anything is sent while the states are saved up to a second later.
 * An incident open at a receiver is firing here, under the startsAt it was announced with, so its
 * resolve comes when the condition clears; an incident these states say was announced but every
 * receiver routing it was last told resolved starts over (it fires afresh if it still holds).
 * Incidents no receiver routes are left as saved. Returns how many were reopened and closed.
 */
export function reconcile(book: IncidentBook, told: Told, announced: (state: AlertState) => AlertNotice): { reopened: number; closed: number } {
  const reopened = reopen(book, told.open.values());
  let closed = 0;
  for (const [target, states] of book) {
    for (const state of [...states.values()]) {
      if (state.notified?.phase !== 'firing' || told.open.has(state.fingerprint)) continue;
      if (!told.routed(announced(state))) continue;
      closed++;
      if (state.phase === 'pending') delete state.notified;
      else states.delete(state.key);
    }
    if (states.size === 0) book.delete(target);
  }
  return { reopened, closed };
}

/**
 * Incidents receivers were told fire (by this daemon before a restart, or by the shard that owned
 * their target before): each is firing here under the startsAt it was announced with. Returns how
 * many changed.
 */
export function reopen(book: IncidentBook, open: Iterable<OpenIncident>): number {
  let reopened = 0;
  const all = () => [...book.values()].flatMap((byKey) => [...byKey.values()]);
  for (const { at, alert } of open) {
    const labels = Object.fromEntries(Object.entries(alert.labels).filter(([name]) => name !== 'severity'));
    const key = alert.key ?? all().find((s) => s.fingerprint === alert.fingerprint)?.key;
    if (!key || !labels.alertname || !labels.target || fingerprint(key) !== alert.fingerprint) continue;
    let states = book.get(labels.target);
    if (!states) book.set(labels.target, (states = new Map()));
    const state = states.get(key);
    const severity: Severity = alert.labels.severity === 'critical' ? 'critical' : 'warning';
    const startedAt = Date.parse(alert.startsAt);
    if (state?.notified?.phase === 'firing' && (state.notified.since ?? state.firingSince) === startedAt) continue;
    reopened++;
    const notified = { phase: 'firing' as const, severity, at, since: startedAt, labels };
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
  return reopened;
}

/**
 * An alert another avahealth of the fleet announced, as its signed handover record says
 * (receivers/alertmanager/adopt.ts), as an incident told here: its identity is its labels but
 * `severity`, the attribute labels and those the target's config gives it. Its words are made here:
 * nothing of what Alertmanager holds becomes our text.
 */
export function announcedIncident(announced: { labels: Record<string, string>; startsAt: string }, targetLabels: Record<string, string>, externalUrl: string, now: number): OpenIncident | undefined {
  const { alertname, target, ...rest } = announced.labels;
  if (!alertname || !target) return undefined;
  const identity = Object.fromEntries(Object.entries(rest).filter(([name, value]) => name !== 'severity' && targetLabels[name] !== value));
  const key = keyOf(alertname, target, identity);
  const annotations = {
    summary: `${target}: ${alertname}, continued from the avahealth that polled it before`,
    description: `Handed over at a change of the shard count; this avahealth polls ${target} now and tells what its next polls find.`,
  };
  return {
    at: now,
    alert: { labels: announced.labels, annotations, startsAt: announced.startsAt, generatorURL: `${externalUrl}/targets/${encodeURIComponent(target)}`, status: 'firing', kind: 'firing', endsAt: ZERO_TIME, fingerprint: fingerprint(key), key },
  };
}
