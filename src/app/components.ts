/**
 * Builds the daemon's parts from a config: the store (the one source of truth), the metrics view,
 * the poller (every probe job, chain data included), the alert engine and its notifier. Nothing
 * here starts anything: app/daemon.ts orders start and stop.
 */
import { join } from 'node:path';
import { AlertEngine } from '../alerts/engine.js';
import { Notifier } from '../alerts/notifier.js';
import { SilenceMirrors } from '../alerts/receivers/alertmanager/mirror.js';
import type { Config, NodeTarget } from '../config/load.js';
import { HttpClient } from '../transport/client.js';
import { RateLimitGate } from '../transport/rate-limit.js';
import type { Logger } from '../log.js';
import { registerStateWriteMetrics } from '../metrics/collectors/state.js';
import { MetricsView } from '../metrics/view.js';
import { Poller } from '../poller.js';
import { PeriodLedger } from '../state/periods.js';
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
  /** Validation periods and their outcomes (state_dir/periods.json): survives a new Poller. */
  periods: PeriodLedger;
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
  const periods = new PeriodLedger(join(config.stateDir, 'periods.json'));
  if (periods.problem) log.error({ problem: periods.problem }, 'validation periods not restored');
  const parts = { store, metrics, gates, periods, deliveryHttp, config } as Components;
  parts.poller = new Poller(config, store, log, gates, periods);
  parts.alerts = new AlertEngine(config, { log, onBatch: (batch) => parts.notifier.dispatch(batch), outboxesWritten: () => parts.notifier.pendingWrites() });
  parts.notifier = buildNotifier(parts, log);
  parts.alerts.reconcile(parts.notifier.told());
  parts.alerts.attach(store);
  const { silences } = parts.alerts;
  const sources = { silences: (now: number) => silences.list(now), silencing: silences.silencing.bind(silences), alerts: () => parts.alerts.list(), externalUrl: () => parts.config.externalUrl, stateDir: config.stateDir };
  parts.silenceMirrors = new SilenceMirrors(deliveryHttp, sources, log);
  parts.silenceMirrors.setConfig(config);
  return parts;
}

export function buildNotifier(parts: Pick<Components, 'metrics' | 'alerts' | 'deliveryHttp' | 'config'>, log: Logger): Notifier {
  const families = () => parts.metrics.families.alerts;
  const notifier = new Notifier(
    parts.config,
    parts.deliveryHttp,
    {
      delivered: (receiver) => families().delivered.inc({ receiver }),
      failed: (receiver, reason) => families().failed.inc({ receiver, reason }),
      queueLength: (receiver, length) => families().queue.set({ receiver }, length),
    },
    () => parts.alerts.firing(),
    log,
  );
  notifier.recordOpen(() => parts.alerts.toldFiring());
  return notifier;
}

/** The file's config with discovered nodes (static ones win a name clash), then only this replica's shard. */
export function effectiveConfig(base: Config, discovered: NodeTarget[], shard: Shard | undefined): Config {
  const names = new Set([...base.nodes, ...base.services].map((t) => t.name));
  const nodes = [...base.nodes, ...discovered.filter((n) => !names.has(n.name))].filter((n) => inShard(n.name, shard));
  return { ...base, nodes, services: base.services.filter((s) => inShard(s.name, shard)) };
}
