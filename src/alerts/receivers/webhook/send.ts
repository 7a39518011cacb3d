/**
 * Generic webhook: the Alertmanager webhook payload (version 4), signed per Standard Webhooks when
 * a secret is set: `webhook-id`, `webhook-timestamp`, and `webhook-signature: v1,<base64 HMAC-SHA256
 * of "id.timestamp.body">`, with a `whsec_`-prefixed secret base64-decoded as the standard says.
 */
import { createHmac } from 'node:crypto';
import type { NotificationBatch } from '../../types.js';
import { defineSender } from '../receiver.js';

export function webhookPayload(batch: NotificationBatch, receiver: string, externalUrl: string) {
  const common = <T extends Record<string, string>>(pick: (a: NotificationBatch['alerts'][number]) => T): Record<string, string> => {
    const [first, ...rest] = batch.alerts.map(pick);
    return Object.fromEntries(Object.entries(first ?? {}).filter(([k, v]) => rest.every((r) => r[k] === v)));
  };
  return {
    version: '4',
    groupKey: `{}:{target=${JSON.stringify(batch.target)}}`,
    truncatedAlerts: 0,
    status: batch.alerts.some((a) => a.status === 'firing') ? 'firing' : 'resolved',
    receiver,
    groupLabels: { target: batch.target },
    commonLabels: common((a) => a.labels),
    commonAnnotations: common((a) => a.annotations),
    externalURL: externalUrl,
    alerts: batch.alerts.map((a) => ({
      status: a.status,
      labels: a.labels,
      annotations: a.annotations,
      startsAt: a.startsAt,
      endsAt: a.endsAt,
      generatorURL: a.generatorURL,
      fingerprint: a.fingerprint,
    })),
  };
}

export function signingKey(secret: string): Buffer {
  return secret.startsWith('whsec_') ? Buffer.from(secret.slice('whsec_'.length), 'base64') : Buffer.from(secret, 'utf8');
}

export function sign(secret: string, id: string, timestamp: number, body: string): string {
  return `v1,${createHmac('sha256', signingKey(secret)).update(`${id}.${timestamp}.${body}`).digest('base64')}`;
}

export default defineSender('webhook', async (batch, receiver, ctx) => {
  const { settings } = receiver;
  const body = JSON.stringify(webhookPayload(batch, receiver.name, ctx.externalUrl));
  const headers: Record<string, string> = { ...settings.headers, 'content-type': 'application/json' };
  if (settings.secret) {
    // The id is the batch's, the same on every retry; the timestamp is the attempt's.
    const timestamp = Math.floor(ctx.now / 1000);
    headers['webhook-id'] = batch.id;
    headers['webhook-timestamp'] = String(timestamp);
    headers['webhook-signature'] = sign(settings.secret, batch.id, timestamp, body);
  }
  await ctx.post({ url: settings.url, headers, body });
});
