/**
 * The Grafana dashboards, built with the Grafana Foundation SDK. `npm run generate` writes them to
 * dashboards/*.json (checked in; a test fails when they drift). Every dashboard has a datasource
 * variable, target variables and an ad-hoc filter (no hard-coded job), a unit on every panel and a
 * description where an on-call engineer may need one.
 */
import * as common from '@grafana/grafana-foundation-sdk/common';
import * as dash from '@grafana/grafana-foundation-sdk/dashboard';
import * as prometheus from '@grafana/grafana-foundation-sdk/prometheus';
import * as stat from '@grafana/grafana-foundation-sdk/stat';
import * as stateTimeline from '@grafana/grafana-foundation-sdk/statetimeline';
import * as table from '@grafana/grafana-foundation-sdk/table';
import * as timeseries from '@grafana/grafana-foundation-sdk/timeseries';
import { REWARD_LIKELY_STAKE_RATIO, REWARD_LOST_STAKE_RATIO } from '../src/model/reward-vote.js';

const DS = { type: 'prometheus', uid: '${datasource}' };
const H = 'endpoint="health",view="all"';
const T = 'target=~"$target"';

type AnyPanel = timeseries.PanelBuilder | stat.PanelBuilder | table.PanelBuilder | stateTimeline.PanelBuilder;

function query(expr: string, legend?: string, instant = false): prometheus.DataqueryBuilder {
  const q = new prometheus.DataqueryBuilder().expr(expr).datasource(DS);
  if (legend) q.legendFormat(legend);
  return instant ? q.instant().format(prometheus.PromQueryFormat.Table) : q;
}

function finish<P extends AnyPanel>(panel: P, title: string, unit: string, description: string, width: number, height: number): P {
  panel.title(title).unit(unit).datasource(DS).span(width).height(height);
  if (description) panel.description(description);
  return panel;
}

const ts = (title: string, unit: string, description: string, expr: string, legend: string, width = 12) =>
  finish(new timeseries.PanelBuilder().withTarget(query(expr, legend)), title, unit, description, width, 8);
const single = (title: string, unit: string, description: string, expr: string, width = 6) =>
  finish(new stat.PanelBuilder().withTarget(query(expr, undefined, true)), title, unit, description, width, 4);
const grid = (title: string, unit: string, description: string, expr: string, width = 12) =>
  finish(new table.PanelBuilder().withTarget(query(expr, undefined, true)), title, unit, description, width, 8);
const timeline = (title: string, description: string, expr: string, legend: string, width = 24) =>
  finish(new stateTimeline.PanelBuilder().withTarget(query(expr, legend)), title, 'bool_yes_no', description, width, 8);

function variables(builder: dash.DashboardBuilder, targets: { name: string; label: string; metric: string; multi: boolean }[]): dash.DashboardBuilder {
  builder.withVariable(new dash.DatasourceVariableBuilder('datasource').label('Data source').type('prometheus'));
  for (const v of targets) {
    builder.withVariable(
      new dash.QueryVariableBuilder(v.name)
        .label(v.label)
        .datasource(DS)
        .query({ query: `label_values(${v.metric}, target)`, refId: 'PrometheusVariableQueryEditor-VariableQuery' })
        .definition(`label_values(${v.metric}, target)`)
        .refresh(dash.VariableRefresh.OnTimeRangeChanged)
        .sort(dash.VariableSort.AlphabeticalAsc)
        .multi(v.multi)
        .includeAll(v.multi)
        .allValue('.*'),
    );
  }
  return builder.withVariable(new dash.AdHocVariableBuilder('filter').label('Filter').datasource(DS));
}

function base(uid: string, title: string, description: string): dash.DashboardBuilder {
  return new dash.DashboardBuilder(title).uid(uid).description(description).tags(['avahealth', 'avalanche']).refresh('30s').time({ from: 'now-6h', to: 'now' }).timezone('browser');
}

