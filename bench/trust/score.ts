/**
 * Scores what each receiver was told against the script's ground truth (bench/trust/week.txt).
 *
 * Definitions (docs/alerting.md, "How we measure trust"):
 * - An alert's key at a receiver is its alertname (a Prometheus-style `…Critical` suffix dropped) and
 *   every label but `severity` and `scope` (neither names an incident: docs/alerting.md). A **page**
 *   is a firing notification for a key that was not firing at that receiver; a change of severity or
 *   scope of a firing key is an update, not a page.
 * - A key stops firing when the receiver is told every member (fingerprint) it was told fired has
 *   resolved: Alertmanager's copies of one incident under two severities are one page while either
 *   is open (its warning copy's resolve may be muted by the critical's inhibition, and then the
 *   warning stays open there until the incident ends).
 * - Alerts labelled scope="network" are notices for chat (deploy/alertmanager routes them there),
 *   never pages: counted apart.
 * - A page matches a truth incident when its alertname (or one of the incident's `also` symptoms)
 *   and the incident's labels agree and it came
 *   between the incident's onset and its close (+ PAGE_GRACE_S). Unmatched: a **false page**. More
 *   than one page for an incident: **duplicates**. None: **missed**.
 * - **Open at end**: keys still firing at the end that the truth does not hold open.
 * - **Surfaces**: at each sample, the targets `check` and /api/v1/status show as not healthy against
 *   those with an incident the truth holds open. A target an event touched less than
 *   SURFACE_GRACE_S before the sample is in transition and not compared: the daemon decides in polls
 *   (a resolve takes resolve_polls, 3, of a validator's 2 s polls), and how soon is scored apart as
 *   the page and resolve latencies. A network-wide event (a dip) touches every node.
 */
import type { Expected, Script, ScriptEvent } from './script.js';

export interface Alert {
  status: string;
  labels: Record<string, string>;
  fingerprint?: string;
}

export interface Message {
  at: number;
  alerts: Alert[];
}

export interface SurfaceSample {
  at: number;
  surface: string;
  /** Targets the surface shows as not healthy (state other than healthy/pending). */
  unhealthy: string[];
}

export interface ScoreInput {
  script: Script;
  /** When each event of the script was applied (ms), by its line. */
  appliedAt: Map<number, number>;
  receivers: Record<string, Message[]>;
  samples: SurfaceSample[];
  intervalS: number;
}

export const PAGE_GRACE_S = 5;
export const SURFACE_GRACE_S = 8;

/** The targets an event acts on (every node for a network-wide one). */
export function touched(event: ScriptEvent, script: Script): string[] {
  switch (event.action) {
    case 'scenario':
    case 'restart':
    case 'service':
      return event.args.slice(0, 1);
    case 'expect':
      return event.args.slice(1);
    case 'dip':
      return script.fleet.map((n) => n.name);
    case 'silence':
      return typeof event.params.target === 'string' ? [event.params.target] : [];
    default:
      return [];
  }
}

export interface ReceiverScore {
  pages: number;
  notices: number;
  falsePages: Array<{ at: number; key: string }>;
  missed: string[];
  duplicates: Array<{ id: string; pages: number; keys: Array<{ at: number; key: string }> }>;
  openAtEnd: string[];
  pageLatencyS: number[];
  resolveLatencyS: number[];
  /** Incidents whose key was no longer firing when the truth closed them (resolved early). */
  resolvedEarly: string[];
}

export interface Score {
  receivers: Record<string, ReceiverScore>;
  surfaceDisagreements: Array<{ at: number; surface: string; expected: string[]; shown: string[] }>;
  samples: number;
  summary: {
    false_pages: number;
    missed_incidents: number;
    duplicate_pages: number;
    open_at_end: number;
    page_latency_p95_s: number | null;
    resolve_latency_p95_s: number | null;
    surface_disagreements: number;
  };
}

const baseName = (alertname: string) => alertname.replace(/Critical$/, '');

export function keyOf(alert: Alert): string {
  const labels = Object.entries(alert.labels)
    .filter(([k]) => k !== 'severity' && k !== 'scope' && k !== 'alertname')
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([k, v]) => `${k}=${v}`);
  return `${baseName(alert.labels.alertname ?? '')}{${labels.join(',')}}`;
}

const memberOf = (alert: Alert) => alert.fingerprint ?? JSON.stringify(Object.entries(alert.labels).sort());

export function matches(expected: Expected, alert: Alert): boolean {
  const name = baseName(alert.labels.alertname ?? '');
  return [expected.alertname, ...expected.also].some((a) => baseName(a) === name) && Object.entries(expected.labels).every(([k, v]) => alert.labels[k] === v);
}

export function percentile(values: number[], p: number): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

interface Transition {
  at: number;
  key: string;
  alert: Alert;
  kind: 'page' | 'resolve';
}

