/** The state stage alone: the state file waits for the outboxes' lines; reconcile follows what receivers were told. */
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { fingerprint, keyOf } from '../../../src/alerts/incidents.js';
import { announcedIncident, reconcile, reopen, StateFile, type IncidentBook } from '../../../src/alerts/persistence.js';
import type { AlertNotice, AlertState } from '../../../src/alerts/types.js';
import { createLogger } from '../../../src/log.js';
import { waitFor } from '../../helpers/harness.js';

const T0 = Date.UTC(2026, 10, 22, 12);
const KEY = 'AvalancheCheckFailing|v1|C||';
const log = createLogger({ level: 'silent', format: 'json' });

const firing = (since: number): AlertState => ({
  key: KEY, fingerprint: fingerprint(KEY), alertname: 'AvalancheCheckFailing', target: 'v1', labels: { alertname: 'AvalancheCheckFailing', target: 'v1', check: 'C' },
  annotations: { summary: 's', description: 'd' }, phase: 'firing', state: 'firing', severity: 'warning', consecutive: 1, okPolls: 0, activeSince: since, firingSince: since,
  notified: { phase: 'firing', severity: 'warning', at: since, since },
});
const told = (since: number): AlertNotice => ({ status: 'firing', kind: 'firing', labels: { ...firing(since).labels, severity: 'warning' }, annotations: { summary: 's', description: 'd' }, startsAt: new Date(since).toISOString(), endsAt: '0001-01-01T00:00:00Z', fingerprint: fingerprint(KEY), key: KEY, generatorURL: '' });

