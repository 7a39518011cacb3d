/**
 * The simulator's uptime accounting does what AvalancheGo does, source by source (src/sim/observed.ts,
 * src/sim/uptime-book.ts), at real rates (uptimeClockFactor 1) unless a test says otherwise:
 * - snow/uptime/manager.go: each node's measure of a validator is its connected time since the
 *   validation's start over the time since the start;
 * - vms/platformvm/state/state.go writeCurrentStakers: that measure starts at zero with each
 *   validation and each auto-renewed cycle (`UpDuration: 0`, `LastUpdated = StartTime`);
 * - network/network.go NodeUptime and network/peer/peer.go getUptime: info.uptime counts the node's
 *   own stake at 100 % and rewarding, each connected validator with its last Ping's whole percent
 *   (floored), rewarding at or above the node's own requirement (its --uptime-requirement, 0.9 for a
 *   validation started at or after Helicon in its own schedule), one not connected at 0 %;
 * - vms/platformvm/block/executor/options.go prefersCommit: each validator votes with its own measure
 *   (figures a test sets for info.uptime are played as those measures, never the vote itself);
 * - snow/uptime/manager.go CalculateUptime before StartTracking: a node that was stopped credits every
 *   validator with its own downtime (it assumes they were online since its last update);
 * - network/peer/peer.go sendNetworkMessages and handlePing: a peer's first Ping comes one ping period
 *   after it connected (a ticker; nothing at the handshake) and its observedUptime reads 0 until
 *   then, so a restarted node's info.uptime climbs back one peer at a time;
 * - snow/uptime/locked_calculator.go and network/peer/peer.go getUptime: a node still bootstrapping
 *   sends 0 % in every Ping (upgrade day); info.peers shows it as `observedUptime` (handlePing, Info);
 * - snow/networking/router/chain_router.go ("Mark myself as connected") and
 *   snow/engine/common/tracker/peers.go: a validator's percentConnected counts itself.
 */
import { describe, expect, it } from 'vitest';
import { baselineOf, scopeOf } from '../../src/model/observed.js';
import { parseSeenValidators } from '../../src/parse/observed.js';
import { REWARD_DELAY_SECONDS } from '../../src/sim/periods.js';
import { SimServer } from '../../src/sim/server.js';
import type { SimNode } from '../../src/sim/node.js';
import { SIM_PRE_HELICON_VERSION } from '../../src/sim/validator.js';

const HOUR = 3600;
const DAY = 86_400;

function fleet(names: string[], options: { others?: number; factor?: number; spec?: Record<string, object> } = {}): SimServer {
  return new SimServer(
    names.map((name) => ({ name, scenario: 'healthy' as const, periodMs: 3_600_000, ...(options.spec?.[name] ?? {}) })),
    { otherValidators: options.others ?? 0, uptimeClockFactor: options.factor ?? 1 },
  );
}

/** What `observer` answers of `subject` (getCurrentValidators), at `now` (ms). */
function seen(sim: SimServer, observer: string, subject: SimNode, now: number): { uptime: number; connected: boolean } {
  const [entry] = sim.network.validators.view(sim.nodes.get(observer)!.economics, [subject.nodeId], now);
  return { uptime: Number(entry!.uptime), connected: entry!.connected as boolean };
}

