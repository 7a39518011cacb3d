/**
 * Alerts about avahealth itself being gone: a monitor that is down cannot say so, so Prometheus
 * must. Kept apart from the rules generated from src/alerts/rules/ (those describe the nodes).
 * Every shipped scrape config (the PodMonitor, ServiceMonitors, compose's prometheus.yml) labels
 * the job AVAHEALTH_JOB; a test checks that.
 */
import type { RuleGroup } from './types.js';

export const AVAHEALTH_JOB = 'avahealth';

export function selfMonitoringGroup(job = AVAHEALTH_JOB): RuleGroup {
  return {
    name: 'avahealth.up',
    rules: [
      {
        alert: 'AvahealthDown',
        expr: `up{job="${job}"} == 0`,
        for: '5m',
        labels: { severity: 'critical' },
        annotations: {
          summary: 'avahealth at {{ $labels.instance }} is down',
          description: 'Prometheus has not been able to scrape avahealth at {{ $labels.instance }} for 5 minutes: the nodes it watches are unwatched and its alerts are not sent.',
        },
      },
      {
        alert: 'AvahealthNotScraped',
        expr: `absent(up{job="${job}"})`,
        for: '10m',
        labels: { severity: 'critical' },
        annotations: {
          summary: `Prometheus scrapes no avahealth (job "${job}")`,
          description: `No target of job "${job}" has been discovered for 10 minutes: avahealth is not deployed, or its PodMonitor, ServiceMonitor or scrape config no longer matches it.`,
        },
      },
      // The Data API and Metrics API stopped answering: height lag falls back to the fleet's own
      // heights and validator status and network facts go stale, with nothing else to say so.
      {
        alert: 'AvahealthChainDataStale',
        expr: `avahealth_chain_data_last_refresh_errors{job="${job}"} > 0 and time() - avahealth_chain_data_last_refresh_timestamp_seconds{job="${job}"} > 900`,
        for: '5m',
        labels: { severity: 'warning' },
        annotations: {
          summary: 'avahealth at {{ $labels.instance }} has had no chain data for over 15 minutes',
          description: 'Every Data API and Metrics API request of its chain data refreshes fails (a revoked or missing API key, rate limits, the service down; /api/v1/status says which): height lag is measured against the fleet alone, and validator status, chain status and TPS are stale.',
        },
      },
      // Sharded replicas (`--shard`) each say N in avahealth_shard_count{shard_index}; per namespace, so
      // separate sharded deployments are compared only with themselves.
      {
        alert: 'AvahealthShardsDisagree',
        expr: `max by (namespace) (avahealth_shard_count{job="${job}"}) != min by (namespace) (avahealth_shard_count{job="${job}"})`,
        for: '5m',
        labels: { severity: 'warning' },
        annotations: {
          summary: 'avahealth shards disagree on how many shards there are',
          description: 'Some avahealth replicas split the fleet into {{ with query (printf "max(avahealth_shard_count{namespace=%q})" $labels.namespace) }}{{ . | first | value }}{{ end }} shards, others into fewer: targets may be polled twice or not at all. Run every replica with the same N (--shard auto reads it from the StatefulSet).',
        },
      },
      {
        alert: 'AvahealthShardMissing',
        expr: `count by (namespace) (avahealth_shard_count{job="${job}"}) < max by (namespace) (avahealth_shard_count{job="${job}"})`,
        for: '5m',
        labels: { severity: 'critical' },
        annotations: {
          summary: 'an avahealth shard is missing',
          description: 'Only {{ $value }} avahealth shards are scraped of the {{ with query (printf "max(avahealth_shard_count{namespace=%q})" $labels.namespace) }}{{ . | first | value }}{{ end }} they split the fleet into: the targets of the missing ones are not watched.',
        },
      },
    ],
  };
}
