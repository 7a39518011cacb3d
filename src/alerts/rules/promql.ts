/** PromQL fragments the rules' Prometheus twins share. */
export const HEALTH = 'endpoint="health",view="all"';
/** Series of nodes whose readiness is false (still bootstrapping): `… unless NOT_READY`. */
export const NOT_READY = `on (target) (avahealth_node_healthy{endpoint="readiness",view="all"} == 0)`;
