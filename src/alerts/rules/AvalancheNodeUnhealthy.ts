/** The node reports unhealthy because of checks that may page (see node-facts.ts). */
import { listNames } from './format.js';
import UnreachableByPeers from './AvalancheValidatorUnreachableByPeers.js';
import UpgradeRequired from './AvalancheNodeUpgradeRequired.js';
import { inboundSpokenFor, missedUpgradeSymptom, networkLostStake, nodeFacts, type DipMemory, type LostStake } from './node-facts.js';
import { HEALTH, NODE_LOST_WITH_NETWORK, NOT_READY } from './promql.js';
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
      `avahealth_node_healthy{${HEALTH}} == 0 unless ${NOT_READY} unless ${NODE_LOST_WITH_NETWORK}`,
      '1m',
      'warning',
      '{{ $labels.target }} is unhealthy',
      '{{ $labels.target }} reports healthy=false; {{ with query (printf "avahealth:node_failing_checks:count{target=%q}" $labels.target) }}{{ $n := . | first | value }}{{ $n }} check{{ if ne $n 1.0 }}s{{ end }} failing{{ else }}checks failing{{ end }}.',
    ),
  ],
  newState: (): DipMemory => ({}),
  evaluate(observation, ctx, dips) {
    const facts = nodeFacts(observation);
    if (facts.health && !facts.health.ok) return UNKNOWN;
    // Chains that lost their stake with the whole network (a dip): AvalancheNetworkDegraded speaks for them.
    const lostWith = networkLostStake(observation, dips, ctx.now);
    const losses = new Map(facts.pageable.map((c) => [c, lostWith(c)]));
    const pageable = facts.pageable.filter((c) => losses.get(c)?.whose !== 'network');
    if (pageable.length === 0) return [];
    // A closed staking port alone: AvalancheValidatorUnreachableByPeers says so, with the port to open.
    if (pageable.length === 1 && ctx.enabled(UnreachableByPeers.name) && inboundSpokenFor(facts, pageable[0]!, observation)) return [];
    // An upgrade it does not know: AvalancheNodeUpgradeRequired says so (with the date); its failing
    // futureupgrade check, and after a missed upgrade its chains' lost stake, are the symptoms.
    if (ctx.enabled(UpgradeRequired.name) && pageable.every((c) => c.upgrade?.deadline !== undefined || missedUpgradeSymptom(c, observation))) return [];
    return [
      {
        identity: {},
        severity: 'warning',
        summary: `${ctx.target} is unhealthy: ${listNames(pageable.map((c) => c.name))} failing`,
        description: pageable.map((c) => `${c.name}: ${c.error ?? 'failing'}`).join('\n'),
        // Every check left is a chain's lost stake not yet read against a fresh baseline.
        ...(pageable.every((c) => losses.get(c)?.whose === 'settling') ? { settling: true } : {}),
        // Held pending in a dip until the node's own network failed: it holds from then.
        ...holdFrom(pageable.map((c) => losses.get(c))),
      },
    ];
  },
});

function holdFrom(losses: ReadonlyArray<LostStake | undefined>): { holdFrom?: number } {
  const cutOff = losses.find((l) => l?.whose === 'cut-off');
  return cutOff?.whose === 'cut-off' ? { holdFrom: cutOff.holdFrom } : {};
}