function fleet(): dash.DashboardBuilder {
  const d = variables(base('avahealth-fleet', 'Avalanche fleet overview', 'Every node and hosted service watched by avahealth at a glance.'), [
    { name: 'target', label: 'Node', metric: 'avahealth_node_healthy', multi: true },
  ]);
  return d
    .withPanel(single('Healthy nodes', 'short', 'Nodes whose /ext/health says healthy.', `count(avahealth_node_healthy{${H},${T}} == 1) or vector(0)`))
    .withPanel(single('Unhealthy nodes', 'short', 'Nodes that answer but report a failing check.', `count(avahealth_node_healthy{${H},${T}} == 0) or vector(0)`))
    .withPanel(single('Unreachable nodes', 'short', 'Nodes whose /ext/health probe failed (timeout, refused, proxy error…).', `count(avahealth_probe_success{${H},${T}} == 0) or vector(0)`))
    .withPanel(single('Firing alerts', 'short', 'Alerts avahealth is firing right now.', 'sum(avahealth_alerts{state="firing"}) or vector(0)'))
    .withRow(new dash.RowBuilder('Health'))
    .withPanel(ts('Failing checks per node', 'short', 'How many checks of /ext/health fail on each node.', `avahealth:node_failing_checks:count{${T}}`, '{{target}}'))
    .withPanel(grid('Failing checks', 'short', 'Each failing check and how many times in a row the node saw it fail (the error text is on the avahealth status page).', `avahealth_node_check_contiguous_failures{${H},${T}} > 0`))
    .withPanel(ts('Probe success (5m)', 'percentunit', 'Share of successful probes of each endpoint over 5 minutes.', `avahealth:probe_success:avg5m{${T}}`, '{{target}} {{endpoint}} {{view}}'))
    .withPanel(ts('Probe duration', 's', 'Time to fetch and parse /ext/health.', `avahealth_probe_duration_seconds{${H},${T}}`, '{{target}}'))
    .withRow(new dash.RowBuilder('Consensus and network'))
    .withPanel(ts('Connected stake (lowest chain)', 'percentunit', 'Share of the validating stake the node is connected to; chains fail below 80%.', `min by (target) (avahealth_node_chain_connected_stake_ratio{${T}})`, '{{target}}', 8))
    .withPanel(ts('Connected peers', 'short', 'Peers of the node; the network check fails with none.', `avahealth_node_network_connected_peers{${T}}`, '{{target}}', 8))
    .withPanel(ts('Height lag', 'suffix: blocks', 'Blocks each chain is behind the best-known network height (Data API or our own fleet). Needs chain_data.', `max by (target, chain) (avahealth_node_chain_height_lag_blocks{${T}})`, '{{target}} {{chain}}', 8))
    .withPanel(ts('C-Chain height', 'short', 'Last accepted height of the C-Chain.', `avahealth_node_chain_last_accepted_height{chain="C",${T}}`, '{{target}}', 12))
    .withRow(new dash.RowBuilder('Disk'))
    .withPanel(ts('Free disk', 'percentunit', 'Free disk as reported by the node (AvalancheGo ≥ 1.14.1). The node warns below 10% and shuts down below 3%.', `avahealth_node_disk_available_ratio{${T}}`, '{{target}}'))
    .withPanel(ts('Free disk in 24h (trend)', 'percentunit', 'Free disk a day from now at the last hour\'s rate: the disk runway.', `avahealth:node_disk_available_ratio:predict24h{${T}}`, '{{target}}'))
    .withRow(new dash.RowBuilder('Hosted services'))
    .withPanel(grid('Hosted services', 'bool_yes_no', 'Health-check and live-check of the Data API and Metrics API.', 'avahealth_service_healthy', 24));
}