/** Pages and resolves at one receiver, in arrival order, and the keys firing at the end. */
export function transitions(messages: Message[]): { list: Transition[]; firing: Map<string, Alert> } {
  /** Per key, its open members and the latest alert told firing. */
  const current = new Map<string, { members: Set<string>; alert: Alert }>();
  const list: Transition[] = [];
  for (const message of [...messages].sort((a, b) => a.at - b.at)) {
    for (const alert of message.alerts) {
      const key = keyOf(alert);
      const now = current.get(key);
      if (alert.status === 'firing') {
        if (!now) list.push({ at: message.at, key, alert, kind: 'page' });
        current.set(key, { members: new Set([...(now?.members ?? []), memberOf(alert)]), alert });
      } else if (now?.members.delete(memberOf(alert)) && now.members.size === 0) {
        current.delete(key);
        list.push({ at: message.at, key, alert, kind: 'resolve' });
      }
    }
  }
  return { list, firing: new Map([...current].map(([k, v]) => [k, v.alert])) };
}

function scoreReceiver(input: ScoreInput, messages: Message[]): ReceiverScore {
  const { script, appliedAt } = input;
  const when = (event: ScriptEvent | undefined) => (event ? appliedAt.get(event.line) : undefined);
  const incidents = [...script.incidents.values()].filter((i) => when(i.openedBy) !== undefined);
  const { list, firing } = transitions(messages);
  const score: ReceiverScore = { pages: 0, notices: 0, falsePages: [], missed: [], duplicates: [], openAtEnd: [], pageLatencyS: [], resolveLatencyS: [], resolvedEarly: [] };
  const pagesOf = new Map<string, Transition[]>();
  for (const t of list.filter((x) => x.kind === 'page')) {
    if (t.alert.labels.scope === 'network') {
      score.notices++;
      continue;
    }
    score.pages++;
    const candidates = incidents.filter((i) => {
      const closed = when(i.closedBy);
      return matches(i, t.alert) && when(i.openedBy)! - 1000 <= t.at && (closed === undefined || t.at <= closed + PAGE_GRACE_S * 1000);
    });
    const incident = candidates.sort((a, b) => when(b.openedBy)! - when(a.openedBy)!)[0];
    if (!incident) {
      score.falsePages.push({ at: t.at, key: t.key });
      continue;
    }
    pagesOf.set(incident.id, [...(pagesOf.get(incident.id) ?? []), t]);
  }
  for (const incident of incidents) {
    const pages = pagesOf.get(incident.id) ?? [];
    if (pages.length === 0) {
      score.missed.push(incident.id);
      continue;
    }
    if (pages.length > 1) score.duplicates.push({ id: incident.id, pages: pages.length, keys: pages.map((p) => ({ at: p.at, key: p.key })) });
    score.pageLatencyS.push((pages[0]!.at - when(incident.openedBy)!) / 1000);
    const closed = when(incident.closedBy);
    if (closed === undefined) continue;
    const keys = new Set(pages.map((p) => p.key));
    const resolve = list.find((t) => t.kind === 'resolve' && keys.has(t.key) && t.at >= closed);
    if (resolve) score.resolveLatencyS.push((resolve.at - closed) / 1000);
    else if (![...keys].some((k) => firing.has(k))) score.resolvedEarly.push(incident.id);
  }
  for (const [key, alert] of firing) {
    if (alert.labels.scope === 'network') continue;
    const heldOpen = incidents.some((i) => !i.closedBy && matches(i, alert));
    if (!heldOpen) score.openAtEnd.push(key);
  }
  return score;
}

export function score(input: ScoreInput): Score {
  const receivers = Object.fromEntries(Object.entries(input.receivers).map(([name, messages]) => [name, scoreReceiver(input, messages)]));
  const surfaceDisagreements: Score['surfaceDisagreements'] = [];
  for (const sample of input.samples) {
    const expected = [...input.script.incidents.values()]
      .filter((i) => {
        const opened = input.appliedAt.get(i.openedBy.line);
        const closed = i.closedBy ? input.appliedAt.get(i.closedBy.line) : undefined;
        return opened !== undefined && opened <= sample.at && (closed === undefined || closed > sample.at);
      })
      .map((i) => i.labels.target ?? '')
      .filter(Boolean);
    const moving = new Set(
      input.script.events.filter((e) => {
        const at = input.appliedAt.get(e.line);
        return at !== undefined && at <= sample.at && sample.at - at < SURFACE_GRACE_S * 1000;
      }).flatMap((e) => touched(e, input.script)),
    );
    const want = [...new Set(expected)].filter((t) => !moving.has(t)).sort();
    const shown = [...new Set(sample.unhealthy)].filter((t) => !moving.has(t)).sort();
    if (want.join() !== shown.join()) surfaceDisagreements.push({ at: sample.at, surface: sample.surface, expected: want, shown });
  }
  const all = Object.values(receivers);
  const sum = (f: (r: ReceiverScore) => number) => all.reduce((n, r) => n + f(r), 0);
  const round = (v: number | null) => (v === null ? null : Math.round(v * 10) / 10);
  return {
    receivers,
    surfaceDisagreements,
    samples: input.samples.length,
    summary: {
      false_pages: sum((r) => r.falsePages.length),
      missed_incidents: sum((r) => r.missed.length),
      duplicate_pages: sum((r) => r.duplicates.reduce((n, d) => n + d.pages - 1, 0)),
      open_at_end: sum((r) => r.openAtEnd.length),
      page_latency_p95_s: round(percentile(all.flatMap((r) => r.pageLatencyS), 95)),
      resolve_latency_p95_s: round(percentile(all.flatMap((r) => r.resolveLatencyS), 95)),
      surface_disagreements: surfaceDisagreements.length,
    },
  };
}
