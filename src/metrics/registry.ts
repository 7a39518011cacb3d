/**
 * avahealth's own prom-client Registry, with the families that are not per target: avahealth
 * itself, alerts and notifications, and prom-client's process metrics (collectors may register
 * their own network-wide families here: collectors/chain.ts). The per-target families
 * (collectors/) are pre-rendered by the Exposition cache.
 */
import { collectDefaultMetrics, Counter, Gauge, Registry } from 'prom-client';
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
  }
  for (const receiver of receivers) {
    alerts.delivered.inc({ receiver }, 0);
    for (const reason of NOTIFICATION_FAILURE_REASONS) alerts.failed.inc({ receiver, reason }, 0);
  }
}

/**
 * The registry in either format. Rendered here rather than by prom-client's own `metrics()`, which
 * serves one format per registry and, in OpenMetrics mode, renames counters in place.
 */
export async function renderRegistry(registry: Registry, format: Format): Promise<string> {
  let out = '';
  for (const metric of await registry.getMetricsAsJSON()) {
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
    failed: counter('notifications_failed_total', 'Failed delivery attempts (retried unless the reason is http_4xx, smtp_5xx or queue_full).', ['receiver', 'reason']),
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
