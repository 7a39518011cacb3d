// The fleet as observers. Shapes from AvalancheGo: platform.getCurrentValidators answers with the
// answering node's own view of each validator (vms/platformvm/service.go,
// getPrimaryOrSubnetValidators: `uptime` = CalculateUptimePercentFrom × 100 as a json.Float32
// string, `connected` = Peers().Has; vms/platformvm/api/validator.go, PermissionlessValidator).
import { describe, expect, it } from 'vitest';
import AvalancheValidatorRewardAtRisk from '../../src/alerts/rules/AvalancheValidatorRewardAtRisk.js';
import AvalancheValidatorUnreachableByPeers from '../../src/alerts/rules/AvalancheValidatorUnreachableByPeers.js';
import { ruleSettings, Unknown, UNKNOWN, type AnyRule } from '../../src/alerts/rules/index.js';
import type { ObservedInput, RuleContext } from '../../src/alerts/rules/rule.js';
import type { EndpointObservation, TargetObservation } from '../../src/model/observation.js';
import { baselineOf, scopeOf, type NetworkBaselineViews, type ObservedReport, type SeenValidator } from '../../src/model/observed.js';
import { economicsOf, type ValidatorReport } from '../../src/model/validator.js';
import { parseSeenValidators } from '../../src/parse/observed.js';
import { HEALTHY, failing } from '../helpers/states.js';

const entry = (nodeID: string, weight: string, uptime: string, connected: boolean, delegatorWeight = '0') => ({
  txID: '2NrLhvvhAWNpjRaLDiSeb5ZpeH8Kfd1sYfqKcEsFBkS3FMzCLh',
  startTime: '1761000000',
  endTime: '1793000000',
  weight,
  nodeID,
  potentialReward: '1000',
  accruedDelegateeReward: '0',
  delegationFee: '2.0000',
  uptime,
  connected,
  delegatorCount: delegatorWeight === '0' ? '0' : '1',
  delegatorWeight,
});

describe('parseSeenValidators (platform.getCurrentValidators as an observer sees it)', () => {
  it('reads weight + delegatorWeight as stake, uptime percent strings as ratios, connected as sent', () => {
    const parsed = parseSeenValidators({ validators: [entry('NodeID-7Xhw2mDxuDS44j42TCB6U5579esbSt3Lg', '2000000000000', '99.5000', true, '500000000000'), entry('NodeID-MFrZFVCXPv5iCn6M9K6XduxGTYp891xXZ', '3000000000000', '65.2500', false)] });
    expect(parsed).toEqual({
      ok: true,
      value: {
        seen: [
          { nodeId: 'NodeID-7Xhw2mDxuDS44j42TCB6U5579esbSt3Lg', stake: 2_500_000_000_000, uptimeRatio: 0.995, connected: true },
          { nodeId: 'NodeID-MFrZFVCXPv5iCn6M9K6XduxGTYp891xXZ', stake: 3_000_000_000_000, uptimeRatio: 0.6525, connected: false },
        ],
        unread: 0,
      },
    });
  });

  it('skips entries it cannot read (counted), refuses a result that is no list', () => {
    const parsed = parseSeenValidators({ validators: [{ nodeID: 'NodeID-7Xhw2mDxuDS44j42TCB6U5579esbSt3Lg', weight: '1e20' }, 'x', entry('NodeID-MFrZFVCXPv5iCn6M9K6XduxGTYp891xXZ', '1', '172.0', true)] });
    expect(parsed).toEqual({ ok: true, value: { seen: [{ nodeId: 'NodeID-MFrZFVCXPv5iCn6M9K6XduxGTYp891xXZ', stake: 1, connected: true }], unread: 2 } });
    expect(parseSeenValidators({ validators: { a: 1 } })).toMatchObject({ ok: false, error: '"validators" must be an array, got an object' });
  });
});

