/**
 * What a message says about one batch (one target, one poll round), for the receivers that write
 * to people (Telegram, email, Slack, Discord): a title, then each alert as one line of its facts
 * (the summary: numbers, deadline, amount, what to do; for a resolve what ended and how), its
 * explainer (the description) after it and short, and a link to the target's page. Each receiver
 * lays it out in its own markup and cuts it to its own limits (`cutText`, `fitBlocks`).
 */
import { RULES } from '../rules/index.js';
import { listNames } from '../rules/format.js';
import type { AlertNotice, NotificationBatch } from '../types.js';
import { cutText, wellFormed } from '../../util/text.js';
import { oneLine, visibleControls } from '../../util/visible.js';

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
      if (a.status !== status || !words || words.subject) continue;
      // A validation period's end is its outcome, said once for every alert it ends (never "recovered").
      const ended = status === 'resolved' ? periodEndOf(batch.target, a.annotations.summary) : undefined;
      if (ended === undefined) parts.push(words[status]);
      else if (!parts.includes(ended)) parts.push(ended);
    }
  }
  return `${batch.target}: ${parts.join('; ')}`;
}

/** "validation cycle ended unpaid: 117.4 AVAX forfeited": a resolve's words when a validation period's end ended the alert (alerts/rules/validator-facts.ts, periodEnded). */
function periodEndOf(target: string, summary: string | undefined): string | undefined {
  const facts = summary?.startsWith(`${target}: `) ? summary.slice(target.length + 2) : undefined;
  return facts !== undefined && /^validation (?:period|cycle) ended[,;: ]/.test(facts) ? facts : undefined;
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

/** One alert of a message. */
export interface AlertLine {
  status: 'firing' | 'resolved';
  tone: Tone;
  /** Its summary: for a firing what is wrong and what to do, for a resolve what ended and how. */
  facts: string;
  /** Its description as one paragraph; none for a resolve (it would repeat the firing's words). */
  explainer?: string;
  /** "AvalancheL1ValidatorBalanceLow · critical", "… · reminder", "… · resolved after 2h 5m". */
  tag: string;
  fingerprint: string;
}

export type Tone = 'critical' | 'warning' | 'resolved';

export interface Message {
  tone: Tone;
  title: string;
  alerts: AlertLine[];
  /** The target's page (the status page for a test notification), and what the link says. */
  link: string;
  linkText: string;
  /** When the batch was made: "2026-11-22 12:00 UTC". */
  at: string;
}

const KIND_WORDS: Partial<Record<AlertNotice['kind'], string>> = { reminder: 'reminder', severity_changed: 'severity changed', updated: 'updated', test: 'test' };

/** "2h 5m", "3d 4h", "45s": how long an incident lasted. */
export function lasted(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  const [d, h, m] = [Math.floor(s / 86_400), Math.floor((s % 86_400) / 3600), Math.floor((s % 3600) / 60)];
  if (d > 0) return `${d}d ${h}h`;
  if (h > 0) return `${h}h ${m}m`;
  return m > 0 ? `${m}m` : `${s}s`;
}

function tagOf(a: AlertNotice): string {
  const name = a.labels.alertname ?? 'alert';
  if (a.status === 'resolved') {
    const took = Date.parse(a.endsAt) - Date.parse(a.startsAt);
    return `${name} · resolved${Number.isFinite(took) && took >= 0 ? ` after ${lasted(took)}` : ''}`;
  }
  const kind = KIND_WORDS[a.kind];
  return `${name} · ${a.labels.severity ?? 'warning'}${kind ? ` · ${kind}` : ''}`;
}

/** A description as one paragraph: its lines joined by "; ", runs of blanks as one space. */
export function paragraph(text: string): string {
  return text
    .split(/\s*\n\s*/)
    .filter((line) => line !== '')
    .join('; ')
    .replace(/\s+/g, ' ')
    .trim();
}

/** The message of a batch, in the order the engine told its alerts. */
export function messageOf(batch: NotificationBatch, externalUrl: string): Message {
  return {
    tone: isAllResolved(batch) ? 'resolved' : worstSeverity(batch) === 'critical' ? 'critical' : 'warning',
    title: headline(batch),
    alerts: batch.alerts.map((a) => {
      const explainer = a.status === 'firing' ? paragraph(a.annotations.description) : '';
      const tone: Tone = a.status === 'resolved' ? 'resolved' : a.labels.severity === 'critical' ? 'critical' : 'warning';
      return { status: a.status, tone, facts: paragraph(a.annotations.summary), ...(explainer ? { explainer } : {}), tag: tagOf(a), fingerprint: a.fingerprint };
    }),
    link: pageLink(batch, externalUrl),
    linkText: batch.alerts.every((a) => a.kind === 'test') ? 'avahealth' : `${batch.target} on avahealth`,
    at: `${new Date(batch.createdAt).toISOString().slice(0, 16).replace('T', ' ')} UTC`,
  };
}

/**
 * An explainer cut to `max` characters: whole sentences while they fit, else at a word; `…` marks
 * the cut. A chat message keeps it short, after the facts it explains.
 */
export function shortExplainer(text: string, max: number): string {
  if (text.length <= max) return text;
  let end = 0;
  for (const m of text.matchAll(/[.;!?](?=\s)/g)) {
    if (m.index + 1 > max - 2) break;
    end = m.index + 1;
  }
  return end * 3 >= max ? `${text.slice(0, end)} …` : cutText(text, max);
}

/**
 * The blocks that fit in `room` characters (one character between two), in order, and how many
 * did not (`hidden`): when some do not, `noteRoom` characters are kept free for the "… N more" line.
 */
export function fitBlocks<T>(blocks: readonly T[], size: (block: T) => number, room: number, noteRoom: number): { shown: T[]; hidden: number } {
  const total = blocks.reduce((sum, b, i) => sum + size(b) + (i > 0 ? 1 : 0), 0);
  if (total <= room) return { shown: [...blocks], hidden: 0 };
  const shown: T[] = [];
  let used = 0;
  for (const block of blocks) {
    const more = size(block) + (shown.length > 0 ? 1 : 0);
    if (used + more > room - noteRoom) break;
    shown.push(block);
    used += more;
  }
  return { shown, hidden: blocks.length - shown.length };
}

export const moreNote = (hidden: number) => `… ${hidden} more not shown here`;

/**
 * The plain, safe rendering, sent once after a receiver refused a message for its content: no
 * markup, the state as a word, each alert's facts and name on one line (no explainers), text
 * well-formed with every control character visible, within `max` characters.
 */
export function plainText(batch: NotificationBatch, externalUrl: string, max: number): string {
  const message = messageOf(batch, externalUrl);
  const safe = (text: string, within: number) => cutText(oneLine(wellFormed(text)), within);
  const title = `[${message.tone.toUpperCase()}] ${safe(message.title, 300)}`;
  const footer = `${message.link} · ${message.at}`;
  const lines = message.alerts.map((a) => `- ${safe(a.facts, 600)} (${safe(a.tag, 120)})`);
  const { shown, hidden } = fitBlocks(lines, (line) => line.length, max - title.length - footer.length - 2, MORE_NOTE_ROOM);
  return [title, ...shown, ...(hidden > 0 ? [moreNote(hidden)] : []), footer].join('\n');
}

const MORE_NOTE_ROOM = 40;

/** Untrusted text inside HTML (Telegram's HTML parse mode, email's HTML part): `& < > "` as entities, well-formed, control characters visible. */
export function escapeHtml(text: string): string {
  return visibleControls(wellFormed(text)).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

/** Within `max` characters: cut between characters, at a word where one ends near the limit, with `…`. */
export function truncate(text: string, max: number): string {
  return cutText(text, max);
}
