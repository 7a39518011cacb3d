/** The state stage alone: the state file waits for the outboxes' lines; reconcile follows what receivers were told. */
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { fingerprint } from '../../../src/alerts/incidents.js';
import { reconcile, StateFile, type IncidentBook } from '../../../src/alerts/persistence.js';
import type { AlertNotice, AlertState } from '../../../src/alerts/types.js';
import { createLogger } from '../../../src/log.js';

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
});
