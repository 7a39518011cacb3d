/**
 * The node's own health passes, yet at least half of the fleet's other nodes on its network see it
 * disconnected: peers cannot reach its staking port (inbound TCP, NAT, firewall; avalanchego #4022,
 * #461). Its own checks cannot tell (it dials out fine); its rewarding stake falls meanwhile.
 */
import { observedReport, scopeOf } from '../../model/observed.js';
import { nodeFacts } from './node-facts.js';
import { SCOPE_TEMPLATE } from './promql.js';
import { defineRule, NO_TUNING, promAlert, UNKNOWN } from './rule.js';
import { listNames } from './format.js';
import { percent } from './validator-facts.js';

export default defineRule({
  name: 'AvalancheValidatorUnreachableByPeers',
  source: 'observed',
  fires: "the node's own health passes, yet at least half of the fleet's other nodes on its network see it disconnected (platform.getCurrentValidators connected)",
  defaults: { severity: 'warning' },
  tuning: NO_TUNING,
  phrases: { firing: 'unreachable by peers', resolved: 'reachable by peers again' },
  prometheus: [
    promAlert(
      'AvalancheValidatorUnreachableByPeers',
      'sum by (target, node_id) (1 - avahealth_validator_observed_connected) / count by (target, node_id) (avahealth_validator_observed_connected) >= 0.5 and on (target) (avahealth_node_healthy{endpoint="health",view="all"} == 1)',
      '5m',
      'warning',
      "{{ $labels.target }}: {{ $value | humanizePercentage }} of the fleet's other nodes see it disconnected while its own health passes",
      'Peers cannot reach its staking port (9651 unless configured): check inbound TCP to it (firewall, NAT, security group, --public-ip). Its own checks cannot tell, and its rewarding stake falls while they cannot.',
      { scope: SCOPE_TEMPLATE },
    ),
  ],
  evaluate(input, ctx) {
    const report = observedReport(input.observation);
    if (!report) return input.observation.ok ? [] : UNKNOWN;
    const facts = input.node ? nodeFacts(input.node) : undefined;
    if (!facts?.report) return facts?.health && !facts.health.ok ? UNKNOWN : [];
    if (!facts.report.healthy) return []; // its own health fails: AvalancheNodeUnhealthy speaks
    const answered = report.views.filter((v) => v.connected !== undefined);
    const apart = answered.filter((v) => !v.connected);
    if (answered.length === 0 || apart.length * 2 < answered.length) return [];
    const uptime = (v: (typeof answered)[number]) => (v.uptimeRatio !== undefined ? ` (uptime ${percent(v.uptimeRatio)})` : '');
    const together = answered.filter((v) => v.connected);
    const sees = (views: typeof answered, what: string) => views.map((v) => `${v.observer} sees it ${what}${uptime(v)}`).join(', ');
    const scope = scopeOf(report.baseline, input.validator?.economics?.requirement ?? 0.8);
    const port = report.stakingPort;
    return [
      {
        identity: { scope: scope.scope },
        severity: 'warning',
        // Network scope: the observers are cut off too, so the staking port is not the first suspect.
        summary:
          scope.scope === 'network'
            ? `${ctx.target}: ${scope.words}; ${apart.length} of ${answered.length} fleet nodes (${listNames(apart.map((v) => v.observer))}) see it disconnected while its own health passes`
            : `${ctx.target}: ${apart.length} of ${answered.length} fleet nodes (${listNames(apart.map((v) => v.observer))}) see it disconnected while its own health passes: peers cannot reach its staking port ${port}`,
        description:
          `${sees(apart, 'disconnected')}${together.length > 0 ? `; ${sees(together, 'connected')}` : ''}. ` +
          `Check that inbound TCP ${port} reaches the node (firewall, NAT, security group, its --public-ip and --staking-port): it dials out fine, so its own health cannot tell, and its rewarding stake falls while peers cannot reach it.` +
          (scope.scope === 'network' ? ` Note: ${scope.words}, so this may be the fleet's own vantage point.` : ''),
      },
    ];
  },
});
