/**
 * One verdict for every surface: a target's state on the status page, in /api/v1, in `check`
 * (whole and `--target`) follows the incidents open for it, with their severity and scope. The
 * daemon hands in the incidents its engine fires; `check` those of its one round of the same
 * stages (alerts/round.ts), or a running daemon's verdicts as that daemon's API gives them.
 *
 * - an incident raises the state it was polled in: `critical` with any scope but `network` makes
 *   the target `unhealthy` (CRITICAL), anything else `warning` (WARNING). A `scope="network"`
 *   incident (every validator looks down from the fleet) is not the operator's own fault, so it is
 *   a warning whatever its severity, as the shipped Alertmanager config routes it to chat;
 * - a worse state from the target's own answer stays (unreachable, a failing health check);
 * - the incidents whose facts the health reply does not tell (validator, chain data, height lag,
 *   low disk, an upgrade deadline) say why in the target's summary, so a node warning only for them
 *   is not a mystery; so does every incident while the reply itself looks healthy (a check that
 *   flaps, between two failures; a service whose outage goes on behind a 429);
 * - what cannot be known now (a source rate-limited or down) is said after the state: "version
 *   drift unknown: the Data API could not be read (…)".
 */
import { RULE_SOURCES, ruleNamed, type Severity } from '../alerts/rules/index.js';
import type { AlertState, UnknownVerdict, VerdictChange } from '../alerts/types.js';
import type { Change } from '../store.js';
import { STATE_SEVERITY, type ShownIncident, type TargetStatus } from './status.js';

/** An incident open for a target: one the daemon fires, or one `check` finds in its round. */
export interface TargetIncident {
  alertname: string;
  severity: Severity;
  summary: string;
  /** Identity labels (`scope`, `chain`, `check`, …). */
  labels: Record<string, string>;
  /** The root cause that holds its notifications back (it still says the target's state). */
  inhibitedBy?: string;
}

/** The incidents open for each target: those firing, held back by a root cause or not. */
export function openIncidents(alerts: Iterable<AlertState>, now = Date.now()): Map<string, TargetIncident[]> {
  const open = new Map<string, TargetIncident[]>();
  for (const a of alerts) {
    // An incident whose facts are over (a validation that ended) until the evaluation that ends it: not counted.
    if (a.phase !== 'firing' || (a.until !== undefined && now >= a.until)) continue;
    let ofTarget = open.get(a.target);
    if (!ofTarget) open.set(a.target, (ofTarget = []));
    ofTarget.push({ alertname: a.alertname, severity: a.severity, summary: a.annotations.summary, labels: a.labels, ...(a.inhibitedBy ? { inhibitedBy: a.inhibitedBy } : {}) });
  }
  return open;
}

/** What one incident makes of its target: critical is unhealthy unless the whole network is the cause. */
export function incidentState(incident: Pick<TargetIncident, 'severity' | 'labels'>): ShownIncident['state'] {
  return incident.severity === 'critical' && incident.labels.scope !== 'network' ? 'unhealthy' : 'warning';
}

/** Whether the incident's facts are beyond what the health reply says (so the summary must say them). */
function explains(alertname: string): boolean {
  const rule = ruleNamed(alertname);
  if (!rule) return false;
  return (rule.countsInState ?? RULE_SOURCES[rule.source].countsInState) === true || (rule.source !== 'node' && rule.source !== 'service');
}

/** The words an incident adds to the target's summary (the height lag per chain, else its summary). */
function reason(incident: TargetIncident, status: TargetStatus): string {
  if (incident.alertname === 'AvalancheNodeHeightLag' && incident.labels.chain !== undefined) {
    return `${incident.labels.chain} ${status.lag[incident.labels.chain] ?? '?'} blocks behind`;
  }
  return incident.summary;
}

/**
 * The target's verdict: its state raised by every open incident, the incidents listed
 * (`incidents`), and the summary saying why where the health reply does not.
 */
export function withIncidents(status: TargetStatus, incidents: readonly TargetIncident[], unknown: readonly UnknownVerdict[] = []): TargetStatus {
  status.incidents = incidents.map((i) => ({
    alertname: i.alertname,
    severity: i.severity,
    ...(i.labels.scope ? { scope: i.labels.scope } : {}),
    summary: i.summary,
    state: incidentState(i),
    ...(i.inhibitedBy ? { heldBy: i.inhibitedBy } : {}),
  }));
  const unknowns = status.state === 'unreachable' ? [] : sayUnknown(unknown);
  if (unknowns.length > 0) status.unknown = unknowns;
  if (incidents.length > 0) raise(status, incidents);
  if (unknowns.length > 0 && status.state !== 'unreachable') status.summary = `${status.summary}; ${unknowns.join('; ')}`;
  return status;
}

