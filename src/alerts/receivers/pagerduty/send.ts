/** PagerDuty Events API v2: one trigger or resolve event per alert, deduplicated by its fingerprint. */
import type { AlertNotice } from '../../types.js';
import { defineSender } from '../receiver.js';
import { truncate } from '../text.js';

export function pagerdutyEvent(alert: AlertNotice, routingKey: string) {
  if (alert.status === 'resolved') return { routing_key: routingKey, event_action: 'resolve', dedup_key: alert.fingerprint };
  return {
    routing_key: routingKey,
    event_action: 'trigger',
    dedup_key: alert.fingerprint,
    payload: {
      summary: truncate(alert.annotations.summary, 1024),
      source: alert.labels.target,
      severity: alert.labels.severity === 'critical' ? 'critical' : 'warning',
      timestamp: alert.startsAt,
      component: alert.labels.check ?? alert.labels.component ?? alert.labels.chain ?? alert.labels.target,
      group: alert.labels.target,
      class: alert.labels.alertname,
      custom_details: { description: alert.annotations.description, labels: alert.labels, notification: alert.kind },
    },
    links: [{ href: alert.generatorURL, text: 'avahealth' }],
  };
}

export default defineSender('pagerduty', async (batch, receiver, ctx) => {
  for (const alert of batch.alerts) {
    await ctx.post({ url: receiver.settings.url, headers: { 'content-type': 'application/json' }, body: JSON.stringify(pagerdutyEvent(alert, receiver.settings.routingKey)) });
  }
});
