/** PagerDuty Events API v2: one trigger or resolve event per alert, deduplicated by its fingerprint. */
import type { AlertNotice } from '../../types.js';
import { wellFormed } from '../../../util/text.js';
import { oneLine } from '../../../util/visible.js';
import { badRequest, defineSender } from '../receiver.js';
import { truncate } from '../text.js';

/** An event's summary is at most 1,024 characters. */
const MAX_SUMMARY = 1024;

/** `plain`: after PagerDuty refused the event ("Event object is invalid"), the summary made safe and nothing but the labels in its details. */
export function pagerdutyEvent(alert: AlertNotice, routingKey: string, plain = false) {
  if (alert.status === 'resolved') return { routing_key: routingKey, event_action: 'resolve', dedup_key: alert.fingerprint };
  return {
    routing_key: routingKey,
    event_action: 'trigger',
    dedup_key: alert.fingerprint,
    payload: {
      summary: truncate(plain ? oneLine(wellFormed(alert.annotations.summary)) : alert.annotations.summary, MAX_SUMMARY),
      source: alert.labels.target,
      severity: alert.labels.severity === 'critical' ? 'critical' : 'warning',
      timestamp: alert.startsAt,
      component: alert.labels.check ?? alert.labels.component ?? alert.labels.chain ?? alert.labels.target,
      group: alert.labels.target,
      class: alert.labels.alertname,
      custom_details: plain ? { labels: alert.labels } : { description: alert.annotations.description, labels: alert.labels, notification: alert.kind },
    },
    links: [{ href: alert.generatorURL, text: 'avahealth' }],
  };
}

export default defineSender(
  'pagerduty',
  async (batch, receiver, ctx) => {
    for (const alert of batch.alerts) {
      await ctx.post({ url: receiver.settings.url, headers: { 'content-type': 'application/json' }, body: JSON.stringify(pagerdutyEvent(alert, receiver.settings.routingKey, ctx.plain)) });
    }
  },
  { refusesContent: badRequest },
);