describe('state stage', () => {
  it('writes the incidents only once the outboxes say their lines are on disk, and reads them back', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'avahealth-statefile-'));
    let release!: () => void;
    const outbox = new Promise<void>((resolve) => (release = resolve));
    const file = new StateFile(dir, log, { snapshot: () => JSON.stringify({ version: 1, alerts: [firing(T0)], flaps: { [KEY]: [T0] } }), outboxesWritten: () => outbox });
    const written = file.flush();
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(existsSync(join(dir, 'alerts.json'))).toBe(false);
    release();
    await written;
    expect(JSON.parse(readFileSync(join(dir, 'alerts.json'), 'utf8')).alerts).toHaveLength(1);
    expect(new StateFile(dir, log, { snapshot: () => '', outboxesWritten: () => undefined }).restore()).toMatchObject({ incidents: [{ key: KEY, phase: 'firing' }], flaps: { [KEY]: [T0] } });
  });

  // Seed 37 of the trust week: a flapping check passed at the kill and at the first poll after the
  // start; the saved count made those polls consecutive, and the incident resolved at once.
  it('counts good polls again from the start: polls on either side of the time away are not consecutive', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'avahealth-statefile-'));
    const fading = { ...firing(T0), okPolls: 2 };
    await new StateFile(dir, log, { snapshot: () => JSON.stringify({ version: 1, alerts: [fading] }), outboxesWritten: () => undefined }).flush();
    const [restored] = new StateFile(dir, log, { snapshot: () => '', outboxesWritten: () => undefined }).restore().incidents;
    expect(restored).toMatchObject({ key: KEY, phase: 'firing', okPolls: 0, consecutive: 1 });
  });

  it('reconcile: an incident open at a receiver fires here under the startsAt it was told; one told resolved everywhere starts over', () => {
    const reopenedBook: IncidentBook = new Map();
    expect(reconcile(reopenedBook, { open: new Map([[fingerprint(KEY), { at: T0, alert: told(T0) }]]), routed: () => true }, (s) => told(s.firingSince!))).toEqual({ reopened: 1, closed: 0 });
    expect(reopenedBook.get('v1')!.get(KEY)).toMatchObject({ phase: 'firing', firingSince: T0, notified: { phase: 'firing', since: T0 } });

    const closedBook: IncidentBook = new Map([['v1', new Map([[KEY, firing(T0)]])]]);
    expect(reconcile(closedBook, { open: new Map(), routed: () => true }, (s) => told(s.firingSince!))).toEqual({ reopened: 0, closed: 1 });
    expect(closedBook.size).toBe(0);
    const unrouted: IncidentBook = new Map([['v1', new Map([[KEY, firing(T0)]])]]);
    expect(reconcile(unrouted, { open: new Map(), routed: () => false }, (s) => told(s.firingSince!))).toEqual({ reopened: 0, closed: 0 });
  });

  it('reopen: an incident told without its key is known by its fingerprint; one that names no incident of ours is skipped', () => {
    const { key: _key, ...keyless } = told(T0);
    const otherKey = 'AvalancheCheckFailing|v0|P||';
    const known: IncidentBook = new Map([
      ['v0', new Map([[otherKey, { ...firing(T0), key: otherKey, fingerprint: fingerprint(otherKey), target: 'v0' }]])], // another incident first: the one with this fingerprint is found
      ['v1', new Map([[KEY, { ...firing(T0 - 60_000), phase: 'resolved', state: 'resolved', notified: { phase: 'resolved', severity: 'warning', at: T0 } }]])],
    ]);
    expect(reopen(known, [{ at: T0, alert: keyless }])).toBe(1);
    expect(known.get('v1')!.get(KEY)).toMatchObject({ phase: 'resolved', firingSince: T0, notified: { phase: 'firing', since: T0, labels: { alertname: 'AvalancheCheckFailing', target: 'v1', check: 'C' } } });
    expect(known.get('v1')!.get(KEY)!.notified!.labels).not.toHaveProperty('severity');

    const empty: IncidentBook = new Map();
    expect(reopen(empty, [{ at: T0, alert: keyless }])).toBe(0); // no key and no state with that fingerprint
    const forged = { ...told(T0), fingerprint: fingerprint('AvalancheCheckFailing|v2|C||') }; // the key is not that fingerprint's
    expect(reopen(empty, [{ at: T0, alert: forged }])).toBe(0);
    const { alertname: _a, ...noName } = told(T0).labels;
    const { target: _t, ...noTarget } = told(T0).labels;
    expect(reopen(empty, [{ at: T0, alert: { ...told(T0), labels: noName } }, { at: T0, alert: { ...told(T0), labels: noTarget } }])).toBe(0);
    expect(empty.size).toBe(0);
  });

  it('reopen: what it opens, at which severity, and what it leaves when the same firing is already told', () => {
    const book: IncidentBook = new Map([['v1', new Map([[KEY, { ...firing(T0), phase: 'pending', state: 'pending', consecutive: 2, notified: undefined, firingSince: undefined }]])]]);
    const critical = { ...told(T0), labels: { ...told(T0).labels, severity: 'critical' } };
    expect(reopen(book, [{ at: T0 + 5_000, alert: critical }])).toBe(1);
    // a pending incident becomes the firing one receivers were told of, its consecutive failures kept
    expect(book.get('v1')!.get(KEY)).toEqual({
      key: KEY, fingerprint: fingerprint(KEY), alertname: 'AvalancheCheckFailing', target: 'v1', labels: { alertname: 'AvalancheCheckFailing', target: 'v1', check: 'C' },
      annotations: { summary: 's', description: 'd' }, phase: 'firing', state: 'firing', severity: 'critical', consecutive: 2, okPolls: 0, activeSince: T0, firingSince: T0,
      notified: { phase: 'firing', severity: 'critical', at: T0 + 5_000, since: T0, labels: { alertname: 'AvalancheCheckFailing', target: 'v1', check: 'C' } },
    });
    expect(reopen(book, [{ at: T0 + 9_000, alert: critical }])).toBe(0); // told already: nothing changes
    expect(book.get('v1')!.get(KEY)!.notified!.at).toBe(T0 + 5_000);

    const oddSeverity = { ...told(T0), labels: { ...told(T0).labels, severity: 'page' } };
    const fresh: IncidentBook = new Map();
    expect(reopen(fresh, [{ at: T0, alert: oddSeverity }])).toBe(1);
    expect(fresh.get('v1')!.get(KEY)).toMatchObject({ severity: 'warning', consecutive: 1, notified: { severity: 'warning' } });

    // firing here under the startsAt it was told with; without a `since` the firingSince is that startsAt
    const legacy: IncidentBook = new Map([['v1', new Map([[KEY, { ...firing(T0), notified: { phase: 'firing', severity: 'warning', at: T0 } }]])]]);
    expect(reopen(legacy, [{ at: T0, alert: told(T0) }])).toBe(0);
    expect(reopen(legacy, [{ at: T0, alert: told(T0 - 60_000) }])).toBe(1);
    expect(legacy.get('v1')!.get(KEY)).toMatchObject({ firingSince: T0 - 60_000, activeSince: T0, notified: { since: T0 - 60_000 } });
  });

  it('reconcile: a pending incident told resolved everywhere forgets it was told; other targets and resolved ones are left', () => {
    const other = 'AvalancheCheckFailing|v2|C||';
    const pending: AlertState = { ...firing(T0), phase: 'pending', state: 'pending' };
    const toldResolved: AlertState = { ...firing(T0), key: other, fingerprint: fingerprint(other), target: 'v2', notified: { phase: 'resolved', severity: 'warning', at: T0 } };
    const untoldKey = 'AvalancheCheckFailing|v2|P||';
    const untold: AlertState = { ...firing(T0), key: untoldKey, fingerprint: fingerprint(untoldKey), target: 'v2', notified: undefined };
    const book: IncidentBook = new Map([
      ['v1', new Map([[KEY, pending]])],
      ['v2', new Map([[other, toldResolved], [untoldKey, untold]])],
    ]);
    expect(reconcile(book, { open: new Map(), routed: () => true }, (s) => told(s.firingSince!))).toEqual({ reopened: 0, closed: 1 });
    expect(book.get('v1')!.get(KEY)).toMatchObject({ phase: 'pending' });
    expect(book.get('v1')!.get(KEY)).not.toHaveProperty('notified');
    expect(book.get('v2')!.get(other)!.notified).toEqual({ phase: 'resolved', severity: 'warning', at: T0 });
    expect(book.get('v2')!.get(untoldKey)).toBe(untold); // never told: nothing to follow
  });

  it('announcedIncident: an incident of ours named by its labels, its words our own, its identity without the config\'s labels', () => {
    const announced = { labels: { alertname: 'AvalancheCheckFailing', target: 'node a', check: 'C', env: 'mainnet', region: 'eu', scope: 'self', severity: 'critical' }, startsAt: new Date(T0).toISOString() };
    const incident = announcedIncident(announced, { env: 'mainnet', region: 'us' }, 'http://avahealth:9660', T0 + 1_000)!;
    const key = keyOf('AvalancheCheckFailing', 'node a', { check: 'C', region: 'eu' });
    expect(key).toBe('AvalancheCheckFailing|node a|C|||region=eu');
    expect(incident).toEqual({
      at: T0 + 1_000,
      alert: {
        labels: announced.labels, startsAt: announced.startsAt, status: 'firing', kind: 'firing', endsAt: '0001-01-01T00:00:00Z', fingerprint: fingerprint(key), key,
        generatorURL: 'http://avahealth:9660/targets/node%20a',
        annotations: { summary: 'node a: AvalancheCheckFailing, continued from the avahealth that polled it before', description: 'Handed over at a change of the shard count; this avahealth polls node a now and tells what its next polls find.' },
      },
    });
    expect(announcedIncident({ ...announced, labels: { target: 'v1' } }, {}, '', T0)).toBeUndefined();
    expect(announcedIncident({ ...announced, labels: { alertname: 'AvalancheCheckFailing' } }, {}, '', T0)).toBeUndefined();
  });

  it('a state file that cannot be read is set aside and nothing is restored; saves are gathered into one', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'avahealth-statefile-'));
    writeFileSync(join(dir, 'alerts.json'), '{"alerts": [{"key": 1}]}');
    let snapshots = 0;
    const file = new StateFile(dir, log, { snapshot: () => JSON.stringify({ version: 1, alerts: [firing(T0)], snapshot: ++snapshots }), outboxesWritten: () => undefined });
    expect(file.restore()).toEqual({ incidents: [], flaps: {} });
    expect(readdirSync(dir).filter((name) => name.startsWith('alerts.json.'))).toHaveLength(1); // set aside beside it
    expect(existsSync(join(dir, 'alerts.json'))).toBe(false);
    file.schedule();
    file.schedule();
    await waitFor('the scheduled save', () => existsSync(join(dir, 'alerts.json')), 10_000);
    expect(JSON.parse(readFileSync(join(dir, 'alerts.json'), 'utf8')).snapshot).toBe(1);
    expect(snapshots).toBe(1);
    expect(file.restore()).toEqual({ incidents: [expect.objectContaining({ key: KEY })], flaps: {} });
  });

  it('saves scheduled within a second are one save', () => {
    vi.useFakeTimers();
    try {
      const dir = mkdtempSync(join(tmpdir(), 'avahealth-statefile-'));
      let snapshots = 0;
      const file = new StateFile(dir, log, { snapshot: () => JSON.stringify({ version: 1, alerts: [], snapshot: ++snapshots }), outboxesWritten: () => undefined });
      file.schedule();
      vi.advanceTimersByTime(250);
      file.schedule();
      vi.advanceTimersByTime(250);
      file.schedule();
      vi.advanceTimersByTime(500);
      expect(snapshots).toBe(1);
      vi.advanceTimersByTime(5_000);
      expect(snapshots).toBe(1);
      file.schedule(); // after a save, the next change schedules another
      vi.advanceTimersByTime(1_000);
      expect(snapshots).toBe(2);
    } finally {
      vi.useRealTimers();
    }
  });
});

