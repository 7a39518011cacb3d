/**
 * A shard count change moves targets between shards, each with its own state_dir: the new owner of
 * a target knows nothing of what its old owner announced. When an `alertmanager` receiver is
 * configured, Alertmanager holds every firing alert of every shard (re-sent while it fires), so the
 * old owner hands a moved target's incidents over in silence (no resolve anywhere) and the new one
 * adopts them at start from Alertmanager's active alerts (GET /api/v2/alerts): each is then open
 * here as if this shard had told it, under the startsAt it was announced with. It is not paged
 * again, and its resolve comes from here when the problem is over, at every receiver.
 *
 * Only alerts this daemon's rules make are taken: an avahealth alertname, a target of this shard,
 * and the generatorURL avahealth gives them (`…/targets/<target>`, never Prometheus' own twins).
 */
import { z } from 'zod';
import type { Logger } from '../../../log.js';
import type { HttpClient } from '../../../transport/client.js';
import { snippet } from '../../../util/text.js';
import type { ReceiverOf } from '../schemas.js';

const TIMEOUT_MS = 5_000;
/** Alerts read from one Alertmanager at most: a larger answer is not used (what still holds is announced afresh). */
const MAX_ALERTS = 20_000;

const activeAlerts = z
  .array(
    z.object({
      labels: z.record(z.string(), z.string()),
      annotations: z.record(z.string(), z.string()).default({}),
      startsAt: z.string(),
      endsAt: z.string().optional(),
      generatorURL: z.string().optional(),
    }),
  )
  .max(MAX_ALERTS);

export interface AdoptFrom {
  /** The rules' alert names: nothing else is ours. */
  alertnames: ReadonlySet<string>;
  /** Whether this shard polls a target. */
  polled: (target: string) => boolean;
}

/** An alert as Alertmanager holds it, announced by some avahealth shard. */
export interface Announced {
  labels: Record<string, string>;
  annotations: { summary: string; description: string };
  startsAt: string;
  generatorURL: string;
}

/** The firing alerts Alertmanager holds for this shard's targets (the first answer wins a duplicate). */
export async function handedOver(receivers: ReadonlyArray<ReceiverOf<'alertmanager'>>, http: HttpClient, from: AdoptFrom, log: Logger, now = Date.now()): Promise<Announced[]> {
  const adopted = new Map<string, Announced>();
  for (const receiver of receivers) {
    let body: string;
    try {
      const response = await http.request({ url: `${receiver.settings.url}/api/v2/alerts?active=true&silenced=true&inhibited=true&unprocessed=true&filter=${encodeURIComponent('alertname=~"Avalanche.+"')}`, method: 'GET', timeoutMs: TIMEOUT_MS });
      if (response.status !== 200) throw new Error(`HTTP ${response.status}: ${snippet(response.body)}`);
      body = response.body;
    } catch (err) {
      log.warn({ receiver: receiver.name, error: (err as Error).message }, 'incidents handed over by other shards not read from Alertmanager: what still holds is announced afresh');
      continue;
    }
    let parsed: z.infer<typeof activeAlerts>;
    try {
      parsed = activeAlerts.parse(JSON.parse(body));
    } catch (err) {
      log.warn({ receiver: receiver.name, error: snippet((err as Error).message) }, 'Alertmanager answered its active alerts in a shape not understood: nothing adopted');
      continue;
    }
    for (const alert of parsed) {
      const { alertname, target } = alert.labels;
      if (!alertname || !target || !from.alertnames.has(alertname) || !from.polled(target) || !isOurs(alert.generatorURL, target)) continue;
      if (alert.endsAt && Date.parse(alert.endsAt) <= now) continue;
      const { summary = '', description = '' } = alert.annotations;
      const id = JSON.stringify(Object.entries(alert.labels).filter(([name]) => name !== 'severity').sort());
      if (!adopted.has(id)) adopted.set(id, { labels: alert.labels, annotations: { summary, description }, startsAt: alert.startsAt, generatorURL: alert.generatorURL! });
    }
  }
  return [...adopted.values()];
}

/** avahealth's generatorURL: `<external URL>/targets/<target>`. */
function isOurs(generatorURL: string | undefined, target: string): boolean {
  try {
    return generatorURL !== undefined && new URL(generatorURL).pathname.endsWith(`/targets/${encodeURIComponent(target)}`);
  } catch {
    return false;
  }
}