function node(): dash.DashboardBuilder {
  const N = 'target="$target"';
  const d = variables(base('avahealth-node', 'Avalanche node detail', 'Everything one node says about itself, check by check.'), [
    { name: 'target', label: 'Node', metric: 'avahealth_node_healthy', multi: false },
  ]);
  return d
    .withPanel(timeline('Check state', 'Each check of /ext/health over time: passing or failing.', `avahealth_node_check_passing{${N},${H}}`, '{{check}}'))
    .withPanel(ts('Contiguous failures', 'short', 'Failed runs in a row, as the node counts them (one per health-check period, 30s by default).', `avahealth_node_check_contiguous_failures{${N},${H}}`, '{{check}}'))
    .withPanel(ts('Check duration', 's', 'How long each check took on the node.', `avahealth_node_check_duration_seconds{${N},${H}}`, '{{check}}'))
    .withRow(new dash.RowBuilder('Chains'))
    .withPanel(ts('Accepted blocks per second', 'short', 'Rate at which each chain accepts blocks.', `deriv(avahealth_node_chain_last_accepted_height{${N}}[5m])`, '{{chain}}', 8))
    .withPanel(ts('Processing blocks', 'short', 'Blocks in consensus; a chain fails above 256.', `avahealth_node_chain_processing_blocks{${N}}`, '{{chain}}', 8))
    .withPanel(ts('Longest processing block', 's', 'Age of the oldest block in consensus; a chain fails above 30s.', `avahealth_node_chain_longest_processing_block_seconds{${N}}`, '{{chain}}', 8))
    .withPanel(ts('Connected stake', 'percentunit', 'Share of each chain\'s validating stake the node is connected to.', `avahealth_node_chain_connected_stake_ratio{${N}}`, '{{chain}}', 8))
    .withPanel(ts('Disconnected validators', 'short', 'Validators of the chain the node cannot reach.', `avahealth_node_chain_disconnected_validators{${N}}`, '{{chain}}', 8))
    .withPanel(ts('Height lag', 'suffix: blocks', 'Blocks behind the best-known network height. Needs chain_data.', `avahealth_node_chain_height_lag_blocks{${N}}`, '{{chain}}', 8))
    .withRow(new dash.RowBuilder('Network and router'))
    .withPanel(ts('Peers', 'short', 'Connected peers; the network check fails with none.', `avahealth_node_network_connected_peers{${N}}`, 'peers', 6))
    .withPanel(ts('Send fail ratio', 'percentunit', 'Failed message sends (EWMA); the network check fails above 90%.', `avahealth_node_network_send_fail_ratio{${N}}`, 'send fail', 6))
    .withPanel(ts('Time since last message', 's', 'The network check fails when no message was received or sent for a minute.', `avahealth_node_network_last_message_received_age_seconds{${N}}`, 'received', 6))
    .withPanel(ts('Outstanding requests', 'short', 'Requests awaiting an answer; the router check fails above 1024.', `avahealth_node_router_outstanding_requests{${N}}`, 'outstanding', 6))
    .withRow(new dash.RowBuilder('Disk and validator'))
    .withPanel(ts('Free disk', 'bytes', 'Free disk space reported by the node\'s diskspace check.', `avahealth_node_disk_available_bytes{${N}}`, 'free', 8))
    .withPanel(single('Validator status', 'short', 'The node\'s current validation as the Data API reports it. Needs chain_data.', `avahealth_validator_status{${N}} == 1`, 8))
    .withPanel(single('Validation ends in', 's', 'Time left in the current validation; re-stake before it ends.', `avahealth_validator_end_timestamp_seconds{${N}} - time()`, 8));
}

