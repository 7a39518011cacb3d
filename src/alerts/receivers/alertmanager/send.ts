/**
 * Prometheus Alertmanager: POST /api/v2/alerts, after a batch's silence ops (silences.ts: avahealth's
 * silences mirrored there, planned by mirror.ts). Firing alerts carry an endsAt a few resend
 * intervals ahead and are re-sent while they fire (every `resend_interval`), so Alertmanager keeps
 * them active (one sent only to be muted, never told, no later than its silence's end); resolved
 * ones carry their real endsAt. Several avahealth replicas can all send:
 * Alertmanager deduplicates by labels.
 *
 * Alertmanager keys an alert by its labels, so an incident is sent under labels that never change
 * while it is open. Its severity follows Alertmanager's own convention: the `warning` copy is sent
 * for the incident's whole life, and while it is critical a `critical` sibling with the same labels
 * besides, which the shipped inhibit rules let hold the warning back (deploy/alertmanager). The
 * sibling ends when the incident is no longer critical, and both end together with the incident:
 * Alertmanager mutes the resolve of an inhibited alert, so the warning copy must never end while its
 * critical sibling fires, or the chat that heard it would never hear it end.
 */
import { HANDOVER_ANNOTATION, signHandover } from '../../handover.js';
import { ZERO_TIME, type AlertNotice, type NotificationBatch } from '../../types.js';
import { defineSender } from '../receiver.js';
import { applySilenceOps } from './silences.js';

type Posted = { labels: Record<string, string>; annotations: AlertNotice['annotations'] & { [HANDOVER_ANNOTATION]?: string }; startsAt: string; endsAt: string; generatorURL: string };

const bySeverity = (labels: Record<string, string>, severity: 'warning' | 'critical') => ({ ...labels, severity });

/** Whether two label sets differ in more than `severity`. */
function otherThanSeverity(a: Record<string, string>, b: Record<string, string>): boolean {
  const names = new Set([...Object.keys(a), ...Object.keys(b)].filter((name) => name !== 'severity'));
  return [...names].some((name) => a[name] !== b[name]);
}

/**
 * The alerts posted for a batch. With the fleet's `handoverKey`, each firing copy carries the signed
 * handover record (../../handover.ts) its next owner continues the incident from, standing as long
 * as the copy does.
 */
export function alertmanagerPayload(batch: NotificationBatch, now: number, resendIntervalMs: number, handoverKey?: string): Posted[] {
  const ended = new Date(now).toISOString();
  return batch.alerts.flatMap((a) => {
    const firingUntil = Math.min(now + 4 * resendIntervalMs, mutedUntil(batch, a));
    const endsAt = a.status === 'resolved' ? a.endsAt : new Date(firingUntil).toISOString();
    const copy = (labels: Record<string, string>, until = endsAt): Posted => {
      const standing = handoverKey && until === endsAt && a.status === 'firing';
      const record = standing ? { [HANDOVER_ANNOTATION]: signHandover(handoverKey, { labels, startsAt: a.startsAt, expiresAt: firingUntil, ...(a.carried ? { carried: a.carried } : {}), ...(a.untold ? { untold: true } : {}) }) } : {};
      return { labels, annotations: { ...a.annotations, ...record }, startsAt: a.startsAt, endsAt: until, generatorURL: a.generatorURL };
    };
    const critical = a.labels.severity === 'critical';
    const posted: Posted[] = [];
    const previous = a.previousLabels;
    // Labels other than severity changed (the target's static labels, on a reload): the copies held under the old ones end now.
    if (previous && otherThanSeverity(previous, a.labels)) {
      posted.push(copy(bySeverity(previous, 'warning'), ended));
      if (previous.severity === 'critical') posted.push(copy(bySeverity(previous, 'critical'), ended));
    } else if (previous?.severity === 'critical' && !critical && a.status === 'firing') {
      // No longer critical: the sibling ends, the warning copy goes on (and is heard again where it was muted).
      posted.push(copy(bySeverity(a.labels, 'critical'), ended));
    }
    posted.push(copy(bySeverity(a.labels, 'warning')));
    if (critical) posted.push(copy(bySeverity(a.labels, 'critical')));
    return posted;
  });
}

/**
 * When a copy sent only to be muted ends: one the silence mirror sends for an incident no receiver
 * was told of carries its silence's end (mirror.ts), and ends there, so Alertmanager never pages it
 * on its own once its copy of the silence ends; what still holds then is the pipeline's to tell.
 */
function mutedUntil(batch: NotificationBatch, a: AlertNotice): number {
  if (!batch.muted || !a.untold || a.status !== 'firing' || a.endsAt === ZERO_TIME) return Infinity;
  const until = Date.parse(a.endsAt);
  return Number.isFinite(until) ? until : Infinity;
}

export default defineSender(
  'alertmanager',
  async (batch, receiver, ctx) => {
    if (batch.silences && batch.silences.length > 0) await applySilenceOps(batch.silences, receiver, ctx);
    if (batch.alerts.length === 0) return;
    const body = JSON.stringify(alertmanagerPayload(batch, ctx.now, receiver.settings.resendIntervalMs, ctx.handoverKey));
    await ctx.post({ url: `${receiver.settings.url}/api/v2/alerts`, headers: { 'content-type': 'application/json' }, body });
  },
  { resendIntervalMs: (receiver) => receiver.settings.resendIntervalMs },
);
