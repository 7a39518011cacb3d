/**
 * Builds the daemon's parts from a config: the store (the one source of truth), the metrics view,
 * the poller (every probe job, chain data included), the alert pipeline and the notifier it hands
 * its batches to. Nothing
 * here starts anything: app/daemon.ts orders start and stop.
 */
import { AlertEngine } from '../alerts/engine.js';
import { Notifier } from '../alerts/notifier.js';
import { handedOver } from '../alerts/receivers/alertmanager/adopt.js';
import { SilenceMirrors } from '../alerts/receivers/alertmanager/mirror.js';
import { RULES } from '../alerts/rules/index.js';
import { IDENTITY_LABELS } from '../alerts/rules/rule.js';
import { silenceScopeProblem, type SilenceScope } from '../alerts/silences.js';
import type { ReceiverOf } from '../alerts/receivers/schemas.js';
import { keyPosition, type Config, type NodeTarget } from '../config/load.js';
import { matcherText } from '../config/primitives.js';
import { HttpClient } from '../transport/client.js';
import { RateLimitGate } from '../transport/rate-limit.js';
import type { Logger } from '../log.js';
import { registerStateWriteMetrics } from '../metrics/registry.js';
import { MetricsView } from '../metrics/view.js';
import { targetsOf } from '../model/targets.js';
import { Poller } from '../poller.js';
import { carriedOf, probeMemory, takeCarried, type ProbeMemory } from '../state/ledger.js';
import { inShard, type Shard } from '../shard.js';
import { Store } from '../store.js';
import { VERSION } from '../version.js';

export interface DaemonOptions {
  logger: Logger;
  /** Enables POST /-/reload. */
  enableLifecycle?: boolean;
  /** Enables POST/DELETE /api/v1/silences. */
  enableAdminApi?: boolean;
  /** Overrides `listen:` (tests use port 0). */
  listen?: { host: string; port: number };
  /** `--web.config.file`: TLS, basic auth and headers for every route. */
  webConfigFile?: string;
  /** `--shard I/N`: poll only the targets whose name hashes to shard I of N. */
  shard?: Shard;
  /** Re-read the config file when it changes (opt-in; SIGHUP and POST /-/reload always work). */
  watchConfig?: boolean;
  watchIntervalMs?: number;
}

export interface Components {
  store: Store;
  metrics: MetricsView;
  /** Replaced on a reload that changes limits or turns chain data on or off (see app/reload.ts). */
  poller: Poller;
  alerts: AlertEngine;
  /** Replaced on a reload that changes the receivers. */
  notifier: Notifier;
  /** Rate-limit state per service: survives a new Poller. */
  gates: Map<string, RateLimitGate>;
  /** What probes remember across restarts (state_dir): survives a new Poller. */
  memory: ProbeMemory;
  /** avahealth's silences mirrored to the `alertmanager` receivers (follows the config's receivers). */
  silenceMirrors: SilenceMirrors;
  /** Notifications have their own client: a reload may replace the probes' one. */
  deliveryHttp: HttpClient;
  /** The config the components run with now (discovered nodes and this replica's shard included). */
  config: Config;
}

export function buildComponents(config: Config, log: Logger): Components {
  const store = new Store();
  const metrics = new MetricsView(config);
  registerStateWriteMetrics(metrics.families.registry);
  metrics.attach(store);
  metrics.setReloadResult(true);
  const gates = new Map<string, RateLimitGate>();
  const deliveryHttp = new HttpClient({ maxResponseBytes: 1024 * 1024, userAgent: `avahealth/${VERSION}` });
  const memory = probeMemory(config.stateDir);
  for (const ledger of Object.values(memory)) if (ledger.problem) log.error({ problem: ledger.problem }, 'what probes remember not restored');
  const poller = new Poller(config, store, log, gates, memory);
  // The alert pipeline, wired once and straight: the notifier (receivers' outboxes) first, then the
  // pipeline restores its incidents, the outboxes learn what the incidents say was announced, the
  // incidents follow what the outboxes say receivers were told, and the pipeline follows the store.
  const notifier = buildNotifier(config, metrics, deliveryHttp, log);
  // a verdict that changes an incident may change what a silence holds: the mirror tells Alertmanager at once
  let changed = () => {};
  const alerts = new AlertEngine(config, { log, sink: notifier, carried: (target) => carriedOf(memory, target), changed: () => changed() });
  notifier.recordOpen(alerts.toldFiring());
  alerts.reconcile(notifier.told());
  alerts.attach(store);
  // avahealth's silences mirrored to the alertmanager receivers: they read the pipeline's silences and
  // the notices of the incidents those hold, and queue what they tell in the receiver's outbox.
  const { silences } = alerts;
  const sources = {
    silences: (now: number) => silences.list(now),
    held: (now: number) => alerts.silenced(now),
    toldFiring: () => new Set(alerts.list().filter((a) => a.phase === 'firing' && a.notified?.phase === 'firing').map((a) => a.fingerprint)),
    outlet: (receiver: string) => parts.notifier.outlet(receiver),
    stateDir: config.stateDir,
  };
  const silenceMirrors = new SilenceMirrors(sources, log);
  silenceMirrors.setConfig(config);
  changed = () => silenceMirrors.nudge();
  const parts: Components = { store, metrics, poller, alerts, notifier, gates, memory, silenceMirrors, deliveryHttp, config };
  return parts;
}