describe('the network baseline', () => {
  const v = (nodeId: string, stake: number, uptimeRatio: number, connected = true): SeenValidator => ({ nodeId, stake, uptimeRatio, connected });

  it('quantiles are stake-weighted: a whale at 50 % uptime is the median when it holds half of the stake', () => {
    const seen = [v('a', 10, 0.99), v('b', 10, 0.98), v('whale', 60, 0.5, false), v('c', 20, 0.97), v('me', 100, 1)];
    const baseline = baselineOf('mainnet', seen, 'me');
    expect(baseline).toEqual({
      network: 'mainnet',
      validators: 4, // the observer itself is left out
      uptimeQuantiles: [
        { quantile: 0.1, ratio: 0.5 },
        { quantile: 0.5, ratio: 0.5 },
        { quantile: 0.9, ratio: 0.98 },
      ],
      connectedStakeRatio: 0.7, // (10 + 10 + 20 + 100 of its own) ÷ 200
    });
    // unweighted, the median would be 0.975: the weight is what makes the whale count
  });

  // AvalancheGo's percentConnected counts the node itself (snow/engine/common/tracker/peers.go).
  it('connected stake counts the observer itself, as AvalancheGo does: 0.75 with four equal validators and one unseen', () => {
    const seen = [v('me', 2000, 1), v('a', 2000, 0.99), v('b', 2000, 0.99), v('c', 2000, 0.99, false)];
    expect(baselineOf('mainnet', seen, 'me').connectedStakeRatio).toBe(0.75);
  });

  it('scope: network when most baseline observers see the median below the requirement or the stake cut off', () => {
    const views = (...list: Array<[string, number, number]>): NetworkBaselineViews => ({ network: 'mainnet', views: list.map(([observer, medianUptimeRatio, connectedStakeRatio]) => ({ observer, medianUptimeRatio, connectedStakeRatio, at: 0 })) });
    expect(scopeOf(undefined, 0.9)).toEqual({ scope: 'self' });
    expect(scopeOf(views(['a', 0.99, 0.97], ['b', 0.99, 0.96]), 0.9)).toEqual({ scope: 'self', words: 'the network looks normal from here: median observed uptime 99 % as a and b see it' });
    expect(scopeOf(views(['a', 0.65, 0.7], ['b', 0.66, 0.72], ['c', 0.99, 0.97]), 0.9)).toEqual({
      scope: 'network',
      words: 'every validator looks down from here: median observed uptime 65 % (70 % of the stake connected) as a and b see it',
    });
    expect(scopeOf(views(['a', 0.65, 0.7], ['c', 0.99, 0.97]), 0.9).scope).toBe('self'); // one of two is no majority
    expect(scopeOf(views(['a', 0.98, 0.5]), 0.9)).toEqual({ scope: 'network', words: 'the network looks cut off from here: 50 % of the stake connected as a sees it' });
  });
});

describe('validator alerts carry scope', () => {
  const NOW = Date.UTC(2026, 10, 23) / 1000;
  const report: ValidatorReport = {
    l1: [],
    problems: [],
    heliconTime: Date.UTC(2026, 8, 22, 15) / 1000,
    version: 'avalanchego/1.15.2',
    primary: { startTime: NOW - 10 * 86_400, endTime: NOW + 4 * 86_400, potentialRewardNAvax: 117_431_493_426 },
    uptime: { rewardingStakeRatio: 0.3, weightedAverageRatio: 0.65 },
  };
  report.economics = economicsOf(report, NOW);
  const observation: EndpointObservation = { endpoint: 'validator', view: 'all', ok: true, durationSeconds: 0, at: NOW, detail: report };
  const ctx = (rule: AnyRule): RuleContext => ({ target: 'validator-1', settings: ruleSettings(rule, [], 0), enabled: () => true, now: NOW * 1000, label: (x) => x });
  const dip: NetworkBaselineViews = { network: 'mainnet', views: [{ observer: 'validator-2', medianUptimeRatio: 0.65, connectedStakeRatio: 0.7, at: NOW }] };

  it('RewardAtRisk: scope="network" and says so first when every validator looks down from here; "self" otherwise', () => {
    const rule = AvalancheValidatorRewardAtRisk as AnyRule;
    const observed: ObservedReport = { nodeId: 'NodeID-A', network: 'mainnet', stakingPort: 9651, views: [], baseline: dip };
    const network = rule.evaluate({ observation, observed }, ctx(rule), rule.newState?.()) as Array<{ identity: object; summary: string; description: string }>;
    expect(network[0]!.identity).toEqual({ scope: 'network' });
    expect(network[0]!.summary).toMatch(/^validator-1: every validator looks down from here: median observed uptime 65 % \(70 % of the stake connected\) as validator-2 sees it; only 30 % of stake/);
    expect(network[0]!.description).toContain("most likely not this validator's own fault");
    const self = rule.evaluate({ observation }, ctx(rule), rule.newState?.()) as Array<{ identity: object; summary: string }>;
    expect(self[0]!.identity).toEqual({ scope: 'self' });
    expect(self[0]!.summary).toMatch(/^validator-1: only 30 % of stake/);
  });
});

