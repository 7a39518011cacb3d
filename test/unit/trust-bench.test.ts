/**
 * The trust benchmark's script parser and scorer (bench/trust/): the shipped week parses, and what
 * a receiver was told is counted as the docs say (docs/alerting.md, "How we measure trust").
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { GENERATED_END_S, GENERATED_MIN, generateWeek, shardOf } from '../../bench/trust/generate.js';
import { parseScript, type ScriptEvent } from '../../bench/trust/script.js';
import { inShard } from '../../src/shard.js';
import { ECONOMICS_GRACE_S, score, START_GRACE_S, SURFACE_GRACE_S, type Alert, type Message } from '../../bench/trust/score.js';
import { ROOT } from '../helpers/cli.js';

const WEEK = `
node v1 role=validator
node v2 role=validator scenario=auto-renewing
10 scenario v1 disk-low            => open disk: AvalancheDiskLow target=v1 also=AvalancheNodeUnhealthy
20 scenario v1 disk-low x=1        => update disk: severity=critical
30 scenario v1 healthy             => close disk
40 scenario v2 inbound-closed      => open port: AvalancheValidatorUnreachableByPeers target=v2 | pending: issue 33
50 dip uptimePercent=65            => notice
60 end                             => none
`;

const firing = (alertname: string, labels: Record<string, string>, severity = 'warning', fingerprint?: string): Alert => ({ status: 'firing', labels: { alertname, severity, ...labels }, ...(fingerprint ? { fingerprint } : {}) });
const resolved = (alert: Alert): Alert => ({ ...alert, status: 'resolved' });

describe('the trust script', () => {
  it('reads the fleet, the events, their truth and what is pending', () => {
    const script = parseScript(WEEK);
    expect(script.fleet).toEqual([
      { name: 'v1', options: { role: 'validator' } },
      { name: 'v2', options: { role: 'validator', scenario: 'auto-renewing' } },
    ]);
    expect(script.events.map((e) => e.at)).toEqual([10, 20, 30, 40, 50, 60]);
    expect(script.events[0]).toMatchObject({ action: 'scenario', args: ['v1', 'disk-low'], truth: { open: [{ id: 'disk', alertname: 'AvalancheDiskLow', labels: { target: 'v1' }, also: [{ alertname: 'AvalancheNodeUnhealthy', labels: {} }] }] } });
    expect(script.events[3]!.pending).toBe('issue 33');
    expect(script.events[4]!.truth.notice).toBe(true);
    expect(script.events[4]!.params).toEqual({ uptimePercent: 65 });
    // a pending event opens nothing
    expect([...script.incidents.keys()]).toEqual(['disk']);
    expect(script.incidents.get('disk')!.closedBy!.at).toBe(30);
  });

  it('refuses what would make the truth ambiguous', () => {
    const v1 = 'node v1\n';
    expect(() => parseScript(`${v1}10 scenario v1 disk-low => close nothing`)).toThrow('week.txt:2: incident "nothing" was never opened');
    expect(() => parseScript(`${v1}10 scenario v1 disk-low => open a: X target=v1\n5 end => none`)).toThrow('week.txt:3: events must be in time order');
    expect(() => parseScript('10 teleport v1 => none')).toThrow('unknown action "teleport"');
    expect(() => parseScript('10 end')).toThrow('exactly one "=> <truth>"');
    expect(() => parseScript(`${v1}10 scenario v1 disk-lo => none`)).toThrow('unknown scenario "disk-lo"');
    expect(() => parseScript(`${v1}10 scenario v2 disk-low => none`)).toThrow('"v2" is not a node of the fleet');
    expect(() => parseScript(`${v1}10 scenario v1 reset+slow => none`)).toThrow('at most one of');
    expect(() => parseScript(`${v1}10 scenario v1 disk-low => open a: AvalancheDiskLow target=v9`)).toThrow('"v9" is not a target of the week');
    expect(() => parseScript(`${v1}10 scenario v1 disk-low => quiet q: alertname=X`)).toThrow('quiet takes target=');
    expect(() => parseScript(`${v1}10 service data-api sideways => none`)).toThrow('unknown service scenario "sideways"');
  });

  it('grows what real weeks need: conditions at once, label alternatives, symptoms with labels, lists, quiet targets', () => {
    const script = parseScript(`
node v1 ingressGraceSeconds=30
node v2
node l1 l1=true
10 scenario v1 network-down+upgrade-required upgradeIn=432000 => open cut: AvalancheCheckFailing target=v1 check=network|C|P|X also=AvalancheNodeUnhealthy,AvalancheCheckFailing{check=futureupgrade}
12 scenario l1 healthy l1Balances=[0,101735136] => open inactive: AvalancheL1ValidatorInactive target=l1 validation_id=#0 | pending: a test
14 dip connectedPercent=70 => notice; quiet dip: target=v1|v2
20 dip off => close dip`);
    expect(script.fleet[0]!.options).toEqual({ ingressGraceSeconds: 30 });
    expect(script.events[0]).toMatchObject({ args: ['v1', 'network-down+upgrade-required'], params: { upgradeIn: 432000 } });
    expect(script.incidents.get('cut')).toMatchObject({ labels: { target: 'v1', check: 'network|C|P|X' }, also: [{ alertname: 'AvalancheNodeUnhealthy', labels: {} }, { alertname: 'AvalancheCheckFailing', labels: { check: 'futureupgrade' } }] });
    expect(script.events[1]).toMatchObject({ params: { l1Balances: [0, 101735136] }, pending: 'a test' });
    expect(script.incidents.get('dip')).toMatchObject({ quiet: true, labels: { target: 'v1|v2' } });
    expect(script.incidents.get('dip')!.closedBy!.at).toBe(20);
  });

  it('parses the shipped week', () => {
    const script = parseScript(readFileSync(join(ROOT, 'bench/trust/week.txt'), 'utf8'));
    expect(script.fleet.filter((n) => n.options.role === 'validator').length).toBeGreaterThanOrEqual(12);
    expect(script.events.filter((e) => e.action === 'sample').length).toBeGreaterThanOrEqual(6);
    for (const action of ['restart', 'dip', 'service', 'silence', 'kill-daemon', 'shards']) expect(script.events.map((e) => e.action)).toContain(action);
  });
});

describe('the trust score', () => {
  const script = parseScript(WEEK);
  const t0 = 1_000_000;
  const appliedAt = new Map(script.events.filter((e) => !e.pending).map((e) => [e.line, t0 + e.at * 1000]));
  const at = (s: number, ...alerts: Alert[]): Message => ({ at: t0 + s * 1000, alerts });
  const disk = firing('AvalancheDiskLow', { target: 'v1' }, 'warning', 'fp-disk');
  const diskCritical = firing('AvalancheDiskLow', { target: 'v1' }, 'critical', 'fp-disk');
  const run = (messages: Message[]) => score({ script, appliedAt, receivers: { r: messages }, samples: [], intervalS: 1 });

  it('one page, a severity update and a resolve: nothing wrong, latencies from onset and recovery', () => {
    const s = run([at(12, disk), at(22, diskCritical), at(33, resolved(diskCritical))]);
    expect(s.summary).toEqual({ week: 'week.txt', incidents: 1, false_pages: 0, missed_incidents: 0, duplicate_pages: 0, false_resolves: 0, open_at_end: 0, page_latency_p95_s: 2, resolve_latency_p95_s: 3, surface_disagreements: 0 });
    expect(s.receivers.r!.pages).toBe(1);
  });

  it("Alertmanager's copies under two severities: one page; the warning told resolved while the problem grows is a false resolve", () => {
    const warn = firing('AvalancheDiskLow', { target: 'v1' }, 'warning', 'am-w');
    const crit = firing('AvalancheDiskLowCritical', { target: 'v1' }, 'critical', 'am-c');
    const s = run([at(12, warn), at(22, crit), at(25, resolved(warn)), at(31, resolved(crit))]);
    expect(s.summary).toMatchObject({ duplicate_pages: 0, false_resolves: 1, open_at_end: 0, resolve_latency_p95_s: 1 });
    expect(s.receivers.r!.falseResolves).toMatchObject([{ id: 'disk', at: t0 + 25_000, labels: { severity: 'warning' } }]);
    // the critical sibling holding the warning back (resolved together at the end): nothing wrong
    expect(run([at(12, warn), at(22, crit), at(31, resolved(warn), resolved(crit))]).summary).toMatchObject({ duplicate_pages: 0, false_resolves: 0, open_at_end: 0 });
    // the problem shrinks: the critical copy resolved while the warning stays open is no false resolve
    expect(run([at(12, warn), at(22, crit), at(26, resolved(crit)), at(31, resolved(warn))]).summary).toMatchObject({ duplicate_pages: 0, false_resolves: 0, open_at_end: 0 });
    // one message swapping the copies (Alertmanager tells a group at once): no page between, one false resolve when it grows
    const swap = run([at(12, warn), at(22, resolved(warn), crit), at(26, warn, resolved(crit)), at(31, resolved(warn))]);
    expect(swap.summary).toMatchObject({ duplicate_pages: 0, false_resolves: 1, open_at_end: 0 });
    expect(swap.receivers.r!.falseResolves).toMatchObject([{ at: t0 + 22_000, labels: { severity: 'warning' } }]);
  });

  it('counts a page the truth has no incident for, a second firing of one incident, and what is left open', () => {
    const other = firing('AvalancheCheckFailing', { target: 'v2', check: 'C' }, 'warning', 'fp-c');
    const s = run([at(5, disk), at(6, resolved(disk)), at(12, disk), at(14, resolved(disk)), at(16, disk), at(45, other)]);
    // the page at 5 s is before the onset (false); 12 s and 16 s are two pages of one incident; both keys stay open
    expect(s.summary).toMatchObject({ false_pages: 2, duplicate_pages: 1, open_at_end: 2, missed_incidents: 0 });
  });

  it("a symptom's page is the incident's second page (a duplicate), not a false page", () => {
    const symptom = firing('AvalancheNodeUnhealthy', { target: 'v1' }, 'warning', 'fp-u');
    const s = run([at(12, disk), at(13, symptom), at(31, resolved(disk), resolved(symptom))]);
    expect(s.summary).toMatchObject({ false_pages: 0, duplicate_pages: 1, open_at_end: 0 });
  });

  it('misses an incident nobody was told of; network-scope notices are not pages', () => {
    const notice = firing('AvalancheValidatorRewardAtRisk', { target: 'v1', scope: 'network' }, 'critical', 'fp-n');
    const s = run([at(51, notice), at(58, resolved(notice))]);
    expect(s.summary).toMatchObject({ false_pages: 0, missed_incidents: 1 });
    expect(s.receivers.r!.notices).toBe(1);
  });

  it('a scope learnt later updates the incident: the first page counts, the resolve under the new scope closes it', () => {
    const self = firing('AvalancheValidatorRewardAtRisk', { target: 'v1', scope: 'self' }, 'critical', 'fp-r');
    const network = firing('AvalancheValidatorRewardAtRisk', { target: 'v1', scope: 'network' }, 'critical', 'fp-r');
    const s = run([at(51, self), at(53, network), at(58, resolved(network))]);
    // paged as self during a dip the truth calls a notice: one false page, nothing left open
    expect(s.summary).toMatchObject({ false_pages: 1, open_at_end: 0 });
    expect(s.receivers.r!.pages).toBe(1);
  });

  it('counts a surface that disagrees with the open incidents', () => {
    const s = score({ script, appliedAt, receivers: {}, intervalS: 1, samples: [
      { at: t0 + 19_000, surface: 'status', unhealthy: ['v1'] },
      { at: t0 + 19_000, surface: 'check', unhealthy: [] },
      { at: t0 + 39_000, surface: 'status', unhealthy: [] },
    ] });
    expect(s.surfaceDisagreements).toEqual([{ at: t0 + 19_000, surface: 'check', expected: ['v1'], shown: [] }]);
  });

  it('a target an event touched within its grace is in transition: shown either way; a dip touches every node, for longer', () => {
    const s = score({ script, appliedAt, receivers: {}, intervalS: 1, samples: [
      { at: t0 + 12_000, surface: 'check', unhealthy: [] },
      { at: t0 + 33_000, surface: 'status', unhealthy: ['v1'] },
      { at: t0 + 52_000, surface: 'status', unhealthy: ['v1', 'v2'] },
      { at: t0 + 59_000, surface: 'status', unhealthy: ['v2'] },
      { at: t0 + 67_000, surface: 'status', unhealthy: ['v2'] },
    ] });
    expect(SURFACE_GRACE_S).toBeLessThan(ECONOMICS_GRACE_S);
    expect(s.surfaceDisagreements).toEqual([{ at: t0 + 67_000, surface: 'status', expected: [], shown: ['v2'] }]);
    // `check` runs a round of its own: what an event changed while it ran is in transition too
    const during = score({ script, appliedAt, receivers: {}, intervalS: 1, samples: [
      { at: t0 + 45_000, until: t0 + 51_000, surface: 'check', unhealthy: ['v1'] },
      { at: t0 + 45_000, until: t0 + 47_000, surface: 'check', unhealthy: ['v1'], detail: { v1: 'unhealthy: failing: diskspace' } },
    ] });
    expect(during.surfaceDisagreements).toEqual([{ at: t0 + 45_000, surface: 'check', expected: [], shown: ['v1'], detail: { v1: 'unhealthy: failing: diskspace' } }]);
  });
});

describe('the trust score: what a week starts with', () => {
  it('a sample that opens incidents (a period already ending) puts their targets in transition for its grace', () => {
    const script = parseScript(`
node v1
node v2
1 sample => open end1: AvalancheValidatorEndingSoon target=v1; open end2: AvalancheValidatorEndingSoon target=v2
30 sample => none`);
    const t0 = 1_000_000;
    const appliedAt = new Map(script.events.map((e) => [e.line, t0 + e.at * 1000]));
    const s = score({ script, appliedAt, receivers: {}, intervalS: 1, samples: [
      { at: t0 + 2_000, surface: 'status', unhealthy: ['v2'] },
      { at: t0 + 30_000, surface: 'status', unhealthy: ['v2'] },
    ] });
    expect(s.surfaceDisagreements).toEqual([{ at: t0 + 30_000, surface: 'status', expected: ['v1', 'v2'], shown: ['v2'] }]);
  });
});

describe('the trust score: a daemon that starts', () => {
  // docs/validators.md: a new daemon (a restart, a new owner at a reshard) holds a validator's
  // figures below the top until they stop rising, and pages it some 25 s after it starts
  const script = parseScript(`
node v1 role=validator
node v2 role=validator
node v3 role=validator
10 shards 2                              => none
11 scenario v1 reward-at-risk            => open risk: AvalancheValidatorRewardAtRisk target=v1 also=AvalancheValidatorDowntimeBudgetLow
12 scenario v2 disk-low                  => open disk: AvalancheDiskLow target=v2 also=AvalancheNodeUnhealthy
80 scenario v1 healthy                   => close risk
81 scenario v2 healthy                   => close disk
90 end                                   => none
`);
  const t0 = 3_000_000;
  const appliedAt = new Map(script.events.map((e) => [e.line, t0 + e.at * 1000]));
  const sampled = (s: number, unhealthy: string[]) => score({ script, appliedAt, receivers: {}, intervalS: 1, samples: [{ at: t0 + s * 1000, surface: 'status', unhealthy }] }).surfaceDisagreements;

  it('a validator the poll decides is in transition for START_GRACE_S: shown either way', () => {
    expect(START_GRACE_S).toBeGreaterThan(ECONOMICS_GRACE_S);
    expect(sampled(31, ['v2'])).toEqual([]);
    expect(sampled(31, ['v1', 'v2'])).toEqual([]);
    expect(sampled(10 + START_GRACE_S + 1, ['v2'])).toEqual([{ at: t0 + (10 + START_GRACE_S + 1) * 1000, surface: 'status', expected: ['v1', 'v2'], shown: ['v2'] }]);
  });

  it('what the start holds nothing of still counts: a problem of the node itself, a healthy validator shown unhealthy', () => {
    expect(sampled(31, ['v1'])).toEqual([{ at: t0 + 31_000, surface: 'status', expected: ['v2'], shown: [] }]);
    expect(sampled(31, ['v2', 'v3'])).toEqual([{ at: t0 + 31_000, surface: 'status', expected: ['v2'], shown: ['v2', 'v3'] }]);
  });
});

describe('the trust score: notices, false resolves, announcements again', () => {
  const script = parseScript(`
node v1
node v2
node v3
10 scenario v1 reward-at-risk          => open risk: AvalancheValidatorRewardAtRisk target=v1 also=AvalancheValidatorDowntimeBudgetLow
20 dip connectedPercent=70             => notice; quiet dip: target=v2|v3
40 dip off                             => close dip
50 scenario v2 network-down+disk-low   => open cut: AvalancheCheckFailing target=v2 check=network|C|P|X also=AvalancheNodeUnhealthy; open disk: AvalancheDiskLow target=v2 also=AvalancheNodeUnhealthy,AvalancheCheckFailing{check=diskspace}
60 scenario v2 disk-low                => close cut
70 scenario v1 healthy                 => close risk
80 scenario v2 healthy                 => close disk
90 end                                 => none
`);
  const t0 = 2_000_000;
  const appliedAt = new Map(script.events.map((e) => [e.line, t0 + e.at * 1000]));
  const at = (s: number, ...alerts: Alert[]): Message => ({ at: t0 + s * 1000, alerts });
  const run = (messages: Message[]) => score({ script, week: 'seed:7', appliedAt, receivers: { r: messages }, samples: [], intervalS: 1 });
  const alert = (alertname: string, labels: Record<string, string>, fingerprint: string, startsAt = 'S1', status = 'firing'): Alert => ({ status, labels: { alertname, severity: 'critical', ...labels }, fingerprint, startsAt });
  const self = alert('AvalancheValidatorRewardAtRisk', { target: 'v1', scope: 'self' }, 'fp-risk');
  const net = alert('AvalancheValidatorRewardAtRisk', { target: 'v1', scope: 'network' }, 'fp-risk');

  it('names the week and its size', () => {
    expect(run([]).summary).toMatchObject({ week: 'seed:7', incidents: 3, missed_incidents: 3 });
  });

  it("the daemon's webhook: a scope change is an update of one alert, never a resolve or a page", () => {
    const s = run([at(11, self), at(25, net), at(42, self), at(72, resolved(self))]);
    expect(s.summary).toMatchObject({ false_pages: 0, duplicate_pages: 0, false_resolves: 0, open_at_end: 0, missed_incidents: 2 });
    expect(s.receivers.r!.pages).toBe(1);
  });

  it("Alertmanager's copies by scope: the self copy resolved when the dip began is a false resolve, its re-fire at the dip's end a duplicate", () => {
    // Alertmanager's fingerprint hashes every label: each scope is an alert of its own there
    const amSelf = { ...self, fingerprint: 'am-self' };
    const amNet = { ...net, fingerprint: 'am-net' };
    const s = run([at(11, amSelf), at(25, amNet, resolved(amSelf)), at(42, resolved(amNet), amSelf), at(72, resolved(amSelf))]);
    expect(s.receivers.r!.falseResolves).toMatchObject([{ id: 'risk', at: t0 + 25_000, labels: { scope: 'self' } }]);
    expect(s.receivers.r!.duplicates).toMatchObject([{ id: 'risk', pages: 2 }]);
    expect(s.receivers.r!.notices).toBe(1);
    expect(s.summary).toMatchObject({ false_pages: 0, duplicate_pages: 1, false_resolves: 1, open_at_end: 0 });
  });

  it('a notice that turns into a page counts as a page from that moment', () => {
    const s = run([at(12, net), at(18, self), at(72, resolved(self))]);
    expect(s.receivers.r!).toMatchObject({ pages: 1, notices: 1, missed: ['cut', 'disk'] });
    expect(s.receivers.r!.pageLatencyS).toEqual([8]);
    // told only as a notice: missed, and no false page
    expect(run([at(12, net), at(72, resolved(net))]).receivers.r!).toMatchObject({ pages: 0, notices: 1, missed: ['risk', 'cut', 'disk'], falsePages: [] });
  });

  it('a resolve followed by a re-fire while the truth holds the incident open: a false resolve and a duplicate', () => {
    const s = run([at(11, self), at(30, resolved(self)), at(35, self), at(72, resolved(self))]);
    expect(s.summary).toMatchObject({ false_resolves: 1, duplicate_pages: 1, false_pages: 0, open_at_end: 0 });
  });

  it('a second firing under a new startsAt while the alert is open at the receiver is a duplicate page', () => {
    const again = { ...self, startsAt: 'S2' };
    const s = run([at(11, self), at(30, again), at(72, resolved(again))]);
    expect(s.receivers.r!.duplicates).toMatchObject([{ id: 'risk', pages: 2 }]);
    expect(s.summary).toMatchObject({ false_resolves: 0, duplicate_pages: 1, open_at_end: 0 });
  });

  it('a page for a target the truth holds quiet is false; a notice left open after the dip is open at the end', () => {
    const v2 = alert('AvalancheValidatorRewardAtRisk', { target: 'v2', scope: 'self' }, 'fp-v2');
    const v3 = alert('AvalancheValidatorRewardAtRisk', { target: 'v3', scope: 'network' }, 'fp-v3');
    const s = run([at(25, v2, v3), at(42, resolved(v2))]);
    expect(s.receivers.r!.falsePages).toEqual([{ at: t0 + 25_000, key: 'AvalancheValidatorRewardAtRisk{target=v2}' }]);
    expect(s.receivers.r!.openAtEnd).toEqual(['AvalancheValidatorRewardAtRisk{target=v3}']);
  });

  it('two problems of one node at once: each page goes to its own incident by its labels; pages of one incident in one message are one page', () => {
    const check = (c: string) => alert('AvalancheCheckFailing', { target: 'v2', check: c }, `fp-${c}`);
    const disk = alert('AvalancheDiskLow', { target: 'v2' }, 'fp-disk');
    const unhealthy = alert('AvalancheNodeUnhealthy', { target: 'v2' }, 'fp-u');
    const s = run([
      at(11, self),
      at(52, check('network'), check('C'), check('P'), check('X')),
      at(53, disk),
      at(54, check('diskspace')),
      at(62, ...['network', 'C', 'P', 'X'].map((c) => resolved(check(c)))),
      at(72, resolved(self)),
      at(82, resolved(disk), resolved(check('diskspace'))),
    ]);
    expect(s.summary).toMatchObject({ false_pages: 0, missed_incidents: 0, false_resolves: 0, open_at_end: 0 });
    // the diskspace check is the disk incident's symptom: its second page
    expect(s.receivers.r!.duplicates).toMatchObject([{ id: 'disk', pages: 2 }]);
    // NodeUnhealthy is a symptom of both, after the cut was over: the disk's
    const late = run([at(11, self), at(52, check('network')), at(53, disk), at(63, unhealthy), at(62, resolved(check('network'))), at(72, resolved(self)), at(82, resolved(disk), resolved(unhealthy))]);
    expect(late.receivers.r!.duplicates).toMatchObject([{ id: 'disk', pages: 2 }]);
  });
});

describe('weeks no one wrote by hand (bench/trust/generate.ts)', () => {
  const seeds = Array.from({ length: 20 }, (_, i) => i + 1);
  const weeks = new Map(seeds.map((seed) => [seed, generateWeek(seed)]));
  const scripts = new Map(seeds.map((seed) => [seed, parseScript(weeks.get(seed)!, `seed:${seed}`)]));
  const scenarioOf = (e: ScriptEvent) => (e.action === 'scenario' ? e.args[1]!.split('+') : []);

  it("places incidents on targets that move by the daemon's own split", () => {
    for (const name of ['validator-01', 'validator-07', 'rpc-02', 'l1-node']) {
      for (const count of [2, 3]) expect(inShard(name, { index: shardOf(name, count), count })).toBe(true);
    }
  });

  it('is the same week for the same seed, another for another seed', () => {
    expect(generateWeek(7)).toBe(weeks.get(7));
    expect(new Set(weeks.values()).size).toBe(seeds.length);
    expect(() => generateWeek(0)).toThrow('a seed is a positive integer');
  });

  it('every line parses as the documented grammar; every week is big enough and ends in time', () => {
    for (const [seed, script] of scripts) {
      const incidents = [...script.incidents.values()].filter((i) => !i.quiet);
      const fleet = new Set(script.fleet.map((n) => n.name));
      expect(incidents.length, `seed ${seed}`).toBeGreaterThanOrEqual(GENERATED_MIN.incidents);
      expect(script.fleet.length, `seed ${seed}`).toBeGreaterThanOrEqual(GENERATED_MIN.nodes);
      expect(new Set(incidents.map((i) => i.labels.target).filter((t) => fleet.has(t!))).size, `seed ${seed}`).toBeGreaterThanOrEqual(GENERATED_MIN.nodes);
      expect(script.events.at(-1)).toMatchObject({ action: 'end', at: GENERATED_END_S });
      // every event line of the text is an event: nothing was dropped as a comment
      const lines = weeks.get(seed)!.split('\n').filter((l) => /^\d/.test(l));
      expect(script.events.length).toBe(lines.length);
    }
  });

  it('has the vocabulary: reshards both ways, kills at any moment, a dip with incidents open, silences, overlaps, L1 lists, periods', () => {
    for (const [seed, script] of scripts) {
      const shards = script.events.filter((e) => e.action === 'shards');
      expect(shards.some((e) => Number(e.args[0]) > 1) && shards.some((e) => e.args[0] === '1'), `seed ${seed}`).toBe(true);
      // incidents open across a change of the shard count, their target moving both ways (docs/scaling.md's split)
      const countBefore = (at: number) => Number(shards.filter((e) => e.at < at).at(-1)?.args[0] ?? 1);
      const handed = shards.filter((e) =>
        [...script.incidents.values()].some((i) => !i.quiet && i.openedBy.at < e.at && (i.closedBy?.at ?? Infinity) > e.at && script.fleet.some((n) => n.name === i.labels.target) && shardOf(i.labels.target!, countBefore(e.at)) !== shardOf(i.labels.target!, Number(e.args[0]))),
      );
      expect(handed.some((e) => e.args[0] === '1') && handed.some((e) => e.args[0] !== '1'), `seed ${seed}`).toBe(true);
      const kills = script.events.filter((e) => e.action === 'kill-daemon');
      expect(kills.length).toBeGreaterThanOrEqual(2);
      expect(script.events.filter((e) => e.action === 'start-daemon').length).toBe(kills.length);
      const dip = script.events.find((e) => e.action === 'dip' && e.args[0] !== 'off')!;
      expect(dip.truth.notice).toBe(true);
      expect(dip.truth.open[0]).toMatchObject({ quiet: true });
      expect([...script.incidents.values()].some((i) => !i.quiet && i.openedBy.at < dip.at && (i.closedBy?.at ?? Infinity) > dip.at), `seed ${seed}`).toBe(true);
      expect(script.events.some((e) => scenarioOf(e).length > 1 && !scenarioOf(e).includes('auto-renewing'))).toBe(true);
      expect(script.events.some((e) => (e.action === 'expect' && e.args[0] === 'silence-end') || e.action === 'unsilence'), `seed ${seed}`).toBe(true);
      expect(script.events.some((e) => Array.isArray(e.params.l1Balances))).toBe(true);
      expect(script.events.filter((e) => e.action === 'expect' && e.args[0] === 'period-end').length).toBe(2);
    }
    // AvalancheGo's ingress grace: a closed port restarted into it, in some weeks
    expect([...scripts.values()].some((script) => script.events.some((e) => e.action === 'restart' && typeof e.params.ingressGraceSeconds === 'number'))).toBe(true);
  });

  it('keeps the truth decidable: one open incident per identity, no sample or silence while the daemons are down, no silence across a reshard', () => {
    for (const [seed, script] of scripts) {
      const all = [...script.incidents.values()].filter((i) => !i.quiet);
      for (const a of all) {
        for (const b of all) {
          if (a === b || a.alertname !== b.alertname || a.labels.target !== b.labels.target || a.labels.validation_id !== b.labels.validation_id) continue;
          const overlap = a.openedBy.at < (b.closedBy?.at ?? Infinity) && b.openedBy.at < (a.closedBy?.at ?? Infinity);
          expect(overlap, `seed ${seed}: ${a.id} and ${b.id}`).toBe(false);
        }
      }
      let down = false;
      let silences = 0;
      for (const e of script.events) {
        if (e.action === 'kill-daemon') down = true;
        if (e.action === 'start-daemon') down = false;
        if (['sample', 'silence', 'unsilence', 'shards'].includes(e.action)) expect(down, `seed ${seed}: ${e.text} at ${e.at}`).toBe(false);
      }
      // a validator the witnesses see apart is not seen too briefly on both sides of a kill (seed 1's peers1)
      // a closed port inside AvalancheGo's ingress grace has a witness that is not a validator in its shard (seed 1's port1)
      const layouts = script.events.filter((e) => e.action === 'shards').map((e) => ({ at: e.at, count: Number(e.args[0]) }));
      const countAt = (at: number) => layouts.filter((l) => l.at <= at).at(-1)?.count ?? 1;
      const rpcs = script.fleet.filter((n) => n.options.validator === false).map((n) => n.name);
      for (const i of all.filter((i) => /inbound-closed/.test(i.openedBy.text))) {
        const counts = [countAt(i.openedBy.at), ...layouts.filter((l) => l.at > i.openedBy.at && l.at <= (i.closedBy?.at ?? Infinity)).map((l) => l.count)];
        const target = i.labels.target!;
        expect(rpcs.some((r) => counts.every((c) => shardOf(r, c) === shardOf(target, c))), `seed ${seed}: ${i.id}`).toBe(true);
      }
      const starts = script.events.filter((e) => e.action === 'start-daemon');
      const outages = script.events.filter((e) => e.action === 'kill-daemon').map((e, k) => ({ from: e.at, to: starts[k]!.at + 6 }));
      for (const i of all.filter((i) => i.alertname === 'AvalancheValidatorUnreachableByPeers' && /unreachable-by-peers/.test(i.openedBy.text))) {
        const split = outages.filter((o) => o.from <= (i.closedBy?.at ?? Infinity) && i.openedBy.at <= o.to);
        expect(split, `seed ${seed}: ${i.id}`).toEqual([]);
      }
      for (const e of script.events) {
        if (e.action === 'silence') silences++;
        if (e.action === 'shards') {
          const endOf = (s: ScriptEvent) => Math.min(s.at + Number(s.params.for), script.events.find((u) => u.action === 'unsilence' && u.args[0] === s.args[0])?.at ?? Infinity);
          const open = script.events.filter((s) => s.action === 'silence' && s.at <= e.at && endOf(s) >= e.at);
          expect(open.map((s) => s.text), `seed ${seed}: a silence across ${e.text} at ${e.at}`).toEqual([]);
        }
      }
      expect(silences).toBeGreaterThanOrEqual(1);
      // held open at the end: only what the documents keep open (an unpaid period's RewardMissed, an outage that turned real)
      expect(all.filter((i) => !i.closedBy).map((i) => i.alertname).sort(), `seed ${seed}`).toEqual(['AvalancheCheckFailing', 'AvalancheValidatorRewardMissed']);
    }
  });

  it("schedules network upgrades in AvalancheGo's order: none due before an upgrade another node scheduled earlier in the week", () => {
    // A build that knows an upgrade knows every earlier one, and a running build's schedule does not change (src/sim/node.ts cannotLackUpgradeAt).
    for (const [seed, script] of scripts) {
      const upgrades = script.events.filter((e) => typeof e.params.upgradeIn === 'number').map((e) => ({ node: e.args[0]!, at: e.at, activates: e.at + (e.params.upgradeIn as number), text: e.text }));
      for (const later of upgrades) {
        const passed = upgrades.filter((earlier) => earlier.at < later.at && earlier.node !== later.node && earlier.activates >= later.activates);
        expect(passed.map((e) => e.text), `seed ${seed}: ${later.text}`).toEqual([]);
      }
    }
  });

  it('leaves the baseline observers their view and the RPC witnesses healthy inside an ingress grace', () => {
    for (const [seed, script] of scripts) {
      const observers = script.fleet.filter((n) => n.options.role === 'validator').slice(0, 3).map((n) => n.name);
      for (const e of script.events.filter((x) => observers.includes(x.args[0]!))) {
        expect(scenarioOf(e).filter((s) => ['network-down', 'lying-observer', 'unreachable-by-peers', 'proxy-error', 'reset', 'bootstrapping'].includes(s)), `seed ${seed}: ${e.text}`).toEqual([]);
      }
      for (const r of script.events.filter((e) => e.action === 'restart' && typeof e.params.ingressGraceSeconds === 'number')) {
        const node = r.args[0]!;
        const closed = script.events.filter((e) => e.args[0] === node && e.action === 'scenario');
        const from = closed.filter((e) => e.at <= r.at).at(-1)!.at;
        const to = closed.find((e) => e.at > r.at)!.at;
        const rpc = script.events.filter((e) => e.args[0]?.startsWith('rpc-') && e.at >= from && e.at <= to);
        expect(rpc.map((e) => e.text), `seed ${seed}`).toEqual([]);
      }
    }
  });
});
