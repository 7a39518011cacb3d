/**
 * Issue 24's verdicts end to end: the built daemon (dist/cli.js run) against simulated AvalancheGo
 * nodes and the simulated Data API, delivering to a local webhook. An auto-renewed validator that
 * renews is not paged as ending while one that exits is (ACP-236: getCurrentValidators' nextPeriod,
 * vms/platformvm/api/validator.go); two L1 validations of one node are two alerts, and topping up one
 * while the other runs dry tells both; a reward at risk says where the outcome of the reward vote
 * stands (vms/platformvm/block/executor/options.go, snow/consensus/snowball) with the downtime left.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { startFleet, type Fleet } from '../helpers/fleet.js';
import { get, sample, scrape, setScenario, waitFor } from '../helpers/harness.js';

const DAY = 86_400;

describe('validator verdicts through the real daemon to a webhook', () => {
  let fleet: Fleet;

  beforeAll(async () => {
    fleet = await startFleet({
      nodes: [
        { name: 'renewing', scenario: 'auto-renewing', validationEndsIn: 2 * DAY, periodMs: 3_600_000 },
        { name: 'exiting', scenario: 'auto-renew-exiting', validationEndsIn: 2 * DAY, periodMs: 3_600_000 },
        { name: 'l1', scenario: 'healthy', l1: true, periodMs: 3_600_000 },
        { name: 'uncertain', scenario: 'healthy', periodMs: 3_600_000 },
        { name: 'lost', scenario: 'healthy', periodMs: 3_600_000 },
      ],
      // Set before the daemon starts, so no other state of these nodes is ever seen.
      prepare: (sim) => {
        sim.nodes.get('uncertain')!.setScenario('reward-at-risk');
        sim.nodes.get('uncertain')!.economics.rewardingStakePercent = 55;
        sim.nodes.get('lost')!.setScenario('reward-at-risk');
        sim.nodes.get('lost')!.economics.rewardingStakePercent = 35;
      },
      config: ({ sim, hook, node }) => `
defaults: {interval: 1s, timeout: 2s, endpoints: [health], validator: {interval: 1s}}
nodes:
${node('renewing')}
${node('exiting')}
${node('l1', `, validator: {subnets: [${sim.nodes.get('l1')!.l1SubnetId}]}`)}
${node('uncertain')}
${node('lost')}
services:
  - {name: data-api, kind: data-api, url: "${sim.serviceUrl('data-api')}"}
chain_data: {interval: 10s}
alerts:
  for_polls: 1
  resolve_polls: 1
  receivers:
    - {name: oncall, webhook: {url: "${hook}"}}
`,
      firstRound: true,
    });
  }, 60_000);

  afterAll(() => fleet?.stop());

  const alerts = () => fleet.told({ path: '/hook' });
  const told = (status: string, alertname: string, target: string, extra: Record<string, string> = {}) => fleet.told({ path: '/hook', status, alertname, target, ...extra });
  const chainDataRefreshedAt = async () => ((JSON.parse((await get(`${fleet.url}/api/v1/status`)).body) as { chainData?: { refreshedAt?: number } }).chainData?.refreshedAt ?? 0);

  it('an auto-renewed validator that renews is not paged as ending; one that exits is', { timeout: 90_000 }, async () => {
    await waitFor('EndingSoon for the exiting validator', () => told('firing', 'AvalancheValidatorEndingSoon', 'exiting').length > 0, 40_000);
    const [exiting] = told('firing', 'AvalancheValidatorEndingSoon', 'exiting');
    expect(exiting!.labels.severity).toBe('warning');
    expect(exiting!.annotations.description).toContain('set a next period with SetAutoRenewedValidatorConfigTx or re-stake to keep validating');
    // one more chain-data refresh: by then both validators' polls are in, and both were evaluated
    const seen = await chainDataRefreshedAt();
    await waitFor('a chain data refresh', async () => (await chainDataRefreshedAt()) > seen, 30_000);
    expect(alerts().filter((a) => a.labels.target === 'renewing' && a.labels.alertname === 'AvalancheValidatorEndingSoon')).toEqual([]);
    const m = await scrape(fleet.url);
    expect(sample(m, 'avahealth_validator_next_period_seconds', { target: 'renewing' })).toBe(14 * DAY);
    expect(sample(m, 'avahealth_validator_next_period_seconds', { target: 'exiting' })).toBe(0);
  });

  it('two L1 validations are two alerts; topping up one while the other runs dry tells both', async () => {
    const economics = fleet.sim.nodes.get('l1')!.economics;
    const [a, b] = [economics.l1ValidationIdOf(0), economics.l1ValidationIdOf(1)];
    await setScenario(fleet.sim, 'l1', 'healthy', { l1Balances: [0, Math.round(2.3 * DAY * 512)] });
    await waitFor('Inactive for A and BalanceLow for B', () => told('firing', 'AvalancheL1ValidatorInactive', 'l1', { validation_id: a }).length > 0 && told('firing', 'AvalancheL1ValidatorBalanceLow', 'l1', { validation_id: b }).length > 0, 20_000);
    const [inactiveA] = told('firing', 'AvalancheL1ValidatorInactive', 'l1', { validation_id: a });
    const [lowB] = told('firing', 'AvalancheL1ValidatorBalanceLow', 'l1', { validation_id: b });
    expect(inactiveA!.annotations.summary).toBe(`l1: L1 validation ${a.slice(0, 4)}… is inactive (balance 0): add 1.33 AVAX for 30 days with IncreaseL1ValidatorBalanceTx to reactivate it`);
    expect(inactiveA!.annotations.description).toContain(a);
    expect(lowB!.labels.severity).toBe('critical');
    expect(lowB!.annotations.summary).toBe(`l1: L1 validation ${b.slice(0, 4)}… runs out of balance in 2.3 days at 512 nAVAX/s: add 1.33 AVAX for 30 days with IncreaseL1ValidatorBalanceTx`);
    // the sim's other, retired validation of another NodeID is never this node's
    expect(alerts().filter((x) => x.labels.target === 'l1' && ![a, b].includes(x.labels.validation_id!))).toEqual([]);

    await setScenario(fleet.sim, 'l1', 'healthy', { l1Balances: [30 * DAY * 512, 0] });
    await waitFor('B inactive, A and B resolved', () => told('firing', 'AvalancheL1ValidatorInactive', 'l1', { validation_id: b }).length > 0 && told('resolved', 'AvalancheL1ValidatorInactive', 'l1', { validation_id: a }).length > 0 && told('resolved', 'AvalancheL1ValidatorBalanceLow', 'l1', { validation_id: b }).length > 0, 20_000);
    const [inactiveB] = told('firing', 'AvalancheL1ValidatorInactive', 'l1', { validation_id: b });
    expect(inactiveB!.fingerprint).not.toBe(inactiveA!.fingerprint);
    expect(told('resolved', 'AvalancheL1ValidatorInactive', 'l1', { validation_id: a })[0]!.fingerprint).toBe(inactiveA!.fingerprint);
    expect(inactiveB!.annotations.summary).toContain(`L1 validation ${b.slice(0, 4)}… is inactive`);
  });

  it('a reward at risk says where the vote stands and how much downtime is left, and on-call tools count it', { timeout: 90_000 }, async () => {
    // The daemon's first answer below the top is held as a restart's climb for one Ping interval
    // (docs/validators.md), so the verdict comes about 25 s after the daemon starts.
    await waitFor('RewardAtRisk for both', () => told('firing', 'AvalancheValidatorRewardAtRisk', 'uncertain').length > 0 && told('firing', 'AvalancheValidatorRewardAtRisk', 'lost').length > 0, 60_000);
    const [uncertain] = told('firing', 'AvalancheValidatorRewardAtRisk', 'uncertain');
    expect(uncertain!.labels.severity).toBe('critical');
    // 10 days into a 40-day period at 66 %: even up from now on, the stake that sees it lowest ends below 90 % (the projection, not the snapshot, makes it critical)
    expect(uncertain!.annotations.summary).toMatch(/^uncertain: only 55 % of stake sees its uptime at or above the 90 % requirement: the reward is uncertain, likely lost below 40 % of stake; even up from now on, the stake that sees it lowest would measure \d+(\.\d)? % when the period ends; (\d+\.\d h of the \d+\.\d h downtime budget left until|downtime budget overspent by \d+\.\d h \(the period ends) \d{4}-\d\d-\d\d \d\d:\d\d UTC/);
    expect(uncertain!.annotations.description).toContain('carries the side holding more than half of the stake: the reward is likely at 60 % of stake or more, uncertain between 40 % and 60 %, likely lost below 40 %');
    const [lost] = told('firing', 'AvalancheValidatorRewardAtRisk', 'lost');
    expect(lost!.annotations.summary).toMatch(/^lost: only 35 % of stake sees its uptime at or above the 90 % requirement: the reward is likely lost; even up from now on, the stake that sees it lowest would measure \d+(\.\d)? % when the period ends; /);
    expect(alerts().some((a) => /majority seeing|needs a majority/.test(a.annotations.summary ?? ''))).toBe(false);

    const status = JSON.parse((await get(`${fleet.url}/api/v1/status`)).body) as { targets: Array<{ name: string; state: string; summary: string }> };
    expect(status.targets.find((t) => t.name === 'lost')).toMatchObject({ state: 'unhealthy', summary: expect.stringContaining('the reward is likely lost') });
    const check = await runCli(['check', '--config', fleet.file, '--target', 'uncertain']);
    expect(check.code).toBe(2);
    expect(check.stdout).toContain('the reward is uncertain');
  });
});