describe('info.uptime from the peers’ measures (network/network.go NodeUptime, network/peer/peer.go getUptime)', () => {
  it('each peer counts with its measure floored to a whole percent, its own stake at 100 %', () => {
    const sim = fleet(['a', 'b', 'c']);
    const [a, b, c] = ['a', 'b', 'c'].map((n) => sim.nodes.get(n)!);
    const now = Date.now();
    const set = sim.network.validators;
    const weight = 2_000_000_000_000 + 4 * 30_000_000_000; // own stake plus the four simulated delegators
    const expected = (100 * weight + Math.floor(seen(sim, 'b', a!, now).uptime) * weight + Math.floor(seen(sim, 'c', a!, now).uptime) * weight) / (3 * weight);
    expect(seen(sim, 'b', a!, now).uptime % 1).not.toBe(0); // the measure itself is not whole
    expect(set.nodeUptime(a!.economics, now)!.weighted).toBeCloseTo(expected, 9);
    void b;
    void c;
  });

  it('rewarding at the node’s own requirement: a v1.14 build (no Helicon) counts a peer at 86 % at 0.8, a v1.15 build not at 0.9', () => {
    // One hour into a validation, down for the last 7.5 minutes: every peer measures 86 or 87 %.
    const sim = fleet(['old', 'new', 'peer'], { spec: { old: { validationStartedAgo: HOUR }, new: { validationStartedAgo: HOUR } } });
    const now = Date.now();
    sim.nodes.get('old')!.economics.build = SIM_PRE_HELICON_VERSION; // a v1.14 build, given explicitly (version-behind knows Helicon)
    for (const name of ['old', 'new']) sim.nodes.get(name)!.restartNode({ snapshotMs: 0, downSeconds: 450 }, now);
    const set = sim.network.validators;
    for (const name of ['old', 'new']) {
      const ping = Math.floor(seen(sim, 'peer', sim.nodes.get(name)!, now).uptime);
      expect(ping).toBeGreaterThanOrEqual(80);
      expect(ping).toBeLessThan(90);
    }
    const own = set.ownStakePercent(sim.nodes.get('old')!.economics);
    expect(set.nodeUptime(sim.nodes.get('old')!.economics, now)!.rewarding).toBeCloseTo(100, 6); // 86 ≥ 80: every peer rewards it
    expect(set.nodeUptime(sim.nodes.get('new')!.economics, now)!.rewarding).toBeCloseTo(own, 6); // 86 < 90: only its own stake
  });

  it('never below the node’s own share, whatever figure is set', () => {
    const sim = fleet(['a', 'b'], { others: 40 });
    const a = sim.nodes.get('a')!.economics;
    a.rewardingStakePercent = 0;
    a.weightedAveragePercent = 0;
    const own = sim.network.validators.ownStakePercent(a);
    expect(own).toBeGreaterThan(0);
    expect(a.uptimePercents()).toEqual({ rewarding: own, weighted: own });
  });
});

describe('each measure starts with its validation and each cycle (vms/platformvm/state/state.go writeCurrentStakers)', () => {
  it('10 minutes down 1 h into a 48-hour cycle: peers measure 83 %, the cycle’s own', () => {
    const sim = fleet(['v', 'p1', 'p2'], { spec: { v: { scenario: 'auto-renewing', validationStartedAgo: HOUR, validationEndsIn: 47 * HOUR } } });
    const v = sim.nodes.get('v')!;
    v.economics.nextPeriodSeconds = 48 * HOUR;
    const now = Date.now();
    v.restartNode({ snapshotMs: 0, downSeconds: 600 }, now);
    // 3,600 s at the pair's base (about 99.2 %) less 600 s: about 83 %
    for (const peer of ['p1', 'p2']) expect(seen(sim, peer, v, now).uptime).toBeGreaterThan(82);
    for (const peer of ['p1', 'p2']) expect(seen(sim, peer, v, now).uptime).toBeLessThan(84);
  });

  it('a node stopped for 3 h credits every peer with its own downtime (snow/uptime/manager.go, CalculateUptime before StartTracking: "assume that the node has been online since their last update")', () => {
    const sim = fleet(['v', 'p'], { spec: { v: { validationStartedAgo: 6 * HOUR, validationEndsIn: 6 * HOUR }, p: { validationStartedAgo: 6 * HOUR, validationEndsIn: 6 * HOUR } } });
    const v = sim.nodes.get('v')!;
    const p = sim.nodes.get('p')!;
    const now = Date.now();
    const before = seen(sim, 'v', p, now).uptime;
    v.restartNode({ snapshotMs: 0, downSeconds: 3 * HOUR }, now);
    // the peer measured the stopped node down for 3 of its 6 hours …
    expect(seen(sim, 'p', v, now).uptime).toBeLessThan(51);
    // … while the stopped node's own measure of the peer counts those hours as connected
    expect(seen(sim, 'v', p, now).uptime).toBe(before);
    expect(before).toBeGreaterThan(98);
  });

  it('the next cycle of an auto-renewed validator starts its measure at zero: the last cycle’s downtime is gone', () => {
    const sim = fleet(['v', 'p'], { spec: { v: { scenario: 'auto-renewing', validationStartedAgo: 47 * HOUR, validationEndsIn: HOUR } } });
    const v = sim.nodes.get('v')!;
    v.economics.nextPeriodSeconds = 48 * HOUR;
    const now = Date.now();
    v.restartNode({ snapshotMs: 0, downSeconds: 3 * HOUR }, now);
    expect(seen(sim, 'p', v, now).uptime).toBeLessThan(94);
    // the cycle ends; its reward proposal is accepted 2 s later (sim/periods.ts), committed by the peers' own measures
    const end = v.validationEndsAt;
    v.economics.settlePeriods(end + 3);
    expect(v.economics.validationStartsAt).toBe(Math.floor(end));
    const after = (end + 3 + HOUR) * 1000;
    expect(seen(sim, 'p', v, after).uptime).toBe(100);
  });
});

