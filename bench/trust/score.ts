/**
 * Scores what each receiver was told against the script's ground truth (bench/trust/week.txt).
 *
 * Definitions (docs/alerting.md, "How we measure trust"):
 * - A receiver is told about **alerts**: label sets, each known by its fingerprint (the daemon's
 *   webhook: the incident's, kept through a change of severity or scope; Alertmanager's webhook: its
 *   hash of every label, scope and severity included). An alert is open from its firing to its
 *   resolve; a firing under another `startsAt` while it is open is a new announcement.
 * - An alert labelled scope="network" is a **notice** for chat (deploy/alertmanager routes it there),
 *   never a page; any other is a **page**. An alert told first as a notice becomes a page at the first
 *   firing without scope="network" (from that moment: its latency counts from there).
 * - An alert's **key** is its alertname (a `…Critical` suffix dropped) and every label but `severity`
 *   and `scope`. A **page** is a message that makes a key paged: one of its alerts pages while none of
 *   its alerts was an open page, or an open page is announced again under a new startsAt. A severity
 *   or scope change of a paged key is an update. Pages of one incident in one message are one page.
 * - A page matches a truth incident when its alertname (or one of the incident's `also` symptoms)
 *   and the incident's labels agree and it came between the incident's onset and its close
 *   (+ PAGE_GRACE_S). Unmatched: a **false page**. More than one page for an incident:
 *   **duplicates**. None: **missed**. A `quiet` incident expects no page: a page for it is false.
 * - **False resolve**: a paged alert told resolved while the truth holds its incident open (the
 *   resolve of a copy under an old scope or a lower severity included; its re-fire is a duplicate),
 *   but for a critical copy resolved while a lower one stays open (the problem shrank). A message is
 *   read at once: its firings before its resolves.
 * - **Open at end**: keys still open at the end (pages and notices) that the truth does not hold open.
 * - **Surfaces**: at each sample, the targets `check` and /api/v1/status show as not healthy against
 *   those with an incident the truth holds open (`quiet` ones included). A target an event touched
 *   less than SURFACE_GRACE_S before the sample or while it was taken (ECONOMICS_GRACE_S for what
 *   the validator poll and the network baseline decide) is in transition and not compared: the daemon decides in polls, and
 *   how soon is scored apart as the page and resolve latencies. A dip touches every node. For
 *   START_GRACE_S after a daemon starts (`start-daemon`, `shards`), the targets of the open
 *   incidents the validator poll decides are in transition too.
 */
import type { Expected, Incident, Script, ScriptEvent } from './script.js';

export interface Alert {
  status: string;
  labels: Record<string, string>;
  fingerprint?: string;
  startsAt?: string;
}

export interface Message {
  at: number;
  alerts: Alert[];
}

export interface SurfaceSample {
  at: number;
  /** When the surface had answered (`check` runs a round of its own): events until then are in transition too. */
  until?: number;
  surface: string;
  /** Targets the surface shows as not healthy (state other than healthy/pending). */
  unhealthy: string[];
  /** What it said of each (state: summary), for a closer look. */
  detail?: Record<string, string>;
}

export interface ScoreInput {
  script: Script;
  /** The week scored: its file, or `seed:N`. */
  week?: string;
  /** When each event of the script was applied (ms), by its line. */
  appliedAt: Map<number, number>;
  receivers: Record<string, Message[]>;
  samples: SurfaceSample[];
  intervalS: number;
}

export const PAGE_GRACE_S = 5;
export const SURFACE_GRACE_S = 8;
/** The validator poll (2 s) × for_polls, the baseline wait (a network read after the onset) and resolve_polls × 2 s. */
export const ECONOMICS_GRACE_S = 16;

/**
 * A daemon's start (after a kill, or a new owner's after the shard count changed): a validator's
 * figures below the top are held until they stop rising for a Ping interval, and such a validator
 * is paged "some 25 s after the daemon starts" (docs/validators.md). Only the incidents the
 * validator poll decides are in transition then: a start may be slow to show one, never show one
 * the truth does not hold.
 */
export const START_GRACE_S = 30;
const STARTS = new Set(['start-daemon', 'shards']);

