import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SimServer } from '../../src/sim/server.js';
import { startCapture } from '../helpers/capture.js';
import { get, sample, scrape, series, setScenario, startDaemon, startSim, waitFor, type RunningDaemon } from '../helpers/harness.js';

type Alert = { status: string; labels: Record<string, string>; annotations: Record<string, string> };
type Webhook = { status: string; alerts: Alert[] };

/**
 * The real daemon against simulated validators, the simulated Data API and a local webhook: every
 * validator scenario through metrics to a delivered alert, and bad input never taking a node down.
 */
describe('validator economics end to end', () => {
  let sim: SimServer;
  let capture: Awaited<ReturnType<typeof startCapture>>;
  let d: RunningDaemon;

  beforeAll(async () => {
    sim = await startSim([
      { name: 'steady', scenario: 'healthy' },
      { name: 'risky', scenario: 'healthy' },
      { name: 'l1', scenario: 'healthy', l1: true },
      { name: 'old', scenario: 'healthy' },
      { name: 'rpc', scenario: 'not-validator' },
      { name: 'locked', scenario: 'info-api-disabled' },
      { name: 'odd', scenario: 'validator-bad-shape', l1: true },
    ]);
    capture = await startCapture();
    const node = (name: string, extra = '') => `  - {name: ${name}, url: "${sim.nodeUrl(name)}", labels: {env: mainnet}${extra}}`;
    d = await startDaemon(`
listen: 127.0.0.1:0
defaults: {interval: 1s, timeout: 1s, endpoints: [health], validator: {interval: 1s, network: {interval: 2s}}}
nodes:
${node('steady')}
${node('risky')}
${node('l1', `, validator: {subnets: [${sim.nodes.get('l1')!.l1SubnetId}]}`)}
${node('old')}
${node('rpc')}
${node('locked')}
${node('odd', `, validator: {subnets: [${sim.nodes.get('odd')!.l1SubnetId}]}`)}
  - {name: off, url: "${sim.nodeUrl('steady')}", validator: false}
services:
  - {name: data-api, kind: data-api, url: "${sim.serviceUrl('data-api')}"}
chain_data: {interval: 10s}
alerts:
  for_polls: 1
  receivers:
    - {name: oncall, webhook: {url: "${capture.url}/hook"}}
`);
    await waitFor('a validator poll of every node', async () => {
      const m = await scrape(d.url);
      // A poll may time out while everything starts at once: wait for a good one (odd is never good).
      return ['steady', 'risky', 'l1', 'old', 'rpc'].every((t) => sample(m, 'avahealth_probe_success', { target: t, endpoint: 'validator' }) === 1) && ['odd', 'locked'].every((t) => sample(m, 'avahealth_probe_success', { target: t, endpoint: 'validator' }) !== undefined);
    }, 20_000);
  }, 30_000);

  afterAll(async () => {
    await d?.stop();
    await sim?.close();
    await capture?.close();
  });

  const VALIDATOR_ALERTS = ['AvalancheValidatorRewardAtRisk', 'AvalancheValidatorDowntimeBudgetLow', 'AvalancheL1ValidatorBalanceLow', 'AvalancheL1ValidatorInactive', 'AvalancheNodeVersionBehind'];
  const alerts = (): Alert[] => capture.on('/hook').flatMap((r) => (r.json as Webhook).alerts);
  const firing = (alertname: string, target: string) => alerts().filter((a) => a.status === 'firing' && a.labels.alertname === alertname && a.labels.target === target);

  it('a healthy validator: the economics series with their values, no alert', async () => {
    const m = await scrape(d.url);
    const node = sim.nodes.get('steady')!;
    const t = { target: 'steady' };
    expect(sample(m, 'avahealth_probe_success', { ...t, endpoint: 'validator', view: 'all' })).toBe(1);
    expect(sample(m, 'avahealth_validator_uptime_rewarding_stake_ratio', t)).toBeGreaterThan(0.999);
    expect(sample(m, 'avahealth_validator_uptime_weighted_average_ratio', t)).toBeCloseTo(node.economics.uptimePercents().weighted / 100, 4);
    expect(sample(m, 'avahealth_validator_uptime_requirement_ratio', t)).toBe(0.9);
    expect(sample(m, 'avahealth_validator_period_start_timestamp_seconds', t)).toBe(node.economics.validationStartsAt);
    expect(sample(m, 'avahealth_validator_period_end_timestamp_seconds', t)).toBe(Math.floor(node.validationEndsAt));
    expect(sample(m, 'avahealth_validator_potential_reward_avax', t)).toBe(117.431493426);
    expect(sample(m, 'avahealth_validator_downtime_budget_remaining_seconds', t)).toBeGreaterThan(0.09 * 40 * 86400);
    expect(sample(m, 'avahealth_validator_projected_rewarding_stake_ratio', t)).toBeGreaterThan(0.99);
    expect(sample(m, 'avahealth_node_version_info', { ...t, version: 'avalanchego/1.15.2' })).toBe(1);
    expect(sample(m, 'avahealth_node_healthy', { ...t, endpoint: 'health' })).toBe(1);
    expect(series(m, 'avahealth_probe_success', { target: 'off', endpoint: 'validator' })).toEqual([]);
    expect(alerts().filter((a) => a.labels.target === 'steady' && VALIDATOR_ALERTS.includes(a.labels.alertname!))).toEqual([]);
    // its help tells the story the alerts tell (docs/validators.md, "The reward vote")
    const text = await (await fetch(`${d.url}/metrics`)).text();
    expect(text).toContain(
      "# HELP avahealth_validator_uptime_rewarding_stake_ratio Share of stake whose nodes see this validator's uptime at or above the uptime requirement: the share that would vote to reward it were the period to end now (info.uptime, 0–1). A stake majority decides: reward likely at 0.6 or more, uncertain between 0.4 and 0.6, likely lost below 0.4.\n",
    );
  });

  it('chain data: stake per version, version behind, and the Data API record health', async () => {
    await waitFor('network versions', async () => sample(await scrape(d.url), 'avahealth_network_version_stake_ratio', { network: 'mainnet', version: 'avalanchego/1.15.2' }) !== undefined, 15_000);
    const m = await scrape(d.url);
    expect(sample(m, 'avahealth_network_version_stake_ratio', { network: 'mainnet', version: 'avalanchego/1.15.2' })).toBeCloseTo(0.62, 2);
    expect(sample(m, 'avahealth_node_version_behind', { target: 'steady' })).toBe(0);
    const nodeId = sim.nodes.get('steady')!.nodeId;
    await waitFor('record health', async () => sample(await scrape(d.url), 'avahealth_validator_uptime_performance_ratio', { node_id: nodeId }) !== undefined, 15_000);
    const after = await scrape(d.url);
    expect(sample(after, 'avahealth_validator_uptime_performance_ratio', { node_id: nodeId, target: 'steady' })).toBeCloseTo(sim.nodes.get('steady')!.economics.uptimePercents().weighted / 100, 2);
    expect(sample(after, 'avahealth_validator_reachability_ratio', { node_id: nodeId })).toBe(1);
    expect(sample(after, 'avahealth_validator_benched_requests_ratio', { node_id: nodeId, chain: 'C' })).toBe(0);
  });

  it('reward-at-risk: AvalancheValidatorRewardAtRisk reaches the webhook with actionable summaries, its DowntimeBudgetLow held back as its evidence', async () => {
    await setScenario(sim, 'risky', 'reward-at-risk');
    await waitFor('RewardAtRisk at the webhook', () => firing('AvalancheValidatorRewardAtRisk', 'risky').length > 0, 15_000);
    const [reward] = firing('AvalancheValidatorRewardAtRisk', 'risky');
    expect(reward!.labels.severity).toBe('warning');
    expect(reward!.annotations.summary).toMatch(/^risky: 72\.5 % of stake sees its uptime at or above the 90 % requirement: the reward is still likely, uncertain below 60 % of stake; \d+\.\d h of the 96\.0 h downtime budget left until \d{4}-\d\d-\d\d \d\d:\d\d UTC$/);
    // One page per problem: the budget fires, held back by the reward alert (whose summary ends with it).
    type Listed = { alertname: string; target: string; phase: string; inhibitedBy?: string; annotations: { summary: string } };
    const budget = await waitFor('DowntimeBudgetLow firing, held back', async () =>
      (JSON.parse((await get(`${d.url}/api/v1/alerts`)).body) as { alerts: Listed[] }).alerts.find((a) => a.alertname === 'AvalancheValidatorDowntimeBudgetLow' && a.target === 'risky' && a.phase === 'firing'), 15_000);
    expect(budget.inhibitedBy).toBe('AvalancheValidatorRewardAtRisk');
    expect(firing('AvalancheValidatorDowntimeBudgetLow', 'risky')).toEqual([]);
    // 40-day period at 0.9: 96 h allowed; 10 days at 66 %: 81.6 h spent.
    expect(budget.annotations.summary).toMatch(/^risky: 14\.\d h of downtime budget left \(15 % of the period's 96\.0 h\) until \d{4}-\d\d-\d\d \d\d:\d\d UTC$/);
    // Escalation to critical below 60 %, then recovery resolves both.
    await setScenario(sim, 'risky', 'reward-at-risk', { rewardingStakePercent: 55 });
    await waitFor('critical', () => firing('AvalancheValidatorRewardAtRisk', 'risky').some((a) => a.labels.severity === 'critical'), 15_000);
    await setScenario(sim, 'risky', 'healthy');
    sim.nodes.get('risky')!.economics.rewardingStakePercent = undefined;
    await waitFor('resolved', () => alerts().some((a) => a.status === 'resolved' && a.labels.alertname === 'AvalancheValidatorRewardAtRisk' && a.labels.target === 'risky'), 15_000);
  });

  it('l1-balance-low then l1-inactive: AvalancheL1ValidatorBalanceLow (critical at 2.3 days), then AvalancheL1ValidatorInactive', async () => {
    const node = sim.nodes.get('l1')!;
    let m = await scrape(d.url);
    const labels = { target: 'l1', subnet_id: node.l1SubnetId!, validation_id: node.economics.l1ValidationId };
    expect(sample(m, 'avahealth_l1_validator_active', labels)).toBe(1);
    expect(sample(m, 'avahealth_l1_fee_price_avax_per_second', { target: 'l1' })).toBe(5.12e-7);
    expect(sample(m, 'avahealth_l1_validator_runway_seconds', labels)! / 86400).toBeGreaterThan(190);
    await setScenario(sim, 'l1', 'l1-balance-low');
    await waitFor('BalanceLow at the webhook', () => firing('AvalancheL1ValidatorBalanceLow', 'l1').length > 0, 15_000);
    const [low] = firing('AvalancheL1ValidatorBalanceLow', 'l1');
    expect(low!.labels).toMatchObject({ severity: 'critical', subnet_id: node.l1SubnetId, validation_id: node.economics.l1ValidationId });
    expect(low!.annotations.summary).toBe(`l1: L1 validation ${node.economics.l1ValidationId.slice(0, 4)}… runs out of balance in 2.3 days at 512 nAVAX/s: add 1.33 AVAX for 30 days with IncreaseL1ValidatorBalanceTx`);
    m = await scrape(d.url);
    expect(sample(m, 'avahealth_l1_validator_balance_avax', labels)).toBeCloseTo(0.1017, 3);
    await setScenario(sim, 'l1', 'l1-inactive');
    await waitFor('Inactive at the webhook', () => firing('AvalancheL1ValidatorInactive', 'l1').length > 0, 15_000);
    expect(firing('AvalancheL1ValidatorInactive', 'l1')[0]!.labels.severity).toBe('critical');
    m = await scrape(d.url);
    expect(sample(m, 'avahealth_l1_validator_active', labels)).toBe(0);
    expect(sample(m, 'avahealth_l1_validator_runway_seconds', labels)).toBe(0);
  });

  it('version-behind: AvalancheNodeVersionBehind for a v1.15 build behind in version, which knows Helicon (0.9) and missed no upgrade', async () => {
    await setScenario(sim, 'old', 'version-behind');
    await waitFor('VersionBehind at the webhook', () => firing('AvalancheNodeVersionBehind', 'old').length > 0, 15_000);
    expect(firing('AvalancheNodeVersionBehind', 'old')[0]!.annotations.summary).toBe("old runs avalanchego/1.15.0 while 87 % of the network's stake runs newer versions (most: avalanchego/1.15.2, 62 %)");
    const m = await scrape(d.url);
    expect(sample(m, 'avahealth_node_version_behind', { target: 'old' })).toBe(1);
    expect(sample(m, 'avahealth_node_version_info', { target: 'old', version: 'avalanchego/1.15.0' })).toBe(1);
    // Its own schedule has Helicon (v1.15.0 knows it), so it missed no upgrade: the drift is a warning only.
    expect(sample(m, 'avahealth_validator_uptime_requirement_ratio', { target: 'old' })).toBe(0.9);
    expect(alerts().filter((a) => a.labels.target === 'old' && a.labels.alertname === 'AvalancheNodeUpgradeRequired')).toEqual([]);
  });

  it('not-validator: a successful poll with no Primary Network series and no alert', async () => {
    const m = await scrape(d.url);
    expect(sample(m, 'avahealth_probe_success', { target: 'rpc', endpoint: 'validator' })).toBe(1);
    for (const name of ['avahealth_validator_uptime_rewarding_stake_ratio', 'avahealth_validator_uptime_requirement_ratio', 'avahealth_validator_downtime_budget_remaining_seconds', 'avahealth_validator_period_end_timestamp_seconds']) {
      expect(series(m, name, { target: 'rpc' }), name).toEqual([]);
    }
    expect(sample(m, 'avahealth_node_version_info', { target: 'rpc', version: 'avalanchego/1.15.2' })).toBe(1);
    expect(alerts().filter((a) => a.labels.target === 'rpc' && VALIDATOR_ALERTS.includes(a.labels.alertname!))).toEqual([]);
  });

  it('a disabled info API is its own state (not a success), reported once, and never fails the node', async () => {
    const m = await scrape(d.url);
    expect(sample(m, 'avahealth_probe_success', { target: 'locked', endpoint: 'validator' })).toBe(0);
    expect(sample(m, 'avahealth_probe_http_status_code', { target: 'locked', endpoint: 'validator' })).toBe(404);
    expect(sample(m, 'avahealth_validator_info_api_enabled', { target: 'locked' })).toBe(0);
    expect(sample(m, 'avahealth_validator_info_api_enabled', { target: 'steady' })).toBe(1);
    expect(sample(m, 'avahealth_node_healthy', { target: 'locked', endpoint: 'health' })).toBe(1);
    const status = JSON.parse((await get(`${d.url}/api/v1/status`)).body) as { targets: Array<{ name: string; state: string }> };
    expect(status.targets.find((t) => t.name === 'locked')!.state).toBe('healthy');
    // the P-Chain API still answers: the validation period is there
    expect(sample(m, 'avahealth_validator_period_end_timestamp_seconds', { target: 'locked' })).toBeGreaterThan(sample(m, 'avahealth_validator_period_start_timestamp_seconds', { target: 'locked' })!);
    const lines = d.logs().split('\n').filter((l) => l.includes('"target":"locked"') && l.includes('validator API disabled'));
    expect(lines.filter((l) => l.includes('"call":"info.uptime"'))).toHaveLength(1);
  });

  it('bad shapes: bad_shape on the validator endpoint, the parts that parsed keep their series, health untouched', async () => {
    const m = await scrape(d.url);
    expect(sample(m, 'avahealth_probe_success', { target: 'odd', endpoint: 'validator' })).toBe(0);
    expect(sample(m, 'avahealth_probe_failures_total', { target: 'odd', endpoint: 'validator', reason: 'bad_shape' })).toBeGreaterThanOrEqual(1);
    expect(sample(m, 'avahealth_node_healthy', { target: 'odd', endpoint: 'health' })).toBe(1);
    expect(sample(m, 'avahealth_probe_success', { target: 'odd', endpoint: 'health' })).toBe(1);
    expect(series(m, 'avahealth_validator_uptime_rewarding_stake_ratio', { target: 'odd' })).toEqual([]);
    expect(series(m, 'avahealth_l1_fee_price_avax_per_second', { target: 'odd' })).toEqual([]);
    expect(series(m, 'avahealth_l1_validator_balance_avax', { target: 'odd' })).toHaveLength(1);
    expect(sample(m, 'avahealth_node_version_info', { target: 'odd', version: 'avalanchego/1.15.2' })).toBe(1);
    expect(m.filter((s) => s.labels.target === 'odd' && !Number.isFinite(s.value))).toEqual([]);
    // Logged once per change, not once per poll: never the same reason twice in a row (on a loaded
    // machine a call may time out in between, which is a change, logged, and so is its end).
    const reasons = d.logs().split('\n').filter((l) => l.includes('"target":"odd"') && l.includes('validator call failed') && l.includes('"call":"info.uptime"')).map((l) => (JSON.parse(l) as { reason: string }).reason);
    expect(reasons).toContain('bad_shape');
    expect(reasons.filter((reason, i) => reason === reasons[i - 1]), reasons.join(', ')).toEqual([]);
  });

  it('the JSON API and the status page show the validator panel; a failing validator call never makes a node unreachable', async () => {
    const res = await fetch(`${d.url}/api/v1/targets/risky`);
    const body = (await res.json()) as { target?: { validator?: Record<string, unknown> }; validator?: Record<string, unknown> };
    const panel = (body.target?.validator ?? body.validator)!;
    expect(panel.rewardingStakeRatio).toBeGreaterThan(0.999);
    expect(panel).toMatchObject({ notValidator: false, requirement: 0.9, version: 'avalanchego/1.15.2', versionBehind: false, potentialRewardAvax: 117.431493426, l1: [], problems: [] });
    expect(panel.downtimeBudgetRemainingSeconds).toBeGreaterThan(0);
    const status = (await (await fetch(`${d.url}/api/v1/status`)).json()) as { targets: Array<{ name: string; state: string; validator?: { l1: Array<{ active: boolean }>; problems: Array<{ call: string; reason: string }> } }> };
    const odd = status.targets.find((t) => t.name === 'odd')!;
    expect(odd.state).toBe('healthy');
    expect(odd.validator!.problems.map((p) => `${p.call} ${p.reason}`)).toEqual(expect.arrayContaining(['info.uptime bad_shape', 'platform.getValidatorFeeState bad_shape']));
    expect(status.targets.find((t) => t.name === 'l1')!.validator!.l1).toEqual([expect.objectContaining({ active: false })]);
    const html = await (await fetch(`${d.url}/targets/risky`)).text();
    expect(html).toContain('<h2 id="validator">Validator</h2>');
    expect(html).toMatch(/Rewarding stake<\/dt><dd><span class="good">✔ 100\.0 %<\/span>/);
    expect(html).toContain('of stake sees its uptime at or above the requirement:</span> reward likely <span class="muted">were the period to end now (a stake majority decides)</span>');
    expect(html).toMatch(/Downtime budget<\/dt><dd><span class="good">\d+\.\d (h|days) left<\/span> <span class="muted">of 96\.0 h this period until \d{4}-\d\d-\d\d \d\d:\d\d UTC<\/span>/);
    const l1Page = await (await fetch(`${d.url}/targets/l1`)).text();
    expect(l1Page).toContain('✖ inactive');
  });
});
