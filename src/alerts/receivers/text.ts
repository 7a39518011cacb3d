/** Human text for chat receivers: what one poll round changed for one target, in one line. */
import { listNames } from '../rules.js';
import type { AlertNotice, NotificationBatch } from '../types.js';

const PHRASES: Record<string, [string, string]> = {
  AvalancheNodeUnreachable: ['unreachable', 'reachable again'],
  AvalancheNodeUnhealthy: ['unhealthy', 'healthy again'],
  AvalancheNodeNotReady: ['not ready', 'ready'],
  AvalancheServiceUnhealthy: ['unhealthy', 'healthy again'],
  AvalancheDiskLow: ['disk low', 'disk space recovered'],
  AvalancheValidatorEndingSoon: ['validation ending soon', 'validation renewed'],
};

const GROUPED = new Set(['AvalancheCheckFailing', 'AvalancheServiceComponentDown', 'AvalancheNodeHeightLag']);

/** "validator-1: C, P, X and network failing; unhealthy". */
export function headline(batch: NotificationBatch): string {
  const parts: string[] = [];
  const group = (status: AlertNotice['status'], verb: string, label: string, alertname: string) => {
    const names = batch.alerts.filter((a) => a.status === status && a.labels.alertname === alertname).map((a) => a.labels[label]!);
    if (names.length > 0) parts.push(`${listNames(names)} ${verb}`);
  };
  // Alerts without a phrase of their own (a test, a future rule) say their summary.
  for (const a of batch.alerts) if (!GROUPED.has(a.labels.alertname!) && !PHRASES[a.labels.alertname!]) parts.push(a.annotations.summary);
  group('firing', 'failing', 'check', 'AvalancheCheckFailing');
  group('firing', 'down', 'component', 'AvalancheServiceComponentDown');
  group('firing', 'behind', 'chain', 'AvalancheNodeHeightLag');
  for (const a of batch.alerts.filter((x) => x.status === 'firing' && PHRASES[x.labels.alertname!])) parts.push(PHRASES[a.labels.alertname!]![0]);
  group('resolved', 'recovered', 'check', 'AvalancheCheckFailing');
  group('resolved', 'up again', 'component', 'AvalancheServiceComponentDown');
  group('resolved', 'caught up', 'chain', 'AvalancheNodeHeightLag');
  for (const a of batch.alerts.filter((x) => x.status === 'resolved' && PHRASES[x.labels.alertname!])) parts.push(PHRASES[a.labels.alertname!]![1]);
  return `${batch.target}: ${parts.join('; ')}`;
}

export function isAllResolved(batch: NotificationBatch): boolean {
  return batch.alerts.every((a) => a.status === 'resolved');
}

export function worstSeverity(batch: NotificationBatch): string {
  return batch.alerts.some((a) => a.status === 'firing' && a.labels.severity === 'critical') ? 'critical' : 'warning';
}

/** One line per alert: "AvalancheCheckFailing C (critical, reminder): not connected to enough stake…". */
export function detailLines(batch: NotificationBatch): string[] {
  return batch.alerts.map((a) => {
    const subject = a.labels.check ?? a.labels.component ?? a.labels.chain;
    const tags = [a.status === 'resolved' ? 'resolved' : a.labels.severity, a.kind === 'firing' || a.kind === 'resolved' ? undefined : a.kind.replace('_', ' ')].filter(Boolean).join(', ');
    return `${a.labels.alertname}${subject ? ` ${subject}` : ''} (${tags}): ${a.status === 'resolved' ? a.annotations.summary : a.annotations.description}`;
  });
}

export function truncate(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}