describe('the reward vote from each validator’s own measure (vms/platformvm/block/executor/options.go prefersCommit)', () => {
  it('a dip at the period’s end: info.uptime reads the disconnected stake 0 %, the vote still commits on the measures', () => {
    const sim = fleet(['v', 'p1', 'p2', 'p3'], { others: 40 });
    const v = sim.nodes.get('v')!;
    const now = Date.now();
    sim.network.validators.setDip({ connectedPercent: 30 }, now);
    expect(sim.network.validators.nodeUptime(v.economics, now)!.rewarding).toBeLessThan(50);
    expect(sim.network.validators.voteCommits(v.economics, now)).toBe(true);
  });

  it('a validator its peers measure below the requirement: the vote aborts', () => {
    const sim = fleet(['v', 'p1', 'p2'], { others: 40, spec: { v: { validationStartedAgo: DAY } } });
    const v = sim.nodes.get('v')!;
    const now = Date.now();
    v.restartNode({ snapshotMs: 0, downSeconds: 6 * HOUR }, now); // 75 % of the day
    expect(sim.network.validators.voteCommits(v.economics, now)).toBe(false);
  });

  it('figures set for info.uptime are played as the peers’ measures: the stake measuring it at or above the requirement is the figure, the vote goes with it', () => {
    const sim = fleet(['v', 'p1', 'p2'], { others: 40, spec: { v: { validationStartedAgo: DAY } } });
    const v = sim.nodes.get('v')!;
    const set = sim.network.validators;
    for (const figure of [20, 45, 55, 72.5, 100]) {
      v.economics.rewardingStakePercent = figure;
      const now = Date.now();
      // from the peers' own measures (their Pings, before the figure's override of info.uptime): within a small validator's weight
      const measured = set.nodeUptime(v.economics, now, false)!.rewarding;
      expect(measured, `figure ${figure}`).toBeGreaterThan(figure - 1);
      expect(measured, `figure ${figure}`).toBeLessThanOrEqual(figure + 1e-9);
      expect(set.voteCommits(v.economics, now), `figure ${figure}`).toBe(figure > 50);
      // no peer below says 0: that is what a bootstrapping peer sends (network/peer/peer.go getUptime)
      expect(set.validatorPeers(v.economics, now).filter((p) => p.observedUptime === 0)).toEqual([]);
    }
    // taken away, the peers measure an undisturbed validation again
    v.economics.rewardingStakePercent = undefined;
    expect(set.nodeUptime(v.economics, Date.now(), false)!.rewarding).toBeGreaterThan(90);
    expect(set.voteCommits(v.economics, Date.now())).toBe(true);
  });

  it('the vote at the period’s end is the measures’, not the figure’s: 72.5 % set, then 12 h down in a day-old validation, the reward is not paid', () => {
    const sim = fleet(['v', 'p1', 'p2'], { others: 40, spec: { v: { validationStartedAgo: DAY, validationEndsIn: HOUR } } });
    const v = sim.nodes.get('v')!;
    v.economics.rewardingStakePercent = 72.5;
    const now = Date.now();
    v.restartNode({ snapshotMs: 0, downSeconds: 12 * HOUR }, now);
    // info.uptime still answers the figure; every peer's measure lost the 12 hours
    expect(v.economics.uptimePercents(now).rewarding).toBe(72.5);
    const end = v.economics.periods.current!.endTime;
    v.economics.settlePeriods(end + REWARD_DELAY_SECONDS + 1);
    expect(v.economics.periods.ended[0]).toMatchObject({ endTime: end, committed: false, validationReward: 0 });
  });
});

