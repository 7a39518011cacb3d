/**
 * The Prometheus rules, for teams that alert from Prometheus: the same alerts as avahealth's own
 * (docs/alerting.md), written in PromQL, plus recording rules the dashboards use. One source:
 * `npm run generate` writes deploy/prometheus/avahealth.rules.yml and the PrometheusRule in
 * deploy/kubernetes/base/; a test fails when either differs from this file's output.
 */
export interface Rule {
  record?: string;
  alert?: string;
  expr: string;
  for?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
}

export interface RuleGroup {
  name: string;
  interval?: string;
  rules: Rule[];
}

const HEALTH = 'endpoint="health",view="all"';
const NOT_READY = `on (target) (avahealth_node_healthy{endpoint="readiness",view="all"} == 0)`;

const alert = (name: string, expr: string, forDuration: string, severity: 'warning' | 'critical', summary: string, description: string): Rule => ({
  alert: name,
  expr,
  for: forDuration,
  labels: { severity },
  annotations: { summary, description },
});

export const ruleGroups: RuleGroup[] = [
  {
    name: 'avahealth.recording',
    rules: [
      {
        record: 'avahealth:node_failing_checks:count',
        expr: `count by (target) (avahealth_node_check_passing{${HEALTH}} == 0 and on (target, endpoint, view, check) avahealth_node_check_not_yet_run == 0)`,
      },
      { record: 'avahealth:probe_success:avg5m', expr: 'avg_over_time(avahealth_probe_success[5m])' },
      { record: 'avahealth:node_disk_available_ratio:predict24h', expr: 'predict_linear(avahealth_node_disk_available_ratio[1h], 86400)' },
      { record: 'avahealth:fleet_healthy_nodes:count', expr: `count(avahealth_node_healthy{${HEALTH}} == 1)` },
    ],
  },
  {
    name: 'avahealth.alerts',
    rules: [
      alert('AvalancheNodeUnreachable', `avahealth_probe_success{${HEALTH}} == 0`, '1m', 'warning', '{{ $labels.target }} is unreachable', 'The /ext/health probe of {{ $labels.target }} has failed for a minute (see avahealth_probe_failures_total for the reason).'),
      alert(
        'AvalancheNodeUnhealthy',
        `avahealth_node_healthy{${HEALTH}} == 0 unless ${NOT_READY}`,
        '1m',
        'warning',
        '{{ $labels.target }} is unhealthy',
        '{{ $labels.target }} reports healthy=false; {{ with query (printf "avahealth:node_failing_checks:count{target=%q}" $labels.target) }}{{ . | first | value }}{{ end }} checks failing.',
      ),
      alert(
        'AvalancheCheckFailing',
        `(avahealth_node_check_passing{${HEALTH}} == 0 and on (target, endpoint, view, check) avahealth_node_check_not_yet_run == 0) unless ${NOT_READY}`,
        '1m',
        'warning',
        '{{ $labels.target }}: check {{ $labels.check }} failing',
        'Check {{ $labels.check }} of {{ $labels.target }} fails; the node counted {{ with query (printf "avahealth_node_check_contiguous_failures{target=%q,check=%q,endpoint=\\"health\\",view=\\"all\\"}" $labels.target $labels.check) }}{{ . | first | value }}{{ end }} failures in a row. The error text is on the avahealth status page.',
      ),
      alert('AvalancheNodeNotReady', 'avahealth_node_healthy{endpoint="readiness",view="all"} == 0', '30m', 'warning', '{{ $labels.target }} is not ready', '{{ $labels.target }} has been bootstrapping (readiness 503) for 30 minutes.'),
      alert(
        'AvalancheServiceUnhealthy',
        'max by (target) (avahealth_service_healthy == 0 or avahealth_probe_success{endpoint=~"health-check|live-check"} == 0) unless on (target) (increase(avahealth_probe_failures_total{reason="rate_limited"}[5m]) > 0)',
        '2m',
        'warning',
        '{{ $labels.target }} is unhealthy',
        'The health-check or live-check of {{ $labels.target }} is not ok, or cannot be reached.',
      ),
      alert('AvalancheServiceComponentDown', 'avahealth_service_component_up == 0', '2m', 'warning', '{{ $labels.target }}: component {{ $labels.component }} is down', 'Component {{ $labels.component }} of {{ $labels.target }} reports down on {{ $labels.endpoint }}.'),
      alert('AvalancheNodeHeightLag', 'avahealth_node_chain_height_lag_blocks >= 50 unless ' + NOT_READY, '2m', 'warning', '{{ $labels.target }}: {{ $labels.chain }} is {{ $value }} blocks behind', 'The last accepted height of {{ $labels.chain }} on {{ $labels.target }} trails the network by {{ $value }} blocks.'),
      alert('AvalancheNodeHeightLagCritical', 'avahealth_node_chain_height_lag_blocks >= 500 unless ' + NOT_READY, '2m', 'critical', '{{ $labels.target }}: {{ $labels.chain }} is {{ $value }} blocks behind', 'The last accepted height of {{ $labels.chain }} on {{ $labels.target }} trails the network by {{ $value }} blocks.'),
      alert(
        'AvalancheValidatorEndingSoon',
        '(avahealth_validator_end_timestamp_seconds - time() < 7 * 86400) and on (target, node_id) (avahealth_validator_status{status="active"} == 1)',
        '0s',
        'warning',
        '{{ $labels.target }}: validation ends in {{ $value | humanizeDuration }}',
        'The current validation of {{ $labels.node_id }} ends in {{ $value | humanizeDuration }}; re-stake to keep validating.',
      ),
      alert(
        'AvalancheDiskLow',
        'avahealth_node_disk_available_ratio <= 0.15 or avahealth:node_disk_available_ratio:predict24h < 0.10',
        '5m',
        'warning',
        '{{ $labels.target }}: disk {{ with query (printf "avahealth_node_disk_available_ratio{target=%q}" $labels.target) }}{{ . | first | value | humanizePercentage }}{{ end }} free',
        'Free disk is at most 15%, or at the last hour\'s rate it reaches the node\'s own 10% warning within a day. Below 3% AvalancheGo shuts down.',
      ),
      alert('AvalancheDiskLowCritical', 'avahealth_node_disk_available_ratio <= 0.11', '5m', 'critical', '{{ $labels.target }}: disk {{ $value | humanizePercentage }} free', 'Free disk is at most 11%; below 3% AvalancheGo shuts down.'),
    ],
  },
  {
    name: 'avahealth.self',
    rules: [
      alert('AvahealthNotificationsFailing', 'increase(avahealth_notifications_failed_total[10m]) > 0 and on (receiver) avahealth_notification_queue_length > 0', '10m', 'warning', 'avahealth cannot deliver to {{ $labels.receiver }}', 'Notifications to {{ $labels.receiver }} keep failing ({{ $labels.reason }}); they wait in its outbox.'),
      alert('AvahealthConfigReloadFailed', 'avahealth_config_last_reload_successful == 0', '0s', 'warning', 'avahealth config reload failed', 'The last config reload failed; the previous config is still in use. Run avahealth validate.'),
      alert('AvahealthPollsSkipped', 'increase(avahealth_scheduler_skipped_polls_total[10m]) > 2', '0s', 'warning', 'avahealth skips polls of {{ $labels.target }}', 'Polls of {{ $labels.target }} overrun their interval; raise the interval or lower the timeout.'),
    ],
  },
];
