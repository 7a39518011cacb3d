/**
 * avahealth's own prom-client Registry, with the families that are not per target: avahealth
 * itself, alerts and notifications, prom-client's process metrics, and the daemon's parts that
 * count for themselves (discovery, shard, state files, web config: the helpers at the end; every
 * prom-client metric avahealth makes is made in this module or by a collector's `register`,
 * collectors/chain.ts). The per-target families (collectors/) are pre-rendered by the Exposition.
 */
import { collectDefaultMetrics, Counter, Gauge, Registry } from 'prom-client';
import type { DiscoveryTally } from '../discovery/index.js';
import type { Shard } from '../shard.js';
import { journalTotals } from '../state/journal.js';
import { stateWriteFailures } from '../state/write-health.js';
import { REVISION, VERSION } from '../version.js';
import { escapeLabel, familyHeader, formatValue, type Format } from './exposition.js';

export const PREFIX = 'avahealth_';

export interface MetricFamilies {
  registry: Registry;
  alerts: ReturnType<typeof alertFamily>;
  self: ReturnType<typeof selfFamily>;
}

/** The families prom-client serves: avahealth itself, alerts, the process (and what collectors register). */
export function createMetricFamilies(options: { defaultMetrics: boolean }): MetricFamilies {
  const registry = new Registry();
  if (options.defaultMetrics) {
    collectDefaultMetrics({ register: registry });
    // gauges named like counters: `promtool check metrics` rejects them, and each is the sum of its by-type sibling
    for (const name of ['nodejs_active_handles_total', 'nodejs_active_requests_total', 'nodejs_active_resources_total']) registry.removeSingleMetric(name);
  }
  const gauge = (name: string, help: string, labelNames: readonly string[]) => new Gauge({ name: PREFIX + name, help, labelNames, registers: [registry] });
  const counter = (name: string, help: string, labelNames: readonly string[]) => new Counter({ name: PREFIX + name, help, labelNames, registers: [registry] });
  return { registry, alerts: alertFamily(gauge, counter), self: selfFamily(registry) };
}

type GaugeFactory = (name: string, help: string, labelNames: readonly string[]) => Gauge;
type CounterFactory = (name: string, help: string, labelNames: readonly string[]) => Counter;

/** Every reason a delivery attempt can fail with (the `reason` label of notifications_failed_total). */
export const NOTIFICATION_FAILURE_REASONS = ['timeout', 'network', 'rate_limited', 'http_5xx', 'http_4xx', 'smtp_4xx', 'smtp_5xx', 'queue_full'] as const;
/** The reasons a notification is given up for (the `reason` label of notifications_dropped_total): refused, or the outbox full. */
export const NOTIFICATION_DROP_REASONS = ['http_4xx', 'smtp_5xx', 'queue_full'] as const;

/**
 * Notification counters exist at 0 for every configured receiver (and every failure reason), so
 * `rate()` over them works from the first scrape; a receiver removed by a reload loses its series.
 */
export function initReceiverSeries(alerts: MetricFamilies['alerts'], receivers: readonly string[], previous: readonly string[] = []): void {
  for (const receiver of previous) {
    if (receivers.includes(receiver)) continue;
    alerts.delivered.remove({ receiver });
    alerts.queue.remove({ receiver });
    for (const reason of NOTIFICATION_FAILURE_REASONS) alerts.failed.remove({ receiver, reason });
    for (const reason of NOTIFICATION_DROP_REASONS) alerts.dropped.remove({ receiver, reason });
  }
  for (const receiver of receivers) {
    alerts.delivered.inc({ receiver }, 0);
    for (const reason of NOTIFICATION_FAILURE_REASONS) alerts.failed.inc({ receiver, reason }, 0);
    for (const reason of NOTIFICATION_DROP_REASONS) alerts.dropped.inc({ receiver, reason }, 0);
  }
}

/**
 * The registry in either format. Rendered here rather than by prom-client's own `metrics()`, which
 * serves one format per registry and, in OpenMetrics mode, renames counters in place.
 */
export async function renderRegistry(registry: Registry, format: Format, exported: (name: string) => boolean = () => true): Promise<string> {
  let out = '';
  for (const metric of await registry.getMetricsAsJSON()) {
    if (!exported(metric.name)) continue;
    const type = String(metric.type);
    out += familyHeader({ name: metric.name, help: metric.help, type }, format);
    const counterInOpenMetrics = format === 'openmetrics' && type === 'counter';
    for (const sample of metric.values) {
      let name = (sample as { metricName?: string }).metricName ?? metric.name;
      if (counterInOpenMetrics && !name.endsWith('_total')) name += '_total';
      let labels = '';
      for (const [key, value] of Object.entries(sample.labels)) if (value !== undefined) labels += `${labels ? ',' : ''}${key}="${escapeLabel(String(value))}"`;
      out += `${name}${labels ? `{${labels}}` : ''} ${formatValue(sample.value)}\n`;
    }
  }
  return format === 'openmetrics' ? `${out}# EOF\n` : out;
}