function services(): dash.DashboardBuilder {
  const S = 'target=~"$service"';
  const d = variables(base('avahealth-services', 'Avalanche hosted services and API probes', 'The Data API and Metrics API: health, components, latency, rate-limit headroom, chain data.'), [
    { name: 'service', label: 'Service', metric: 'avahealth_service_healthy', multi: true },
  ]);
  return d
    .withPanel(timeline('Service health', 'Health-check and live-check status per service.', `avahealth_service_healthy{${S}}`, '{{target}} {{endpoint}}'))
    .withPanel(timeline('Components', 'Each component of the health report (database, cache, …).', `avahealth_service_component_up{${S}}`, '{{target}} {{component}}'))
    .withPanel(ts('Latency', 's', 'Duration of health checks and API probes.', `avahealth_probe_duration_seconds{${S}}`, '{{target}} {{endpoint}}'))
    .withPanel(ts('Probe success (5m)', 'percentunit', 'API probes succeed when the status is expected and the body matches the published schema.', `avahealth:probe_success:avg5m{${S}}`, '{{target}} {{endpoint}}'))
    .withPanel(ts('Failures by reason', 'short', 'Failed probes per reason; bad_shape means the response no longer matches the published schema.', `sum by (target, endpoint, reason) (${countedFromZero(`avahealth_probe_failures_total{${S}}`)})`, '{{target}} {{endpoint}} {{reason}}'))
    .withPanel(ts('Rate-limit headroom', 'percentunit', 'Share of the rate-limit window left; at 0 the service answers 429 and avahealth backs off.', `avahealth_service_rate_limit_remaining{${S}} / avahealth_service_rate_limit_limit{${S}}`, '{{target}}'))
    .withRow(new dash.RowBuilder('Chain data'))
    .withPanel(ts('Latest block height', 'short', 'Latest block of each followed chain, from the Data API.', 'avahealth_chain_latest_block_height', '{{chain_id}}', 8))
    .withPanel(ts('Average TPS (last hour)', 'suffix: tx/s', 'From the Metrics API.', 'avahealth_chain_avg_tps', '{{chain_id}}', 8))
    .withPanel(ts('Validators and delegators', 'short', 'Network totals from the Data API.', 'avahealth_network_validators', '{{network}} validators', 8));
}

/**
 * increase() over the panel's range, counting a series that first appeared within it from 0: a
 * failure counter is created at its first failure, at 1, and increase() of that alone reads 0.
 */
export function countedFromZero(series: string, range = '$__rate_interval'): string {
  const appeared = `(${series} unless ${series} offset ${range})`;
  return `(increase(${series}[${range}]) unless ${appeared}) or ${appeared}`;
}

function alerts(): dash.DashboardBuilder {
  const d = variables(base('avahealth-alerts', 'avahealth alerts and notifications', 'What avahealth alerts on, and whether the notifications get through.'), []);
  return d
    .withPanel(ts('Firing alerts', 'short', 'Alerts avahealth is firing, by name and severity.', 'sum by (alertname, severity) (avahealth_alerts{state="firing"})', '{{alertname}} {{severity}}'))
    .withPanel(ts('Pending alerts', 'short', 'Conditions that hold but have not lasted long enough to fire.', 'sum by (alertname) (avahealth_alerts{state="pending"})', '{{alertname}}'))
    .withPanel(ts('Notifications delivered', 'short', 'Notifications each receiver accepted.', 'sum by (receiver) (increase(avahealth_notifications_total[$__rate_interval]))', '{{receiver}}', 8))
    .withPanel(ts('Failed delivery attempts', 'short', 'Retried unless the reason is http_4xx (rejected) or queue_full.', 'sum by (receiver, reason) (increase(avahealth_notifications_failed_total[$__rate_interval]))', '{{receiver}} {{reason}}', 8))
    .withPanel(ts('Outbox length', 'short', 'Notifications waiting for a receiver; growing means it cannot be reached.', 'avahealth_notification_queue_length', '{{receiver}}', 8))
    .withRow(new dash.RowBuilder('avahealth itself'))
    .withPanel(single('Config reload', 'bool_yes_no', 'Whether the last config (re)load succeeded.', 'avahealth_config_last_reload_successful', 8))
    .withPanel(ts('Skipped polls', 'short', 'Polls skipped because the previous poll of the target was still running.', 'sum by (target) (increase(avahealth_scheduler_skipped_polls_total[$__rate_interval]))', '{{target}}', 8))
    .withPanel(ts('Memory', 'bytes', 'Resident memory of each avahealth process.', 'process_resident_memory_bytes and on (instance) avahealth_build_info', 'resident', 8));
}

/**
 * Rewarding stake with the bands of the reward vote (src/model/reward-vote.ts): red where the reward
 * is likely lost, orange where it is uncertain, yellow from there to the 80 % warning, green above.
 */
