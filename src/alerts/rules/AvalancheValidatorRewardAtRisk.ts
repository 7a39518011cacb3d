/**
 * Too little stake sees the validator up enough to reward it: if the period ended now, it would
 * earn nothing (the reward is all or nothing, and its delegators' too).
 */
import { defineRule, promAlert, thresholdTuning, type RuleDefaults } from './rule.js';
import { avax, day, hours, percent, reportFor } from './validator-facts.js';

const defaults: RuleDefaults = { severity: 'warning', forPolls: 1, threshold: 0.8, criticalThreshold: 0.6 };

export default defineRule({
  name: 'AvalancheValidatorRewardAtRisk',
  source: 'validator',
  fires: 'less than 80 % of stake sees the validator up enough to reward it (info.uptime rewardingStakePercentage); critical below 60 %',
  defaults,
  tuning: thresholdTuning('rewarding-stake ratio (0–1)', defaults),
  phrases: { firing: 'reward at risk', resolved: 'reward no longer at risk' },
  prometheus: [
    promAlert(
      'AvalancheValidatorRewardAtRisk',
      'avahealth_validator_uptime_rewarding_stake_ratio < 0.8',
      '5m',
      'warning',
      '{{ $labels.target }}: only {{ $value | humanizePercentage }} of stake would vote to reward it now',
      'The reward is all or nothing: at the end of the period a majority of stake must see the validator up at least the required share of the time. Check inbound connectivity on the staking port, the node clock, and restarts.',
    ),
    promAlert(
      'AvalancheValidatorRewardAtRiskCritical',
      'avahealth_validator_uptime_rewarding_stake_ratio < 0.6',
      '5m',
      'critical',
      '{{ $labels.target }}: only {{ $value | humanizePercentage }} of stake would vote to reward it now',
      'Far from a majority of stake sees the validator up enough: if the period ended now it would earn nothing.',
    ),
  ],
  evaluate(input, ctx) {
    const report = reportFor(input, (call) => call === 'info.uptime');
    if (report === null || typeof report === 'string') return report === null ? [] : report;
    if (report.notValidator || !report.uptime) return [];
    const ratio = report.uptime.rewardingStakeRatio;
    if (ratio >= (ctx.settings.threshold ?? 0.8)) return [];
    const economics = report.economics;
    const requirement = economics?.requirement;
    const needs = `needs a majority seeing ≥ ${requirement !== undefined ? percent(requirement) : 'the required'} uptime`;
    const left = economics?.downtimeBudgetRemainingSeconds;
    const end = report.primary?.endTime;
    const budget =
      left === undefined || end === undefined ? '' : left >= 0 ? `; ${hours(left)} of downtime budget left until ${day(end)}` : `; downtime budget overspent by ${hours(-left)} (period ends ${day(end)})`;
    const reward = report.primary?.potentialRewardNAvax !== undefined ? ` The potential reward of ${avax(report.primary.potentialRewardNAvax)} (and its delegators') is all or nothing.` : '';
    return [
      {
        identity: {},
        severity: ratio < (ctx.settings.criticalThreshold ?? 0.6) ? 'critical' : 'warning',
        summary: `${ctx.target}: only ${percent(ratio)} of stake would vote to reward it now (${needs})${budget}`,
        description: `Peers see it up ${percent(report.uptime.weightedAverageRatio)} of the time (stake-weighted).${reward} Check inbound connectivity on the staking port, the node clock, and avoid restarts.`,
      },
    ];
  },
});
