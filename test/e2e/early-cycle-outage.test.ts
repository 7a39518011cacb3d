/**
 * Issue 44's first case end to end, at real time (the simulator's uptime clock factor 1): the built
 * daemon against simulated AvalancheGo nodes, delivering to a local webhook.
 *
 * An auto-renewed validator one hour into a 48-hour cycle (ACP-273: HeliconMinStakeDuration,
 * genesis/genesis_mainnet.go) comes back from a 10-minute outage. Its cycle's measure started at zero
 * (vms/platformvm/state/state.go writeCurrentStakers), so every peer measures 83 % (whole percents,
 * network/peer/peer.go getUptime), below 90 %: only its own stake is rewarding (network/network.go
 * NodeUptime). The vote is cast once, at the cycle's end (vms/platformvm/block/executor/options.go
 * prefersCommit): up from now on it ends at 99.65 %, with 4.63 of the 4.8 h downtime budget left.
 * Nothing critical reaches any receiver; the page and /api/v1/targets/<name> say the budget left.
 */
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFleet, type Fleet } from '../helpers/fleet.js';
import { get, waitFor } from '../helpers/harness.js';

const HOUR = 3600;

describe('a 10-minute outage 1 h into a 48-hour cycle', () => {
  let fleet: Fleet;

  beforeAll(async () => {
    fleet = await startFleet({
      nodes: [
        { name: 'cycle', scenario: 'auto-renewing', validationStartedAgo: HOUR, validationEndsIn: 47 * HOUR, periodMs: 3_600_000 },
        { name: 'peer-1', scenario: 'healthy', periodMs: 3_600_000 },
        { name: 'peer-2', scenario: 'healthy', periodMs: 3_600_000 },
      ],
      simOptions: { uptimeClockFactor: 1 },
      prepare: (sim) => {
        sim.nodes.get('cycle')!.economics.nextPeriodSeconds = 48 * HOUR;
      },
      config: ({ hook, node }) => `
defaults: {interval: 1s, timeout: 2s, endpoints: [health], validator: {interval: 1s, network: {interval: 2s, observers: 2}}}
nodes:
${node('cycle')}
${node('peer-1')}
${node('peer-2')}
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

  it('pages nothing critical; the warning, the page and the API give the 4.8 h budget left (about 4.6 h) and the end', { timeout: 90_000 }, async () => {
    // The node was stopped for the last 10 minutes and starts again: its restart's snapshot first, then peers' Pings.
    const restart = await request(`${fleet.sim.baseUrl}/sim/nodes/cycle/restart`, { method: 'POST', body: JSON.stringify({ snapshotSeconds: 4, downSeconds: 600 }) });
    expect(restart.statusCode).toBe(200);
    await restart.body.dump();
    await waitFor('RewardAtRisk for the cycle', () => alerts().some((a) => a.status === 'firing' && a.labels.alertname === 'AvalancheValidatorRewardAtRisk' && a.labels.target === 'cycle'), 60_000);
    const [risk] = alerts().filter((a) => a.labels.alertname === 'AvalancheValidatorRewardAtRisk');
    expect(risk!.labels.severity).toBe('warning');
    expect(risk!.annotations.summary).toMatch(
      /^cycle: only \d+(\.\d)? % of stake sees its uptime at or above the 90 % requirement now: the reward is still in reach: up from now on, the stake that sees it lowest would measure 99\.\d % when the cycle ends; 4\.6 h of this cycle's 4\.8 h downtime budget left until \d{4}-\d\d-\d\d \d\d:\d\d UTC \(a new cycle starts then\)$/,
    );

    const api = JSON.parse((await get(`${fleet.url}/api/v1/targets/cycle`)).body) as { state: string; validator: { downtimeBudgetRemainingSeconds: number; downtimeAllowanceSeconds: number; periodEnd: number; rewardInReach: boolean } };
    expect(api.validator.downtimeAllowanceSeconds).toBeCloseTo(4.8 * HOUR, 0);
    expect(api.validator.downtimeBudgetRemainingSeconds / HOUR).toBeGreaterThan(4.55);
    expect(api.validator.downtimeBudgetRemainingSeconds / HOUR).toBeLessThan(4.7);
    expect(api.validator.rewardInReach).toBe(true);
    expect(api.state).toBe('warning');
    const page = (await get(`${fleet.url}/targets/cycle`)).body;
    expect(page).toMatch(/Downtime budget<\/dt><dd><span class="good">4\.6 h left<\/span> <span class="muted">of 4\.8 h this period until \d{4}-\d\d-\d\d \d\d:\d\d UTC<\/span>/);
    expect(page).toContain('✔ the reward is in reach');

    // nothing critical at any receiver, at any time
    expect(alerts().filter((a) => a.labels.severity === 'critical')).toEqual([]);
    const open = JSON.parse((await get(`${fleet.url}/api/v1/alerts`)).body) as Array<{ target: string; severity: string }> | { alerts: Array<{ target: string; severity: string }> };
    expect((Array.isArray(open) ? open : open.alerts).filter((a) => a.severity === 'critical')).toEqual([]);
  });
});