describe('the uptime clock factor is a scenario setting, real time by default; the scope legs at real rates (model/observed.ts scopeOf)', () => {
  it('real time by default', () => {
    expect(new SimServer([{ name: 'a' }]).network.validators.clockFactor).toBe(1);
  });

  const baseline = (sim: SimServer, observer: string, now: number) => {
    const parsed = parseSeenValidators({ validators: sim.network.validators.view(sim.nodes.get(observer)!.economics, undefined, now) });
    if (!parsed.ok) throw new Error(parsed.error);
    return baselineOf('mainnet', parsed.value.seen, sim.nodes.get(observer)!.nodeId);
  };
  const scope = (sim: SimServer, now: number) => {
    const views = ['o1', 'o2', 'o3'].map((o) => {
      const b = baseline(sim, o, now);
      return { observer: o, medianUptimeRatio: b.uptimeQuantiles.find((q) => q.quantile === 0.5)!.ratio, connectedStakeRatio: b.connectedStakeRatio, at: now / 1000 };
    });
    return scopeOf({ network: 'mainnet', views }, 0.9);
  };

  it('a dip cutting 60 % of the stake: the connected leg at once, the median leg only after about a day (10 days of validation behind)', () => {
    const sim = fleet(['o1', 'o2', 'o3'], { others: 40 });
    const now = Date.now();
    sim.network.validators.setDip({ connectedPercent: 40 }, now);
    expect(scope(sim, now + 60_000)).toMatchObject({ scope: 'network', words: expect.stringContaining('the network looks cut off from here') });
    expect(baseline(sim, 'o1', now + 12 * HOUR * 1000).uptimeQuantiles.find((q) => q.quantile === 0.5)!.ratio).toBeGreaterThan(0.9);
    expect(scope(sim, now + 40 * HOUR * 1000)).toMatchObject({ scope: 'network', words: expect.stringContaining('every validator looks down from here: median observed uptime') });
  });

  it('at 3,600 (an hour a second, a setting) the same median leg fires within a minute', () => {
    const sim = fleet(['o1', 'o2', 'o3'], { others: 40, factor: 3600 });
    const now = Date.now();
    sim.network.validators.setDip({ connectedPercent: 40 }, now);
    expect(scope(sim, now + 60_000)).toMatchObject({ words: expect.stringContaining('every validator looks down from here') });
  });

  it('a factor set at runtime moves no measure at the switch', () => {
    const sim = fleet(['v', 'p'], { others: 0, factor: 3600 });
    const v = sim.nodes.get('v')!;
    const now = Date.now();
    v.setScenario('unreachable-by-peers');
    const before = seen(sim, 'p', v, now + 1000).uptime;
    sim.network.validators.setClockFactor(1, now + 1000);
    expect(seen(sim, 'p', v, now + 1000).uptime).toBeCloseTo(before, 9);
    expect(seen(sim, 'p', v, now + 2000).uptime).toBeCloseTo(before, 3); // one more real second is one more second, not an hour
  });
});

describe('percentConnected counts the node itself (snow/networking/router/chain_router.go, snow/engine/common/tracker/peers.go)', () => {
  it('a validator with no peer (network-down) reads its own share, not 0; a node that is not a validator reads 0', () => {
    const sim = fleet(['v', 'rpc'], { others: 40, spec: { rpc: { validator: false } } });
    for (const name of ['v', 'rpc']) sim.nodes.get(name)!.setScenario('network-down');
    const connected = (name: string) => (sim.nodes.get(name)!.health(undefined).checks.C!.message as { networking: { percentConnected: number } }).networking.percentConnected;
    expect(connected('v')).toBeCloseTo(sim.network.validators.ownStakePercent(sim.nodes.get('v')!.economics) / 100, 9);
    expect(connected('v')).toBeGreaterThan(0);
    expect(connected('rpc')).toBe(0);
  });
});

