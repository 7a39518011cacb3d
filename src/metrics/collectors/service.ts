/** A hosted service's health, its components, and its rate-limit window. */
import { sanitizeLabelValue } from '../../util/labels.js';
import { escapeLabel } from '../exposition.js';
import { defineCollector, defineFamilies, gauge } from './collector.js';

const F = defineFamilies({
  healthy: gauge('service_healthy', 'The service reports status "ok" on this endpoint.'),
  componentUp: gauge('service_component_up', 'A component (indicator) of the service health report is "up".'),
  rateLimitRemaining: gauge('service_rate_limit_remaining', 'Requests left in the current rate-limit window (ratelimit-remaining).'),
  rateLimitLimit: gauge('service_rate_limit_limit', 'Requests allowed per rate-limit window (ratelimit-limit).'),
});
const I = F.index;

export default defineCollector({
  name: 'service',
  families: F.list,
  target(w, { base, state, config }) {
    if (!state) return;
    const { maxChecksPerTarget, maxLabelLength } = config.limits;
    for (const e of state.observation.endpoints) {
      if (!e.service) continue;
      const labels = `${base},endpoint="${escapeLabel(e.endpoint)}"`;
      w.add(I.healthy, labels, e.service.healthy ? 1 : 0);
      for (const component of e.service.components.slice(0, maxChecksPerTarget)) {
        w.add(I.componentUp, `${labels},component="${escapeLabel(sanitizeLabelValue(component.name, maxLabelLength))}"`, component.up ? 1 : 0);
      }
    }
    const rateLimit = state.observation.endpoints.find((e) => e.rateLimit)?.rateLimit;
    w.add(I.rateLimitLimit, base, rateLimit?.limit);
    w.add(I.rateLimitRemaining, base, rateLimit?.remaining);
  },
});
