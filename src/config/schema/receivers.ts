/**
 * `alerts.receivers[]`: each receiver has exactly one kind; its settings resolve to the
 * ReceiverConfig the notifier sends with (URL, signing secret, routing key, and the secrets to redact).
 */
import { z } from 'zod';
import { duration, headers, isHttpUrl, matchers, report, secretField, secretValue, targetName } from '../primitives.js';

export const severity = z.enum(['warning', 'critical']);

export const RECEIVER_KINDS = ['webhook', 'slack', 'discord', 'pagerduty', 'alertmanager'] as const;
export type ReceiverKind = (typeof RECEIVER_KINDS)[number];

const kinds = {
  webhook: z
    .strictObject({ ...secretField('url'), ...secretField('secret'), headers: headers.optional() })
    .describe('Alertmanager-format JSON (version 4), signed per Standard Webhooks when secret is set.'),
  slack: z.strictObject({ ...secretField('url') }).describe('Slack incoming webhook (it posts to the channel it was created for).'),
  discord: z.strictObject({ ...secretField('url') }).describe('Discord webhook.'),
  pagerduty: z
    .strictObject({ ...secretField('routing_key'), url: z.string().prefault('https://events.pagerduty.com/v2/enqueue').describe('Events API v2 endpoint.') })
    .describe('PagerDuty Events API v2.'),
  alertmanager: z
    .strictObject({ url: z.string().describe('Alertmanager base URL; alerts are POSTed to /api/v2/alerts.'), resend_interval: duration().prefault('1m') })
    .describe('Prometheus Alertmanager (the way to run several replicas: it deduplicates).'),
};
type KindSettings = { [K in ReceiverKind]: z.output<(typeof kinds)[K]> };

/** A secret URL, and its path and query on their own (where webhook tokens live; receivers echo paths). */
function urlSecrets(url: string): string[] {
  const { pathname, search } = new URL(url);
  const tail = `${pathname}${search}`;
  return tail.length >= 8 ? [url, tail] : [url];
}

const urlOf = (kind: ReceiverKind, settings: Record<string, unknown>) => (kind === 'pagerduty' || kind === 'alertmanager' ? (settings.url as string) : secretValue(settings, 'url'));

export const receiverSchema = z
  .strictObject({
    name: targetName.describe('Receiver name (routing, metrics, notify-test).'),
    matchers: matchers.optional().describe('Only alerts whose labels match.'),
    min_severity: severity.prefault('warning').describe('Only alerts at least this severe.'),
    ...(Object.fromEntries(RECEIVER_KINDS.map((kind) => [kind, kinds[kind].optional()])) as { [K in ReceiverKind]: z.ZodOptional<(typeof kinds)[K]> }),
  })
  .superRefine((r, ctx) => {
    const present = RECEIVER_KINDS.filter((k) => r[k] !== undefined);
    if (present.length !== 1) {
      report(ctx, [], `receiver "${r.name}" needs exactly one of ${RECEIVER_KINDS.join(', ')}${present.length > 1 ? ` (has ${present.join(', ')})` : ''}`);
      return;
    }
    const kind = present[0]!;
    const settings = r[kind] as Record<string, unknown>;
    // A missing or emptied field is reported at the field when it is written (naming an unset variable).
    const at = (field: string) => (settings[field] !== undefined ? [kind, field] : [kind]);
    const url = urlOf(kind, settings);
    if (!url || !isHttpUrl(url)) {
      report(ctx, at('url'), `receiver "${r.name}": ${kind} needs an http(s) url${kind === 'alertmanager' || kind === 'pagerduty' ? '' : ' (url or url_file)'}`);
    }
    if (kind === 'pagerduty' && !secretValue(settings, 'routing_key')) {
      report(ctx, at('routing_key'), `receiver "${r.name}": pagerduty needs routing_key or routing_key_file`);
    }
  })
  .transform((r) => {
    const kind = RECEIVER_KINDS.find((k) => r[k] !== undefined)!;
    const settings = r[kind] as Partial<KindSettings['webhook'] & KindSettings['pagerduty'] & KindSettings['alertmanager']>;
    const url = urlOf(kind, settings)!;
    const secrets = kind === 'alertmanager' || kind === 'pagerduty' ? [] : urlSecrets(url);
    const secret = kind === 'webhook' ? secretValue(settings, 'secret') : undefined;
    const routingKey = kind === 'pagerduty' ? secretValue(settings, 'routing_key') : undefined;
    for (const value of [secret, routingKey]) if (value) secrets.push(value);
    return {
      name: r.name,
      kind,
      matchers: r.matchers ?? [],
      minSeverity: r.min_severity,
      url: url.replace(/\/+$/, kind === 'alertmanager' ? '' : '$&'),
      ...(secret ? { secret } : {}),
      ...(routingKey ? { routingKey } : {}),
      headers: settings.headers ?? {},
      /** Alertmanager only: how often the firing set is re-sent (0 for the other kinds). */
      resendIntervalMs: settings.resend_interval ?? 0,
      /** URLs, keys and secrets: never logged or shown. */
      secrets,
    };
  });

export type ReceiverConfig = z.output<typeof receiverSchema>;
