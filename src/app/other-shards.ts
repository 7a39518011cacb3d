/**
 * `avahealth check` beside one shard (`kubectl exec avahealth-0 -- avahealth check`): the targets
 * the daemon there does not watch are other shards', and this check's own round cannot know what
 * their owners know (a restart's snapshot climbing, a check that flaps between two failures, a hold).
 * Every shard tells Alertmanager its open incidents, each with a record signed with the fleet's key
 * (alerts/handover.ts); what Alertmanager holds for those targets under that key is what their owners
 * told on-call. Only the signed records are used (labels, severity, scope), never Alertmanager's text.
 */
import type { Config } from '../config/load.js';
import { signedAlerts, type SignedAlert } from '../alerts/receivers/alertmanager/adopt.js';
import type { ReceiverOf } from '../alerts/receivers/schemas.js';
import { RULES, ruleNamed, type Severity } from '../alerts/rules/index.js';
import type { TargetIncident } from '../status/verdict.js';
import { HttpClient } from '../transport/client.js';
import { VERSION } from '../version.js';

export interface OtherShards {
  /** The Alertmanagers read. */
  receivers: string[];
  /** Each target's open incidents as its owner told them (none: nothing open). */
  incidents: Map<string, SignedAlert[]>;
}

/**
 * What the fleet's Alertmanagers hold for `targets`, signed by the fleet; undefined without a
 * handover key or an `alertmanager` receiver; an error when none of them could be read.
 */
export async function otherShardsIncidents(config: Config, targets: readonly string[]): Promise<OtherShards | { error: string } | undefined> {
  const key = config.alerts.handoverKey;
  const receivers = config.alerts.receivers.filter((r): r is ReceiverOf<'alertmanager'> => r.kind === 'alertmanager');
  if (!key || receivers.length === 0) return undefined;
  const wanted = new Set(targets);
  const http = new HttpClient({ maxResponseBytes: 32 * 1024 * 1024, userAgent: `avahealth-check/${VERSION}` });
  try {
    const read = await signedAlerts(receivers, http, { alertnames: new Set(RULES.map((r) => r.name)), polled: (name) => wanted.has(name), key });
    if (read.unread.length === receivers.length) return { error: read.unread.map((u) => `${u.receiver}: ${u.error}`).join('; ') };
    const incidents = new Map<string, SignedAlert[]>(targets.map((t) => [t, []]));
    for (const alert of read.alerts) incidents.get(alert.labels.target!)?.push(alert);
    return { receivers: receivers.filter((r) => !read.unread.some((u) => u.receiver === r.name)).map((r) => r.name), incidents };
  } finally {
    await http.close();
  }
}

/**
 * An incident its owner told, in this check's words: the summary of the same incident in this
 * check's own round when it found it too, else the rule's own phrase.
 */
export function toldIncident(alert: SignedAlert, round: readonly TargetIncident[]): TargetIncident {
  const { alertname = '', target: _target, severity = 'warning', ...labels } = alert.labels;
  const same = round.find((i) => i.alertname === alertname && sameIdentity(i.labels, labels));
  const phrase = ruleNamed(alertname)?.phrases?.firing ?? alertname;
  return { alertname, severity: severity as Severity, labels, summary: same?.summary ?? `${phrase} (told by the shard that polls it)` };
}

/** The same incident whatever its scope or severity now: those change an incident, they do not make another. */
function sameIdentity(a: Readonly<Record<string, string>>, b: Readonly<Record<string, string>>): boolean {
  const id = (l: Readonly<Record<string, string>>) =>
    JSON.stringify(
      Object.entries(l)
        .filter(([name]) => name !== 'scope' && name !== 'severity' && name !== 'alertname' && name !== 'target')
        .sort(),
    );
  return id(a) === id(b);
}
