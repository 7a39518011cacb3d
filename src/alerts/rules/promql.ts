/** PromQL fragments the rules' Prometheus twins share. */
export const HEALTH = 'endpoint="health",view="all"';
/** Series of nodes whose readiness is false (still bootstrapping): `… unless NOT_READY`. */
export const NOT_READY = `on (target) (avahealth_node_healthy{endpoint="readiness",view="all"} == 0)`;

/**
 * The `scope` label of a validator alert's Prometheus twin: `network` when the network baseline
 * (averaged over its observers and networks) has its median observed uptime below the target's
 * requirement, or its connected stake below 80 %; else `self`.
 */
export const SCOPE_TEMPLATE =
  '{{ with printf "avg(avahealth_network_observed_uptime_ratio{quantile=\\"0.5\\"}) < scalar(max(avahealth_validator_uptime_requirement_ratio{target=%q}) or vector(0.8)) or avg(avahealth_network_connected_stake_ratio) < 0.8" $labels.target | query }}network{{ else }}self{{ end }}';
