/**
 * The IP:port a validator advertises to its peers changed (info.getNodeIP, api/info/service.go
 * GetNodeIP: the node's current public IP, which --public-ip-resolution-service re-resolves every
 * --public-ip-resolution-frequency, utils/dynamicip/updater.go). Its peers learn the new address from
 * its signed IP gossip (network/peer); until they do, or when the staking port is not reachable at
 * the new address (NAT, firewall, a stale --public-ip elsewhere), they cannot reconnect and its
 * uptime falls. A notice for a while after the change (builders-hub alerts on it too), not a page.
 */
import { formatDuration } from './format.js';
import { defineRule, promAlert, thresholdTuning, type RuleDefaults } from './rule.js';
import { reportFor } from './validator-facts.js';

const HOUR = 3600;
const defaults: RuleDefaults = { severity: 'warning', forPolls: 1, threshold: HOUR };

export default defineRule({
  name: 'AvalancheValidatorPublicIpChanged',
  source: 'validator',
  fires: 'the IP:port a validator advertises to its peers (info.getNodeIP) changed, for an hour after the change',
  defaults,
  tuning: thresholdTuning('number of seconds after the change it stays firing', defaults),
  phrases: { firing: 'public IP changed', resolved: 'public IP unchanged since' },
  prometheus: [
    promAlert(
      'AvalancheValidatorPublicIpChanged',
      '(time() - avahealth_validator_public_ip_changed_timestamp_seconds < 3600) and on (target) (avahealth_validator_period_end_timestamp_seconds or on (target) avahealth_l1_validator_balance_avax)',
      '0s',
      'warning',
      '{{ $labels.target }}: the public IP it advertises to its peers changed',
      'info.getNodeIP reports a new IP:port. Peers learn it from its signed IP gossip; until they do, or if the staking port is not reachable at the new address, they cannot reconnect and its uptime falls. Check the NAT and firewall for the new address.',
    ),
  ],
  recovered(input, ctx) {
    const report = reportFor(input, (call) => call === 'info.getNodeIP');
    if (report === null || typeof report === 'string' || !report.publicIp) return undefined;
    return `public IP unchanged for ${formatDuration(ctx.settings.threshold ?? HOUR)}: ${report.publicIp}`;
  },
  evaluate(input, ctx) {
    const report = reportFor(input, (call) => call === 'info.getNodeIP');
    if (report === null || typeof report === 'string') return report === null ? [] : report;
    const change = report.publicIpChange;
    // A validator's: a node with no validation has no uptime for its peers to lose.
    if (!change || (!report.primary && report.l1.length === 0)) return [];
    const ago = ctx.now / 1000 - change.at;
    if (ago >= (ctx.settings.threshold ?? HOUR)) return [];
    return [
      {
        identity: {},
        severity: 'warning',
        summary: `${ctx.target}: public IP changed from ${change.from} to ${change.to} (${formatDuration(Math.max(0, ago))} ago): check that its staking port is reachable there`,
        description: `The IP:port the node advertises to its peers (info.getNodeIP) is now ${change.to}, was ${change.from}. Peers learn the new address from its signed IP gossip; until they do, or if the staking port is not reachable at the new address (NAT, firewall, a stale --public-ip), they cannot reconnect and its uptime falls. AvalancheGo re-resolves it every --public-ip-resolution-frequency (5m) when --public-ip-resolution-service is set.`,
      },
    ];
  },
});
