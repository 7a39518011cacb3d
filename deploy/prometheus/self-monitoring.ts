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
    ],
  };
}
