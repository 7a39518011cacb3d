/**
 * avahealth's own prom-client Registry and every metric family in it. Families are grouped by
 * what they describe (probe, node, self); label names are fixed per family, with the union of the
 * configured static label names appended so every target's series carry its `labels:`.
 */
import { collectDefaultMetrics, Counter, Gauge, Registry } from 'prom-client';
import { REVISION, VERSION } from '../version.js';

export const PREFIX = 'avahealth_';

export interface MetricFamilies {
  registry: Registry;
  probe: ReturnType<typeof probeFamily>;
  node: ReturnType<typeof nodeFamily>;
  service: ReturnType<typeof serviceFamily>;
  chain: ReturnType<typeof chainFamily>;
  alerts: ReturnType<typeof alertFamily>;
  self: ReturnType<typeof selfFamily>;
}

export function createMetricFamilies(staticLabelNames: readonly string[], options: { defaultMetrics: boolean }): MetricFamilies {
  const registry = new Registry();
  if (options.defaultMetrics) collectDefaultMetrics({ register: registry });
  const gauge = (name: string, help: string, labelNames: readonly string[]) =>
    new Gauge({ name: PREFIX + name, help, labelNames: [...labelNames, ...staticLabelNames], registers: [registry] });
  const counter = (name: string, help: string, labelNames: readonly string[]) =>
    new Counter({ name: PREFIX + name, help, labelNames: [...labelNames, ...staticLabelNames], registers: [registry] });
  // Series about the network rather than one target carry no target labels.
  const plainGauge = (name: string, help: string, labelNames: readonly string[]) => new Gauge({ name: PREFIX + name, help, labelNames, registers: [registry] });
  return {
    registry,
    probe: probeFamily(gauge, counter),
    node: nodeFamily(gauge, counter),
    service: serviceFamily(gauge),
    chain: chainFamily(gauge, plainGauge),
    alerts: alertFamily(plainGauge, (name, help, labelNames) => new Counter({ name: PREFIX + name, help, labelNames, registers: [registry] })),
    self: selfFamily(registry, counter),
  };
}

type GaugeFactory = (name: string, help: string, labelNames: readonly string[]) => Gauge;
type CounterFactory = (name: string, help: string, labelNames: readonly string[]) => Counter;

const ENDPOINT = ['target', 'endpoint', 'view'] as const;
const CHECK = [...ENDPOINT, 'check'] as const;
const CHAIN = ['target', 'chain'] as const;
const TARGET = ['target'] as const;

function probeFamily(gauge: GaugeFactory, counter: CounterFactory) {
  return {
    success: gauge('probe_success', 'Whether the exchange succeeded and the body had the expected shape (a 503 with a valid health body is a success).', ENDPOINT),
    duration: gauge('probe_duration_seconds', 'Duration of the probe exchange, body included.', ENDPOINT),
    httpStatus: gauge('probe_http_status_code', 'HTTP status code of the last response.', ENDPOINT),
    lastSuccess: gauge('probe_last_success_timestamp_seconds', 'When the probe last succeeded.', ENDPOINT),
    failures: counter('probe_failures_total', 'Failed probes by reason.', [...ENDPOINT, 'reason']),
  };
}

function nodeFamily(gauge: GaugeFactory, counter: CounterFactory) {
  return {
    healthy: gauge('node_healthy', 'The node reports healthy for this endpoint and view (from the body, not the status code).', ENDPOINT),
    info: gauge('node_info', 'NodeID of the target (from the node-id response header).', [...TARGET, 'node_id']),
    checkPassing: gauge('node_check_passing', 'The check has no error. A check the node has not run yet counts as failing.', CHECK),
    checkNotYetRun: gauge('node_check_not_yet_run', 'The node registered the check but has not run it yet (after a restart or a new chain).', CHECK),
    checkContiguousFailures: gauge('node_check_contiguous_failures', 'Consecutive failed runs as counted by the node (one per health-check period).', CHECK),
    checkDuration: gauge('node_check_duration_seconds', 'How long the last run of the check took on the node.', CHECK),
    checkLastRun: gauge('node_check_last_run_timestamp_seconds', 'When the node last ran the check (absent for a check not yet run).', CHECK),
    checkFailingSince: gauge('node_check_failing_since_timestamp_seconds', 'When the current run of failures began (absent while passing).', CHECK),
    checksDropped: counter('node_checks_dropped_total', 'Checks not exported because a target returned more than limits.max_checks_per_target.', TARGET),
    chainConnectedStake: gauge('node_chain_connected_stake_ratio', 'Share of the validating stake the node is connected to (0–1).', CHAIN),
    chainHeight: gauge('node_chain_last_accepted_height', 'Height of the last accepted block.', CHAIN),
    chainProcessing: gauge('node_chain_processing_blocks', 'Blocks being processed by consensus.', CHAIN),
    chainLongestProcessing: gauge('node_chain_longest_processing_block_seconds', 'Age of the oldest block in processing.', CHAIN),
    chainDisconnectedValidators: gauge('node_chain_disconnected_validators', 'Validators of the chain the node is not connected to.', CHAIN),
    chainBootstrapping: gauge('node_chain_bootstrapping', 'The chain is bootstrapping or state-syncing.', CHAIN),
    networkPeers: gauge('node_network_connected_peers', 'Connected peers.', TARGET),
    networkSendFail: gauge('node_network_send_fail_ratio', 'Share of failed message sends (EWMA, 0–1).', TARGET),
    networkReceivedAge: gauge('node_network_last_message_received_age_seconds', 'Time since the last message was received.', TARGET),
    networkSentAge: gauge('node_network_last_message_sent_age_seconds', 'Time since the last message was sent.', TARGET),
    networkIngress: gauge('node_network_ingress_connections', 'Inbound connections of a primary network validator.', TARGET),
    routerOutstanding: gauge('node_router_outstanding_requests', 'Requests awaiting a response.', TARGET),
    routerLongest: gauge('node_router_longest_running_request_seconds', 'Age of the oldest outstanding request.', TARGET),
    diskAvailable: gauge('node_disk_available_bytes', 'Free disk space reported by the node.', TARGET),
    diskAvailableRatio: gauge('node_disk_available_ratio', 'Free disk space as a share of the disk (0–1; v1.14.1+).', TARGET),
    bootstrappingSubnets: gauge('node_bootstrapping_subnets', 'Subnets the node is still bootstrapping.', TARGET),
    upgradeModeWeight: gauge('node_upgrade_mode_weight_ratio', 'Share of stake advertising the most common upgrade time (0–1).', TARGET),
    upgradeTimeUntil: gauge('node_upgrade_time_until_seconds', 'Time until the next network upgrade, when one is scheduled.', TARGET),
  };
}

