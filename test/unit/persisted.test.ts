/**
 * The shapes the alerts layer keeps under state_dir (src/alerts/persisted.ts): what it wrote reads
 * back the same, field by field, and what it never writes is refused rather than trusted.
 */
import { describe, expect, it } from 'vitest';
import { alertStateFileSchema, noticeSchema, outboxOpSchema } from '../../src/alerts/persisted.js';
import type { AlertNotice, AlertState, NotificationBatch } from '../../src/alerts/types.js';

const T0 = Date.UTC(2026, 10, 22, 12);
const labels = { alertname: 'AvalancheCheckFailing', target: 'v1', check: 'C' };

const fullState: AlertState = {
  key: 'AvalancheCheckFailing|v1|C||',
  fingerprint: '0123456789abcdef',
  alertname: 'AvalancheCheckFailing',
  target: 'v1',
  labels,
  annotations: { summary: 's', description: 'd' },
  phase: 'firing',
  state: 'flapping',
  severity: 'critical',
  consecutive: 3,
  okPolls: 1,
  activeSince: T0,
  firingSince: T0 + 1,
  endedAt: T0 + 2,
  until: T0 + 3,
  notified: { phase: 'firing', severity: 'critical', at: T0 + 4, since: T0 + 1, labels },
  acknowledged: { by: 'alice', at: T0 + 5, severity: 'warning' },
  awaitsOutcome: { since: T0 + 6 },
};

const fullNotice: AlertNotice = {
  status: 'firing',
  kind: 'severity_changed',
  labels: { ...labels, severity: 'critical' },
  annotations: { summary: 's', description: 'd' },
  startsAt: new Date(T0).toISOString(),
  endsAt: '0001-01-01T00:00:00Z',
  fingerprint: '0123456789abcdef',
  generatorURL: 'http://avahealth:9660/targets/v1',
  key: 'AvalancheCheckFailing|v1|C||',
  previousLabels: { ...labels, severity: 'warning' },
  carried: { 'upgrades.json': { deadline: T0 } },
  untold: true,
};

const fullBatch: NotificationBatch = {
  id: 'msg_1',
  target: 'v1',
  createdAt: T0,
  alerts: [fullNotice],
  handover: true,
  resend: false,
  muted: true,
  silences: [
    { ensure: { id: 's1', hash: 'h1', matchers: { target: 'v1' }, startsAt: T0, endsAt: T0 + 60_000, createdBy: 'alice', comment: 'disk swap' } },
    { expire: { id: 's0', hash: 'h0' } },
    { adopt: { amId: 'am-1' } },
  ],
};

describe('what the alerts layer keeps under state_dir', () => {
  it('an alert state file reads back exactly as written, every optional field included', () => {
    const file = { alerts: [fullState, { ...fullState, phase: 'resolved', state: 'resolved', notified: { phase: 'resolved', severity: 'warning', at: T0 } }], flaps: { [fullState.key]: [T0, T0 + 1] } };
    expect(alertStateFileSchema.parse(file)).toEqual(file);
    expect(alertStateFileSchema.parse({ alerts: [] })).toEqual({ alerts: [] });
  });

  it('a state written before flap holds were visible has no `state`: it is its phase', () => {
    for (const phase of ['pending', 'firing', 'resolved'] as const) {
      const { state: _, ...old } = { ...fullState, phase };
      expect(alertStateFileSchema.parse({ alerts: [old] }).alerts[0]!.state).toBe(phase);
    }
  });

  it('a state outside the shapes is refused', () => {
    const refused = (change: Record<string, unknown>) => !alertStateFileSchema.safeParse({ alerts: [{ ...fullState, ...change }] }).success;
    expect(refused({ phase: 'flapping' })).toBe(true); // a phase is never flapping: that is the state
    expect(refused({ state: 'open' })).toBe(true);
    expect(refused({ severity: 'info' })).toBe(true);
    expect(refused({ alertname: 7 })).toBe(true);
    expect(refused({ notified: { ...fullState.notified, phase: 'pending' } })).toBe(true);
    expect(refused({ acknowledged: { by: 'x'.repeat(257), at: T0, severity: 'warning' } })).toBe(true);
    expect(refused({ acknowledged: { by: 'x'.repeat(256), at: T0, severity: 'warning' } })).toBe(false);
  });

  it('every outbox journal line reads back as written', () => {
    const lines = [
      { add: { batch: fullBatch, attempts: 2, nextAttemptAt: T0 + 10, lastError: 'HTTP 503' } },
      { done: 'msg_1' },
      { open: [{ at: T0, alert: fullNotice }] },
      { retry: { id: 'msg_1', attempts: 3, nextAttemptAt: T0 + 20, lastError: 'timeout' } },
    ];
    for (const line of lines) expect(outboxOpSchema.parse(line)).toEqual(line);
  });

  it('a notice of every kind and status, and nothing else', () => {
    for (const kind of ['firing', 'severity_changed', 'updated', 'reminder', 'resolved', 'test'] as const) expect(noticeSchema.parse({ ...fullNotice, kind })).toMatchObject({ kind });
    expect(noticeSchema.parse({ ...fullNotice, status: 'resolved' })).toMatchObject({ status: 'resolved' });
    expect(noticeSchema.safeParse({ ...fullNotice, status: 'pending' }).success).toBe(false);
    expect(noticeSchema.safeParse({ ...fullNotice, kind: 'page' }).success).toBe(false);
    expect(noticeSchema.safeParse({ ...fullNotice, untold: false }).success).toBe(false); // only ever written as true
    expect(noticeSchema.safeParse({ ...fullNotice, annotations: { summary: 's' } }).success).toBe(false);
  });

  it('a journal line of no known kind, or a silence operation of none, is refused', () => {
    expect(outboxOpSchema.safeParse({ forget: 'msg_1' }).success).toBe(false);
    const withSilence = (op: unknown) => outboxOpSchema.safeParse({ add: { batch: { ...fullBatch, silences: [op] }, attempts: 0, nextAttemptAt: 0 } }).success;
    expect(withSilence({ mute: { id: 's1' } })).toBe(false);
    expect(withSilence({ expire: { id: 's1' } })).toBe(false);
    expect(withSilence({ adopt: { amId: 'am-1' } })).toBe(true);
  });
});
