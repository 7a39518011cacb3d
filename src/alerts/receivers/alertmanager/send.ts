/**
 * Prometheus Alertmanager: POST /api/v2/alerts. Firing alerts carry an endsAt a few resend
 * intervals ahead and are re-sent while they fire (every `resend_interval`), so Alertmanager keeps
 * them active; resolved ones carry their real endsAt. Several avahealth replicas can all send:
 * Alertmanager deduplicates by labels.
 */
import type { NotificationBatch } from '../../types.js';
import { defineSender } from '../receiver.js';

export function alertmanagerPayload(batch: NotificationBatch, now: number, resendIntervalMs: number) {
  return batch.alerts.map((a) => ({
    labels: a.labels,
    annotations: a.annotations,
    startsAt: a.startsAt,
    endsAt: a.status === 'resolved' ? a.endsAt : new Date(now + 4 * resendIntervalMs).toISOString(),
    generatorURL: a.generatorURL,
  }));
}

export default defineSender(
  'alertmanager',
  async (batch, receiver, ctx) => {
    const body = JSON.stringify(alertmanagerPayload(batch, ctx.now, receiver.settings.resendIntervalMs));
    await ctx.post({ url: `${receiver.settings.url}/api/v2/alerts`, headers: { 'content-type': 'application/json' }, body });
  },
  { resendIntervalMs: (receiver) => receiver.settings.resendIntervalMs },
);
