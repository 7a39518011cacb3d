/**
 * Chain, network, router, disk and upgrade gauges of a node, from the checks of every successful
 * /ext/health view (the unfiltered one first, so an L1 node polled only through a tag view still
 * reports its chain). Re-rendered only when a report changes.
 */
import type { CheckResult, EndpointObservation } from '../../model/observation.js';
import { sanitizeLabelValue } from '../../util/labels.js';
import { escapeLabel } from '../exposition.js';
import { defineCollector, defineFamilies, gauge, addReports, type Writer } from './collector.js';

const F = defineFamilies({
  chainConnectedStake: gauge('node_chain_connected_stake_ratio', 'Share of the validating stake the node is connected to (0–1).'),
  chainHeight: gauge('node_chain_last_accepted_height', 'Height of the last accepted block.'),
  chainExecuted: gauge('node_chain_last_executed_height', 'Height of the last executed C-Chain block (eth_blockNumber): behind the accepted one while AvalancheGo v1.15 executes asynchronously.'),
  chainProcessing: gauge('node_chain_processing_blocks', 'Blocks being processed by consensus.'),
  chainLongestProcessing: gauge('node_chain_longest_processing_block_seconds', 'Age of the oldest block in processing.'),
  chainDisconnectedValidators: gauge('node_chain_disconnected_validators', 'Validators of the chain the node is not connected to.'),
  chainBootstrapping: gauge('node_chain_bootstrapping', 'The chain is bootstrapping or state-syncing.'),
  networkPeers: gauge('node_network_connected_peers', 'Connected peers.'),
  networkSendFail: gauge('node_network_send_fail_ratio', 'Share of failed message sends (EWMA, 0–1).'),
  networkReceivedAge: gauge('node_network_last_message_received_age_seconds', 'Time since the last message was received.'),
  networkSentAge: gauge('node_network_last_message_sent_age_seconds', 'Time since the last message was sent.'),
  networkIngress: gauge('node_network_ingress_connections', 'Inbound connections of a primary network validator.'),
  routerOutstanding: gauge('node_router_outstanding_requests', 'Requests awaiting a response.'),
  routerLongest: gauge('node_router_longest_running_request_seconds', 'Age of the oldest outstanding request.'),
  diskAvailable: gauge('node_disk_available_bytes', 'Free disk space reported by the node.'),
  diskAvailableRatio: gauge('node_disk_available_ratio', 'Free disk space as a share of the disk (0–1; v1.14.1+).'),
  bootstrappingSubnets: gauge('node_bootstrapping_subnets', 'Subnets the node is still bootstrapping.'),
  upgradeModeWeight: gauge('node_upgrade_mode_weight_ratio', 'Share of stake advertising the most common upgrade time (0–1).'),
  upgradeTimeUntil: gauge('node_upgrade_time_until_seconds', "Time until the stake majority switches to an upgrade this node's build does not know (futureupgrade timeUntilUpgrade): exists only while the node is behind, negative past the time."),
  upgradeUnknown: gauge('node_upgrade_unknown_timestamp_seconds', "The earliest activation another node of the same network schedules (info.upgrades) that this node's build does not know; exists only while there is one."),
  upgradeDeadline: gauge('node_upgrade_deadline_timestamp_seconds', "When the stake majority switches to an upgrade this node's build does not know (futureupgrade check); kept after that time until the build knows the upgrade."),
});
const I = F.index;

export default defineCollector({
  name: 'node-details',
  families: F.list,
  // rendered when a report changed: the exposition's bytes are the only copy kept
  depends: ({ state }, _memo, deps) => state !== undefined && addReports(deps, state) && (deps.add(state.observation.unknownUpgrades?.[0]?.at), deps.add(state.observation.cChainExecution?.executedHeight), true),
  target(w, { base, state, config }) {
    if (!state) return;
    writeDetails(w, base, detailChecks(state.observation.endpoints, config.limits.maxChecksPerTarget), config.limits.maxLabelLength, state.observation.missedUpgrade?.deadline);
    const unknown = state.observation.unknownUpgrades?.[0];
    if (unknown) w.add(I.upgradeUnknown, base, unknown.at);
    const execution = state.observation.cChainExecution;
    if (execution && !execution.unanswered) w.add(I.chainExecuted, `${base},chain="C"`, execution.executedHeight);
  },
});

function writeDetails(w: Writer, base: string, checks: CheckResult[], maxLength: number, missedDeadline: number | undefined): void {
  for (const check of checks) {
    if (check.chain) {
      const c = check.chain;
      const labels = `${base},chain="${escapeLabel(sanitizeLabelValue(check.name, maxLength))}"`;
      w.add(I.chainConnectedStake, labels, c.connectedStakeRatio);
      w.add(I.chainHeight, labels, c.lastAcceptedHeight);
      w.add(I.chainProcessing, labels, c.processingBlocks);
      w.add(I.chainLongestProcessing, labels, c.longestProcessingBlockSeconds);
      w.add(I.chainDisconnectedValidators, labels, c.disconnectedValidators);
      if (c.bootstrapping !== undefined) w.add(I.chainBootstrapping, labels, c.bootstrapping ? 1 : 0);
    }
    if (check.network) {
      const n = check.network;
      w.add(I.networkPeers, base, n.connectedPeers);
      w.add(I.networkSendFail, base, n.sendFailRatio);
      w.add(I.networkReceivedAge, base, n.lastMessageReceivedAgeSeconds);
      w.add(I.networkSentAge, base, n.lastMessageSentAgeSeconds);
      w.add(I.networkIngress, base, n.ingressConnections);
    }
    if (check.router) {
      w.add(I.routerOutstanding, base, check.router.outstandingRequests);
      w.add(I.routerLongest, base, check.router.longestRunningRequestSeconds);
    }
    if (check.disk) {
      w.add(I.diskAvailable, base, check.disk.availableBytes);
      w.add(I.diskAvailableRatio, base, check.disk.availableRatio);
    }
    if (check.bootstrappingSubnets) w.add(I.bootstrappingSubnets, base, check.bootstrappingSubnets.length);
    if (check.upgrade) {
      w.add(I.upgradeModeWeight, base, check.upgrade.modeWeightRatio);
      w.add(I.upgradeTimeUntil, base, check.upgrade.timeUntilSeconds);
      // Past a missed upgrade the check no longer names it (probes/missed-upgrade.ts): the remembered time stays.
      w.add(I.upgradeDeadline, base, check.upgrade.deadline ?? missedDeadline);
    }
  }
}

/** The checks of every successful health view, first occurrence winning. */
function detailChecks(endpoints: EndpointObservation[], max: number): CheckResult[] {
  const byName = new Map<string, CheckResult>();
  for (const e of endpoints) {
    if (e.endpoint !== 'health' || !e.report) continue;
    for (const check of e.report.checks.slice(0, max)) if (!byName.has(check.name)) byName.set(check.name, check);
  }
  return [...byName.values()];
}
