/**
 * Validator economics series (names: DESIGN.md; docs/validators.md). Per node from its validator
 * poll; from the whole store, what needs chain data: `node_version_behind` (the node's version
 * against its network's stake per version), the stake per version, and the Data API record's
 * uptime performance, reachability and benched requests. A part whose call failed has no series
 * (never a made-up value); a node that is not a validator has no Primary Network series.
 */
import type { EndpointObservation } from '../../model/observation.js';
import { isVersionBehind, nAvaxToAvax, snapshotHidden, VALIDATOR_ENDPOINT, validatorReport, versionStakeRatios, type ValidatorReport } from '../../model/validator.js';
import { sanitizeLabelValue } from '../../util/labels.js';
import { escapeLabel } from '../exposition.js';
import { defineCollector, defineFamilies, gauge } from './collector.js';

const F = defineFamilies({
  rewardingStake: gauge('validator_uptime_rewarding_stake_ratio', 'Share of stake whose nodes see this validator\'s uptime at or above the uptime requirement: the share that would vote to reward it were the period to end now (info.uptime, 0–1). A stake majority decides: reward likely at 0.6 or more, uncertain between 0.4 and 0.6, likely lost below 0.4.'),
  weightedUptime: gauge('validator_uptime_weighted_average_ratio', "Stake-weighted average of this validator's uptime as its peers observe it (info.uptime, 0–1)."),
  requirement: gauge('validator_uptime_requirement_ratio', 'Uptime needed for the reward: 0.9 for periods starting at or after Helicon whatever the base (ACP-267); before, the base: 0.8, or the configured uptime_requirement (a custom network\'s --uptime-requirement).'),
  downtimeBudget: gauge('validator_downtime_budget_remaining_seconds', 'Downtime still allowed this period: (1 − requirement) × (end − start) − (1 − weighted average) × (now − start). Negative when overspent.'),
  bootstrappingPeersStake: gauge('validator_bootstrapping_peers_stake_ratio', "Share of the Primary Network's stake held by connected validators whose last Ping reported 0 % for this node (info.peers observedUptime 0): peers still bootstrapping, as on an upgrade day, report 0 % for everyone (AvalancheGo network/peer/peer.go). Read only while the uptime figures are low (rewarding stake under 0.9 or under half the downtime budget left); absent otherwise."),
  projectedRewarding: gauge('validator_projected_rewarding_stake_ratio', "Were the node up from now to the period's end, the share of stake that would see its uptime at or above the requirement then (an estimate, 0–1): 1 when the stake that sees it below now can climb back by the end, else today's share. The reward vote is cast once, at the end, on each node's cumulative measure since the period's start: below 0.6 the reward is out of reach."),
  potentialReward: gauge('validator_potential_reward_avax', 'Reward of the current validation if it meets the uptime requirement (AVAX).'),
  periodStart: gauge('validator_period_start_timestamp_seconds', 'Start of the current Primary Network validation period.'),
  periodEnd: gauge('validator_period_end_timestamp_seconds', 'End of the current Primary Network validation period (of an auto-renewed validator: the current cycle).'),
  restaked: gauge('validator_restaked_avax', 'Auto-renewed validator (ACP-236; from later AvalancheGo v1.15 releases): rewards earlier cycles compounded into its stake, by kind (validation: its own validation rewards, restakedValidationRewards; delegatee: delegation fees, restakedDelegateeRewards). Absent from older nodes.'),
  nextPeriod: gauge('validator_next_period_seconds', 'Auto-renewed validator (ACP-236): length of the cycle that starts at the period end; 0 = it exits at the period end.'),
  nodeIdKnown: gauge('validator_node_id_known', "Whether the node's NodeID is known (info.getNodeID, the node-id header or node_id); at 0 no P-Chain validation is attributed to it."),
  infoApiEnabled: gauge('validator_info_api_enabled', 'Whether /ext/info answers; 0 when it answers HTTP 404 (the info API is switched off).'),
  l1Dropped: gauge('l1_validator_dropped_validations', 'L1 validations of the node beyond the 100 exported per node.'),
  l1Balance: gauge('l1_validator_balance_avax', 'Balance an L1 validation (ACP-77) pays its continuous fee from (AVAX).'),
  l1Active: gauge('l1_validator_active', 'The L1 validation is active (balance > 0); at 0 it is not sampled and its signatures are invalid.'),
  l1Runway: gauge('l1_validator_runway_seconds', 'Time until the balance runs out at the current fee price (balance ÷ price).'),
  l1FeePrice: gauge('l1_fee_price_avax_per_second', 'Current fee per active L1 validator (platform.getValidatorFeeState price, AVAX per second).'),
  publicIpChanged: gauge('validator_public_ip_changed_timestamp_seconds', 'When the IP:port the node advertises to its peers (info.getNodeIP) last changed, as its validator poll saw it; absent until a change is seen.'),
  versionInfo: gauge('node_version_info', 'AvalancheGo version of the node (info.getNodeVersion).'),
  versionBehind: gauge('node_version_behind', "Versions newer than the node's hold more than half of its network's stake (Data API stakingDistributionByVersion)."),
  networkVersionStake: gauge('network_version_stake_ratio', "Share of the network's stake running each AvalancheGo version (Data API stakingDistributionByVersion, 0–1)."),
  uptimePerformance: gauge('validator_uptime_performance_ratio', "Uptime of the validator as the Data API provider's own node measures it (0–1)."),
  reachability: gauge('validator_reachability_ratio', "Share of the Data API provider's requests the validator answered in its last polling (0–1)."),
  benchedRequests: gauge('validator_benched_requests_ratio', "Share of the Data API provider's requests to the validator benched, per chain (P, X, C; 0–1)."),
});
const I = F.index;