function alertFamily(gauge: GaugeFactory, counter: CounterFactory) {
  return {
    active: gauge('alerts', 'Alerts by state (pending, firing, flapping: held by a flap hold).', ['alertname', 'severity', 'state']),
    delivered: counter('notifications_total', 'Notifications delivered to a receiver.', ['receiver']),
    failed: counter('notifications_failed_total', 'Failed delivery attempts, by reason (a refusal for content is retried once as plain text; what is given up is also in notifications_dropped_total).', ['receiver', 'reason']),
    dropped: counter('notifications_dropped_total', 'Notifications given up: refused by the receiver (plain text too) or pushed out of a full outbox; the log names their incidents.', ['receiver', 'reason']),
    queue: gauge('notification_queue_length', 'Notifications waiting in the receiver outbox.', ['receiver']),
  };
}

function selfFamily(registry: Registry) {
  const buildInfo = new Gauge({
    name: `${PREFIX}build_info`,
    help: 'avahealth build information.',
    labelNames: ['version', 'revision', 'nodejs_version'],
    registers: [registry],
  });
  buildInfo.set({ version: VERSION, revision: REVISION, nodejs_version: process.version }, 1);
  return {
    reloadSuccessful: new Gauge({ name: `${PREFIX}config_last_reload_successful`, help: 'Whether the last config (re)load succeeded.', registers: [registry] }),
    reloadSuccessTime: new Gauge({
      name: `${PREFIX}config_last_reload_success_timestamp_seconds`,
      help: 'When the config was last loaded successfully.',
      registers: [registry],
    }),
  };
}

/**
 * avahealth_discovery_labels_dropped_total{source,label}: file_sd labels left out because avahealth
 * sets labels of that name itself; avahealth_discovery_targets_dropped_total{source,reason}:
 * discovered targets left out (an address that is not host:port, a name already taken). Both
 * count at every read of the source while the cause lasts.
 */

export function registerDiscoveryMetrics(registry: Registry, tally: DiscoveryTally): void {
  new Counter({
    name: 'avahealth_discovery_labels_dropped_total',
    help: 'Labels of discovered targets left out because avahealth sets a label of that name itself (label="invalid": not a label name), counted at every read.',
    labelNames: ['source', 'label'],
    registers: [registry],
    collect() {
      this.reset();
      for (const [source, names] of tally.labels) for (const [label, count] of names) this.inc({ source, label }, count);
    },
  });
  new Counter({
    name: 'avahealth_discovery_targets_dropped_total',
    help: 'Discovered targets left out, counted at every read: invalid_address (not host:port), configured_name (a configured target has the name), duplicate_name (another discovered address has it), over_limit (beyond discovery.max_targets_per_source).',
    labelNames: ['source', 'reason'],
    registers: [registry],
    collect() {
      this.reset();
      for (const [source, reasons] of tally.targets) for (const [reason, count] of reasons) this.inc({ source, reason }, count);
    },
  });
}

/**
 * `avahealth_shard_count{shard_index}` = N: this replica polls shard `shard_index` of N (`--shard`).
 * Prometheus compares the replicas' N (the shipped AvahealthShardsDisagree / AvahealthShardMissing
 * alerts). The label is not `shard`: the sharded overlay's PodMonitor sets that one on every series.
 */
export function shardGauge(registry: Registry, shard: Shard): Gauge {
  const gauge = new Gauge({
    name: 'avahealth_shard_count',
    help: 'How many shards this replica splits the fleet into (--shard I/N: N), labelled with its own index I.',
    labelNames: ['shard_index'],
    registers: [registry],
  });
  gauge.set({ shard_index: String(shard.index) }, shard.count);
  return gauge;
}

/**
 * avahealth_state_write_failures_total: failed writes of files under state_dir (alert states, silences, outboxes);
 * avahealth_outbox_journal_records_total / _syncs_total: outbox operations and the fsyncs that made them durable
 * (group commit: many operations per fsync under load).
 */

export function registerStateWriteMetrics(registry: Registry): void {
  new Counter({
    name: 'avahealth_state_write_failures_total',
    help: 'Failed writes of state files (alert states, silences, outboxes); the log names the file and the error once per change.',
    registers: [registry],
    collect() {
      this.reset();
      this.inc(stateWriteFailures());
    },
  });
  new Counter({
    name: 'avahealth_outbox_journal_records_total',
    help: 'Operations (enqueues, delivery marks, retries) appended to the outbox journals.',
    registers: [registry],
    collect() {
      this.reset();
      this.inc(journalTotals().records);
    },
  });
  new Counter({
    name: 'avahealth_outbox_journal_syncs_total',
    help: 'fsync/fdatasync calls of the outbox journals: one per group of operations written together, two per compaction.',
    registers: [registry],
    collect() {
      this.reset();
      this.inc(journalTotals().syncs);
    },
  });
}

/** avahealth_web_config_last_reload_successful: 0 while a changed --web.config.file is refused (the previous one stays in force). */

export function webConfigReloadGauge(registry: Registry): Gauge {
  const gauge = new Gauge({
    name: 'avahealth_web_config_last_reload_successful',
    help: 'Whether the last (re)load of --web.config.file was applied (0: refused or broken; the previous one is kept, the log says why).',
    registers: [registry],
  });
  gauge.set(1);
  return gauge;
}
