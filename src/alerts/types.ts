/** Values shared by the alert rules, the state machine, the outboxes and the receivers. */
import type { AlertName, Finding, Severity } from './rules/index.js';
import type { SilencedBy } from './silences.js';

export type { AlertName, Severity };

/** What a rule found true about a target on one evaluation. */
export interface Condition extends Finding {
  alertname: AlertName;
  target: string;
}

export interface Evaluation {
  target: string;
  /** Rules this evaluation speaks for: their states of this target not in `conditions` are over. */
  covers: AlertName[];
  /** Rules whose truth cannot be known now (node unreachable): their states stay as they are. */
  unknown: AlertName[];
  /**
   * For rules in `unknown`, what is unknown and why, when the rule says or its source's poll failed
   * (`version drift`, `the Data API could not be read (…)`): every view says it.
   */
  unknownWhy?: Partial<Record<AlertName, UnknownVerdict>>;
  /** Rules in `unknown` whose truth, whatever it is, is not network-wide (rules' `Unknown` `ownOnly`): the fleet's network alert does not wait for them. */
  unknownOwnOnly?: AlertName[];
  conditions: Condition[];
  /** The rule's words for a resolve from what this evaluation saw (rules' `recovered`), asked only for an incident it resolves. */
  recovered?: (alertname: string, labels: Readonly<Record<string, string>>) => string | undefined;
  /**
   * Rules whose fact is over for good on this evaluation (a validation period ended: rules' `over`):
   * their incidents resolve at once, not after resolve_polls good polls.
   */
  over?: AlertName[];
}

/** A verdict that cannot be known now: what (a rule's words, or its name) and why. */
export interface UnknownVerdict {
  what: string;
  because: string;
}

export type AlertPhase = 'pending' | 'firing' | 'resolved';
/**
 * What views show (metrics `state` label, /api/v1/alerts, status page): the phase, or `flapping`
 * while a flap hold lasts. `silenced` is shown by the API and the page only (with `silencedBy`),
 * for an active alert a silence or maintenance window holds, and `held` for a firing one a root
 * cause holds back (with `inhibitedBy`); the engine never stores either.
 */
export type AlertStateName = AlertPhase | 'flapping' | 'silenced' | 'held';

export interface AlertState {
  key: string;
  fingerprint: string;
  alertname: AlertName;
  target: string;
  /** alertname, target, identity labels, the target's static labels; `severity` is added when sent. */
  labels: Record<string, string>;
  annotations: { summary: string; description: string };
  phase: AlertPhase;
  state: AlertStateName;
  severity: Severity;
  /** Consecutive evaluations the condition held (pending/firing) or did not (okPolls). */
  consecutive: number;
  okPolls: number;
  activeSince: number;
  firingSince?: number;
  endedAt?: number;
  /**
   * What receivers were last told, so a restart neither repeats nor forgets; `since` is the
   * startsAt they were told while it fires (an alert that fires again before its resolve was told,
   * held by a silence or a flap hold, is still that incident there); `labels` the labels it was
   * told under (absent in files written before incidents updated in place).
   */
  /** Epoch milliseconds after which what it says is over (its finding's `until`): the target's state no longer counts it. */
  until?: number;
  /** Someone acknowledged it (Telegram's /ack): no reminders while its severity is not above the one acknowledged. */
  acknowledged?: { by: string; at: number; severity: Severity };
  /** The root cause (an alertname) that holds this incident's pages back now, when one does (policy.ts); not persisted. */
  inhibitedBy?: string;
  /**
   * Its root cause just ended and its own rule has not spoken since: what it held back waits for
   * that verdict (policy.ts; the engine clears it when an evaluation covers the rule); not persisted.
   */
  awaitsVerdict?: boolean;
  /**
   * Resolved with words that say an outcome still to come (rules' `outcome`): kept after its resolve
   * is told, until the outcome is told on the same incident (engine.ts); `since` is the startsAt
   * receivers were told.
   */
  awaitsOutcome?: { since: number };
  notified?: { phase: 'firing' | 'resolved'; severity: Severity; at: number; since?: number; labels?: Record<string, string> };
}

