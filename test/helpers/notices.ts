/** Alert notices and batches as the engine makes them, for receiver tests. */
import type { AlertNotice, BatchSink, NotificationBatch } from '../../src/alerts/types.js';

export const START = '2026-11-22T12:00:00.000Z';

export const notice = (check: string, status: 'firing' | 'resolved' = 'firing', severity = 'warning'): AlertNotice => ({
  status,
  kind: status,
  labels: { alertname: 'AvalancheCheckFailing', target: 'validator-1', check, env: 'mainnet', severity },
  annotations: { summary: `validator-1: check ${check} failing`, description: `${check} <broken> & "odd"` },
  startsAt: START,
  endsAt: status === 'resolved' ? '2026-11-22T12:05:00.000Z' : '0001-01-01T00:00:00Z',
  fingerprint: `fp-${check}`,
  generatorURL: 'http://avahealth:9660/targets/validator-1',
});

export const batch = (alerts: AlertNotice[]): NotificationBatch => ({ id: 'msg_2Kv1', target: 'validator-1', createdAt: Date.parse(START), alerts });

/** A sink that keeps every batch the alert pipeline hands it (as the notifier would receive them). */
export const sinkInto = (batches: NotificationBatch[]): BatchSink => ({ dispatch: (b) => void batches.push(b), pendingWrites: () => undefined, resendIntervalMs: () => undefined });
