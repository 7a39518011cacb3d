/** A node still bootstrapping after `bootstrap_grace`: one alert, instead of one per chain check. */
import { nodeFacts } from './node-facts.js';
import { defineRule, NO_TUNING, promAlert, UNKNOWN } from './rule.js';

export default defineRule({
  name: 'AvalancheNodeNotReady',
  source: 'node',
  fires: 'readiness false for longer than `bootstrap_grace` (30m)',
  defaults: { severity: 'warning', forMs: 'bootstrap_grace', criticalAfterMs: 2 * 3600_000 },
  tuning: NO_TUNING,
  phrases: { firing: 'not ready', resolved: 'ready' },
  prometheus: [
    promAlert('AvalancheNodeNotReady', 'avahealth_node_healthy{endpoint="readiness",view="all"} == 0', '30m', 'warning', '{{ $labels.target }} is not ready', '{{ $labels.target }} has been bootstrapping (readiness 503) for 30 minutes.'),
  ],
  evaluate(observation, ctx) {
    const facts = nodeFacts(observation);
    if (facts.health && !facts.health.ok) return UNKNOWN;
    if (!facts.notReady) return [];
    const subnets = facts.bootstrapped?.bootstrappingSubnets?.length;
    return [
      {
        identity: {},
        severity: 'warning',
        summary: `${ctx.target} is not ready (still bootstrapping)`,
        description: `readiness reports not bootstrapped${subnets ? ` (${subnets} subnet${subnets === 1 ? '' : 's'} bootstrapping)` : ''}`,
      },
    ];
  },
});
