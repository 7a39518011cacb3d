/**
 * Prometheus Alertmanager: POST /api/v2/alerts, after a batch's silence ops (silences.ts: avahealth's
 * silences mirrored there, planned by mirror.ts). Firing alerts carry an endsAt a few resend
 * intervals ahead and are re-sent while they fire (every `resend_interval`), so Alertmanager keeps
 * them active; resolved ones carry their real endsAt. When an incident's severity or scope changes,
 * the copy Alertmanager holds under its old labels is ended in the same request. Several avahealth replicas can all send:
 * Alertmanager deduplicates by labels.
 */
import type { NotificationBatch } from '../../types.js';
import { defineSender } from '../receiver.js';
import { applySilenceOps } from './silences.js';

export function alertmanagerPayload(batch: NotificationBatch, now: number, resendIntervalMs: number) {
  return batch.alerts.flatMap((a) => {
    const current = {
      labels: a.labels,
      annotations: a.annotations,
      startsAt: a.startsAt,
      endsAt: a.status === 'resolved' ? a.endsAt : new Date(now + 4 * resendIntervalMs).toISOString(),
      generatorURL: a.generatorURL,
    };
    // Alertmanager keys an alert by its labels: the copy it holds under the labels the incident was
    // last told with (a severity or scope since changed) ends now, rather than lingering until it expires.
    const stale = a.previousLabels ? [{ ...current, labels: a.previousLabels, endsAt: new Date(now).toISOString() }] : [];
    return [...stale, current];
  });
}

export default defineSender(
  'alertmanager',
  async (batch, receiver, ctx) => {
    if (batch.silences && batch.silences.length > 0) await applySilenceOps(batch.silences, receiver, ctx);
    if (batch.alerts.length === 0) return;
    const body = JSON.stringify(alertmanagerPayload(batch, ctx.now, receiver.settings.resendIntervalMs));
    await ctx.post({ url: `${receiver.settings.url}/api/v2/alerts`, headers: { 'content-type': 'application/json' }, body });
  },
  { resendIntervalMs: (receiver) => receiver.settings.resendIntervalMs },
);