/** Scenarios and parameters that only the validator poll and the fleet's view see. */
const ECONOMICS = new Set(['reward-at-risk', 'unreachable-by-peers', 'inbound-closed', 'lying-observer', 'l1-balance-low', 'l1-inactive', 'auto-renewing', 'auto-renew-exiting', 'version-behind', 'not-validator', 'info-api-disabled', 'node-id-unknown']);
const ECONOMICS_PARAMS = ['rewardingStakePercent', 'weightedAveragePercent', 'l1BalanceNAvax', 'l1Balances', 'networkId', 'nextPeriodSeconds'];

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
      return typeof event.params.target === 'string' ? event.params.target.replace(/^~/, '').split('|') : [];
    case 'sample':
      // a sample that opens what the week starts with (a period already ending): those targets are moving
      return event.truth.open.flatMap((o) => (o.labels.target ?? '').split('|')).filter(Boolean);
    default:
      return [];
  }
}

/** How long after `event` its targets are in transition on the surfaces, by event line (ECONOMICS_GRACE_S: the validator poll's verdicts). */
function transitionTimes(script: Script): Map<number, number> {
  const grace = new Map<number, number>();
  const last = new Map<string, string[]>();
  for (const event of script.events) {
    let economics = event.action === 'dip' || event.action === 'expect' || (event.action === 'sample' && event.truth.open.length > 0);
    if (event.action === 'scenario') {
      const names = (event.args[1] ?? '').split('+');
      const before = last.get(event.args[0]!) ?? [];
      economics = [...names, ...before].some((n) => ECONOMICS.has(n)) || ECONOMICS_PARAMS.some((p) => p in event.params);
      last.set(event.args[0]!, names);
    }
    grace.set(event.line, (economics ? ECONOMICS_GRACE_S : SURFACE_GRACE_S) * 1000);
  }
  return grace;
}

export interface ReceiverScore {
  pages: number;
  notices: number;
  falsePages: Array<{ at: number; key: string }>;
  missed: string[];
  duplicates: Array<{ id: string; pages: number; keys: Array<{ at: number; key: string }> }>;
  falseResolves: Array<{ at: number; id: string; key: string; labels: Record<string, string> }>;
  openAtEnd: string[];
  pageLatencyS: number[];
  resolveLatencyS: number[];
}

