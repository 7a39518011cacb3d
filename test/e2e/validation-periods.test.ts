/**
 * "Was it paid?" end to end: the built daemon (dist/cli.js run) against simulated nodes whose
 * validation periods end while it watches, as AvalancheGo ends them
 * (vms/platformvm/txs/executor/proposal_tx_executor.go, played by src/sim/periods.ts): a plain
 * validation paid (a reward UTXO of its staking transaction with the potential reward) and one not
 * (the commission alone); an auto-renewed cycle that commits (the validator renews) and one that
 * aborts (it is removed). The unpaid ones page AvalancheValidatorRewardMissed once; the outcome is
 * exported, shown on the status page, and a restart (state_dir/periods.json) reports nothing twice.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SIM_DELEGATEE_REWARD, SIM_POTENTIAL_REWARD } from '../../src/sim/periods.js';
import { runCli } from '../helpers/cli.js';
import { startFleet, type Fleet } from '../helpers/fleet.js';
import { get, sample, scrape, waitFor } from '../helpers/harness.js';

type PeriodRow = { rewarded: boolean | null; autoRenewed: boolean; validationRewardAvax?: number; potentialRewardAvax?: number; restakedAvax?: number; paidOutAvax?: number; restakedEstimated?: boolean; evidence: string };
type Status = { targets: Array<{ name: string; validator?: { polledAt: number }; periods?: { periods: PeriodRow[]; current?: { startTime: number } } }> };

/** Long enough for the daemon to start and see each period before it ends (it cannot judge a period it never saw). */
const ENDS_IN = 20;

