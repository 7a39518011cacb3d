/**
 * The stake majority will switch to a network upgrade this node's version does not know: upgrade
 * AvalancheGo before that date. Read from the node's own `futureupgrade` check (v1.14.2+), which
 * fails by itself only in the last 3 days; this warns a week ahead and turns critical in the last day.
 */
import { defineRule, promAlert, thresholdTuning, UNKNOWN, type RuleDefaults } from './rule.js';
import { formatDuration } from './format.js';
import { nodeFacts } from './node-facts.js';
import { percent } from './validator-facts.js';

const DAY = 86_400;
const defaults: RuleDefaults = { severity: 'warning', forPolls: 1, threshold: 7 * DAY, criticalThreshold: DAY };

/** "2026-11-22 20:00 UTC" */
export function utcMinute(epochSeconds: number): string {
  return `${new Date(epochSeconds * 1000).toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

export default defineRule({
  name: 'AvalancheNodeUpgradeRequired',
  source: 'node',
  fires: "the stake majority switches within 7 days to a network upgrade the node's version does not know (futureupgrade check); critical within 1 day",
  defaults,
  tuning: thresholdTuning('number of seconds before the deadline', defaults),
  phrases: { firing: 'upgrade required', resolved: 'upgrade no longer required' },
  prometheus: [
    promAlert(
      'AvalancheNodeUpgradeRequired',
      'avahealth_node_upgrade_deadline_timestamp_seconds < time() + 7 * 86400',
      '0s',
      'warning',
      '{{ $labels.target }}: upgrade AvalancheGo before {{ $value | humanizeTimestamp }}',
      '{{ with query (printf "avahealth_node_upgrade_mode_weight_ratio{target=%q}" $labels.target) }}{{ . | first | value | humanizePercentage }}{{ end }} of the stake switches then to a network upgrade this node\'s version does not know; a node left behind stops following the network. The node\'s own futureupgrade check fails only in the last 3 days.',
    ),
    promAlert(
      'AvalancheNodeUpgradeRequiredCritical',
      'avahealth_node_upgrade_deadline_timestamp_seconds < time() + 86400',
      '0s',
      'critical',
      '{{ $labels.target }}: upgrade AvalancheGo before {{ $value | humanizeTimestamp }}',
      'Less than a day before most of the stake switches to a network upgrade this node\'s version does not know: upgrade AvalancheGo now.',
    ),
  ],
  evaluate(observation, ctx) {
    const facts = nodeFacts(observation);
    if (!facts.report) return facts.health ? UNKNOWN : [];
    const upgrade = facts.report.checks.find((c) => c.upgrade !== undefined)?.upgrade;
    if (upgrade?.deadline === undefined) return [];
    const left = upgrade.deadline - ctx.now / 1000;
    if (left > (ctx.settings.threshold ?? defaults.threshold!)) return [];
    const share = percent(upgrade.modeWeightRatio ?? 0);
    const when = left > 0 ? `in ${formatDuration(left)}` : `${formatDuration(-left)} ago`;
    const known = upgrade.localTime !== undefined ? ` This node's version knows upgrades up to ${utcMinute(upgrade.localTime)} only.` : '';
    return [
      {
        identity: {},
        severity: left <= (ctx.settings.criticalThreshold ?? defaults.criticalThreshold!) ? 'critical' : 'warning',
        summary: `${ctx.target}: upgrade AvalancheGo before ${utcMinute(upgrade.deadline)} (${when}): ${share} of the stake switches then to an upgrade this node does not know`,
        description: `${share} of the stake (by weight, as the node's peers advertise it) switches to a network upgrade at ${utcMinute(upgrade.deadline)}.${known} A node left behind stops following the network, and a validator loses its uptime. The node's own futureupgrade check fails only in the last 3 days.`,
      },
    ];
  },
});