export function validatorReportOf(endpoints: readonly EndpointObservation[]): ValidatorReport | undefined {
  return validatorReport(endpoints.find((e) => e.endpoint === VALIDATOR_ENDPOINT));
}

export default defineCollector({
  name: 'validator',
  families: F.list,
  depends: ({ state }, _memo, deps) => (deps.add(state ? validatorReportOf(state.observation.endpoints) : undefined), true),
  target(w, { base, state, config }) {
    const report = state ? validatorReportOf(state.observation.endpoints) : undefined;
    if (!report) return;
    const maxLength = config.limits.maxLabelLength;
    const economics = report.economics;
    w.add(I.nodeIdKnown, base, report.nodeId ? 1 : 0);
    if (report.infoApiDisabled !== undefined) w.add(I.infoApiEnabled, base, report.infoApiDisabled ? 0 : 1);
    if (report.publicIpChange) w.add(I.publicIpChanged, base, report.publicIpChange.at);
    // A snapshot right after a restart (about the node's own stake share, model/uptime-snapshot.ts) is
    // not exported: the Prometheus twins see no series, and no budget, until it settles.
    if (report.uptime && !snapshotHidden(report)) {
      w.add(I.rewardingStake, base, report.uptime.rewardingStakeRatio);
      w.add(I.weightedUptime, base, report.uptime.weightedAverageRatio);
    }
    const primary = report.primary;
    if (primary) {
      w.add(I.requirement, base, economics?.requirement);
      w.add(I.downtimeBudget, base, economics?.downtimeBudgetRemainingSeconds);
      w.add(I.projectedRewarding, base, economics?.projection?.rewardingEndRatio);
      w.add(I.bootstrappingPeersStake, base, report.bootstrappingPeers?.stakeRatio);
      if (primary.potentialRewardNAvax !== undefined) w.add(I.potentialReward, base, nAvaxToAvax(primary.potentialRewardNAvax));
      w.add(I.periodStart, base, primary.startTime);
      w.add(I.periodEnd, base, primary.endTime);
      if (primary.autoRenewal) w.add(I.nextPeriod, base, primary.autoRenewal.nextPeriodSeconds);
      const restaked = primary.autoRenewal;
      if (restaked?.restakedValidationNAvax !== undefined) w.add(I.restaked, `${base},kind="validation"`, nAvaxToAvax(restaked.restakedValidationNAvax));
      if (restaked?.restakedDelegateeNAvax !== undefined) w.add(I.restaked, `${base},kind="delegatee"`, nAvaxToAvax(restaked.restakedDelegateeNAvax));
    }
    report.l1.forEach((validation, i) => {
      const labels = `${base},subnet_id="${escapeLabel(sanitizeLabelValue(validation.subnetId, maxLength))}",validation_id="${escapeLabel(sanitizeLabelValue(validation.validationId, maxLength))}"`;
      w.add(I.l1Balance, labels, nAvaxToAvax(validation.balanceNAvax));
      w.add(I.l1Active, labels, validation.balanceNAvax > 0 ? 1 : 0);
      w.add(I.l1Runway, labels, economics?.l1RunwaySeconds[i]);
    });
    if (report.l1Dropped) w.add(I.l1Dropped, base, report.l1Dropped);
    if (report.feeState) w.add(I.l1FeePrice, base, nAvaxToAvax(report.feeState.priceNAvaxPerSecond));
    if (report.version) w.add(I.versionInfo, `${base},version="${escapeLabel(sanitizeLabelValue(report.version, maxLength))}"`, 1);
  },
  store(w, { store, config, bases }) {
    const snapshot = store.chainData;
    if (!snapshot) return;
    const maxLength = config.limits.maxLabelLength;
    for (const [network, totals] of snapshot.networks) {
      for (const [version, ratio] of versionStakeRatios(totals.versionStake ?? [])) {
        w.add(I.networkVersionStake, `network="${escapeLabel(network)}",version="${escapeLabel(sanitizeLabelValue(version, maxLength))}"`, ratio);
      }
    }
    for (const node of config.nodes) {
      const base = bases.get(node.name);
      const report = store.get(node.name) ? validatorReportOf(store.get(node.name)!.observation.endpoints) : undefined;
      const stake = snapshot.networks.get(node.network)?.versionStake;
      if (base === undefined || !report?.version || !stake) continue;
      const behind = isVersionBehind(report.version, stake);
      if (behind !== undefined) w.add(I.versionBehind, base, behind ? 1 : 0);
    }
    for (const v of snapshot.validators.values()) {
      const base = bases.get(v.target);
      if (base === undefined || !v.health) continue;
      const labels = `${base},node_id="${escapeLabel(v.nodeId)}"`;
      w.add(I.uptimePerformance, labels, v.health.uptimePerformanceRatio);
      w.add(I.reachability, labels, v.health.reachabilityRatio);
      for (const chain of ['P', 'X', 'C'] as const) w.add(I.benchedRequests, `${labels},chain="${chain}"`, v.health.benchedRequestsRatio[chain]);
    }
  },
});
