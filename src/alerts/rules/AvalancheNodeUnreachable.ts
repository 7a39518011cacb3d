/** The node's /ext/health cannot be polled: it pages once, and its check alerts freeze meanwhile. */
import { nodeFacts, endpointName } from './node-facts.js';
import { HEALTH } from './promql.js';
import { defineRule, NO_TUNING, promAlert } from './rule.js';

export default defineRule({
  name: 'AvalancheNodeUnreachable',
  source: 'node',
  fires: 'the `/ext/health` probe fails (any reason)',
  defaults: { severity: 'warning', criticalAfterMs: 5 * 60_000 },
  tuning: NO_TUNING,
  phrases: { firing: 'unreachable', resolved: 'reachable again' },
  prometheus: [
    promAlert('AvalancheNodeUnreachable', `avahealth_probe_success{${HEALTH}} == 0`, '1m', 'warning', '{{ $labels.target }} is unreachable', 'The /ext/health probe of {{ $labels.target }} has failed for a minute (see avahealth_probe_failures_total for the reason).'),
  ],
  evaluate(observation, ctx) {
    const { health } = nodeFacts(observation);
    if (!health || health.ok) return [];
    return [{ identity: {}, severity: 'warning', summary: `${ctx.target} is unreachable (${health.reason})`, description: `${endpointName(health)}: ${health.error ?? health.reason}` }];
  },
});
