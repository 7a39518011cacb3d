/**
 * One alert per failing check that may page; the node's own contiguousFailures can fire it at once.
 * A Primary Network chain that lost connected stake with the whole network (a dip: most of the
 * fleet's baseline observers see it too) does not page: AvalancheNetworkDegraded speaks for the
 * network (node-facts.ts networkLostStake).
 */
import DiskLow from './AvalancheDiskLow.js';
import UpgradeRequired from './AvalancheNodeUpgradeRequired.js';
import UnreachableByPeers from './AvalancheValidatorUnreachableByPeers.js';
import { BLOCKCHAIN_ID, inboundSpokenFor, missedUpgradeSymptom, networkLostStake, nodeFacts, PRIMARY_CHAINS, type DipMemory } from './node-facts.js';
import { CHAINS_LOST_WITH_NETWORK, HEALTH, NOT_READY } from './promql.js';
import { defineRule, NO_TUNING, promAlert, UNKNOWN } from './rule.js';

export default defineRule({
  name: 'AvalancheCheckFailing',
  source: 'node',
  fires: 'one per failing check (`check` label)',
  defaults: { severity: 'warning', criticalAfterMs: 30 * 60_000 },
  tuning: NO_TUNING,
  phrases: { subject: 'check', firing: 'failing', resolved: 'recovered' },
  // The failing check names the problem; "the node is unhealthy" says it again, less sharply.
  inhibits: [
    { alertname: 'AvalancheNodeUnhealthy', because: 'the node is unhealthy because a check fails, and that check pages by name' },
    // A chain whose check fails (lost its stake, stuck) falls behind: the failing check is the problem.
    {
      alertname: 'AvalancheNodeHeightLag',
      sameAs: { label: 'chain', as: 'check', values: PRIMARY_CHAINS, rest: BLOCKCHAIN_ID },
      because: 'a chain whose health check fails falls behind because of what the check says',
    },
    // A validator cut off loses uptime because it is cut off: one problem, paged as the failing network check.
    ...(['AvalancheValidatorRewardAtRisk', 'AvalancheValidatorDowntimeBudgetLow'] as const).map((alertname) => ({
      alertname,
      from: { check: 'network' },
      because: "peers measure the validator's uptime low because its own node is cut off from the network: the failing network check is the problem",
    })),
  ],
  prometheus: [
    promAlert(
      'AvalancheCheckFailing',
      `(avahealth_node_check_passing{${HEALTH}} == 0 and on (target, endpoint, view, check) avahealth_node_check_not_yet_run == 0) unless ${NOT_READY} unless ${CHAINS_LOST_WITH_NETWORK}`,
      '1m',
      'warning',
      '{{ $labels.target }}: check {{ $labels.check }} failing',
      'Check {{ $labels.check }} of {{ $labels.target }} fails; the node counted {{ with query (printf "avahealth_node_check_contiguous_failures{target=%q,check=%q,endpoint=\\"health\\",view=\\"all\\"}" $labels.target $labels.check) }}{{ . | first | value }}{{ end }} failures in a row. The error text is on the avahealth status page.',
    ),
  ],
  newState: (): DipMemory => ({}),
  evaluate(observation, ctx, dips) {
    const facts = nodeFacts(observation);
    const lostWith = networkLostStake(observation, dips, ctx.now);
    if (facts.health && !facts.health.ok) return UNKNOWN;
    // With the free ratio known, AvalancheDiskLow speaks for the disk (with its runway): one alert, not two.
    const diskSpokenFor = facts.diskCheck !== undefined && ctx.enabled(DiskLow.name);
    // So does AvalancheNodeUpgradeRequired for a futureupgrade check failing on a known deadline (with the date),
    // and for the chains that lost the upgraded stake after a missed upgrade.
    const upgradeSpokenFor = ctx.enabled(UpgradeRequired.name);
    // And AvalancheValidatorUnreachableByPeers for a network check failing for no inbound connection alone (with the port).
    const inboundHeld = (check: (typeof facts.pageable)[number]) => ctx.enabled(UnreachableByPeers.name) && inboundSpokenFor(facts, check, observation);
    return facts.pageable
      .filter((check) => !(diskSpokenFor && check === facts.diskCheck) && !(upgradeSpokenFor && (check.upgrade?.deadline !== undefined || missedUpgradeSymptom(check, observation))) && !inboundHeld(check))
      .flatMap((check) => {
        const lost = lostWith(check);
        if (lost?.whose === 'network') return [];
        return [
          {
            identity: { check: ctx.label(check.name) },
            severity: 'warning' as const,
            summary: `${ctx.target}: check ${check.name} failing`,
            description: check.error ?? 'failing',
            nodeFailures: lost?.whose === 'cut-off' ? lost.nodeFailures : check.contiguousFailures,
            // Until a baseline read after it began says whether the network lost that stake too.
            ...(lost?.whose === 'settling' ? { settling: true } : {}),
            // The node lost its own network: the chain pages with that check, not ahead of it.
            ...(lost?.whose === 'cut-off' ? { holdFrom: lost.holdFrom } : {}),
          },
        ];
      });
  },
});