describe('upgrade day: validators bootstrapping send Ping 0 for everyone (snow/uptime/locked_calculator.go, network/peer/peer.go getUptime)', () => {
  type Peers = { numPeers: string; peers: Array<{ nodeID: string; observedUptime: string }> };
  const peersOf = (node: SimNode) => ((node.economics.answer('/ext/info', 'info.peers', {}) as { result: Peers }).result);

  it("every validator's info.uptime falls by their stake, at 0 % in info.peers; no measure and no vote moves", () => {
    const sim = fleet(['v', 'w'], { others: 40 });
    const [v, w] = [sim.nodes.get('v')!, sim.nodes.get('w')!];
    const set = sim.network.validators;
    const now = Date.now();
    const before = set.nodeUptime(v.economics, now)!;
    const measured = seen(sim, 'w', v, now).uptime;
    expect(peersOf(v).peers.filter((p) => p.observedUptime === '0')).toEqual([]);

    set.setBootstrapping({ stakePercent: 30 });
    for (const node of [v, w]) {
      const after = set.nodeUptime(node.economics, now)!;
      expect(after.rewarding).toBeLessThan(before.rewarding - 25);
      expect(after.rewarding).toBeGreaterThan(before.rewarding - 30.5);
    }
    // Their Pings say 0; the zero reporters hold at most the 30 % asked for, all of them connected validators.
    const zero = peersOf(v).peers.filter((p) => p.observedUptime === '0').map((p) => p.nodeID);
    expect(zero.length).toBeGreaterThan(0);
    const entries = set.view(w.economics, zero, now);
    const stake = entries.reduce((sum, e) => sum + Number(e.weight) + Number(e.delegatorWeight), 0);
    expect(entries.every((e) => e.connected === true)).toBe(true);
    expect(stake / set.totalWeight()).toBeLessThanOrEqual(0.3);
    expect(stake / set.totalWeight()).toBeGreaterThan(0.25);
    // What each node measures, and so the reward vote, is untouched.
    expect(seen(sim, 'w', v, now).uptime).toBe(measured);
    expect(set.voteCommits(v.economics, now)).toBe(true);

    set.setBootstrapping(undefined);
    expect(set.nodeUptime(v.economics, now)!.rewarding).toBeCloseTo(before.rewarding, 9);
  });

  it('a fleet node in its v1.15 restart bootstrap pings 0 to the others meanwhile', () => {
    const sim = fleet(['v', 'w']);
    const [v, w] = [sim.nodes.get('v')!, sim.nodes.get('w')!];
    const now = Date.now();
    const idOf = (node: SimNode) => node.nodeId;
    expect(peersOf(v).peers.find((p) => p.nodeID === idOf(w))!.observedUptime).not.toBe('0');
    w.restartNode({ snapshotMs: 60_000, bootstrapMs: 60_000 }, now);
    expect(peersOf(v).peers.find((p) => p.nodeID === idOf(w))!.observedUptime).toBe('0');
  });
});

describe('after a restart, info.uptime climbs back one peer Ping at a time (network/peer/peer.go)', () => {
  it('a peer counts from its first Ping, until then 0 in info.uptime and info.peers: steps, never a ramp', () => {
    const sim = fleet(['v', 'w'], { others: 12 });
    const v = sim.nodes.get('v')!;
    const set = sim.network.validators;
    const start = Date.now();
    v.restartNode({ snapshotMs: 60_000, bootstrapMs: 0 }, start);
    const own = set.ownStakePercent(v.economics);
    const settled = v.economics.uptimePercents(start + 60_000);
    const zeros = (at: number) => set.validatorPeers(v.economics, at).filter((p) => p.observedUptime === 0).length;
    const peers = set.validatorPeers(v.economics, start).length;

    // Reconnected, nobody has pinged yet: only the node's own stake counts.
    expect(v.economics.infoUptime(start + 29_000).rewarding).toBeCloseTo(own, 9);
    expect(zeros(start + 29_000)).toBe(peers);

    const readings: number[] = [];
    for (let t = 30_000; t < 60_000; t += 250) readings.push(v.economics.infoUptime(start + t).rewarding);
    // One rise per peer's Ping (a few may share a sample): at most one distinct figure per peer, not a ramp of 120.
    const distinct = new Set(readings.map((r) => r.toFixed(9)));
    expect(distinct.size).toBeGreaterThan(3);
    expect(distinct.size).toBeLessThanOrEqual(peers + 1);
    expect(readings.every((r, i) => i === 0 || r >= readings[i - 1]!)).toBe(true);
    // Midway some peers have pinged and some not, in info.peers as in info.uptime.
    expect(zeros(start + 45_000)).toBeGreaterThan(0);
    expect(zeros(start + 45_000)).toBeLessThan(peers);
    // Every peer has pinged by the end: the figures are the peers' measures again.
    expect(zeros(start + 60_000)).toBe(0);
    expect(v.economics.infoUptime(start + 60_000).rewarding).toBeCloseTo(settled.rewarding, 9);
    // What the network measures of it (the Data API's figure, the reward vote) never climbed.
    expect(v.economics.uptimePercents(start + 45_000).rewarding).toBeCloseTo(settled.rewarding, 6);
  });
});
