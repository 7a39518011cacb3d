/** A hosted API's health-check or live-check is not ok, or cannot be reached. */
import { rateLimited, serviceHealth } from './service-facts.js';
import { defineRule, NO_TUNING, promAlert, UNKNOWN } from './rule.js';

export default defineRule({
  name: 'AvalancheServiceUnhealthy',
  source: 'service',
  fires: "a hosted API's health-check/live-check is not `ok`, or unreachable",
  defaults: { severity: 'warning', criticalAfterMs: 15 * 60_000 },
  tuning: NO_TUNING,
  phrases: { firing: 'unhealthy', resolved: 'healthy again' },
  inhibits: [{ alertname: 'AvalancheServiceComponentDown', because: 'the service is unhealthy because a component is down, and its text names the component' }],
  prometheus: [
    promAlert(
      'AvalancheServiceUnhealthy',
      'max by (target) (avahealth_service_healthy == 0 or avahealth_probe_success{endpoint=~"health-check|live-check"} == 0) unless on (target) (increase(avahealth_probe_failures_total{reason="rate_limited"}[5m]) > 0)',
      '2m',
      'warning',
      '{{ $labels.target }} is unhealthy',
      'The health-check or live-check of {{ $labels.target }} is not ok, or cannot be reached.',
    ),
  ],
  evaluate(observation, ctx) {
    if (rateLimited(observation)) return UNKNOWN;
    const bad = serviceHealth(observation).filter((e) => !e.ok || !e.service?.healthy);
    if (bad.length === 0) return [];
    const describe = (e: (typeof bad)[number]) => `${e.endpoint}: ${e.ok ? `${e.service!.status}${e.service!.message ? ` (${e.service!.message})` : ''}` : `${e.reason} (${e.error ?? ''})`}`;
    return [{ identity: {}, severity: 'warning', summary: `${ctx.target} is unhealthy`, description: bad.map(describe).join('\n') }];
  },
});
