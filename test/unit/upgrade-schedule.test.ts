/**
 * The network's schedule from the fleet's own info.upgrades (model/schedule.ts), and the missed
 * upgrade cross-checked with the node's own schedule (probes/missed-upgrade.ts). AvalancheGo:
 * api/info/service.go Upgrades answers the build's upgrade.Config (upgrade/upgrade.go), whose
 * unscheduled upgrades read UnscheduledActivationTime (9999-12-01); each upgrade adds its field
 * (upgrade/new_upgrade_checklist.md); futureupgrade's localUpgradeTime is a constant of
 * node/node.go that a release may forget to move.
 */
import { describe, expect, it } from 'vitest';
import type { EndpointObservation, TargetObservation } from '../../src/model/observation.js';
import { FleetScheduleIndex, knowsActivation, unknownUpgrades, upgradeName, type FleetSchedule, type NodeSchedule } from '../../src/model/schedule.js';
import { parseUpgradeSchedule } from '../../src/parse/validator.js';
import { missedUpgrade } from '../../src/probes/missed-upgrade.js';

const T = (iso: string) => Date.parse(iso) / 1000;
const GRANITE = T('2025-11-19T16:00:00Z');
const HELICON = T('2026-12-20T15:00:00Z');
const schedule = (activations: Record<string, number | null>, network = 'mainnet'): NodeSchedule => ({ network, activations, readAt: 0 });

describe('parseUpgradeSchedule', () => {
  it('reads every activation time, unscheduled as null, and leaves heights, IDs and durations out', () => {
    const parsed = parseUpgradeSchedule({
      apricotPhase4Time: '2021-09-22T21:00:00Z',
      apricotPhase4MinPChainHeight: 793005,
      cortinaXChainStopVertexID: 'jrGWDh5Po9FMj54depyunNixpia5PN4aAYxfmNzU8n752Rjga',
      graniteTime: '2025-11-19T16:00:00Z',
      graniteEpochDuration: 300_000_000_000,
      heliconTime: '9999-12-01T00:00:00Z',
    });
    expect(parsed).toEqual({ ok: true, value: { apricotPhase4Time: T('2021-09-22T21:00:00Z'), graniteTime: GRANITE, heliconTime: null } });
    expect(parseUpgradeSchedule({ heliconTime: 'soon' })).toMatchObject({ ok: false });
    expect(parseUpgradeSchedule([])).toMatchObject({ ok: false });
  });
});

describe('unknownUpgrades', () => {
  const fleet = [
    { target: 'new', schedule: schedule({ graniteTime: GRANITE, heliconTime: HELICON }) },
    { target: 'fuji-node', schedule: schedule({ graniteTime: GRANITE, heliconTime: HELICON - 86_400, nextTime: HELICON + 90 * 86_400 }, 'fuji') },
  ];

  it('an activation another node of the same network knows: unscheduled or absent in this build', () => {
    const unscheduled = { target: 'old', schedule: schedule({ graniteTime: GRANITE, heliconTime: null }) };
    expect(unknownUpgrades(unscheduled, [...fleet, unscheduled])).toEqual([{ key: 'heliconTime', at: HELICON, from: 'new', own: 'unscheduled' }]);
    const older = { target: 'older', schedule: schedule({ graniteTime: GRANITE }) };
    expect(unknownUpgrades(older, fleet)).toEqual([{ key: 'heliconTime', at: HELICON, from: 'new', own: 'absent' }]);
  });

  it('nothing from other networks, nothing for a node that knows them all or whose network is unknown', () => {
    expect(unknownUpgrades(fleet[0]!, fleet)).toEqual([]);
    expect(unknownUpgrades({ target: 'x', schedule: { activations: {}, readAt: 0 } }, fleet)).toEqual([]);
  });

  it('names an upgrade as AvalancheGo does', () => {
    expect(upgradeName('heliconTime')).toBe('Helicon');
    expect(upgradeName('apricotPhasePost6Time')).toBe('ApricotPhasePost6');
  });
});