/** The receivers' side: outboxes, delivery and their metrics (a reload that changes the receivers builds a new one). */
export function buildNotifier(config: Config, metrics: MetricsView, deliveryHttp: HttpClient, log: Logger): Notifier {
  const families = () => metrics.families.alerts;
  return new Notifier(
    config,
    deliveryHttp,
    {
      delivered: (receiver) => families().delivered.inc({ receiver }),
      failed: (receiver, reason) => families().failed.inc({ receiver, reason }),
      dropped: (receiver, reason) => families().dropped.inc({ receiver, reason }),
      queueLength: (receiver, length) => families().queue.set({ receiver }, length),
    },
    log,
  );
}

/** The file's config with discovered nodes (static ones win a name clash), then only this replica's shard. */
export function effectiveConfig(base: Config, discovered: NodeTarget[], shard: Shard | undefined): Config {
  const names = new Set([...base.nodes, ...base.services].map((t) => t.name));
  const nodes = [...base.nodes, ...discovered.filter((n) => !names.has(n.name))].filter((n) => inShard(n.name, shard));
  return { ...base, nodes, services: base.services.filter((s) => inShard(s.name, shard)) };
}

/**
 * What a silence posted to this replica can match (alerts/silences.ts, `silenceScopeProblem`): its
 * targets (discovered ones included), the labels its alerts carry (the rules' and the targets'
 * own), the rules' names; and the fleet's targets that other shards watch.
 */
export function silenceScopeOf(base: Config, discovered: NodeTarget[], shard: Shard | undefined): SilenceScope {
  const here = targetsOf(effectiveConfig(base, discovered, shard));
  const all = shard ? targetsOf(effectiveConfig(base, discovered, undefined)) : here;
  const targets = new Set(here.map((t) => t.name));
  const labelNames = new Set<string>(['alertname', 'target', 'severity', ...IDENTITY_LABELS]);
  for (const t of here) for (const name of Object.keys(t.labels)) labelNames.add(name);
  return { targets, labelNames, alertnames: new Set(RULES.map((r) => r.name)), otherShards: new Set(all.map((t) => t.name).filter((n) => !targets.has(n))) };
}

/**
 * The config's silences and maintenance windows that would match nothing (a target, label or alert
 * name that none has: a typo holds no page while the operator believes it does), as
 * `FILE:LINE:COL: message`: warned by `validate` and at start, as the API refuses such a silence.
 * With discovery, targets and their labels are known only later, so only alert names are checked.
 */
export function idleSilenceWarnings(config: Config): string[] {
  const scope = silenceScopeOf(config, [], undefined);
  const lists = { silences: config.alerts.silences, maintenance: config.alerts.maintenance };
  return Object.entries(lists).flatMap(([key, entries]) =>
    entries.flatMap(({ matchers }, i) => {
      const checked = matchers.filter((m) => !config.discovery || m.name === 'alertname');
      const problem = silenceScopeProblem(Object.fromEntries(checked.map((m) => [m.name, matcherText(m)])), scope);
      return problem ? [`${keyPosition(config.file, ['alerts', key, i])}: alerts.${key}.${i}: ${problem}`] : [];
    }),
  );
}

/**
 * At every start, with the fleet's handover key and an `alertmanager` receiver: the incidents other
 * avahealth processes announced for targets now polled here (the shard count changed, up or down)
 * are adopted from Alertmanager, with the facts they rest on (receivers/alertmanager/adopt.ts), so a
 * moved target's open incident is neither paged again nor resolved by a new owner that cannot judge
 * it. Before the first poll: the carried facts are what the first verdicts read.
 */
export async function adoptHandedOver(parts: Components, log: Logger): Promise<void> {
  const key = parts.config.alerts.handoverKey;
  const receivers = parts.config.alerts.receivers.filter((r): r is ReceiverOf<'alertmanager'> => r.kind === 'alertmanager');
  if (!key || receivers.length === 0) return;
  const polled = new Set(targetsOf(parts.config).map((t) => t.name));
  const announced = await handedOver(receivers, parts.deliveryHttp, { alertnames: new Set(RULES.map((r) => r.name)), polled: (name) => polled.has(name), key }, log);
  const adopted = parts.alerts.adopt(announced);
  parts.notifier.adopt(adopted);
  const targets = new Set(adopted.map((i) => i.alert.labels.target!));
  for (const target of targets) {
    const carried = announced.find((a) => a.labels.target === target && a.carried)?.carried;
    const taken = carried ? takeCarried(parts.memory, target, carried) : [];
    if (taken.length > 0) log.info({ target, facts: taken }, 'facts of an adopted incident taken from its handover record');
  }
  // Alertmanager holds them under the old owner's endsAt: this owner's word (and record) goes there now.
  if (adopted.length > 0) parts.alerts.resendNow();
}
