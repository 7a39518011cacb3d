/**
 * One verdict for every surface: a target's state on the status page, in /api/v1, in `check`
 * (whole and `--target`) follows the incidents open for it, with their severity and scope. The
 * daemon hands in the alerts its engine fires; `check` the findings of every rule over its round.
 *
 * - an incident raises the state it was polled in: `critical` with any scope but `network` makes
 *   the target `unhealthy` (CRITICAL), anything else `warning` (WARNING). A `scope="network"`
 *   incident (every validator looks down from the fleet) is not the operator's own fault, so it is
 *   a warning whatever its severity, as the shipped Alertmanager config routes it to chat;
 * - a worse state from the target's own answer stays (unreachable, a failing health check);
 * - the incidents whose facts the health reply does not tell (validator, chain data, height lag,
 *   low disk) say why in the target's summary, so a node warning only for them is not a mystery.
 */
import { RULE_SOURCES, ruleNamed, type Severity } from '../alerts/rules/index.js';
import { STATE_SEVERITY, type ShownIncident, type TargetStatus } from './status.js';

/** An incident open for a target: one the daemon fires, or one `check` finds in its round. */
export interface TargetIncident {
  alertname: string;
  severity: Severity;
  summary: string;
  /** Identity labels (`scope`, `chain`, `check`, …). */
  labels: Record<string, string>;
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
export function withIncidents(status: TargetStatus, incidents: readonly TargetIncident[]): TargetStatus {
  status.incidents = incidents.map((i) => ({ alertname: i.alertname, severity: i.severity, ...(i.labels.scope ? { scope: i.labels.scope } : {}), summary: i.summary, state: incidentState(i) }));
  if (incidents.length === 0) return status;
  const worst = incidents.some((i) => incidentState(i) === 'unhealthy') ? 'unhealthy' : 'warning';
  if (STATE_SEVERITY[worst] > STATE_SEVERITY[status.state]) status.state = worst;
  if (status.state === 'unreachable') return status;
  const open = new Set(incidents.map((i) => i.alertname));
  const explained = incidents.filter((i) => explains(i.alertname));
  if (explained.length === 0) return status;
  const lag = explained.filter((i) => i.alertname === 'AvalancheNodeHeightLag').map((i) => reason(i, status));
  const others = explained.filter((i) => i.alertname !== 'AvalancheNodeHeightLag');
  const told = others.filter((i) => !ruleNamed(i.alertname)?.toldBy?.some((name) => open.has(name)));
  const said = [lag.join(', '), ...new Set(told.map((i) => reason(i, status)))].filter((part) => part !== '').join('; ');
  status.summary = status.summary === 'healthy' ? said : `${status.summary}; ${said}`;
  status.failingChecks.push(...lag, ...new Set(others.map((i) => i.alertname)));
  return status;
}