function serviceFamily(gauge: GaugeFactory) {
  return {
    healthy: gauge('service_healthy', 'The service reports status "ok" on this endpoint.', ['target', 'endpoint']),
    componentUp: gauge('service_component_up', 'A component (indicator) of the service health report is "up".', ['target', 'endpoint', 'component']),
    rateLimitRemaining: gauge('service_rate_limit_remaining', 'Requests left in the current rate-limit window (ratelimit-remaining).', TARGET),
    rateLimitLimit: gauge('service_rate_limit_limit', 'Requests allowed per rate-limit window (ratelimit-limit).', TARGET),
  };
}

function chainFamily(gauge: GaugeFactory, plainGauge: GaugeFactory) {
  return {
    latestHeight: plainGauge('chain_latest_block_height', 'Height of the latest block of the chain, from the Data API.', ['chain_id']),
    latestTimestamp: plainGauge('chain_latest_block_timestamp_seconds', 'Timestamp of the latest block of the chain, from the Data API.', ['chain_id']),
    statusOk: plainGauge('chain_status_ok', 'The Data API reports the chain status as OK.', ['chain_id']),
    avgTps: plainGauge('chain_avg_tps', 'Average transactions per second over the last hour, from the Metrics API.', ['chain_id']),
    heightLag: gauge('node_chain_height_lag_blocks', 'Blocks the node is behind the best-known network height of the chain (Data API or our own fleet).', CHAIN),
    validatorStatus: gauge('validator_status', 'Validation status of the node (one series per status; 1 on the current one). "none": no validation on record.', ['target', 'node_id', 'status']),
    validatorEnd: gauge('validator_end_timestamp_seconds', 'When the current validation ends.', ['target', 'node_id']),
    validatorDelegators: gauge('validator_delegators', 'Delegators of the current validation.', ['target', 'node_id']),
    networkValidators: plainGauge('network_validators', 'Validators of the network.', ['network']),
    networkDelegators: plainGauge('network_delegators', 'Delegators of the network.', ['network']),
    refreshTimestamp: plainGauge('chain_data_last_refresh_timestamp_seconds', 'When chain data was last refreshed.', []),
    refreshErrors: plainGauge('chain_data_last_refresh_errors', 'Requests that failed in the last chain data refresh (details in /api/v1/status).', []),
  };
}

function alertFamily(plainGauge: GaugeFactory, plainCounter: CounterFactory) {
  return {
    active: plainGauge('alerts', 'Alerts by state (pending, firing).', ['alertname', 'severity', 'state']),
    delivered: plainCounter('notifications_total', 'Notifications delivered to a receiver.', ['receiver']),
    failed: plainCounter('notifications_failed_total', 'Failed delivery attempts (retried unless the reason is http_4xx or queue_full).', ['receiver', 'reason']),
    queue: plainGauge('notification_queue_length', 'Notifications waiting in the receiver outbox.', ['receiver']),
  };
}

function selfFamily(registry: Registry, counter: CounterFactory) {
  const buildInfo = new Gauge({
    name: `${PREFIX}build_info`,
    help: 'avahealth build information.',
    labelNames: ['version', 'revision', 'nodejs_version'],
    registers: [registry],
  });
  buildInfo.set({ version: VERSION, revision: REVISION, nodejs_version: process.version }, 1);
  return {
    reloadSuccessful: new Gauge({ name: `${PREFIX}config_last_reload_successful`, help: 'Whether the last config (re)load succeeded.', registers: [registry] }),
    reloadSuccessTime: new Gauge({
      name: `${PREFIX}config_last_reload_success_timestamp_seconds`,
      help: 'When the config was last loaded successfully.',
      registers: [registry],
    }),
    skippedPolls: counter('scheduler_skipped_polls_total', 'Polls skipped because the previous poll of the target was still running.', TARGET),
  };
}