describe('FleetScheduleIndex: the comparison kept up to date as schedules change', () => {
  /** A small seeded generator (mulberry32): the same fleets on every run. */
  const random = (seed: number) => () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const TARGETS = ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h'];
  const NETWORKS = ['mainnet', 'fuji', undefined];
  const KEYS = ['graniteTime', 'heliconTime', 'nextTime', 'laterTime'];
  // Few distinct times, so that ties between nodes are common.
  const TIMES = [GRANITE, HELICON, HELICON + 86_400, null, undefined];

  it('answers as unknownUpgrades over random fleets, with ties, nodes leaving and changing networks', () => {
    const next = random(44);
    const pick = <T>(of: readonly T[]): T => of[Math.floor(next() * of.length)]!;
    const draw = (): NodeSchedule => {
      const activations: Record<string, number | null> = {};
      for (const key of KEYS) {
        const at = pick(TIMES);
        if (at !== undefined) activations[key] = at;
      }
      const network = pick(NETWORKS);
      return { ...(network ? { network } : {}), activations, readAt: 0 };
    };
    let checked = 0;
    for (let fleetNo = 0; fleetNo < 40; fleetNo++) {
      const index = new FleetScheduleIndex();
      const fleet = new Map<string, NodeSchedule>();
      for (let step = 0; step < 60; step++) {
        const target = pick(TARGETS);
        const old = fleet.get(target);
        const what = next();
        let schedule: NodeSchedule | undefined;
        if (what < 0.15) schedule = undefined; // it leaves (or has no schedule)
        else if (what < 0.3 && old) schedule = { ...old, activations: { ...old.activations } }; // read again, the same values
        else if (what < 0.45 && old) schedule = { ...old, network: pick(['mainnet', 'fuji']) }; // another network, the same build
        else schedule = draw();
        if (schedule) fleet.set(target, schedule);
        else fleet.delete(target);
        index.set(target, schedule);
        const all: FleetSchedule[] = [...fleet].map(([t, s]) => ({ target: t, schedule: s }));
        // besides every node with its own schedule: one outside the fleet, and a node asking with another schedule than the one set
        // (the newest activation may be its own: the next one is another node's)
        for (const own of [...all, { target: 'outsider', schedule: draw() }, { target: pick(TARGETS), schedule: draw() }]) {
          const expected = unknownUpgrades(own, all);
          expect(index.unknown(own.target, own.schedule)).toEqual(expected);
          // asked again with nothing changed: the same answer, kept
          expect(index.unknown(own.target, own.schedule)).toEqual(expected);
          checked += expected.length;
        }
      }
    }
    // the fleets drawn do disagree: most answers above are not empty
    expect(checked).toBeGreaterThan(1000);
  });

  it("hands out the answer it kept while neither the node nor its network's newest activations change", () => {
    const index = new FleetScheduleIndex();
    const own = schedule({ graniteTime: GRANITE, heliconTime: null });
    index.set('new', schedule({ graniteTime: GRANITE, heliconTime: HELICON }));
    index.set('old', own);
    const first = index.unknown('old', own);
    expect(first).toEqual([{ key: 'heliconTime', at: HELICON, from: 'new', own: 'unscheduled' }]);
    index.set('other', schedule({ graniteTime: GRANITE }));
    expect(index.unknown('old', own)).toBe(first);
    // a node with the same date and a smaller name is named from now on
    index.set('early', schedule({ graniteTime: GRANITE, heliconTime: HELICON }));
    expect(index.unknown('old', own)).toEqual([{ key: 'heliconTime', at: HELICON, from: 'early', own: 'unscheduled' }]);
    index.set('early', undefined);
    index.set('new', undefined);
    expect(index.unknown('old', own)).toEqual([]);
  });
});


describe('a missed upgrade cross-checked with the node own schedule', () => {
  const futureupgrade = (localTime: number): EndpointObservation => ({
    endpoint: 'health',
    view: 'all',
    ok: true,
    durationSeconds: 0.01,
    at: 0,
    report: {
      healthy: true,
      checks: [{ name: 'futureupgrade', passing: true, notYetRun: false, durationSeconds: 0, contiguousFailures: 0, upgrade: { localTime, modeTime: localTime, modeWeightRatio: 0.3 } }],
    },
  });
  const now = HELICON + 3600;

  it('derives it with nothing remembered: the network schedules it, the time has passed, the build lacks it', () => {
    const own = schedule({ graniteTime: GRANITE, heliconTime: null });
    const unknown = unknownUpgrades({ target: 'old', schedule: own }, [{ target: 'new', schedule: schedule({ graniteTime: GRANITE, heliconTime: HELICON }) }]);
    expect(missedUpgrade(undefined, undefined, [futureupgrade(GRANITE)], now, { schedule: own, unknown })).toEqual({ missed: { deadline: HELICON }, remember: { deadline: HELICON } });
    // Before the time, it is not missed yet.
    expect(missedUpgrade(undefined, undefined, [futureupgrade(GRANITE)], HELICON - 60, { schedule: own, unknown })).toEqual({});
  });

  it("ends a remembered one when the build's schedule knows the upgrade, though localUpgradeTime was not moved", () => {
    const remembered = { deadline: HELICON, modeWeightRatio: 0.7 };
    const previous: TargetObservation = { target: 'n', kind: 'node', at: now - 1, endpoints: [futureupgrade(GRANITE)], missedUpgrade: remembered };
    // Without the schedule, the forgotten constant keeps it missed for good.
    expect(missedUpgrade(previous, remembered, [futureupgrade(GRANITE)], now)).toEqual({ missed: remembered, remember: remembered });
    const knows = schedule({ graniteTime: GRANITE, heliconTime: HELICON });
    expect(knowsActivation(knows, HELICON)).toBe(true);
    expect(missedUpgrade(previous, remembered, [futureupgrade(GRANITE)], now, { schedule: knows, unknown: [] })).toEqual({});
  });
});
