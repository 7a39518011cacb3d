/**
 * The policy stage: which of the incidents' changes are told now. Like Alertmanager's inhibit, mute
 * and dedup stages: a root cause holds back its symptoms (the rules' `inhibits`), silences,
 * maintenance windows and flap holds (gate.ts) hold a notification, and what
 * receivers were last told (`notified`) decides whether there is anything to tell. A held change is
 * told once the hold ends. It keeps the flap history (only real changes of state count) and says when
 * a flap hold begins and ends.
 */
import type { AlertsConfig } from '../config/load.js';
import type { Logger } from '../log.js';
import { Flaps } from './flaps.js';
import { NotificationGate } from './gate.js';
import { awaitingOutcomeOnly, dueNotice, markTold, noticeOf } from './incidents.js';
import { INHIBITIONS } from './rules/index.js';
import type { Silences } from './silences.js';
import type { AlertNotice, AlertState } from './types.js';

export class Policy {
  readonly gate: NotificationGate;
  readonly flaps: Flaps;
  /** Incident keys under a flap hold (for the log lines when a hold begins and ends). */
  private readonly flapHeld = new Set<string>();

  constructor(
    private alerts: AlertsConfig,
    readonly silences: Silences,
    private readonly log: Logger,
    restored: { flaps: Record<string, number[]>; held: string[] },
  ) {
    this.flaps = new Flaps(alerts.flapThreshold, alerts.flapWindowMs, new Map(Object.entries(restored.flaps)));
    for (const key of restored.held) this.flapHeld.add(key);
    this.gate = new NotificationGate(silences, this.flaps);
  }

  setConfig(alerts: AlertsConfig): void {
    this.alerts = alerts;
    this.silences.setConfig(alerts);
    this.flaps.setLimits(alerts.flapThreshold, alerts.flapWindowMs);
  }

  /**
   * Real changes of state (began firing, resolved): what flap damping counts. A change counts only
   * once the new state held for the rule's hold (the incidents stage reports a firing after
   * `for_polls`/`for`, a resolve after `resolve_polls`; a resolve forced at once, by a target or
   * source that left, held for nothing and is not counted), and never under a silence or
   * maintenance window: on-call heard nothing of it, so it is no noise to damp.
   */
  recordTransitions(keys: readonly string[], incidents: ReadonlyMap<string, AlertState>, now: number, { forced = false }: { forced?: boolean } = {}): void {
    if (forced) return;
    for (const key of keys) {
      const state = incidents.get(key);
      if (state && this.silences.holds(gateView(state).labels, now)) continue;
      this.flaps.record(key, now);
    }
  }

  /** Why notifications about this incident are held now, if they are. */
  hold(state: AlertState, now: number, options: { gone?: boolean } = {}) {
    return this.gate.hold(gateView(state, this.alerts.flapSustainedPolls), now, options);
  }

  /**
   * Compares each incident of one target with what receivers were last told, through the gate, and
   * returns what is to be told now (marking it told). A resolved incident leaves `incidents` once its
   * resolve is told (or if it was never announced). `gone`: the alerts whose target or source left,
   * resolved at once: nothing holds their resolves. Every other incident of the target, from the
   * sources still polled, passes the gate as usual.
   */
  decide(incidents: Map<string, AlertState>, now: number, externalUrl: string, { gone = [], networkIncidents, covers }: { gone?: readonly string[]; networkIncidents?: ReadonlyMap<string, AlertState>; covers?: readonly string[] }): AlertNotice[] {
    const notices: AlertNotice[] = [];
    for (const state of [...incidents.values()]) {
      if (state.phase === 'pending') {
        state.state = 'pending';
        continue;
      }
      const hold = this.hold(state, now, { gone: state.phase === 'resolved' && gone.includes(state.alertname) });
      this.showFlapping(state, hold?.kind === 'flapping');
      const kind = dueNotice(state, this.alerts.repeatIntervalMs, now);
      if (state.phase === 'resolved') {
        // never announced: nothing to take back; or its resolve told and no outcome to follow
        if (!kind) {
          if (!(state.awaitsOutcome && awaitingOutcomeOnly(state)) || gone.includes(state.alertname)) incidents.delete(state.key);
        } else if (!hold) {
          notices.push(noticeOf(state, kind, now, externalUrl));
          if (state.awaitsOutcome) state.notified = { ...state.notified!, phase: 'resolved', at: now };
          else incidents.delete(state.key);
        }
        continue;
      }
      const inhibitedBy = inhibitorOf(state, incidents, networkIncidents);
      if (inhibitedBy) state.inhibitedBy = inhibitedBy;
      else if (state.inhibitedBy !== undefined) {
        delete state.inhibitedBy;
        // Its root cause just ended: its own verdict may be from before (a validator poll's reading
        // while its node was cut off), so what it held back waits for its rule to speak again.
        if (covers !== undefined && !covers.includes(state.alertname)) state.awaitsVerdict = true;
      }
      // Receivers never heard of it and its rule's latest verdict no longer finds it: it is on its way
      // out (resolve_polls), not news (a cause that held it ended as it cleared, across a restart too).
      const fading = state.okPolls > 0 && state.notified?.phase !== 'firing';
      if (hold || inhibitedBy || state.awaitsVerdict || fading || !kind) continue;
      notices.push(noticeOf(state, kind, now, externalUrl));
      markTold(state, now);
    }
    return notices;
  }

