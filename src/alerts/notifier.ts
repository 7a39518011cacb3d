/**
 * Routes notification batches to receivers (by label matchers and minimum severity) through their
 * persisted outboxes, and re-sends the firing alerts to a receiver whose kind asks for it
 * (`resendIntervalMs` in its send.ts: Alertmanager) while they fire. What
 * reaches it has passed the engine's gate (gate.ts): silences, maintenance windows, flap holds.
 */
import { randomUUID } from 'node:crypto';
import type { Config, ReceiverConfig } from '../config/load.js';
import { ProbeError, type HttpClient } from '../transport/client.js';
import { backoffSeconds } from '../transport/rate-limit.js';
import type { Logger } from '../log.js';
import { snippet } from '../util/text.js';
import { Outbox, type OutboxEvents } from './outbox.js';
import { resendIntervalOf, send } from './receivers/index.js';
import { DeliveryError, type OutgoingRequest } from './receivers/receiver.js';
import { matches } from './silences.js';
import type { OpenIncident } from './persisted.js';
import type { AlertNotice, NotificationBatch } from './types.js';

const DELIVERY_TIMEOUT_MS = 10_000;

/** POSTs a notification and classifies the outcome: 2xx done; 408, 429, 5xx and network errors retryable. */
export function poster(http: HttpClient): (request: OutgoingRequest) => Promise<string> {
  return async (request) => {
    let response;
    try {
      response = await http.request({ url: request.url, method: 'POST', headers: request.headers, body: request.body, timeoutMs: DELIVERY_TIMEOUT_MS, ...(request.secrets ? { secrets: request.secrets } : {}) });
    } catch (err) {
      const reason = err instanceof ProbeError && err.reason === 'timeout' ? 'timeout' : 'network';
      throw new DeliveryError(err instanceof Error ? err.message : String(err), true, reason);
    }
    const status = response.status;
    if (status >= 200 && status < 300) return response.body;
    const message = `HTTP ${status}: ${snippet(response.body, request.secrets)}`;
    const body = response.body.slice(0, 4096);
    if (status === 429) throw new DeliveryError(message, true, 'rate_limited', backoffSeconds(response.headers, Date.now()) * 1000, body);
    if (status === 408 || status >= 500) {
      const retryAfter = response.headers['retry-after'] !== undefined ? backoffSeconds(response.headers, Date.now()) * 1000 : undefined;
      throw new DeliveryError(message, true, status === 408 ? 'timeout' : 'http_5xx', retryAfter, body);
    }
    throw new DeliveryError(message, false, 'http_4xx', undefined, body);
  };
}

const SEVERITY_RANK = { warning: 1, critical: 2 };

export function routeTo(receiver: ReceiverConfig, alerts: AlertNotice[]): AlertNotice[] {
  return alerts.filter(
    (a) => SEVERITY_RANK[(a.labels.severity as 'warning' | 'critical') ?? 'warning'] >= SEVERITY_RANK[receiver.minSeverity] && matches(receiver.matchers, a.labels),
  );
}

export class Notifier {
  private readonly outboxes = new Map<string, Outbox>();
  private readonly resendTimers = new Map<string, NodeJS.Timeout>();
  private config: Config;

  constructor(
    config: Config,
    http: HttpClient,
    events: OutboxEvents,
    private readonly firing: () => AlertNotice[],
    log: Logger,
  ) {
    this.config = config;
    const post = poster(http);
    for (const receiver of config.alerts.receivers) {
      this.outboxes.set(receiver.name, new Outbox(receiver, config.stateDir, post, () => this.config.externalUrl, events, log));
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
   * that re-send firing alerts: they stop hearing of them here and the new owner carries on.
   */
  dispatch(batch: NotificationBatch): void {
    for (const receiver of this.config.alerts.receivers) {
      const outbox = this.outboxes.get(receiver.name);
      if (batch.handover && resendIntervalOf(receiver) !== undefined) {
        outbox?.handOver(batch.alerts.map((a) => a.fingerprint));
        continue;
      }
      const routed = new Set(routeTo(receiver, batch.alerts));
      const alerts = batch.alerts.filter((a) => routed.has(a) || (a.status === 'resolved' && outbox?.openIncidents().has(a.fingerprint)));
      if (alerts.length > 0) outbox?.enqueue({ ...batch, alerts });
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
  recordOpen(told: () => AlertNotice[], now = Date.now()): void {
    for (const receiver of this.config.alerts.receivers) {
      this.outboxes.get(receiver.name)?.recordOpen(() => routeTo(receiver, told()).map((alert) => ({ at: now, alert })));
    }
  }

  start(): void {
    for (const outbox of this.outboxes.values()) outbox.start();
    for (const receiver of this.config.alerts.receivers) {
      const every = resendIntervalOf(receiver);
      if (every === undefined) continue;
      this.resendTimers.set(
        receiver.name,
        setInterval(() => {
          const outbox = this.outboxes.get(receiver.name);
          // Re-send only when nothing is queued: a backlog already carries the alerts. `firing` has
          // passed the gate (silences, maintenance, flap holds), like every other notification.
          if (!outbox || outbox.length > 0) return;
          const alerts = routeTo(receiver, this.firing());
          if (alerts.length > 0) outbox.enqueue({ id: randomUUID(), target: '*', createdAt: Date.now(), alerts });
        }, every),
      );
    }
  }

  async stop(): Promise<void> {
    for (const timer of this.resendTimers.values()) clearInterval(timer);
    this.resendTimers.clear();
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
