/** The routes the daemon serves, and the read-only views of the components' state behind them. */
import type { Silence } from '../alerts/silences.js';
import { pagingCheck } from '../alerts/paging.js';
import { awaitingOutcomeOnly } from '../alerts/incidents.js';
import type { ShownAlert } from '../alerts/types.js';
import type { Route } from '../http/route.js';
import { adminRoutes, type AdminActions } from '../http/routes/admin.js';
import { apiRoutes } from '../http/routes/api.js';
import { healthRoutes } from '../http/routes/health.js';
import { metricsRoutes } from '../http/routes/metrics.js';
import type { StateView } from '../http/routes/view.js';
import { emptySnapshot } from '../model/chaindata.js';
import { targetsOf } from '../model/targets.js';
import type { PageModel } from '../status/page.js';
import { statusPageRoutes, type PageView } from '../status/routes.js';
import { alertCounts, chainDataStatus, targetStatus } from '../status/status.js';
import { openIncidents, withIncidents, withVerdictChanges } from '../status/verdict.js';
import { VERSION } from '../version.js';
import type { Components } from './components.js';

/** What the daemon itself knows: the first round is done; how far behind the scheduler is. */
export type DaemonState = Pick<StateView, 'ready' | 'schedulerLagMs'>;

export function stateView(parts: Components, { ready, schedulerLagMs }: DaemonState): StateView & PageView {
  /**
   * An active alert a silence or maintenance window holds is shown `silenced`, with which one and
   * until when; one a root cause holds back (inhibition) `held`, with `inhibitedBy`.
   */
  const shownAlerts = (): ShownAlert[] => {
    const now = Date.now();
    // a resolve already told, kept only for the outcome its rule tells later, is no alert to show
    return parts.alerts.list().filter((a) => !awaitingOutcomeOnly(a)).map((a) => {
      if (a.phase === 'resolved') return a;
      const by = parts.alerts.silences.silencing({ ...a.labels, severity: a.severity }, now);
      if (by) return { ...a, state: 'silenced' as const, silencedBy: by };
      return a.inhibitedBy && a.state === 'firing' ? { ...a, state: 'held' as const } : a;
    });
  };
  /** Each target's verdict follows the incidents open for it (firing, silenced, held or not): status/verdict.ts. */
  const statuses = () => {
    const { config, store } = parts;
    const lags = config.chainData ? store.lags() : new Map<string, never[]>();
    const open = openIncidents(parts.alerts.list());
    return targetsOf(config).map((t) => {
      const status = targetStatus(t, store);
      for (const lag of lags.get(t.name) ?? []) status.lag[lag.chain] = lag.lagBlocks;
      return withVerdictChanges(withIncidents(status, open.get(t.name) ?? [], parts.alerts.unknownOf(t.name)), parts.alerts.changesOf(t.name));
    });
  };
  const rawResponse = (name: string) => parts.store.get(name)?.observation.endpoints.find((e) => e.raw !== undefined)?.raw;
  const model = (): PageModel => ({ version: VERSION, now: Date.now() / 1000, targets: statuses(), alerts: shownAlerts(), silences: parts.alerts.silences.list(), paging: pagingCheck(parts.config) });
  /** Active alerts by state (as the page counts them), and the silenced ones with their silence (GET /api/v1/status). */
  const alertSummary = () => {
    const shown = shownAlerts();
    return {
      ...alertCounts(shown),
      silencedAlerts: shown.filter((a) => a.state !== 'resolved' && a.silencedBy).map((a) => ({ alertname: a.alertname, target: a.target, labels: a.labels, severity: a.severity, silencedBy: apiSilencedBy(a.silencedBy!) })),
    };
  };
  return {
    ready,
    schedulerLagMs,
    metrics: async (headers) => {
      parts.metrics.setAlertCounts(parts.alerts.list());
      const { contentType, contentEncoding, body } = await parts.metrics.scrape({ accept: headers.accept, acceptEncoding: headers['accept-encoding'] });
      return { contentType, body, headers: { vary: 'Accept, Accept-Encoding', ...(contentEncoding ? { 'content-encoding': contentEncoding } : {}) } };
    },
    status: () => ({
      version: VERSION,
      ready: ready(),
      targets: statuses(),
      alerts: alertSummary(),
      paging: pagingCheck(parts.config),
      ...(parts.config.chainData ? { chainData: chainDataStatus(parts.store.chainData ?? emptySnapshot()) } : {}),
    }),
    target: (name) => {
      const target = statuses().find((t) => t.name === name);
      if (!target) return undefined;
      const raw = rawResponse(name);
      return { ...target, ...(raw !== undefined ? { lastResponse: raw } : {}), alerts: shownAlerts().filter((a) => a.target === name).map(apiAlert) };
    },
    alerts: () => ({ alerts: shownAlerts().map(apiAlert), silences: parts.alerts.silences.list().map(apiSilence), queues: parts.notifier.queueLengths() }),
    model,
    rawResponse,
  };
}

/**
 * Every time the API gives is in epoch seconds, as /api/v1/status and /metrics always did; the
 * engine and the silences keep milliseconds.
 */
const seconds = (ms: number) => ms / 1000;

function apiSilencedBy(by: NonNullable<ShownAlert['silencedBy']>) {
  return { ...by, endsAt: seconds(by.endsAt) };
}

function apiAlert(a: ShownAlert) {
  const { activeSince, firingSince, endedAt, notified, silencedBy, acknowledged } = a;
  return {
    ...a,
    activeSince: seconds(activeSince),
    ...(firingSince !== undefined ? { firingSince: seconds(firingSince) } : {}),
    ...(endedAt !== undefined ? { endedAt: seconds(endedAt) } : {}),
    ...(notified ? { notified: { ...notified, at: seconds(notified.at), ...(notified.since !== undefined ? { since: seconds(notified.since) } : {}) } } : {}),
    ...(silencedBy ? { silencedBy: apiSilencedBy(silencedBy) } : {}),
    ...(acknowledged ? { acknowledged: { ...acknowledged, at: seconds(acknowledged.at) } } : {}),
  };
}

function apiSilence(s: Silence) {
  return { ...s, startsAt: seconds(s.startsAt), endsAt: seconds(s.endsAt) };
}

/** Every route, in match order: the page's routes come from the status module itself. */
export function daemonRoutes(parts: Components, state: DaemonState, actions: AdminActions): Route[] {
  const view = stateView(parts, state);
  return [...healthRoutes(view), ...metricsRoutes(view), ...apiRoutes(view), ...adminRoutes(actions), ...statusPageRoutes(view)];
}