  /** The firing incidents receivers were told of that the gate lets through now: what receivers that forget are re-sent. */
  resendable(incidents: Iterable<AlertState>, now: number, externalUrl: string): AlertNotice[] {
    return [...incidents].filter((s) => s.phase === 'firing' && s.notified?.phase === 'firing' && !this.hold(s, now)).map((s) => noticeOf(s, 'firing', now, externalUrl));
  }

  /**
   * The active incidents a silence holds now (not one a root cause holds back that receivers never
   * heard of), as receivers would be told them, each with the silence: what a receiver that mutes
   * them itself under its mirror of the silence (Alertmanager) is still sent.
   */
  silenced(book: Iterable<ReadonlyMap<string, AlertState>>, now: number, externalUrl: string): Array<{ silence: string; until: number; notice: AlertNotice }> {
    const held: Array<{ silence: string; until: number; notice: AlertNotice }> = [];
    for (const incidents of book) {
      for (const state of incidents.values()) {
        const told = state.notified?.phase === 'firing';
        if (!(state.phase === 'firing' || (state.phase === 'resolved' && told))) continue;
        // asked here, not read from `inhibitedBy`, which is unknown after a restart until the target's first evaluation
        if (!told && inhibitorOf(state, incidents)) continue;
        const by = this.silences.silencing(gateView(state).labels, now);
        if (by) held.push({ silence: by.id, until: by.endsAt, notice: { ...noticeOf(state, state.phase === 'resolved' ? 'resolved' : 'firing', now, externalUrl), ...(told ? {} : { untold: true as const }) } });
      }
    }
    return held;
  }

  /** The hold of an incident of this target ends once it has been stable for the window (even if it resolved meanwhile). */
  endFlapHolds(target: string, incidents: ReadonlyMap<string, AlertState> | undefined, now: number): void {
    for (const key of this.flapHeld) {
      if (key.split('|')[1] !== target || this.flaps.isFlapping(key, now)) continue;
      this.flapHeld.delete(key);
      const [alertname] = key.split('|');
      const state = incidents?.get(key);
      this.log.info({ alertname, target, ...(state ? { labels: state.labels } : {}), state: state?.phase ?? 'inactive' }, 'alert stopped flapping: its current state is told once');
    }
  }

  /** A target that is gone: its flap history and holds are let go. */
  forgetTarget(target: string): void {
    this.flaps.forgetTarget(target, this.flapHeld);
  }

  /** A flap hold is visible: state `flapping` (metrics, API, status page) and a log line when it begins. */
  private showFlapping(state: AlertState, flapping: boolean): void {
    state.state = flapping ? 'flapping' : state.phase;
    if (!flapping || this.flapHeld.has(state.key)) return;
    this.flapHeld.add(state.key);
    const window = `${this.alerts.flapWindowMs / 1000}s`;
    this.log.info({ alertname: state.alertname, target: state.target, labels: state.labels, flapThreshold: this.alerts.flapThreshold, flapWindow: window }, 'alert is flapping: its notifications are held until it is stable for the flap window');
  }
}

/**
 * The incident as the gate sees it. Sustained: a failure that held `flap_sustained_polls` polls in a
 * row, or that is critical, pages whatever its flap count (damping never hides an outage).
 */
function gateView(state: AlertState, sustainedPolls = Infinity): { key: string; labels: Record<string, string>; sustained: boolean } {
  const sustained = state.phase === 'firing' && (state.consecutive >= sustainedPolls || state.severity === 'critical');
  return { key: state.key, labels: { ...state.labels, severity: state.severity }, sustained };
}

/**
 * The root cause that holds this incident back (rules' `inhibits`), if one is active (pending or
 * firing) for the same target (or, for a network's alert, `networkIncidents`: those of the target's
 * network): one page per problem. It holds what a firing incident would tell, never a resolve (a
 * page that was sent is always closed), and the held change is told once the root cause is over.
 * Views show the incident `held`.
 */
export function inhibitorOf(state: AlertState, incidents: ReadonlyMap<string, AlertState>, networkIncidents?: ReadonlyMap<string, AlertState>): string | undefined {
  for (const rule of INHIBITIONS) {
    if (rule.alertname !== state.alertname || !Object.entries(rule.labels ?? {}).every(([name, value]) => state.labels[name] === value)) continue;
    const shared = rule.sameAs ? state.labels[rule.sameAs.label] : undefined;
    if (rule.sameAs && shared === undefined) continue;
    // A network's alert holds back its validators' copies: it is about the network, not this target.
    const sources = rule.across === 'network' ? (networkIncidents ?? new Map<string, AlertState>()) : incidents;
    for (const source of sources.values()) {
      if (source === state || source.alertname !== rule.source || source.phase === 'resolved') continue;
      if (rule.from && !Object.entries(rule.from).every(([name, value]) => source.labels[name] === value)) continue;
      if (rule.sameAs && source.labels[rule.sameAs.as] !== shared) continue;
      return source.alertname;
    }
  }
  return undefined;
}
