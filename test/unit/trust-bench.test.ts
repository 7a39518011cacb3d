/**
 * The trust benchmark's script parser and scorer (bench/trust/): the shipped week parses, and what
 * a receiver was told is counted as the docs say (docs/alerting.md, "How we measure trust").
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseScript } from '../../bench/trust/script.js';
import { score, type Alert, type Message } from '../../bench/trust/score.js';
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
    expect(script.events[0]).toMatchObject({ action: 'scenario', args: ['v1', 'disk-low'], truth: { open: [{ id: 'disk', alertname: 'AvalancheDiskLow', labels: { target: 'v1' }, also: ['AvalancheNodeUnhealthy'] }] } });
    expect(script.events[3]!.pending).toBe('issue 33');
    expect(script.events[4]!.truth.notice).toBe(true);
    expect(script.events[4]!.params).toEqual({ uptimePercent: 65 });
    // a pending event opens nothing
    expect([...script.incidents.keys()]).toEqual(['disk']);
    expect(script.incidents.get('disk')!.closedBy!.at).toBe(30);
  });

  it('refuses what would make the truth ambiguous', () => {
    expect(() => parseScript('10 scenario v1 disk-low => close nothing')).toThrow('week.txt:1: incident "nothing" was never opened');
    expect(() => parseScript('10 scenario v1 x => open a: X target=v1\n5 end => none')).toThrow('week.txt:2: events must be in time order');
    expect(() => parseScript('10 teleport v1 => none')).toThrow('unknown action "teleport"');
    expect(() => parseScript('10 end')).toThrow('exactly one "=> <truth>"');
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
    expect(s.summary).toEqual({ false_pages: 0, missed_incidents: 0, duplicate_pages: 0, open_at_end: 0, page_latency_p95_s: 2, resolve_latency_p95_s: 3, surface_disagreements: 0 });
    expect(s.receivers.r!.pages).toBe(1);
  });

  it("Alertmanager's twin: the warning's later resolve does not close the critical's incident", () => {
    const warn = firing('AvalancheDiskLow', { target: 'v1' }, 'warning', 'am-w');
    const crit = firing('AvalancheDiskLowCritical', { target: 'v1' }, 'critical', 'am-c');
    const s = run([at(12, warn), at(22, crit), at(25, resolved(warn)), at(31, resolved(crit))]);
    expect(s.summary).toMatchObject({ duplicate_pages: 0, open_at_end: 0, resolve_latency_p95_s: 1 });
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

  it('a target an event touched within SURFACE_GRACE_S is in transition: shown either way; a dip touches every node', () => {
    const s = score({ script, appliedAt, receivers: {}, intervalS: 1, samples: [
      { at: t0 + 12_000, surface: 'check', unhealthy: [] },
      { at: t0 + 33_000, surface: 'status', unhealthy: ['v1'] },
      { at: t0 + 52_000, surface: 'status', unhealthy: ['v1', 'v2'] },
      { at: t0 + 59_000, surface: 'status', unhealthy: ['v2'] },
    ] });
    expect(s.surfaceDisagreements).toEqual([{ at: t0 + 59_000, surface: 'status', expected: [], shown: ['v2'] }]);
  });
});