export interface Score {
  receivers: Record<string, ReceiverScore>;
  surfaceDisagreements: Array<{ at: number; surface: string; expected: string[]; shown: string[]; detail?: Record<string, string> }>;
  samples: number;
  summary: {
    week: string;
    incidents: number;
    false_pages: number;
    missed_incidents: number;
    duplicate_pages: number;
    false_resolves: number;
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

const accepts = (want: string, got: string | undefined) => got !== undefined && want.split('|').includes(got);

/** Whether a page of `alert` is one of `expected`'s (never a quiet incident's). */
export function matches(expected: Expected, alert: Alert): boolean {
  if (expected.quiet) return false;
  const name = baseName(alert.labels.alertname ?? '');
  const labels = Object.entries(expected.labels);
  if (baseName(expected.alertname) === name && labels.every(([k, v]) => accepts(v, alert.labels[k]))) return true;
  return expected.also.some(
    (s) =>
      baseName(s.alertname) === name &&
      labels.every(([k, v]) => (k === 'target' || k in alert.labels ? accepts(v, alert.labels[k]) : true)) &&
      Object.entries(s.labels).every(([k, v]) => accepts(v, alert.labels[k])),
  );
}

/** Whether the truth's incident covers `alert` being open (a quiet incident: any alert of its targets). */
function covers(incident: Expected, alert: Alert): boolean {
  return incident.quiet ? accepts(incident.labels.target!, alert.labels.target) : matches(incident, alert);
}

export function percentile(values: number[], p: number): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

export interface Transition {
  at: number;
  /** The message's index (in arrival order): pages of one incident in one message are one page. */
  message: number;
  key: string;
  member: string;
  alert: Alert;
  kind: 'page' | 'notice' | 'resolve';
  /** A page: an open alert announced again under a new startsAt. */
  reannounced?: boolean;
  /** A resolve of a critical copy while a lower copy of the alert stays open (its severity fell). */
  stepDown?: boolean;
}

interface Member {
  key: string;
  open: boolean;
  paged: boolean;
  startsAt?: string;
  alert: Alert;
}

/** Pages, notices and resolves of paged alerts at one receiver, in arrival order, and the keys open at the end. */
export function transitions(messages: Message[]): { list: Transition[]; open: Map<string, { alert: Alert; paged: boolean }> } {
  const members = new Map<string, Member>();
  const byKey = new Map<string, Set<string>>();
  const pagedOpen = (key: string) => [...(byKey.get(key) ?? [])].some((id) => members.get(id)!.open && members.get(id)!.paged);
  const list: Transition[] = [];
  [...messages].sort((a, b) => a.at - b.at).forEach((message, index) => {
    // One message is read at once: what it fires before what it resolves (Alertmanager tells a group's alerts together).
    const resolvedHere: Transition[] = [];
    for (const alert of [...message.alerts.filter((a) => a.status === 'firing'), ...message.alerts.filter((a) => a.status !== 'firing')]) {
      const key = keyOf(alert);
      const id = memberOf(alert);
      const told = { at: message.at, message: index, key, member: id, alert };
      let m = members.get(id);
      if (alert.status === 'firing') {
        const wasPaged = pagedOpen(key);
        let fresh = false;
        let reannounced = false;
        if (!m || !m.open) {
          m = { key, open: true, paged: false, alert, ...(alert.startsAt ? { startsAt: alert.startsAt } : {}) };
          members.set(id, m);
          byKey.set(key, (byKey.get(key) ?? new Set()).add(id));
          fresh = true;
        } else if (alert.startsAt && m.startsAt && alert.startsAt !== m.startsAt) {
          m.startsAt = alert.startsAt;
          m.paged = false;
          fresh = reannounced = true;
        }
        m.alert = alert;
        if (alert.labels.scope !== 'network' && !m.paged) {
          m.paged = true;
          if (!wasPaged || reannounced) list.push({ ...told, kind: 'page', ...(reannounced ? { reannounced } : {}) });
        } else if (alert.labels.scope === 'network' && fresh) list.push({ ...told, kind: 'notice' });
      } else if (m?.open) {
        m.open = false;
        if (m.paged) resolvedHere.push({ ...told, kind: 'resolve' });
      }
    }
    for (const t of resolvedHere) {
      // a critical copy resolved while a lower one of the same alert stays open: the problem shrank
      const lower = [...byKey.get(t.key)!].some((id) => members.get(id)!.open && members.get(id)!.paged && members.get(id)!.alert.labels.severity !== 'critical');
      list.push(t.alert.labels.severity === 'critical' && lower ? { ...t, stepDown: true } : t);
    }
  });
  const open = new Map<string, { alert: Alert; paged: boolean }>();
  for (const m of members.values()) {
    if (!m.open) continue;
    const seen = open.get(m.key);
    open.set(m.key, { alert: m.paged || !seen ? m.alert : seen.alert, paged: m.paged || (seen?.paged ?? false) });
  }
  return { list, open };
}

function scoreReceiver(input: ScoreInput, messages: Message[]): ReceiverScore {
  const { script, appliedAt } = input;
  const when = (event: ScriptEvent | undefined) => (event ? appliedAt.get(event.line) : undefined);
  const incidents = [...script.incidents.values()].filter((i) => when(i.openedBy) !== undefined);
  const openAt = (i: Incident, at: number) => when(i.openedBy)! <= at && (when(i.closedBy) === undefined || at < when(i.closedBy)!);
  const { list, open } = transitions(messages);
  const score: ReceiverScore = { pages: 0, notices: 0, falsePages: [], missed: [], duplicates: [], falseResolves: [], openAtEnd: [], pageLatencyS: [], resolveLatencyS: [] };
  const pagesOf = new Map<string, Transition[]>();
  /** The incident each paged alert (member) and key was last matched to. */
  const incidentOfMember = new Map<string, Incident | undefined>();
  const incidentOfKey = new Map<string, Incident | undefined>();
  const resolvesOf = new Map<string, number[]>();
  for (const t of list) {
    if (t.kind === 'notice') {
      score.notices++;
      continue;
    }
    if (t.kind === 'resolve') {
      // an alert that paged without a page of its own (its key was paged already) is its key's incident's
      const incident = incidentOfMember.has(t.member) ? incidentOfMember.get(t.member) : incidentOfKey.get(t.key);
      if (!incident) continue; // the resolve of a false page
      resolvesOf.set(incident.id, [...(resolvesOf.get(incident.id) ?? []), t.at]);
      if (openAt(incident, t.at) && !t.stepDown) score.falseResolves.push({ at: t.at, id: incident.id, key: t.key, labels: t.alert.labels });
      continue;
    }
    score.pages++;
    const candidates = incidents.filter((i) => {
      const closed = when(i.closedBy);
      return matches(i, t.alert) && when(i.openedBy)! - 1000 <= t.at && (closed === undefined || t.at <= closed + PAGE_GRACE_S * 1000);
    });
    // an incident open at the page before one that closed within the grace; the latest onset first
    const incident = candidates.sort((a, b) => Number(openAt(b, t.at)) - Number(openAt(a, t.at)) || when(b.openedBy)! - when(a.openedBy)!)[0];
    incidentOfMember.set(t.member, incident);
    incidentOfKey.set(t.key, incident);
    if (!incident) {
      score.falsePages.push({ at: t.at, key: t.key });
      continue;
    }
    pagesOf.set(incident.id, [...(pagesOf.get(incident.id) ?? []), t]);
  }
  for (const incident of incidents) {
    if (incident.quiet) continue;
    const pages = pagesOf.get(incident.id) ?? [];
    if (pages.length === 0) {
      score.missed.push(incident.id);
      continue;
    }
    const notifications = new Set(pages.map((p) => p.message)).size;
    if (notifications > 1) score.duplicates.push({ id: incident.id, pages: notifications, keys: pages.map((p) => ({ at: p.at, key: p.key })) });
    score.pageLatencyS.push(Math.max(0, pages[0]!.at - when(incident.openedBy)!) / 1000);
    const closed = when(incident.closedBy);
    if (closed === undefined) continue;
    const keys = new Set(pages.map((p) => p.key));
    if ([...keys].some((k) => open.get(k)?.paged)) continue; // open at the end: counted there
    const after = (resolvesOf.get(incident.id) ?? []).filter((at) => at >= closed);
    if (after.length > 0) score.resolveLatencyS.push((Math.max(...after) - closed) / 1000);
  }
  const heldAtEnd = incidents.filter((i) => i.closedBy === undefined || when(i.closedBy) === undefined);
  for (const [key, { alert }] of open) if (!heldAtEnd.some((i) => covers(i, alert))) score.openAtEnd.push(key);
  return score;
}

export function score(input: ScoreInput): Score {
  const receivers = Object.fromEntries(Object.entries(input.receivers).map(([name, messages]) => [name, scoreReceiver(input, messages)]));
  const surfaceDisagreements: Score['surfaceDisagreements'] = [];
  const grace = transitionTimes(input.script);
  const openAt = (t: number) =>
    [...input.script.incidents.values()].filter((i) => {
      const opened = input.appliedAt.get(i.openedBy.line);
      const closed = i.closedBy ? input.appliedAt.get(i.closedBy.line) : undefined;
      return opened !== undefined && opened <= t && (closed === undefined || closed > t);
    });
  const targetsOf = (i: Incident) => (i.labels.target ?? '').split('|').filter(Boolean);
  for (const sample of input.samples) {
    const expected = openAt(sample.at).flatMap(targetsOf);
    const within = (e: ScriptEvent, graceMs: number) => {
      const at = input.appliedAt.get(e.line);
      return at !== undefined && at <= (sample.until ?? sample.at) && sample.at - at < graceMs;
    };
    const moving = new Set(input.script.events.filter((e) => within(e, grace.get(e.line)!)).flatMap((e) => touched(e, input.script)));
    if (input.script.events.some((e) => STARTS.has(e.action) && within(e, START_GRACE_S * 1000))) {
      for (const i of openAt(sample.at)) if (grace.get(i.openedBy.line) === ECONOMICS_GRACE_S * 1000) for (const t of targetsOf(i)) moving.add(t);
    }
    const want = [...new Set(expected)].filter((t) => !moving.has(t)).sort();
    const shown = [...new Set(sample.unhealthy)].filter((t) => !moving.has(t)).sort();
    if (want.join() !== shown.join()) {
      const odd = shown.filter((t) => !want.includes(t) && sample.detail?.[t] !== undefined);
      surfaceDisagreements.push({ at: sample.at, surface: sample.surface, expected: want, shown, ...(odd.length ? { detail: Object.fromEntries(odd.map((t) => [t, sample.detail![t]!])) } : {}) });
    }
  }
  const all = Object.values(receivers);
  const sum = (f: (r: ReceiverScore) => number) => all.reduce((n, r) => n + f(r), 0);
  const round = (v: number | null) => (v === null ? null : Math.round(v * 10) / 10);
  return {
    receivers,
    surfaceDisagreements,
    samples: input.samples.length,
    summary: {
      week: input.week ?? 'week.txt',
      incidents: [...input.script.incidents.values()].filter((i) => !i.quiet).length,
      false_pages: sum((r) => r.falsePages.length),
      missed_incidents: sum((r) => r.missed.length),
      duplicate_pages: sum((r) => r.duplicates.reduce((n, d) => n + d.pages - 1, 0)),
      false_resolves: sum((r) => r.falseResolves.length),
      open_at_end: sum((r) => r.openAtEnd.length),
      page_latency_p95_s: round(percentile(all.flatMap((r) => r.pageLatencyS), 95)),
      resolve_latency_p95_s: round(percentile(all.flatMap((r) => r.resolveLatencyS), 95)),
      surface_disagreements: surfaceDisagreements.length,
    },
  };
}