/** "version drift unknown: the Data API could not be read (…)", one sentence per reason. */
function sayUnknown(unknown: readonly UnknownVerdict[]): string[] {
  const byReason = new Map<string, string[]>();
  for (const u of unknown) byReason.set(u.because, [...new Set([...(byReason.get(u.because) ?? []), u.what])]);
  return [...byReason].map(([because, what]) => `${what.join(', ')} unknown: ${because}`);
}

function raise(status: TargetStatus, incidents: readonly TargetIncident[]): void {
  // The reply looked healthy (or said nothing, rate-limited): then only the incidents say why.
  const replyShowsNothing = STATE_SEVERITY[status.state] === 0;
  const worst = incidents.some((i) => incidentState(i) === 'unhealthy') ? 'unhealthy' : 'warning';
  if (STATE_SEVERITY[worst] > STATE_SEVERITY[status.state]) status.state = worst;
  if (status.state === 'unreachable') return;
  const open = new Set(incidents.map((i) => i.alertname));
  const explained = incidents.filter((i) => replyShowsNothing || explains(i.alertname));
  if (explained.length === 0) return;
  const lagging = explained.filter((i) => i.alertname === 'AvalancheNodeHeightLag');
  const others = explained.filter((i) => i.alertname !== 'AvalancheNodeHeightLag');
  status.failingChecks.push(...lagging.map((i) => reason(i, status)), ...new Set(others.filter((i) => !status.failingChecks.includes(i.alertname)).map((i) => i.alertname)));
  // A symptom a root cause of this target holds back is not said: its root cause is ("C 144 blocks
  // behind" of a validator cut off from the network is not why it is down); one the network's own
  // alert holds back still is (it is all this target has). A root cause the verdicts name (it holds
  // another open incident back) leads, before the failing checks it explains.
  const said = (list: readonly TargetIncident[]) => {
    const shown = list.filter((i) => !(i.inhibitedBy && open.has(i.inhibitedBy)) && !ruleNamed(i.alertname)?.toldBy?.some((name) => open.has(name)));
    const lag = shown.filter((i) => i.alertname === 'AvalancheNodeHeightLag').map((i) => reason(i, status));
    return [lag.join(', '), ...new Set(shown.filter((i) => i.alertname !== 'AvalancheNodeHeightLag').map((i) => reason(i, status)))].filter((part) => part !== '');
  };
  const holding = new Set(incidents.map((i) => i.inhibitedBy).filter((name) => name !== undefined));
  const roots = said(explained.filter((i) => holding.has(i.alertname)));
  const rest = said(explained.filter((i) => !holding.has(i.alertname)));
  const own = status.summary === 'healthy' ? [] : [status.summary];
  const parts = [...roots, ...own, ...rest];
  if (parts.length > 0) status.summary = parts.join('; ');
}

/** Changes kept on a target's page: its health reply's and its verdicts'. */
const MAX_HISTORY = 30;

/**
 * The target's recent changes with its verdicts' among them, newest first: an incident that began
 * firing (with the state it gives the target), changed severity, or resolved. A validator whose
 * period ended unpaid went unhealthy though its health reply never changed: this says when and why.
 */
export function withVerdictChanges(status: TargetStatus, changes: readonly VerdictChange[]): TargetStatus {
  if (changes.length === 0) return status;
  const said: Change[] = changes.map((c) => {
    const at = c.at / 1000;
    const state = incidentState(c);
    if (c.kind === 'resolved') return { at, text: `${c.alertname} resolved: ${c.summary}`, good: true };
    if (c.kind === 'severity_changed') return { at, text: `${c.alertname} ${c.from} → ${c.severity} (${state}): ${c.summary}`, good: c.severity === 'warning' };
    // The state it gives the target, where the severity does not say it (critical is unhealthy, or a warning with scope="network").
    return { at, text: `${c.alertname} firing (${c.severity})${state === c.severity ? '' : ` → ${state}`}: ${c.summary}`, good: false };
  });
  status.history = [...status.history, ...said].sort((a, b) => b.at - a.at).slice(0, MAX_HISTORY);
  return status;
}