/**
 * A change of an incident's verdict, as its target's page lists it among the recent changes: it
 * began firing, its severity changed, or it resolved (the pipeline's verdict, not a judgement of the
 * page's own; a target whose health reply never changed still shows why its state did).
 */
export interface VerdictChange {
  /** Epoch milliseconds. */
  at: number;
  alertname: AlertName;
  kind: 'firing' | 'severity_changed' | 'resolved';
  severity: Severity;
  /** With `severity_changed`: the severity before. */
  from?: Severity;
  labels: Record<string, string>;
  /** The firing's summary, or the resolve's own words. */
  summary: string;
}

/** An alert as the API and the status page show it: a silenced one says by which silence, until when. */
export interface ShownAlert extends AlertState {
  silencedBy?: SilencedBy;
}

/** `updated`: a label that describes the incident (`scope`) changed; it is still the same incident. */
export type NoticeKind = 'firing' | 'severity_changed' | 'updated' | 'reminder' | 'resolved' | 'test';

/** One alert as receivers see it (Alertmanager's alert shape plus what changed). */
export interface AlertNotice {
  status: 'firing' | 'resolved';
  kind: NoticeKind;
  labels: Record<string, string>;
  annotations: { summary: string; description: string };
  startsAt: string;
  endsAt: string;
  fingerprint: string;
  generatorURL: string;
  /** The engine's key of the alert (not sent): a restart rebuilds the alert's state from an outbox with it. */
  key?: string;
  /**
   * The labels (with severity) receivers were last told this incident under, when they differ from
   * `labels`: a receiver that keys alerts by their labels (Alertmanager) ends that copy at once.
   */
  previousLabels?: Record<string, string>;
  /**
   * The facts its target's verdicts rest on that the sources cannot give again (the state map's
   * carried files, by file name): sent with the signed handover record to receivers a new owner
   * adopts incidents from (Alertmanager); no other receiver gets them.
   */
  carried?: Record<string, unknown>;
  /**
   * Sent to a receiver that mutes it itself under its mirror of a silence (Alertmanager) while no
   * receiver was told of it yet: a new owner reading it there must not take it as announced.
   */
  untold?: true;
}

/** What one evaluation of one target changed: chat receivers send it as one message. */
export interface NotificationBatch {
  id: string;
  target: string;
  createdAt: number;
  alerts: AlertNotice[];
  /**
   * Resolves of a target that moved to another shard: receivers whose alerts expire unless re-sent
   * (Alertmanager) are not told, since the new owner takes the alerts over there under the same labels.
   */
  handover?: boolean;
  /** The firing incidents again, for receivers that forget alerts they are not re-told of (Alertmanager); no other receiver gets it. */
  resend?: boolean;
  /**
   * Alerts a silence holds, for a receiver that mutes them itself under its mirror of the silence
   * (Alertmanager): not an announcement, so the outbox does not count them as told.
   */
  muted?: boolean;
  /** What a receiver that mirrors avahealth's silences is to do with them, before any alert of the batch. */
  silences?: SilenceOp[];
}

/** One of avahealth's silences as a receiver that mirrors them makes it; `hash` names its content (a change makes a new one). */
export interface MirroredSilence {
  id: string;
  hash: string;
  matchers: Record<string, string>;
  startsAt: number;
  endsAt: number;
  createdBy: string;
  comment: string;
}

/**
 * `ensure`: the receiver holds this silence (found again by the marker in its comment, made only
 * when it holds none, so a retry never makes a second); `expire`: it no longer does; `adopt`: a
 * silence an earlier version made there (its id kept in its own file), noted under its avahealth silence.
 */
export type SilenceOp = { ensure: MirroredSilence } | { expire: { id: string; hash: string } } | { adopt: { amId: string } };

/** Where the alert pipeline hands its batches: the notifier (which knows no pipeline). */
export interface BatchSink {
  dispatch(batch: NotificationBatch): void;
  /** Settles once every batch dispatched so far is on disk (undefined: all are); alert states are saved after. */
  pendingWrites(): Promise<unknown> | undefined;
  /** How often the firing incidents are to be handed again as a `resend` batch (undefined: never). */
  resendIntervalMs(): number | undefined;
}

export const ZERO_TIME = '0001-01-01T00:00:00Z';
