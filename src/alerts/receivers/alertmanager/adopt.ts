/**
 * An incident belongs to the fleet, not to a shard. Each shard has its own state_dir, so when the
 * shard count changes (up or down, back to one included) a target's new owner knows nothing of what
 * its old owner announced. Every shard sends its firing alerts to Alertmanager, each with a signed
 * handover record (../../handover.ts: its labels, the startsAt it was announced with, the facts its
 * target's verdicts rest on that the sources cannot give again); the old owner hands a moved
 * target's incidents over in silence (no resolve anywhere), and the new owner reads Alertmanager's
 * active alerts at start (GET /api/v2/alerts) and adopts each incident whose record is signed with
 * the fleet's key: it is open here as if this daemon had told it, under that startsAt. It is not
 * paged again, its resolve comes from here when the problem is over, at every receiver, and its
 * facts continue here.
 *
 * Alertmanager's API cannot tell who posted an alert: anyone who can reach it can post one. So an
 * alert is adopted only when its record's signature checks with `alerts.handover_key`, stands (it
 * expires with the alert's endsAt) and names exactly the labels it is posted under; and nothing but
 * the record is used: not its summary, description or generatorURL (the words are made here). No
 * key configured: nothing is adopted, and what this daemon's own polls find is announced as new.
 */
import { z } from 'zod';
import type { Logger } from '../../../log.js';
import type { HttpClient } from '../../../transport/client.js';
import { snippet } from '../../../util/text.js';
import { HANDOVER_ANNOTATION, verifyHandover } from '../../handover.js';
import type { ReceiverOf } from '../schemas.js';

const TIMEOUT_MS = 5_000;
/** Alerts read from one Alertmanager at most: a larger answer is not used (what still holds is announced afresh). */
const MAX_ALERTS = 20_000;

const activeAlerts = z
  .array(
    z.object({
      labels: z.record(z.string(), z.string()),
      annotations: z.record(z.string(), z.string()).default({}),
    }),
  )
  .max(MAX_ALERTS);

export interface AdoptFrom {
  /** The rules' alert names: nothing else is ours. */
  alertnames: ReadonlySet<string>;
  /** Whether this shard polls a target. */
  polled: (target: string) => boolean;
  /** The fleet's handover key: only records signed with it are adopted. */
  key: string;
}

/** An incident as its signed handover record says it: the labels (with the severity it was told at), its startsAt, its target's carried facts. */
export interface Announced {
  labels: Record<string, string>;
  startsAt: string;
  carried?: Record<string, unknown>;
}

const RANK: Record<string, number> = { warning: 1, critical: 2 };

/** An incident Alertmanager holds with a record signed by the fleet. */
export interface SignedAlert extends Announced {
  /** Posted only because a silence mirrored there holds it, before any receiver was told. */
  untold?: true;
}

/** What the fleet's Alertmanagers hold for some targets, as their signed records say. */
export interface SignedRead {
  /** One per identity (its critical sibling's, when it has one: it was told critical). */
  alerts: SignedAlert[];
  /** Each receiver that could not be read, and why. */
  unread: Array<{ receiver: string; error: string }>;
  /** Alerts for those targets without a valid record of this fleet. */
  unsigned: number;
}

/** Every alert for `from`'s targets whose record is signed with the fleet's key, one per identity. */
export async function signedAlerts(receivers: ReadonlyArray<ReceiverOf<'alertmanager'>>, http: HttpClient, from: AdoptFrom, now = Date.now()): Promise<SignedRead> {
  const found = new Map<string, SignedAlert>();
  const read: SignedRead = { alerts: [], unread: [], unsigned: 0 };
  for (const receiver of receivers) {
    let parsed: z.infer<typeof activeAlerts>;
    try {
      const response = await http.request({ url: `${receiver.settings.url}/api/v2/alerts?active=true&silenced=true&inhibited=true&unprocessed=true&filter=${encodeURIComponent('alertname=~"Avalanche.+"')}`, method: 'GET', timeoutMs: TIMEOUT_MS });
      if (response.status !== 200) throw new Error(`HTTP ${response.status}: ${snippet(response.body)}`);
      const result = activeAlerts.safeParse(safeJson(response.body));
      if (!result.success) throw new Error(`its active alerts in a shape not understood: ${snippet(result.error.message)}`);
      parsed = result.data;
    } catch (err) {
      read.unread.push({ receiver: receiver.name, error: (err as Error).message });
      continue;
    }
    for (const alert of parsed) {
      const { alertname, target } = alert.labels;
      if (!alertname || !target || !from.alertnames.has(alertname) || !from.polled(target)) continue;
      const record = verifyHandover(from.key, alert.annotations[HANDOVER_ANNOTATION], alert.labels, now);
      if (!record) {
        read.unsigned++;
        continue;
      }
      const id = JSON.stringify(Object.entries(record.labels).filter(([name]) => name !== 'severity').sort());
      const known = found.get(id);
      // A told copy outranks an untold one; then the critical sibling the warning one.
      if (known && (known.untold ? 0 : 4) + (RANK[known.labels.severity ?? ''] ?? 0) >= (record.untold ? 0 : 4) + (RANK[record.labels.severity ?? ''] ?? 0)) continue;
      found.set(id, { labels: record.labels, startsAt: record.startsAt, ...(record.carried ? { carried: record.carried } : {}), ...(record.untold ? { untold: true } : {}) });
    }
  }
  read.alerts = [...found.values()];
  return read;
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/**
 * The incidents Alertmanager holds for this shard's targets with a handover record signed by the
 * fleet, told to a receiver: one per identity (its critical sibling's, when it has one: it was told critical).
 */
export async function handedOver(receivers: ReadonlyArray<ReceiverOf<'alertmanager'>>, http: HttpClient, from: AdoptFrom, log: Logger, now = Date.now()): Promise<Announced[]> {
  const read = await signedAlerts(receivers, http, from, now);
  for (const { receiver, error } of read.unread) log.warn({ receiver, error }, 'incidents handed over by other shards not read from Alertmanager: what still holds is announced afresh');
  // Posted only because a silence mirrored there holds it, before any receiver was told: nothing
  // was announced (this owner's own polls find it, and its silence or its end decides the page).
  const untold = read.alerts.filter((a) => a.untold).length;
  if (untold > 0) log.info({ alerts: untold }, 'alerts at Alertmanager only under a silence, never told to a receiver: not adopted, announced afresh if they still hold');
  if (read.unsigned > 0) log.info({ alerts: read.unsigned }, 'alerts at Alertmanager for targets polled here without a valid handover record of this fleet (Prometheus rules, or posted by anyone else): not adopted');
  return read.alerts.filter((a) => !a.untold).map(({ untold: _untold, ...announced }) => announced);
}
