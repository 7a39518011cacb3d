/** The node reports unhealthy because of checks that may page (see node-facts.ts). */
import { listNames } from './format.js';
import UnreachableByPeers from './AvalancheValidatorUnreachableByPeers.js';
import UpgradeRequired from './AvalancheNodeUpgradeRequired.js';
import { inboundSpokenFor, missedUpgradeSymptom, nodeFacts } from './node-facts.js';
import { HEALTH, NOT_READY } from './promql.js';
import { defineRule, NO_TUNING, promAlert, UNKNOWN } from './rule.js';

export default defineRule({
  name: 'AvalancheNodeUnhealthy',
  source: 'node',
  fires: 'the node reports unhealthy (pageable failing checks)',
  defaults: { severity: 'warning', criticalAfterMs: 15 * 60_000 },
  tuning: NO_TUNING,
  phrases: { firing: 'unhealthy', resolved: 'healthy again' },
  prometheus: [
    promAlert(
      'AvalancheNodeUnhealthy',
      `avahealth_node_healthy{${HEALTH}} == 0 unless ${NOT_READY}`,
      '1m',
      'warning',
      '{{ $labels.target }} is unhealthy',
      '{{ $labels.target }} reports healthy=false; {{ with query (printf "avahealth:node_failing_checks:count{target=%q}" $labels.target) }}{{ $n := . | first | value }}{{ $n }} check{{ if ne $n 1.0 }}s{{ end }} failing{{ else }}checks failing{{ end }}.',
    ),
  ],
  evaluate(observation, ctx) {
    const facts = nodeFacts(observation);
    if (facts.health && !facts.health.ok) return UNKNOWN;
    if (facts.pageable.length === 0) return [];
    // A closed staking port alone: AvalancheValidatorUnreachableByPeers says so, with the port to open.
    if (facts.pageable.length === 1 && ctx.enabled(UnreachableByPeers.name) && inboundSpokenFor(facts, facts.pageable[0]!, observation)) return [];
    // An upgrade it does not know: AvalancheNodeUpgradeRequired says so (with the date); its failing
    // futureupgrade check, and after a missed upgrade its chains' lost stake, are the symptoms.
    if (ctx.enabled(UpgradeRequired.name) && facts.pageable.every((c) => c.upgrade?.deadline !== undefined || missedUpgradeSymptom(c, observation))) return [];
    return [
      {
        identity: {},
        severity: 'warning',
        summary: `${ctx.target} is unhealthy: ${listNames(facts.pageable.map((c) => c.name))} failing`,
        description: facts.pageable.map((c) => `${c.name}: ${c.error ?? 'failing'}`).join('\n'),
      },
    ];
  },
});