describe('AvalancheValidatorUnreachableByPeers', () => {
  const rule = AvalancheValidatorUnreachableByPeers as AnyRule;
  const ctx: RuleContext = { target: 'validator-2', settings: ruleSettings(rule, [], 0), enabled: () => true, now: 0, label: (x) => x };
  const node = (healthy: boolean): TargetObservation => ({
    target: 'validator-2',
    kind: 'node',
    at: 0,
    endpoints: [{ endpoint: 'health', view: 'all', ok: true, durationSeconds: 0, at: 0, report: healthy ? HEALTHY() : failing({ network: 3 }) }],
  });
  const input = (views: ObservedReport['views'], healthy = true, stakingPort = 9651): ObservedInput => ({
    observation: { endpoint: 'observed', view: 'all', ok: true, durationSeconds: 0, at: 0, detail: { nodeId: 'NodeID-B', network: 'mainnet', stakingPort, views } },
    node: node(healthy),
  });

  it('fires when most of at least two witnessing validators see it disconnected: it cannot reach them either', () => {
    const views = [
      { observer: 'validator-1', uptimeRatio: 0.8123, connected: false, witness: true, validator: true },
      { observer: 'validator-3', uptimeRatio: 0.8, connected: false, witness: true, validator: true },
      { observer: 'validator-4', uptimeRatio: 0.99, connected: true, witness: true, validator: true },
    ];
    expect(rule.evaluate(input(views, true, 19651), ctx, rule.newState?.())).toEqual([
      {
        identity: { scope: 'self' },
        severity: 'warning',
        summary: 'validator-2: 2 of 3 witnessing fleet nodes (validator-1 and validator-3) see it disconnected while its own health passes: it cannot reach them either',
        description:
          'validator-1 sees it disconnected (uptime 81.2 %), validator-3 sees it disconnected (uptime 80 %); validator-4 sees it connected (uptime 99 %). A node dials every validator and connected counts either direction, so it cannot reach them either: look for a network partition, an outbound firewall or a node that is stuck (its own health passes, so it still answers). Its rewarding stake falls while this lasts.',
      },
    ]);
    expect(JSON.stringify(rule.evaluate(input(views, true, 19651), ctx, rule.newState?.()))).not.toContain('dials out fine');
  });

  it('a closed staking port from its own network check (no inbound connections after the grace), naming the port', () => {
    const closed: TargetObservation = {
      target: 'validator-2',
      kind: 'node',
      at: 0,
      endpoints: [{ endpoint: 'health', view: 'all', ok: true, durationSeconds: 0, at: 0, report: { healthy: false, checks: [{ name: 'network', passing: false, notYetRun: false, error: 'network layer is unhealthy reason: primary network validator has no inbound connections', durationSeconds: 0, contiguousFailures: 3, network: { connectedPeers: 1300, ingressConnections: 0, primaryNetworkValidator: true } }] } }],
    };
    const views = [{ observer: 'validator-1', connected: true, witness: true, validator: true }];
    const [alert] = rule.evaluate({ ...input(views, true, 19651), node: closed }, ctx, rule.newState?.()) as Array<{ summary: string; description: string }>;
    expect(alert!.summary).toBe('validator-2: no inbound connections: nobody can connect to its staking port 19651');
    expect(alert!.description).toContain('ingressConnectionCount 0');
    expect(alert!.description).toContain('Check that inbound TCP 19651 reaches the node');
    // no peers at all: no inbound connection either, but that is its network down (NodeUnhealthy speaks), not a closed port
    const down = structuredClone(closed);
    down.endpoints[0]!.report!.checks[0]!.error = 'network layer is unhealthy reason: not connected to a minimum of 1 peer(s) only 0, primary network validator has no inbound connections';
    expect(rule.evaluate({ ...input(views, true, 19651), node: down }, ctx, rule.newState?.())).toEqual([]);
  });

  it('inside the ingress grace with no non-validator witness, a daemon that never learnt the port says it is unknown', () => {
    // network/network.go HealthCheck: `primary network validator health` (the ingress count) only after the grace
    const withNetwork = (network: Record<string, unknown>, passing = true): TargetObservation => ({
      target: 'validator-2',
      kind: 'node',
      at: 0,
      endpoints: [{ endpoint: 'health', view: 'all', ok: true, durationSeconds: 0, at: 0, report: { healthy: passing, checks: [{ name: 'network', passing, notYetRun: false, durationSeconds: 0, contiguousFailures: 0, network }] } }],
    });
    const inGrace = withNetwork({ connectedPeers: 1300 });
    const views = [
      { observer: 'validator-1', connected: true, witness: true, validator: true },
      { observer: 'validator-3', connected: true, witness: true, validator: true },
    ];
    const fresh = rule.newState!();
    const unknown = rule.evaluate({ ...input(views), node: inGrace }, ctx, fresh);
    expect(unknown).toBeInstanceOf(Unknown);
    expect((unknown as Unknown).what).toBe('whether its staking port is open');
    // one witness only: still unknown, not "fine"
    expect(rule.evaluate({ ...input(views.slice(0, 1)), node: inGrace }, ctx, rule.newState!())).toBeInstanceOf(Unknown);
    // a non-validator witness that reaches it answers the question
    expect(rule.evaluate({ ...input([...views, { observer: 'rpc-1', connected: true, witness: true, validator: false }]), node: inGrace }, ctx, rule.newState!())).toEqual([]);
    // the node's own count seen open before its restart: the port was open, nothing is unknown
    const learnt = rule.newState!();
    expect(rule.evaluate({ ...input(views), node: withNetwork({ connectedPeers: 1300, ingressConnections: 702, primaryNetworkValidator: true }) }, ctx, learnt)).toEqual([]);
    expect(rule.evaluate({ ...input(views), node: inGrace }, ctx, learnt)).toEqual([]);
  });

  it('a closed staking port from observers: non-validators cannot connect while validators can', () => {
    const views = [
      { observer: 'rpc-1', connected: false, witness: true, validator: false },
      { observer: 'validator-1', connected: true, witness: true, validator: true },
    ];
    const [alert] = rule.evaluate(input(views, true, 19651), ctx, rule.newState?.()) as Array<{ summary: string }>;
    expect(alert!.summary).toBe('validator-2: non-validator fleet nodes cannot connect to it while validators can: its staking port 19651 looks closed to inbound connections');
  });

  it('only witnesses count, and a verdict needs a strict majority of at least two', () => {
    const liar = { observer: 'liar', connected: false, witness: false, notWitness: 'it sees only 0 of 2 other fleet validators connected', validator: true };
    const honest = { observer: 'validator-1', connected: true, witness: true, validator: true };
    expect(rule.evaluate(input([liar, honest]), ctx, rule.newState?.())).toEqual([]);
    // one of two is no majority, and one witness alone is no verdict
    expect(rule.evaluate(input([{ ...liar, witness: true }, honest]), ctx, rule.newState?.())).toEqual([]);
    expect(rule.evaluate(input([{ ...liar, witness: true }]), ctx, rule.newState?.())).toEqual([]);
  });

  it('right after a (re)start it waits until every observer is judged: a verdict from the others could resolve an open incident', () => {
    const apart = [
      { observer: 'validator-1', connected: false, witness: true, validator: true },
      { observer: 'validator-3', connected: false, witness: true, validator: true },
    ];
    // probes/witness.ts: an observer whose own health was not polled yet since the start is not judged
    const unjudged = { observer: 'validator-4', connected: true, witness: false, notWitness: 'its own health is not known yet', pending: true, validator: true };
    expect(rule.evaluate(input([...apart, unjudged]), ctx, rule.newState?.())).toBe(UNKNOWN);
    expect(rule.evaluate(input([apart[0]!, unjudged]), ctx, rule.newState?.())).toBe(UNKNOWN);
    expect(rule.evaluate(input([...apart, { ...unjudged, pending: false, witness: true }]), ctx, rule.newState?.())).not.toBe(UNKNOWN);
    // nor before its own health is polled: the fleet's view may come first after a start
    const { node: _, ...withoutOwnHealth } = input(apart);
    expect(rule.evaluate(withoutOwnHealth, ctx, rule.newState?.())).toBe(UNKNOWN);
  });

  it('with scope="network" it says first that the fleet is cut off, and does not blame the staking port', () => {
    const views = [
      { observer: 'validator-1', connected: false, witness: true, validator: true },
      { observer: 'validator-3', connected: false, witness: true, validator: true },
    ];
    const baseline: NetworkBaselineViews = { network: 'mainnet', views: [{ observer: 'validator-1', medianUptimeRatio: 0.98, connectedStakeRatio: 0, at: 0 }] };
    const base = input(views);
    const detail = { ...(base.observation.detail as ObservedReport), baseline };
    const [alert] = rule.evaluate({ ...base, observation: { ...base.observation, detail } }, ctx, rule.newState?.()) as Array<{ identity: object; summary: string; description: string }>;
    expect(alert!.identity).toEqual({ scope: 'network' });
    expect(alert!.summary).toBe('validator-2: the network looks cut off from here: 0 % of the stake connected as validator-1 sees it; 2 of 2 witnessing fleet nodes (validator-1 and validator-3) see it disconnected while its own health passes: it cannot reach them either');
    expect(alert!.description).toContain("this may be the fleet's own vantage point");
  });

  it('in a dip, waits for a baseline read after most witnesses first saw it disconnected: one read before would call it its own (seed 5)', () => {
    const views = [
      { observer: 'validator-1', connected: false, witness: true, validator: true },
      { observer: 'validator-3', connected: false, witness: true, validator: true },
    ];
    // baseline views read at `read`, every 3 s, the validator polled every 2 s: a refresh is 5 s
    const at = (t: number, read: number, connectedStakeRatio: number, oneRound = false): ObservedInput => {
      const base = input(views);
      const baseline: NetworkBaselineViews = { network: 'mainnet', views: [{ observer: 'validator-1', medianUptimeRatio: 0.98, connectedStakeRatio, at: read }] };
      return { ...base, ...(oneRound ? { oneRound } : {}), observation: { ...base.observation, at: t, detail: { ...(base.observation.detail as ObservedReport), baseline } } };
    };
    const memory = rule.newState?.();
    // the witnesses' answers show the dip at 100; the baseline was read at 99, before it
    expect(rule.evaluate(at(100, 99, 1), ctx, memory)).toBe(UNKNOWN);
    expect(rule.evaluate(at(102, 99, 1), ctx, memory)).toBe(UNKNOWN);
    // the next read sees the stake cut off: the network's
    expect((rule.evaluate(at(104, 102, 0.75), ctx, memory) as Array<{ identity: object }>)[0]!.identity).toEqual({ scope: 'network' });
    // the next read comes late (a busy machine): still waited for; seeing the network normal, its own
    const stale = rule.newState?.();
    expect(rule.evaluate(at(200, 199, 1), ctx, stale)).toBe(UNKNOWN);
    expect(rule.evaluate(at(220, 199, 1), ctx, stale)).toBe(UNKNOWN);
    expect((rule.evaluate(at(221, 220, 1), ctx, stale) as Array<{ identity: object }>)[0]!.identity).toEqual({ scope: 'self' });
    // the wait starts over once the witnesses see it connected again
    const quiet = [{ observer: 'validator-1', connected: true, witness: true, validator: true }, { observer: 'validator-3', connected: true, witness: true, validator: true }];
    expect(rule.evaluate({ ...input(quiet), observation: { ...input(quiet).observation, at: 222 } }, ctx, stale)).toEqual([]);
    expect(rule.evaluate(at(230, 229, 1), ctx, stale)).toBe(UNKNOWN);
    // check's one round: no later read comes, nothing waits
    expect((rule.evaluate(at(300, 299, 1, true), ctx, rule.newState?.()) as Array<{ identity: object }>)[0]!.identity).toEqual({ scope: 'self' });
  });

  it('stays quiet under half, when its own health fails (NodeUnhealthy speaks), and with no answers', () => {
    const one = [
      { observer: 'validator-1', connected: false },
      { observer: 'validator-3', connected: true },
      { observer: 'validator-4', connected: true },
    ];
    expect(rule.evaluate(input(one), ctx, rule.newState?.())).toEqual([]);
    expect(rule.evaluate(input([{ observer: 'validator-1', connected: false }], false), ctx, rule.newState?.())).toEqual([]);
    expect(rule.evaluate(input([{ observer: 'validator-1', error: 'timeout' }]), ctx, rule.newState?.())).toEqual([]);
  });
});
