/** With chain data: a chain of the node trails the best-known height (`chain` label). */
import { readinessFailing } from './node-facts.js';
import { NOT_READY } from './promql.js';
import { defineRule, promAlert, thresholdTuning, UNKNOWN, type RuleDefaults } from './rule.js';

const defaults: RuleDefaults = { severity: 'warning', threshold: 50, criticalThreshold: 500 };
const summary = '{{ $labels.target }}: {{ $labels.chain }} is {{ $value }} blocks behind';
const description = 'The last accepted height of {{ $labels.chain }} on {{ $labels.target }} trails the network by {{ $value }} blocks.';

export default defineRule({
  name: 'AvalancheNodeHeightLag',
  source: 'lag',
  fires: 'with `chain_data`: a chain ≥ 50 blocks behind (`chain` label); critical at ≥ 500',
  defaults,
  tuning: thresholdTuning('lag in blocks', defaults),
  phrases: { subject: 'chain', firing: 'behind', resolved: 'caught up' },
  prometheus: [
    promAlert('AvalancheNodeHeightLag', `avahealth_node_chain_height_lag_blocks >= 50 unless ${NOT_READY}`, '2m', 'warning', summary, description),
    promAlert('AvalancheNodeHeightLagCritical', `avahealth_node_chain_height_lag_blocks >= 500 unless ${NOT_READY}`, '2m', 'critical', summary, description),
  ],
  recovered(input, ctx, labels) {
    const lag = input.lags.find((l) => ctx.label(l.chain) === labels.chain);
    if (!lag) return undefined;
    return `${lag.chain} caught up: ${lag.lagBlocks <= 0 ? 'at the network height' : `${lag.lagBlocks} block${lag.lagBlocks === 1 ? '' : 's'} behind the network`}`;
  },
  evaluate(input, ctx) {
    // A bootstrapping node is expected to be behind: AvalancheNodeNotReady speaks for it.
    if (readinessFailing(input.node)) return UNKNOWN;
    return input.lags
      .filter((lag) => lag.lagBlocks >= (ctx.settings.threshold ?? 50))
      .map((lag) => ({
        identity: { chain: ctx.label(lag.chain) },
        severity: lag.lagBlocks >= (ctx.settings.criticalThreshold ?? 500) ? ('critical' as const) : ('warning' as const),
        summary: `${ctx.target}: ${lag.chain} is ${lag.lagBlocks} blocks behind the network`,
        description: `lastAcceptedHeight trails the best-known height of ${lag.chain} by ${lag.lagBlocks} blocks`,
      }));
  },
});