function rewardingStake(): timeseries.PanelBuilder {
  const likely = percent(REWARD_LIKELY_STAKE_RATIO);
  const lost = percent(REWARD_LOST_STAKE_RATIO);
  const description = `Share of stake whose nodes see the validator's uptime at or above the uptime requirement: the share that would vote to reward it were the period to end now. The reward (all or nothing) goes to the side holding more than half of the stake: likely at ${likely} or more, uncertain between ${lost} and ${likely}, likely lost below ${lost}. avahealth warns below 80 %, critical below ${likely}; the downtime budget panel says how much downtime is left.`;
  return ts('Rewarding stake', 'percentunit', description, `avahealth_validator_uptime_rewarding_stake_ratio{${T}}`, '{{target}}', 8)
    .min(0)
    .max(1)
    .thresholds(
      new dash.ThresholdsConfigBuilder().mode(dash.ThresholdsMode.Absolute).steps([
        { value: null, color: 'red' },
        { value: REWARD_LOST_STAKE_RATIO, color: 'orange' },
        { value: REWARD_LIKELY_STAKE_RATIO, color: 'yellow' },
        { value: 0.8, color: 'green' },
      ]),
    )
    .thresholdsStyle(new common.GraphThresholdsStyleConfigBuilder().mode(common.GraphThresholdsStyleMode.LineAndArea));
}

const percent = (ratio: number) => `${Math.round(ratio * 100)} %`;

/**
 * Own validators against the network (docs/validators.md, "Is it my validator or the network?"):
 * each validator's uptime as the fleet's other nodes see it (their mean) beside the network's
 * stake-weighted quantiles from the baseline observers.
 */
function againstNetwork(): timeseries.PanelBuilder {
  return finish(
    new timeseries.PanelBuilder()
      .withTarget(query(`avg by (target) (avahealth_validator_observed_uptime_ratio{${T}})`, '{{target}} (seen by the fleet)'))
      .withTarget(query('avg by (network, quantile) (avahealth_network_observed_uptime_ratio)', '{{network}} p{{quantile}}'))
      .min(0)
      .max(1),
    'Observed uptime against the network',
    'percentunit',
    "Each own validator's uptime as the fleet's other nodes measured it, against the stake-weighted 10th, 50th and 90th percentile of every validator's uptime on its network (the network baseline). Below the network's median: it is this validator. Everyone low: the network, or the fleet's vantage point (scope=\"network\").",
    16,
    8,
  );
}

/** Which fleet node sees which own validator connected: a row per validator, a column per observer. */
function observerMatrix(): table.PanelBuilder {
  return grid(
    'Observer matrix (connected)',
    'bool_yes_no',
    "Whether each other fleet node (column) is connected to each own validator (row) now (platform.getCurrentValidators connected). A row of No while the node's own health passes: peers cannot reach its staking port (AvalancheValidatorUnreachableByPeers).",
    `avahealth_validator_observed_connected{${T}}`,
    24,
  ).withTransformation({ id: 'groupingToMatrix', options: { columnField: 'observer', rowField: 'target', valueField: 'Value' } });
}