describe('validation periods: was it paid?', () => {
  let fleet: Fleet;

  beforeAll(async () => {
    fleet = await startFleet({
      nodes: [
        { name: 'paid', scenario: 'healthy', validationEndsIn: ENDS_IN, periodMs: 3_600_000 },
        { name: 'unpaid', scenario: 'healthy', validationEndsIn: ENDS_IN, periodMs: 3_600_000 },
        { name: 'renew-paid', scenario: 'auto-renewing', validationEndsIn: ENDS_IN, periodMs: 3_600_000 },
        { name: 'renew-unpaid', scenario: 'auto-renewing', validationEndsIn: ENDS_IN, periodMs: 3_600_000 },
      ],
      prepare: (sim) => {
        // Peers see these two below the requirement: less than half the stake votes to reward them.
        sim.nodes.get('unpaid')!.economics.rewardingStakePercent = 20;
        sim.nodes.get('renew-unpaid')!.economics.rewardingStakePercent = 20;
        sim.nodes.get('renew-paid')!.economics.nextPeriodSeconds = 3600;
      },
      config: ({ sim, hook, node }) => `
defaults: {interval: 1s, timeout: 2s, endpoints: [health], validator: {interval: 1s, network: false}}
nodes:
${node('paid')}
${node('unpaid')}
${node('renew-paid')}
${node('renew-unpaid')}
services:
  - {name: data-api, kind: data-api, url: "${sim.serviceUrl('data-api')}"}
chain_data: {interval: 10s}
alerts:
  for_polls: 1
  resolve_polls: 1
  rules: {AvalancheValidatorRewardAtRisk: {disabled: true}, AvalancheValidatorDowntimeBudgetLow: {disabled: true}}
  receivers:
    - {name: oncall, webhook: {url: "${hook}"}}
`,
    });
  }, 60_000);

  afterAll(() => fleet?.stop());

  const missed = (target: string) => fleet.told({ path: '/hook', status: 'firing', alertname: 'AvalancheValidatorRewardMissed', target });
  const status = async () => JSON.parse((await get(`${fleet.url}/api/v1/status`)).body) as Status;
  const periodsOf = async (target: string) => (await status()).targets.find((t) => t.name === target)?.periods?.periods ?? [];

  it('every period is judged from what the node says, and the unpaid ones page once', { timeout: 90_000 }, async () => {
    const targets = ['paid', 'unpaid', 'renew-paid', 'renew-unpaid'];
    await waitFor('every period followed', async () => (await status()).targets.filter((t) => targets.includes(t.name)).every((t) => t.periods?.current), 15_000);
    await waitFor('all four outcomes', async () => (await Promise.all(['paid', 'unpaid', 'renew-paid', 'renew-unpaid'].map(periodsOf))).every((p) => p.length === 1), 60_000);
    const [paid] = await periodsOf('paid');
    expect(paid).toMatchObject({ rewarded: true, autoRenewed: false, validationRewardAvax: SIM_POTENTIAL_REWARD / 1e9 });
    expect(paid!.evidence).toContain('platform.getRewardUTXOs: 2 reward UTXOs, the validation reward among them');
    const [unpaid] = await periodsOf('unpaid');
    expect(unpaid).toMatchObject({ rewarded: false, validationRewardAvax: 0, potentialRewardAvax: SIM_POTENTIAL_REWARD / 1e9 });
    expect(unpaid!.evidence).toContain('1 reward UTXO, no validation reward');
    // The Data API's completed validation says the same (no disagreement).
    expect(unpaid).not.toHaveProperty('disagreement');
    const [renewed] = await periodsOf('renew-paid');
    expect(renewed).toMatchObject({ rewarded: true, autoRenewed: true });
    expect(renewed!.evidence).toContain('renewed');
    // its reward split as the node's restakedValidationRewards grew: reward.Split by 30 % (reward/calculator.go, the share's part rounded up), the rest paid out (proposal_tx_executor.go)
    expect(renewed).toMatchObject({ validationRewardAvax: SIM_POTENTIAL_REWARD / 1e9, restakedAvax: 35.229448028, paidOutAvax: 82.202045398 });
    expect(renewed).not.toHaveProperty('restakedEstimated');
    const [aborted] = await periodsOf('renew-unpaid');
    expect(aborted).toMatchObject({ rewarded: false, autoRenewed: true });
    expect(aborted!.evidence).toContain('removed at the end of its cycle instead of renewed');

    await waitFor('RewardMissed for both unpaid', () => missed('unpaid').length > 0 && missed('renew-unpaid').length > 0, 20_000);
    expect(missed('unpaid')).toHaveLength(1);
    expect(missed('unpaid')[0]!.labels.severity).toBe('critical');
    expect(missed('unpaid')[0]!.annotations.summary).toMatch(/^unpaid: validation period \d{4}-\d\d-\d\d – \d{4}-\d\d-\d\d ended unpaid: 117\.4 AVAX forfeited$/);
    expect(missed('renew-unpaid')[0]!.annotations.description).toContain('removed when its vote aborts, whatever nextPeriod says (ACP-236)');
    expect(missed('paid')).toEqual([]);
    expect(missed('renew-paid')).toEqual([]);

    const m = await scrape(fleet.url);
    expect(sample(m, 'avahealth_validator_last_period_rewarded', { target: 'paid' })).toBe(1);
    expect(sample(m, 'avahealth_validator_last_period_rewarded', { target: 'unpaid', node_id: fleet.sim.nodes.get('unpaid')!.nodeId })).toBe(0);
    expect(sample(m, 'avahealth_validator_last_period_reward_avax', { target: 'paid', kind: 'validation' })).toBe(SIM_POTENTIAL_REWARD / 1e9);
    expect(sample(m, 'avahealth_validator_last_period_reward_avax', { target: 'unpaid', kind: 'delegatee' })).toBe(SIM_DELEGATEE_REWARD / 1e9);
    expect(sample(m, 'avahealth_validator_last_period_rewarded', { target: 'renew-unpaid' })).toBe(0);
    // a renewed cycle's split, as the status page shows it: the whole reward, and the part restaked
    expect(sample(m, 'avahealth_validator_last_period_reward_avax', { target: 'renew-paid', kind: 'validation' })).toBe(SIM_POTENTIAL_REWARD / 1e9);
    expect(sample(m, 'avahealth_validator_last_period_restaked_avax', { target: 'renew-paid' })).toBe(35.229448028);
    expect(sample(m, 'avahealth_validator_last_period_restaked_avax', { target: 'paid' })).toBeUndefined();

    const page = (await get(`${fleet.url}/targets/unpaid`)).body;
    expect(page).toContain('Validation periods: was it paid?');
    expect(page).toContain('✖ not paid');
    expect((await get(`${fleet.url}/targets/paid`)).body).toContain('✔ paid');
    expect((await get(`${fleet.url}/targets/renew-paid`)).body).toContain('(35.23 restaked, 82.20 paid out)');
  });

  it('a restart remembers the periods and reports nothing twice', { timeout: 90_000 }, async () => {
    // written within a second of the change (state/ledger.ts)
    const outcomes = () => {
      try {
        return (JSON.parse(readFileSync(join(fleet.stateDir, 'periods.json'), 'utf8')) as { nodes: Record<string, { outcomes: unknown[] }> }).nodes.unpaid?.outcomes.length;
      } catch {
        return undefined;
      }
    };
    await waitFor('the outcome in periods.json', () => outcomes() === 1, 10_000);
    await fleet.restart('SIGKILL');
    // The restored outcome is back on the page after the first validator polls, and polls go on.
    await waitFor('the restored outcome', async () => (await periodsOf('unpaid')).length === 1, 20_000);
    const polledAt = async () => (await status()).targets.find((t) => t.name === 'unpaid')?.validator?.polledAt ?? 0;
    const seen = await polledAt();
    await waitFor('three more validator polls', async () => (await polledAt()) >= seen + 3, 20_000);
    expect(await periodsOf('unpaid')).toHaveLength(1);
    // Delivery is at least once: a page whose delivery was not yet on disk at the kill is sent again,
    // as the same incident (same start, same fingerprint). No second incident is opened.
    for (const target of ['unpaid', 'renew-unpaid']) expect(new Set(missed(target).map((a) => `${a.startsAt} ${a.fingerprint}`)).size).toBe(1);
  });

  it('`avahealth check` beside the daemon reads its ledger from state_dir: the unpaid period counts there too', { timeout: 60_000 }, async () => {
    const result = await runCli(['check', '--config', fleet.file, '--format', 'json']);
    const targets = (JSON.parse(result.stdout) as { targets: Array<{ name: string; state: string; failingChecks: string[] }> }).targets;
    expect(targets.find((t) => t.name === 'unpaid')).toMatchObject({ state: 'unhealthy', failingChecks: expect.arrayContaining(['AvalancheValidatorRewardMissed']) });
    expect(targets.find((t) => t.name === 'paid')!.failingChecks).not.toContain('AvalancheValidatorRewardMissed');
    expect(result.code).toBe(2);
  });
});
