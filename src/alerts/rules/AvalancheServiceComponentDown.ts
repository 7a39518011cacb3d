/** One alert per component a hosted API reports down (`component` label). */
import type { Finding } from './rule.js';
import { rateLimited, serviceHealth } from './service-facts.js';
import { defineRule, NO_TUNING, promAlert, UNKNOWN } from './rule.js';

export default defineRule({
  name: 'AvalancheServiceComponentDown',
  source: 'service',
  fires: 'one per down component (`component` label)',
  defaults: { severity: 'warning' },
  tuning: NO_TUNING,
  phrases: { subject: 'component', firing: 'down', resolved: 'up again' },
  prometheus: [
    promAlert('AvalancheServiceComponentDown', 'avahealth_service_component_up == 0', '2m', 'warning', '{{ $labels.target }}: component {{ $labels.component }} is down', 'Component {{ $labels.component }} of {{ $labels.target }} reports down on {{ $labels.endpoint }}.'),
  ],
  evaluate(observation, ctx) {
    if (rateLimited(observation)) return UNKNOWN;
    const findings: Finding[] = [];
    const seen = new Set<string>();
    for (const e of serviceHealth(observation)) {
      for (const component of e.service?.components ?? []) {
        if (component.up || seen.has(component.name)) continue;
        seen.add(component.name);
        findings.push({
          identity: { component: ctx.label(component.name) },
          severity: 'warning',
          summary: `${ctx.target}: component ${component.name} is ${component.status}`,
          description: component.message ?? component.status,
        });
      }
    }
    return findings;
  },
});
