/**
 * The notifier: receives batches (a BatchSink) and routes them to receivers (by label matchers and
 * minimum severity) through their persisted outboxes. It knows no alert pipeline: what reaches it
 * has passed the policy stage (silences, maintenance windows, flap holds), and the firing incidents
 * come again as `resend` batches at the interval it asks for, which only receivers whose kind
 * forgets alerts (`resendIntervalMs` in its send.ts: Alertmanager) take.
 */
import { randomUUID } from 'node:crypto';
import type { Config, ReceiverConfig } from '../config/load.js';
import type { HttpClient } from '../transport/client.js';
import type { Logger } from '../log.js';
import { Outbox, type OutboxEvents } from './outbox.js';
import { resendIntervalOf, send } from './receivers/index.js';
import { poster } from './receivers/post.js';
import { routeTo } from './receivers/route.js';
import type { OpenIncident } from './persisted.js';
import type { AlertNotice, BatchSink, NotificationBatch } from './types.js';
import type { Outlet } from './receivers/receiver.js';

/** The carried facts go only to receivers a new owner adopts incidents from (those that re-send: Alertmanager). */
function forReceiver(receiver: ReceiverConfig, alerts: AlertNotice[]): AlertNotice[] {
  if (resendIntervalOf(receiver) !== undefined) return alerts;
  return alerts.map((a) => {
    if (!a.carried) return a;
    const { carried: _, ...rest } = a;
    return rest;
  });
}

export class Notifier implements BatchSink {
  private readonly outboxes = new Map<string, Outbox>();
  /** When each receiver that forgets alerts was last re-sent them. */
  private readonly resentAt = new Map<string, number>();
  private config: Config;

  constructor(
    config: Config,
    http: HttpClient,
    events: OutboxEvents,
    log: Logger,
  ) {
    this.config = config;
    const post = poster(http);
    for (const receiver of config.alerts.receivers) {
      this.outboxes.set(receiver.name, new Outbox(receiver, config.stateDir, post, () => this.config.externalUrl, events, log, () => this.config.alerts.handoverKey));
    }
  }

  /** A reload that keeps the receivers (and so this notifier): links follow the next `external_url`. */
  setConfig(config: Config): void {
    this.config = config;
  }

  queueLengths(): Record<string, number> {
    return Object.fromEntries([...this.outboxes].map(([name, o]) => [name, o.length]));
  }

  /** Settles once every batch dispatched so far is on disk in its outboxes; undefined when all are. */
  pendingWrites(): Promise<unknown> | undefined {
    const pending = [...this.outboxes.values()].map((o) => o.pendingWrites()).filter((p) => p !== undefined);
    return pending.length > 0 ? Promise.all(pending) : undefined;
  }

  /**
   * A resolve also goes to every receiver told the alert fired, even one whose routes it no longer
   * matches (severity went down). A handover (the target moved to another shard) skips receivers
   * that re-send firing alerts: they stop hearing of them here and the new owner carries on. With
   * such a receiver and the fleet's handover key the new owner adopts the incidents from it
   * (receivers/alertmanager/adopt.ts), so the handover is silent at every receiver: no resolve, no
   * second page; without the key the other receivers hear the resolve.
   */
  dispatch(batch: NotificationBatch): void {
    if (batch.resend) return this.resend(batch);
    const adoptable = this.adoptable();
    for (const receiver of this.config.alerts.receivers) {
      const outbox = this.outboxes.get(receiver.name);
      if (batch.handover && (adoptable || resendIntervalOf(receiver) !== undefined)) {
        outbox?.handOver(batch.alerts.map((a) => a.fingerprint));
        continue;
      }
      const routed = new Set(routeTo(receiver, batch.alerts));
      const alerts = batch.alerts.filter((a) => routed.has(a) || (a.status === 'resolved' && outbox?.openIncidents().has(a.fingerprint)));
      if (alerts.length > 0) outbox?.enqueue({ ...batch, alerts: forReceiver(receiver, alerts) });
    }
  }

  /**
   * The outbox of one receiver, for what tells it besides the pipeline's batches: the Alertmanager
   * silence mirror (receivers/alertmanager/mirror.ts) queues its silences and the alerts they hold there.
   */
  outlet(receiver: string): Outlet | undefined {
    const outbox = this.outboxes.get(receiver);
    if (!outbox) return undefined;
    return { enqueue: (batch) => outbox.enqueue(batch), queued: () => outbox.queued(), notes: outbox.receiverNotes };
  }

