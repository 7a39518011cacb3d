/**
 * The Prometheus rules, for teams that alert from Prometheus: the same alerts as avahealth's own
 * (docs/alerting.md), written in PromQL by each rule module (src/alerts/rules/<AlertName>.ts,
 * `prometheus:`), plus recording rules the dashboards use and alerts about avahealth itself. One source:
 * `npm run generate` writes deploy/prometheus/avahealth.rules.yml and the PrometheusRule in
 * deploy/kubernetes/base/; a test fails when either differs from this file's output.
 */
import { RULES } from '../../src/alerts/rules/index.js';
import { HEALTH } from '../../src/alerts/rules/promql.js';
import { selfMonitoringGroup } from './self-monitoring.js';
import type { Rule, RuleGroup } from './types.js';

export type { Rule, RuleGroup } from './types.js';

const alert = (name: string, expr: string, forDuration: string, severity: 'warning' | 'critical', summary: string, description: string): Rule => ({
  alert: name,
  expr,
  for: forDuration,
  labels: { severity },
  annotations: { summary, description },
});

/** The group of node, service and validator alerts (the same alerts avahealth's own engine sends). */
export const ALERTS_GROUP = 'avahealth.alerts';

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
    name: ALERTS_GROUP,
    rules: RULES.flatMap((rule) => rule.prometheus),
  },
  {
    name: 'avahealth.self',
    rules: [
      alert('AvahealthNotificationsFailing', 'increase(avahealth_notifications_failed_total[10m]) > 0 and on (receiver) avahealth_notification_queue_length > 0', '10m', 'warning', 'avahealth cannot deliver to {{ $labels.receiver }}', 'Notifications to {{ $labels.receiver }} keep failing ({{ $labels.reason }}); they wait in its outbox.'),
      alert('AvahealthNotificationsDropped', 'increase(avahealth_notifications_dropped_total[15m]) > 0', '0s', 'warning', 'avahealth dropped a notification to {{ $labels.receiver }}', 'A notification to {{ $labels.receiver }} was given up ({{ $labels.reason }}): the receiver refused it, plain text too, or its outbox was full. The error log "notification rejected by the receiver; dropped" names its incidents.'),
      alert('AvahealthConfigReloadFailed', 'avahealth_config_last_reload_successful == 0', '0s', 'warning', 'avahealth config reload failed', 'The last config reload failed; the previous config is still in use. Run avahealth validate.'),
      alert('AvahealthPollsSkipped', 'increase(avahealth_scheduler_skipped_polls_total[10m]) > 2', '0s', 'warning', 'avahealth skips polls of {{ $labels.target }}', 'Polls of {{ $labels.target }} overrun their interval; raise the interval or lower the timeout.'),
    ],
  },
  selfMonitoringGroup(),
];
