/** Human text for chat receivers: what one poll round changed for one target, in one line. */
import { RULES } from '../rules/index.js';
import { listNames } from '../rules/format.js';
import type { AlertNotice, NotificationBatch } from '../types.js';
import { cutText, wellFormed } from '../../util/text.js';
import { visibleControls } from '../../util/visible.js';

const PHRASED = new Map(RULES.flatMap((r) => (r.phrases ? [[r.name as string, r.phrases] as const] : [])));

/** "validator-1: C, P, X and network failing; unhealthy". */
export function headline(batch: NotificationBatch): string {
  const parts: string[] = [];
  const phrases = (a: AlertNotice) => PHRASED.get(a.labels.alertname!);
  // Alerts without a phrase of their own (a test, a rule without words) say their summary.
  for (const a of batch.alerts) if (!phrases(a)) parts.push(a.annotations.summary);
  for (const status of ['firing', 'resolved'] as const) {
    for (const rule of RULES) {
      const words = rule.phrases;
      if (!words?.subject) continue;
      const names = batch.alerts.filter((a) => a.status === status && a.labels.alertname === rule.name).map((a) => a.labels[words.subject!]!);
      if (names.length > 0) parts.push(`${listNames(names)} ${words[status]}`);
    }
    for (const a of batch.alerts) {
      const words = phrases(a);
      if (a.status === status && words && !words.subject) parts.push(words[status]);
    }
  }
  return `${batch.target}: ${parts.join('; ')}`;
}

/** The page a message links to: the target's, or the status page for a test notification (whose target is no target). */
export function pageLink(batch: NotificationBatch, externalUrl: string): string {
  return batch.alerts.every((a) => a.kind === 'test') ? `${externalUrl}/` : `${externalUrl}/targets/${encodeURIComponent(batch.target)}`;
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

/** Untrusted text inside HTML (Telegram's HTML parse mode, email's HTML part): `& < > "` as entities, well-formed, control characters visible. */
export function escapeHtml(text: string): string {
  return visibleControls(wellFormed(text)).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

/** Within `max` characters: cut between characters, at a word where one ends near the limit, with `…`. */
export function truncate(text: string, max: number): string {
  return cutText(text, max);
}
