/**
 * The stake majority will switch to a network upgrade this node's build does not know: upgrade
 * AvalancheGo before that date. Read from the node's own `futureupgrade` check (node/node.go,
 * futureUpgradeCheck, AvalancheGo v1.14.1+), whose escalation (ava-labs/avalanchego#4474) this follows:
 * an info log beyond 7 days, a warning within 7 (this warns), the check fails within 3 days
 * ("unknown network upgrade detected"), "update as soon as possible" within 1 day (this turns
 * critical), "imminent … update immediately" within 1 hour. Past the time its upgraded peers drop
 * it (network/peer/peer.go) and the check passes again: the incident stays, critical, until the
 * node's build knows the upgrade (probes/missed-upgrade.ts).
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
  fires: "the stake majority switches within 7 days to a network upgrade the node's build does not know (futureupgrade check); critical within 1 day, and after the time until the build knows it",
  defaults,
  tuning: thresholdTuning('number of seconds before the deadline', defaults),
  phrases: { firing: 'upgrade required', resolved: "the node's build knows the upgrade" },
  // The futureupgrade check says neither the deadline nor, before its last 3 days, anything: the target's summary says the alert's words.
  countsInState: true,
  // In the last 3 days the node's futureupgrade check fails, and with it the node's health: the upgrade is the problem.
  inhibits: [
    { alertname: 'AvalancheCheckFailing', labels: { check: 'futureupgrade' }, because: 'the futureupgrade check fails because the upgrade is due' },
    { alertname: 'AvalancheNodeUnhealthy', because: 'a node whose failing check is futureupgrade is unhealthy because the upgrade is due' },
    { alertname: 'AvalancheNodeHeightLag', because: 'a node that missed an upgrade falls behind because its upgraded peers dropped it' },
    { alertname: 'AvalancheNodeUpgradeUnknown', because: 'the upgrade its build does not know is due within days, or missed: this alert says it, with the stake that switches' },
  ],
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
    const check = facts.report.checks.find((c) => c.name === 'futureupgrade' && c.upgrade !== undefined) ?? facts.report.checks.find((c) => c.upgrade !== undefined);
    const upgrade = check?.upgrade;
    const missed = upgrade?.deadline === undefined ? observation.missedUpgrade : undefined;
    const deadline = upgrade?.deadline ?? missed?.deadline;
    // Cut off from every peer, the check sees no advertised upgrade time (modeUpgradeTime 1970-01-01,
    // numUpgradeTimes 0; node/node.go futureUpgradeCheck) and passes: no news of the upgrade, not a recovery.
    if (deadline === undefined && upgrade?.modeTime === 0) return UNKNOWN;
    if (deadline === undefined) return [];
    const left = deadline - ctx.now / 1000;
    if (left > (ctx.settings.threshold ?? defaults.threshold!)) return [];
    const share = percent((missed ? missed.modeWeightRatio : upgrade?.modeWeightRatio) ?? 0);
    const known = upgrade?.localTime !== undefined ? ` This node's build knows upgrades up to ${utcMinute(upgrade.localTime)} only.` : '';
    if (missed) {
      // Derived from the node's own schedule (probes/missed-upgrade.ts): no stake share was seen.
      const who = missed.modeWeightRatio !== undefined ? `${share} of the stake` : "The network (another node of the same network schedules it in its info.upgrades)";
      return [
        {
          identity: {},
          severity: 'critical',
          summary: `${ctx.target}: missed the network upgrade of ${utcMinute(deadline)} (${formatDuration(-left)} ago): upgrade AvalancheGo now, it is cut off from the upgraded stake`,
          description: `${who} switched to a network upgrade at ${utcMinute(deadline)} that this node's build does not know.${known} Peers on the new version have dropped it, so the upgrade times it still sees are its own and its futureupgrade check passes again: that is not a recovery. It cannot follow the network, and a validator loses its uptime, until AvalancheGo is upgraded to a version that knows the upgrade.`,
        },
      ];
    }
    const when = left > 0 ? `in ${formatDuration(left)}` : `${formatDuration(-left)} ago`;
    return [
      {
        identity: {},
        severity: left <= (ctx.settings.criticalThreshold ?? defaults.criticalThreshold!) ? 'critical' : 'warning',
        summary: `${ctx.target}: upgrade AvalancheGo before ${utcMinute(deadline)} (${when}): ${share} of the stake switches then to an upgrade this node does not know`,
        description: `${share} of the stake (by weight, as the node's peers advertise it) switches to a network upgrade at ${utcMinute(deadline)}.${known} A node left behind stops following the network, and a validator loses its uptime. ${stage(left, check?.error)}`,
      },
    ];
  },
});

/** Where AvalancheGo's own escalation stands (node/node.go, futureUpgradeCheck), in its words when it failed. */
function stage(left: number, error: string | undefined): string {
  if (left > 3 * DAY) return `The node's own futureupgrade check passes until 3 days before (AvalancheGo logs ${left > 7 * DAY ? 'it at info level' : 'a warning'} meanwhile).`;
  const words = error ?? (left > DAY ? 'unknown network upgrade detected' : left > 3600 ? 'unknown network upgrade detected - update as soon as possible' : 'imminent network upgrade detected - update immediately');
  return `The node's own futureupgrade check fails: "${words}".`;
}