/** Validator economics (docs/validators.md): reward, downtime budget, L1 runway, versions against the network. */
function validators(): dash.DashboardBuilder {
  const d = variables(base('avahealth-validators', 'Avalanche validators', 'What a validator\'s money rides on: stake that would reward it now, the downtime budget left, L1 fee runway, and its version against the network.'), [
    { name: 'target', label: 'Node', metric: 'avahealth_node_version_info', multi: true },
  ]);
  return d
    .withRow(new dash.RowBuilder('Primary Network rewards'))
    .withPanel(rewardingStake())
    .withPanel(ts('Weighted uptime', 'percentunit', 'Stake-weighted average of the validator\'s uptime as its peers observe it, against the requirement (90% for periods starting after Helicon, else 80%).', `avahealth_validator_uptime_weighted_average_ratio{${T}}`, '{{target}}', 8))
    .withPanel(ts('Downtime budget left', 's', 'Downtime still allowed this period before peers stop voting to reward it: (1 − requirement) × period − (1 − weighted uptime) × elapsed.', `avahealth_validator_downtime_budget_remaining_seconds{${T}}`, '{{target}}', 8))
    .withPanel(grid('Period ends in', 's', 'Time left in each validator\'s current staking period; the reward is decided at its end.', `avahealth_validator_period_end_timestamp_seconds{${T}} - time()`, 12))
    .withPanel(grid('Potential reward', 'suffix: AVAX', 'Reward of the current validation if it meets the uptime requirement.', `avahealth_validator_potential_reward_avax{${T}}`, 12))
    .withPanel(grid('Last period paid?', 'bool_yes_no', 'Whether the last ended validation period (of an auto-renewed validator: cycle) was rewarded, from the node (the validator set, platform.getRewardUTXOs) and the Data API; No pages AvalancheValidatorRewardMissed. See the node\'s status page for the last periods.', `avahealth_validator_last_period_rewarded{${T}}`, 12))
    .withPanel(
      grid(
        'Last period reward',
        'suffix: AVAX',
        'What the last ended period paid: the validation reward (0 when the vote aborted) and the delegation commission; of a renewed cycle\'s validation reward, the part restaked into the stake (the rest was paid out).',
        `avahealth_validator_last_period_reward_avax{${T}} or label_replace(avahealth_validator_last_period_restaked_avax{${T}}, "kind", "validation restaked", "", "")`,
        12,
      ),
    )
    .withRow(new dash.RowBuilder('Is it my validator or the network?'))
    .withPanel(againstNetwork())
    .withPanel(ts('Connected stake', 'percentunit', "Share of the network's stake each baseline observer is connected to now. Well below 80 % from every observer: the fleet is cut off, or the network is down; validator alerts then carry scope=\"network\".", 'avahealth_network_connected_stake_ratio', '{{network}} {{observer}}', 8))
    .withPanel(observerMatrix())

    .withPanel(ts('L1 runway', 's', 'Time until each L1 validation\'s balance runs out at today\'s fee price; at zero it becomes inactive. Top up with IncreaseL1ValidatorBalanceTx.', `avahealth_l1_validator_runway_seconds{${T}}`, '{{target}} {{validation_id}}', 8))
    .withPanel(ts('L1 balance', 'suffix: AVAX', 'Balance each L1 validation pays its continuous fee from.', `avahealth_l1_validator_balance_avax{${T}}`, '{{target}} {{validation_id}}', 8))
    .withPanel(ts('L1 fee price', 'suffix: nAVAX/s', 'Current fee per active L1 validator (platform.getValidatorFeeState).', `avahealth_l1_fee_price_avax_per_second{${T}} * 1e9`, '{{target}}', 8))
    .withPanel(grid('L1 validations active', 'bool_yes_no', 'Whether each L1 validation is active (balance > 0); an inactive one is not sampled and its signatures are invalid.', `avahealth_l1_validator_active{${T}}`, 24))
    .withRow(new dash.RowBuilder('Versions'))
    .withPanel(ts('Stake by version', 'percentunit', 'Share of the network\'s stake running each AvalancheGo version (Data API).', 'avahealth_network_version_stake_ratio', '{{network}} {{version}}', 12))
    .withPanel(grid('Node versions', 'short', 'AvalancheGo version of each node, and whether newer versions hold most of the network\'s stake (1 = behind: upgrade before the next network upgrade).', `avahealth_node_version_behind{${T}} * on (target) group_left (version) avahealth_node_version_info{${T}}`, 12))
    .withRow(new dash.RowBuilder('As the Data API sees it'))
    .withPanel(ts('Uptime (Data API)', 'percentunit', 'The validator\'s uptime as the Data API provider\'s own node measures it.', `avahealth_validator_uptime_performance_ratio{${T}}`, '{{target}}', 8))
    .withPanel(ts('Reachability (Data API)', 'percentunit', 'Share of the provider\'s requests the validator answered in its last polling.', `avahealth_validator_reachability_ratio{${T}}`, '{{target}}', 8))
    .withPanel(ts('Benched requests (Data API)', 'percentunit', 'Share of the provider\'s requests to the validator benched, per chain.', `avahealth_validator_benched_requests_ratio{${T}}`, '{{target}} {{chain}}', 8));
}

export function dashboards(): Array<{ uid: string } & Record<string, unknown>> {
  return [fleet(), node(), services(), alerts(), validators()].map((d) => d.build() as unknown as { uid: string } & Record<string, unknown>);
}
