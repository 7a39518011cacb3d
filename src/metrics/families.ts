/**
 * The per-target metric families (names are the contract in DESIGN.md), in exposition order.
 * They are rendered by the Exposition cache; prom-client serves the rest (registry.ts).
 */
import type { Family } from './exposition.js';
import { PREFIX } from './registry.js';

const gauge = (name: string, help: string): Family => ({ name: PREFIX + name, type: 'gauge', help });
const counter = (name: string, help: string): Family => ({ name: PREFIX + name, type: 'counter', help });

export const F = {
  probeSuccess: gauge('probe_success', 'Whether the exchange succeeded and the body had the expected shape (a 503 with a valid health body is a success).'),
  probeDuration: gauge('probe_duration_seconds', 'Duration of the probe exchange, body included.'),
  probeHttpStatus: gauge('probe_http_status_code', 'HTTP status code of the last response.'),
  probeLastSuccess: gauge('probe_last_success_timestamp_seconds', 'When the probe last succeeded.'),
  probeFailures: counter('probe_failures_total', 'Failed probes by reason.'),
  nodeHealthy: gauge('node_healthy', 'The node reports healthy for this endpoint and view (from the body, not the status code).'),
  nodeInfo: gauge('node_info', 'NodeID of the target (from the node-id response header).'),
  checkPassing: gauge('node_check_passing', 'The check has no error. A check the node has not run yet counts as failing.'),
  checkNotYetRun: gauge('node_check_not_yet_run', 'The node registered the check but has not run it yet (after a restart or a new chain).'),
  checkContiguousFailures: gauge('node_check_contiguous_failures', 'Consecutive failed runs as counted by the node (one per health-check period).'),
  checkDuration: gauge('node_check_duration_seconds', 'How long the last run of the check took on the node.'),
  checkLastRun: gauge('node_check_last_run_timestamp_seconds', 'When the node last ran the check (absent for a check not yet run).'),
  checkFailingSince: gauge('node_check_failing_since_timestamp_seconds', 'When the current run of failures began (absent while passing).'),
  checksDropped: counter('node_checks_dropped_total', 'Checks not exported because a target returned more than limits.max_checks_per_target.'),
  chainConnectedStake: gauge('node_chain_connected_stake_ratio', 'Share of the validating stake the node is connected to (0–1).'),
  chainHeight: gauge('node_chain_last_accepted_height', 'Height of the last accepted block.'),
  chainProcessing: gauge('node_chain_processing_blocks', 'Blocks being processed by consensus.'),
  chainLongestProcessing: gauge('node_chain_longest_processing_block_seconds', 'Age of the oldest block in processing.'),
  chainDisconnectedValidators: gauge('node_chain_disconnected_validators', 'Validators of the chain the node is not connected to.'),
  chainBootstrapping: gauge('node_chain_bootstrapping', 'The chain is bootstrapping or state-syncing.'),
  chainHeightLag: gauge('node_chain_height_lag_blocks', 'Blocks the node is behind the best-known network height of the chain (Data API or our own fleet).'),
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
  upgradeTimeUntil: gauge('node_upgrade_time_until_seconds', 'Time until the next network upgrade, when one is scheduled.'),
  serviceHealthy: gauge('service_healthy', 'The service reports status "ok" on this endpoint.'),
  serviceComponentUp: gauge('service_component_up', 'A component (indicator) of the service health report is "up".'),
  serviceRateLimitRemaining: gauge('service_rate_limit_remaining', 'Requests left in the current rate-limit window (ratelimit-remaining).'),
  serviceRateLimitLimit: gauge('service_rate_limit_limit', 'Requests allowed per rate-limit window (ratelimit-limit).'),
  validatorStatus: gauge('validator_status', 'Validation status of the node (one series per status; 1 on the current one). "none": no validation on record.'),
  validatorEnd: gauge('validator_end_timestamp_seconds', 'When the current validation ends.'),
  validatorDelegators: gauge('validator_delegators', 'Delegators of the current validation.'),
  skippedPolls: counter('scheduler_skipped_polls_total', 'Polls skipped because the previous poll of the target was still running.'),
} as const;

export type FamilyKey = keyof typeof F;
export const FAMILIES: Family[] = Object.values(F);
/** The position of each family, for SampleWriter.add. */
export const I = Object.fromEntries(Object.keys(F).map((key, i) => [key, i])) as Record<FamilyKey, number>;
