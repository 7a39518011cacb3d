/**
 * Every validator looks down from the fleet's vantage points: a network-wide dip, or the fleet's own
 * connectivity (docs/validators.md, "scope"). One alert per network, of its own, naming the fleet's
 * validators it touches, instead of one per validator: while it lasts it holds back their
 * network-wide copies (`scope="network"`) of the reward, budget and reachability alerts, in the
 * daemon and at Alertmanager. A validator whose own node says it is cut off is its own problem
 * (`scope="self"`) and pages even inside a dip. Chat, not the pager (the shipped routes send
 * `scope="network"` there): no action on one node helps.
 *
 * Its target is the network (`mainnet network`), not a node. A node's `info.uptime` counts the stake
 * it is not connected to as 0 at once (network/network.go, NodeUptime), so in a dip every validator's
 * figures fall together, and the network baseline (`platform.getCurrentValidators` of a few fleet
 * nodes, vms/platformvm/service.go) says it is everyone.
 */
import DowntimeBudgetLow from './AvalancheValidatorDowntimeBudgetLow.js';
import RewardAtRisk from './AvalancheValidatorRewardAtRisk.js';
import UnreachableByPeers from './AvalancheValidatorUnreachableByPeers.js';
import { listNames } from './format.js';
import { isUpgradeDaySummary } from './validator-facts.js';
import { defineRule, NO_TUNING, promAlert, UNKNOWN } from './rule.js';

const HELD = [RewardAtRisk, DowntimeBudgetLow, UnreachableByPeers].filter((r) => r.scoped);

/** The baseline observers (with data) seeing less than 80 % of the stake connected or the median uptime below 0.8: most of them, per network. */
const PROM_EXPR =
  'count by (network) ((avahealth_network_connected_stake_ratio < 0.8) or ignoring (quantile) (avahealth_network_observed_uptime_ratio{quantile="0.5"} < 0.8)) > count by (network) (avahealth_network_connected_stake_ratio) / 2';

export default defineRule({
  name: 'AvalancheNetworkDegraded',
  source: 'fleet',
  fires: "every validator looks down from the fleet's vantage points (the network baseline): one notice per network naming the fleet's validators it touches, whose own network-wide alerts it holds back",
  defaults: { severity: 'warning', forPolls: 1 },
  tuning: NO_TUNING,
  phrases: { firing: 'every validator looks down from the fleet', resolved: 'the network looks normal again from the fleet' },
  inhibits: HELD.map((rule) => ({
    alertname: rule.name,
    labels: { scope: 'network' },
    across: 'network' as const,
    because: `every validator looks down from the fleet: one notice for the network, not one ${rule.name} per validator`,
  })),
  prometheus: [
    promAlert(
      'AvalancheNetworkDegraded',
      PROM_EXPR,
      '5m',
      'warning',
      '{{ $labels.network }}: every validator looks down from the fleet ({{ $value }} baseline observers see it)',
      "Most of the fleet's baseline observers see less than 80 % of the stake connected, or the median observed uptime below 80 %: a network-wide dip, or the fleet's own connectivity. No action on one validator helps.",
      { scope: 'network', target: '{{ $labels.network }} network' },
    ),
  ],
  evaluate(input, ctx) {
    if (input.affected.length === 0) return input.complete ? [] : UNKNOWN;
    const names = input.affected.map((a) => a.target);
    const [first] = input.affected;
    const evidence = first?.summaries[0];
    const affected = `${names.length} of your ${input.validators} validator${input.validators === 1 ? '' : 's'} affected (${listNames(names)})`;
    // Upgrade day: no dip, peers bootstrapping send 0 % in their Pings for every validator (network/peer/peer.go getUptime).
    const upgradeDay = input.affected.every((a) => a.summaries.length > 0 && a.summaries.every(isUpgradeDaySummary));
    return [
      {
        identity: { network: ctx.label(input.network), scope: 'network' },
        severity: 'warning',
        // Its notice names every validator it touches: it waits until each has had a verdict since the first.
        ...(input.settled ? {} : { settling: true }),
        summary: upgradeDay
          ? `${input.network}: peers bootstrapping report 0 % for every validator, as on an upgrade day: ${affected}`
          : `${input.network}: every validator looks down from the fleet: ${affected}`,
        description:
          (upgradeDay
            ? "Validators that restarted are bootstrapping: until its P-Chain is, a node sends 0 % in its Pings for everyone, and each validator's info.uptime counts that (nobody was down; the reward vote does not count these Pings). No action helps; the figures climb back as they finish. "
            : "A network-wide dip, or the fleet's own connectivity: no action on one validator helps; check the fleet's network and the network's status. ") +
          'Their own reward, budget and reachability alerts wait while this lasts; a validator whose own node says it is cut off pages on its own.' +
          (evidence ? ` As ${first!.target} sees it: ${evidence}` : ''),
      },
    ];
  },
});
