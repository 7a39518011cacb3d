/** What a webhook receiver was told, alert by alert: the incidents it has open and any told out of order. */
import type { Captured } from './capture.js';

interface WebhookAlert {
  status: 'firing' | 'resolved';
  fingerprint: string;
  startsAt: string;
  labels: Record<string, string>;
  annotations: Record<string, string>;
}

export interface Incidents {
  /** Fingerprint → the startsAt of the firing the receiver was last told and never resolved. */
  open: Map<string, string>;
  /** Every fingerprint the receiver was ever told fired. */
  seen: Set<string>;
  /** A firing under a new startsAt while the earlier one was still open (its resolve never came). */
  reannounced: string[];
  resolves: WebhookAlert[];
}

export function incidentsOf(requests: readonly Captured[]): Incidents {
  const result: Incidents = { open: new Map(), seen: new Set(), reannounced: [], resolves: [] };
  for (const request of requests) {
    for (const alert of (request.json as { alerts?: WebhookAlert[] } | undefined)?.alerts ?? []) {
      if (alert.status === 'resolved') {
        result.open.delete(alert.fingerprint);
        result.resolves.push(alert);
        continue;
      }
      result.seen.add(alert.fingerprint);
      const earlier = result.open.get(alert.fingerprint);
      if (earlier !== undefined && earlier !== alert.startsAt) result.reannounced.push(`${alert.labels.alertname} ${alert.labels.target}: ${earlier} then ${alert.startsAt}`);
      result.open.set(alert.fingerprint, alert.startsAt);
    }
  }
  return result;
}
