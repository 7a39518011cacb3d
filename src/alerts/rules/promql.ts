/** PromQL fragments the rules' Prometheus twins share. */
export const HEALTH = 'endpoint="health",view="all"';
/** Series of nodes whose readiness is false (still bootstrapping): `… unless NOT_READY`. */
export const NOT_READY = `on (target) (avahealth_node_healthy{endpoint="readiness",view="all"} == 0)`;

/**
 * The network lost stake as the fleet sees it: most of its baseline observers are connected to
 * less than 80 % of the stake (AvalancheNetworkDegraded's leg; over every network watched, since a
 * node's series carry no network). `… and NETWORK_DIP` keeps a series only while it holds.
 */
const NETWORK_DIP = 'on () (count(avahealth_network_connected_stake_ratio < 0.8) > count(avahealth_network_connected_stake_ratio) / 2)';

/**
 * A node's C, P and X checks failing while the network dips and the node's own `network` check
 * passes: the chains lost their stake with the network, which AvalancheNetworkDegraded speaks for
 * (the daemon's rules read it per chain and per network: node-facts.ts networkLostStake).
 * `… unless CHAINS_LOST_WITH_NETWORK`.
 */
export const CHAINS_LOST_WITH_NETWORK = `on (target, check) ((avahealth_node_check_passing{${HEALTH},check=~"C|P|X"} == 0 unless on (target) (avahealth_node_check_passing{${HEALTH},check="network"} == 0)) and ${NETWORK_DIP})`;

/** Unhealthy only for chains that lost their stake with the network (see above): `… unless NODE_LOST_WITH_NETWORK`. */
export const NODE_LOST_WITH_NETWORK = `on (target) ((avahealth_node_healthy{${HEALTH}} == 0 and ${NETWORK_DIP}) unless on (target) (avahealth_node_check_passing{${HEALTH},check!~"C|P|X"} == 0))`;

/** The baseline legs of `scope`: every validator looks down from the fleet's nodes. */
const BASELINE_LOW =
  'avg(avahealth_network_observed_uptime_ratio{quantile=\\"0.5\\"}) < scalar(max(avahealth_validator_uptime_requirement_ratio{target=%[1]q}) or vector(0.8)) or avg(avahealth_network_connected_stake_ratio) < 0.8';

/**
 * The `scope` label of a validator alert's Prometheus twin: `network` when the network baseline
 * (averaged over its observers and networks) has its median observed uptime below the target's
 * requirement, or its connected stake below 80 %, or (given `upgradeDay`, a PromQL condition on the
 * target `%[1]q` that holds when its figures without the peers reporting 0 % clear the alert's bar:
 * see UPGRADE_DAY) when they are low only because peers are bootstrapping; else `self`.
 */
export function scopeTemplate(upgradeDay?: string): string {
  const query = upgradeDay ? `${BASELINE_LOW} or ${upgradeDay.replaceAll('"', '\\"')}` : BASELINE_LOW;
  return `{{ with printf "${query}" $labels.target | query }}network{{ else }}self{{ end }}`;
}

export const SCOPE_TEMPLATE = scopeTemplate();

/**
 * Upgrade day (docs/validators.md): the stake of the peers that report 0 % for everyone while they
 * bootstrap, under half of the stake (a majority reporting 0 is no upgrade day), and a validator's
 * figures without them, as the daemon weighs them (model/validator.ts, withoutZeroReporters).
 * `selector` is the target's label matcher (`{target=%[1]q}` in a template, empty in an expression).
 */
export const UPGRADE_DAY = {
  zero: (selector: string) => `(avahealth_validator_bootstrapping_peers_stake_ratio${selector} < 0.5)`,
  rewarding: (selector: string) => `clamp_max(avahealth_validator_uptime_rewarding_stake_ratio${selector} / on (target) (1 - ${UPGRADE_DAY.zero(selector)}), 1)`,
  /** The share of the period's downtime budget left, with the weighted average uptime counted without them. */
  budgetShare: (selector: string) => {
    const allowance = `((1 - avahealth_validator_uptime_requirement_ratio${selector}) * (avahealth_validator_period_end_timestamp_seconds${selector} - avahealth_validator_period_start_timestamp_seconds${selector}))`;
    const weighted = `clamp_max(avahealth_validator_uptime_weighted_average_ratio${selector} / on (target) (1 - ${UPGRADE_DAY.zero(selector)}), 1)`;
    return `(${allowance} - (1 - ${weighted}) * on (target) (time() - avahealth_validator_period_start_timestamp_seconds${selector})) / on (target) ${allowance}`;
  },
};