  /**
   * Whether a target's next owner adopts its incidents (with a receiver that re-sends firing alerts,
   * Alertmanager, and the fleet's handover key to sign them with): then a handover tells nobody.
   * Without the key nothing is adopted, so the old owner resolves what it hands over.
   */
  adoptable(): boolean {
    return this.config.alerts.handoverKey !== undefined && this.config.alerts.receivers.some((r) => resendIntervalOf(r) !== undefined);
  }

  /** Incidents another shard announced, carried on here: open at every receiver that routes them, as if told. */
  adopt(incidents: readonly OpenIncident[]): void {
    for (const receiver of this.config.alerts.receivers) {
      this.outboxes.get(receiver.name)?.adopt(incidents.filter((i) => routeTo(receiver, [i.alert]).length > 0));
    }
  }

  /**
   * What the receivers were told is open, from their outboxes (the latest firing per fingerprint
   * across receivers), and whether an alert is routed to any receiver at all: the alert engine
   * reconciles its states with this after a start.
   */
  told(): { open: Map<string, OpenIncident>; routed: (alert: AlertNotice) => boolean } {
    const open = new Map<string, OpenIncident>();
    for (const outbox of this.outboxes.values()) {
      for (const [fingerprint, incident] of outbox.openIncidents()) {
        const known = open.get(fingerprint);
        if (!known || known.at < incident.at) open.set(fingerprint, incident);
      }
    }
    const receivers = this.config.alerts.receivers;
    return { open, routed: (alert) => receivers.some((r) => routeTo(r, [alert]).length > 0) };
  }

  /** Gives every outbox journal its open incidents (see Outbox.recordOpen); `told` is what the alert states say was announced. */
  recordOpen(told: readonly AlertNotice[], now = Date.now()): void {
    for (const receiver of this.config.alerts.receivers) {
      this.outboxes.get(receiver.name)?.recordOpen(() => routeTo(receiver, [...told]).map((alert) => ({ at: now, alert })));
    }
  }

  /** The shortest re-send interval of the receivers that forget alerts (undefined: none does). */
  resendIntervalMs(): number | undefined {
    const intervals = this.config.alerts.receivers.flatMap((r) => resendIntervalOf(r) ?? []);
    return intervals.length > 0 ? Math.min(...intervals) : undefined;
  }

  /**
   * The firing incidents again: each receiver that forgets alerts takes them once its own interval
   * has passed, and only when nothing is queued for it (a backlog already carries them).
   */
  private resend(batch: NotificationBatch, now = Date.now()): void {
    for (const receiver of this.config.alerts.receivers) {
      const every = resendIntervalOf(receiver);
      const outbox = this.outboxes.get(receiver.name);
      if (every === undefined || !outbox || outbox.length > 0) continue;
      // timers fire a little late, never early: a tenth of the interval absorbs the drift between two ticks
      if (now - (this.resentAt.get(receiver.name) ?? 0) < every * 0.9) continue;
      this.resentAt.set(receiver.name, now);
      const alerts = routeTo(receiver, batch.alerts);
      if (alerts.length > 0) outbox.enqueue({ ...batch, alerts: forReceiver(receiver, alerts) });
    }
  }

  start(now = Date.now()): void {
    for (const outbox of this.outboxes.values()) outbox.start();
    for (const receiver of this.config.alerts.receivers) this.resentAt.set(receiver.name, now);
  }

  async stop(): Promise<void> {
    await Promise.all([...this.outboxes.values()].map((o) => o.stop()));
  }

  /** Sends a test notification straight to one receiver (no outbox): what `avahealth notify-test` does. */
  static async sendTest(config: Config, receiver: ReceiverConfig, http: HttpClient): Promise<void> {
    const now = Date.now();
    const alert: AlertNotice = {
      status: 'firing',
      kind: 'test',
      labels: { alertname: 'AvahealthTest', target: 'avahealth', severity: 'warning' },
      annotations: { summary: 'avahealth test notification', description: `Sent by avahealth notify-test to receiver ${receiver.name}. No action needed.` },
      startsAt: new Date(now).toISOString(),
      endsAt: new Date(now + 5 * 60_000).toISOString(),
      fingerprint: 'avahealth-test',
      generatorURL: config.externalUrl,
    };
    await send({ id: randomUUID(), target: 'avahealth', createdAt: now, alerts: [alert] }, receiver, { externalUrl: config.externalUrl, now, post: (request) => poster(http)({ ...request, secrets: receiver.secrets }) });
  }
}
