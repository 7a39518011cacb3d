import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SimServer } from '../../src/sim/server.js';
import { runCli } from '../helpers/cli.js';
import { setScenario, startDaemon, startSim, waitFor, writeConfig, type RunningDaemon } from '../helpers/harness.js';

type Target = { name: string; state: string; summary: string; failingChecks: string[] };

/**
 * On-call tools count the money: a validator whose reward is at risk or whose L1 balance runs out
 * is not "healthy" for `avahealth check` (exit 1/2 by the alert's severity), nor on the status page
 * and in /api/v1 while its alert fires. Health itself is fine on every simulated node here.
 */
describe('validator alerts count in check, the status page and /api/v1', () => {
  let sim: SimServer;

  beforeAll(async () => {
    sim = await startSim([
      { name: 'steady', scenario: 'healthy' },
      { name: 'risky', scenario: 'reward-at-risk' },
      { name: 'l1', scenario: 'l1-balance-low', l1: true },
    ]);
  });
  afterAll(async () => {
    await sim?.close();
  });

  const nodes = (names: string[], extra = '') =>
    names.map((n) => `  - {name: ${n}, url: "${sim.nodeUrl(n)}"${n === 'l1' ? `, validator: {subnets: [${sim.nodes.get('l1')!.l1SubnetId}]}` : ''}}`).join('\n') + extra;
  const config = (names: string[], extra = '') => writeConfig(`defaults: {endpoints: [health]}\nnodes:\n${nodes(names)}\n${extra}`);

  it('check: OK for a healthy validator, WARNING (1) for a reward at risk, CRITICAL (2) for an L1 balance of 2.3 days', async () => {
    const steady = await runCli(['check', '--config', config(['steady']), '--target', 'steady']);
    expect(steady.code).toBe(0);

    const risky = await runCli(['check', '--config', config(['steady', 'risky']), '--target', 'risky']);
    expect(risky.code).toBe(1);
    expect(risky.stdout).toMatch(/^WARNING - risky warning \(AvalancheValidatorRewardAtRisk/);
    expect(risky.stdout).toContain('risky: 72.5 % of stake sees its uptime at or above the 90 % requirement: the reward is still likely');
    // both reward alerts fire; the reward alert's text already ends with the budget left, so the line says it once
    expect(risky.stdout).toMatch(/^WARNING - risky warning \(AvalancheValidatorRewardAtRisk, AvalancheValidatorDowntimeBudgetLow\)/);
    expect(risky.stdout.match(/downtime budget left/g)).toHaveLength(1);

    const l1 = await runCli(['check', '--config', config(['steady', 'risky', 'l1']), '--format', 'json']);
    expect(l1.code).toBe(2);
    const targets = (JSON.parse(l1.stdout) as { targets: Target[] }).targets;
    expect(targets.find((t) => t.name === 'steady')).toMatchObject({ state: 'healthy', summary: 'healthy' });
    expect(targets.find((t) => t.name === 'risky')).toMatchObject({ state: 'warning', failingChecks: expect.arrayContaining(['AvalancheValidatorRewardAtRisk']) });
    const node = targets.find((t) => t.name === 'l1')!;
    expect(node.state).toBe('unhealthy');
    expect(node.summary).toContain('runs out of balance in 2.3 days at 512 nAVAX/s: add 1.33 AVAX for 30 days');
  });

  it("check follows the rules' tuning: a disabled validator rule does not count", async () => {
    const result = await runCli(['check', '--config', config(['risky'], 'alerts:\n  rules:\n    AvalancheValidatorRewardAtRisk: {disabled: true}\n    AvalancheValidatorDowntimeBudgetLow: {disabled: true}\n'), '--target', 'risky']);
    expect(result.code).toBe(0);
  });

  describe('the daemon', () => {
    let d: RunningDaemon;
    beforeAll(async () => {
      d = await startDaemon(`
listen: 127.0.0.1:0
defaults: {interval: 1s, timeout: 1s, endpoints: [health], validator: {interval: 1s}}
nodes:
${nodes(['steady', 'risky', 'l1'])}
alerts: {for_polls: 1}
`);
    }, 30_000);
    afterAll(async () => {
      await d?.stop();
    });

    const statusOf = async (name: string) => ((await (await fetch(`${d.url}/api/v1/status`)).json()) as { targets: Target[] }).targets.find((t) => t.name === name)!;

    it('a node is not "healthy" while one of its validator alerts fires: warning, or unhealthy when it is critical', { timeout: 90_000 }, async () => {
      // a fresh daemon's first answer below the top is held for a Ping interval (a climb it did not see start)
      await waitFor('validator alerts firing', async () => (await statusOf('l1')).state === 'unhealthy' && (await statusOf('risky')).state === 'warning', 60_000);
      expect(await statusOf('steady')).toMatchObject({ state: 'healthy', summary: 'healthy' });
      const risky = await statusOf('risky');
      expect(risky.summary).toContain('risky: 72.5 % of stake sees its uptime at or above the 90 % requirement');
      expect(risky.failingChecks).toEqual(expect.arrayContaining(['AvalancheValidatorRewardAtRisk', 'AvalancheValidatorDowntimeBudgetLow']));
      expect(risky.summary.match(/downtime budget left/g)).toHaveLength(1);
      const target = (await (await fetch(`${d.url}/api/v1/targets/l1`)).json()) as { target?: Target } & Target;
      expect((target.target ?? target).state).toBe('unhealthy');
      const page = await (await fetch(`${d.url}/`)).text();
      expect(page).toMatch(/1 healthy, 1 warning, 1 unhealthy/);
    });

    it('topped up, the node is healthy again once its alert resolves', async () => {
      await setScenario(sim, 'l1', 'healthy');
      await waitFor('l1 healthy', async () => (await statusOf('l1')).state === 'healthy', 20_000);
    });
  });
});
