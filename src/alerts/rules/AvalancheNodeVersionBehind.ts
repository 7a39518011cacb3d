/**
 * Versions newer than the node's hold most of its network's stake (Data API
 * stakingDistributionByVersion): a node left behind is dropped at the next network upgrade.
 */
import { z } from 'zod';
import { newerStakeRatio, versionStakeRatios } from '../../model/validator.js';
import { defineRule, promAlert, Unknown, type RuleDefaults } from './rule.js';
import { percent, reportFor } from './validator-facts.js';

const defaults: RuleDefaults = { severity: 'warning', forPolls: 1, threshold: 0.5 };

export default defineRule({
  name: 'AvalancheNodeVersionBehind',
  source: 'validator',
  fires: "with `chain_data`: versions newer than the node's hold more than half of its network's stake",
  defaults,
  tuning: z.strictObject({
    threshold: z.number().min(0).max(1).optional().meta({ default: 0.5 }).describe("Fires when newer versions hold more than this share of the network's stake (default 0.5)."),
  }),
  phrases: { firing: 'version behind', resolved: 'version up to date' },
  prometheus: [
    promAlert(
      'AvalancheNodeVersionBehind',
      'avahealth_node_version_behind == 1',
      '15m',
      'warning',
      "{{ $labels.target }} runs an AvalancheGo version older than most of the network's stake",
      'Versions newer than the node\'s hold more than half of its network\'s stake (avahealth_network_version_stake_ratio). Nodes left on old versions are dropped at the next network upgrade: upgrade AvalancheGo.',
    ),
  ],
  recovered(input) {
    const report = reportFor(input, (call) => call === 'info.getNodeVersion');
    if (report === null || typeof report === 'string' || !report.version) return undefined;
    const newer = input.versionStake && input.versionStake.length > 0 ? newerStakeRatio(report.version, input.versionStake) : undefined;
    return `version up to date: runs ${report.version}${newer ? ` (newer versions: ${percent(newer)} of the network's stake)` : ''}`;
  },
  evaluate(input, ctx) {
    const report = reportFor(input, (call) => call === 'info.getNodeVersion');
    if (report === null || typeof report === 'string') return report === null ? [] : report;
    const stake = input.versionStake;
    if (report.version && !stake && input.versionStakeUnknown) return new Unknown('version drift', input.versionStakeUnknown);
    if (!report.version || !stake || stake.length === 0) return [];
    const newer = newerStakeRatio(report.version, stake);
    if (newer === undefined || newer <= (ctx.settings.threshold ?? 0.5)) return [];
    const [mostVersion, mostRatio] = [...versionStakeRatios(stake)].sort((a, b) => b[1] - a[1])[0]!;
    return [
      {
        identity: {},
        severity: 'warning',
        summary: `${ctx.target} runs ${report.version} while ${percent(newer)} of the network's stake runs newer versions (most: ${mostVersion}, ${percent(mostRatio)})`,
        description: 'Nodes left on old versions are dropped at the next network upgrade, and a validator that cannot follow it loses its uptime. Upgrade AvalancheGo.',
      },
    ];
  },
});
