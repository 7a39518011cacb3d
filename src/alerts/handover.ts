/**
 * The signed handover record: what an incident's owner tells the fleet through Alertmanager with each
 * alert it sends there, so that whichever shard polls the target next continues the incident (docs/
 * scaling.md, "When N changes"). It is an annotation, `avahealth_handover`:
 *
 *   v1.<base64url of the record's JSON>.<base64url of HMAC-SHA256(key, "avahealth handover v1\n" + the first part)>
 *
 * The record holds the alert's labels (every one, severity included), the startsAt it was announced
 * with, until when it stands (the endsAt sent with it: four re-send intervals), and the facts its
 * target's verdicts rest on that the sources cannot give again (the state map's carried files:
 * a missed upgrade's deadline, the periods and their outcomes), and `untold` when it was posted
 * only because a silence mirrored there holds it, before any receiver heard of it. The key is the fleet's
 * (`alerts.handover_key`): Alertmanager's API cannot tell who posted an alert, so nothing is taken
 * from Alertmanager unless this signature checks, and then only the record, never its text.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { z } from 'zod';

export const HANDOVER_ANNOTATION = 'avahealth_handover';
const VERSION = 'v1';
const DOMAIN = 'avahealth handover v1\n';
/** A record's size at most (a period ledger entry is the largest fact); a longer annotation is not read. */
export const MAX_RECORD_CHARS = 32 * 1024;

const recordSchema = z.strictObject({
  labels: z.record(z.string().max(256), z.string().max(1024)).refine((l) => Object.keys(l).length <= 64, 'too many labels'),
  startsAt: z.string().max(64).refine((t) => Number.isFinite(Date.parse(t)), 'not a time'),
  expiresAt: z.number().int().positive(),
  carried: z.record(z.string().max(64), z.unknown()).optional(),
  /** Posted while a silence held it and before any receiver was told: not announced, so not adopted. */
  untold: z.literal(true).optional(),
});

export type HandoverRecord = z.infer<typeof recordSchema>;

function mac(key: string, body: string): Buffer {
  return createHmac('sha256', key).update(DOMAIN).update(body).digest();
}

export function signHandover(key: string, record: HandoverRecord): string {
  const body = Buffer.from(JSON.stringify({ ...record, labels: sorted(record.labels) })).toString('base64url');
  return `${VERSION}.${body}.${mac(key, body).toString('base64url')}`;
}

/**
 * The record an annotation carries, when it is signed with `key`, stands at `now`, and is about
 * exactly these labels (a record copied onto another alert names other labels); else undefined.
 */
export function verifyHandover(key: string, annotation: unknown, labels: Readonly<Record<string, string>>, now: number): HandoverRecord | undefined {
  if (typeof annotation !== 'string' || annotation.length > MAX_RECORD_CHARS) return undefined;
  const [version, body, signature, ...rest] = annotation.split('.');
  if (version !== VERSION || !body || !signature || rest.length > 0) return undefined;
  const given = Buffer.from(signature, 'base64url');
  const expected = mac(key, body);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return undefined;
  let record: HandoverRecord;
  try {
    record = recordSchema.parse(JSON.parse(Buffer.from(body, 'base64url').toString('utf8')));
  } catch {
    return undefined;
  }
  if (record.expiresAt <= now || !sameLabels(record.labels, labels)) return undefined;
  return record;
}

function sorted(labels: Readonly<Record<string, string>>): Record<string, string> {
  return Object.fromEntries(Object.entries(labels).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

function sameLabels(a: Readonly<Record<string, string>>, b: Readonly<Record<string, string>>): boolean {
  const names = Object.keys(a);
  return names.length === Object.keys(b).length && names.every((name) => Object.hasOwn(b, name) && a[name] === b[name]);
}
