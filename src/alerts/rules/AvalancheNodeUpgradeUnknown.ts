/**
 * The network has scheduled an upgrade this node's build does not know: another node of the same
 * network (RPC nodes too) has the activation in its `info.upgrades` (api/info/service.go Upgrades:
 * the build's upgrade.Config, upgrade/upgrade.go), and this node's own reads it unscheduled
 * (UnscheduledActivationTime, 9999-12-01) or has no field for it (a build that predates it,
 * upgrade/new_upgrade_checklist.md). A release schedules an upgrade weeks ahead, while AvalancheGo's
 * own futureupgrade check (node/node.go) fails only in the last 3 days, and only once most of the
 * stake advertises it (AvalancheNodeUpgradeRequired). Past the time the node has missed it
 * (probes/missed-upgrade.ts): AvalancheNodeUpgradeRequired pages that, and holds this one back.
 */
import { upgradeName, type UnknownUpgrade } from '../../model/schedule.js';
import { formatDuration } from './format.js';
import { utcMinute } from './AvalancheNodeUpgradeRequired.js';
import { defineRule, NO_TUNING, promAlert, type RuleDefaults } from './rule.js';

const defaults: RuleDefaults = { severity: 'warning', forPolls: 1 };

function when(u: UnknownUpgrade, now: number): string {
  const left = u.at - now;
  return left > 0 ? `${utcMinute(u.at)} (in ${formatDuration(left)})` : `${utcMinute(u.at)} (${formatDuration(-left)} ago)`;
}

export default defineRule({
  name: 'AvalancheNodeUpgradeUnknown',
  source: 'node',
  fires: "another node of the same network knows an upgrade activation (info.upgrades) that this node's build does not: weeks before the futureupgrade check fails",
  defaults,
  tuning: NO_TUNING,
  phrases: { firing: 'upgrade unknown to its build', resolved: "the node's build knows the network's scheduled upgrades" },
  prometheus: [
    promAlert(
      'AvalancheNodeUpgradeUnknown',
      'avahealth_node_upgrade_unknown_timestamp_seconds > 0',
      '0s',
      'warning',
      '{{ $labels.target }}: upgrade AvalancheGo before {{ $value | humanizeTimestamp }}: an upgrade its build does not know is scheduled then',
      "Another node of the same network has this activation in its info.upgrades and this node's build does not (its schedule reads it unscheduled, or predates it). AvalancheGo's own futureupgrade check fails only 3 days before, once most of the stake advertises the upgrade; past the time the node is cut off from the upgraded stake.",
    ),
  ],
  evaluate(observation, ctx) {
    const unknown = observation.unknownUpgrades ?? [];
    const first = unknown[0];
    if (!first) return [];
    const now = ctx.now / 1000;
    const own = first.own === 'unscheduled' ? "this node's info.upgrades reads it unscheduled (9999-12-01)" : "this node's info.upgrades has no field for it (a build older than the upgrade)";
    const others = unknown.slice(1).map((u) => `${upgradeName(u.key)} at ${utcMinute(u.at)}`);
    const more = others.length > 0 ? ` Also unknown to its build: ${others.join(', ')}.` : '';
    const summary =
      first.at > now
        ? `${ctx.target}: upgrade AvalancheGo before ${when(first, now)}: the network schedules ${upgradeName(first.key)} then, and this node's build does not know it`
        : `${ctx.target}: its build does not know ${upgradeName(first.key)}, active since ${when(first, now)}: upgrade AvalancheGo`;
    return [
      {
        identity: {},
        severity: 'warning',
        summary,
        description: `${first.from}, a node of the same network, schedules ${upgradeName(first.key)} (${first.key}) for ${utcMinute(first.at)}; ${own}.${more} A node left behind stops following the network at that time, and a validator loses its uptime. AvalancheGo's own futureupgrade check fails only in the last 3 days, once most of the stake advertises the upgrade.`,
      },
    ];
  },
});
