/** The routes the daemon serves, and the read-only views of the components' state behind them. */
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
import { chainDataStatus, targetStatus, withValidatorAlerts } from '../status/status.js';
import { VERSION } from '../version.js';
import type { Components } from './components.js';

/** What the daemon itself knows: the first round is done; how far behind the scheduler is. */
export type DaemonState = Pick<StateView, 'ready' | 'schedulerLagMs'>;

export function stateView(parts: Components, { ready, schedulerLagMs }: DaemonState): StateView & PageView {
  const statuses = () => {
    const { config, store } = parts;
    const lags = config.chainData ? store.lags() : new Map<string, never[]>();
    const firing = parts.alerts.list().filter((a) => a.phase === 'firing');
    return targetsOf(config).map((t) => {
      const status = withValidatorAlerts(
        targetStatus(t, store),
        firing.filter((a) => a.target === t.name).map((a) => ({ alertname: a.alertname, severity: a.severity, summary: a.annotations.summary })),
      );
      for (const lag of lags.get(t.name) ?? []) status.lag[lag.chain] = lag.lagBlocks;
      return status;
    });
  };
  const rawResponse = (name: string) => parts.store.get(name)?.observation.endpoints.find((e) => e.raw !== undefined)?.raw;
  const model = (): PageModel => ({ version: VERSION, now: Date.now() / 1000, targets: statuses(), alerts: parts.alerts.list(), silences: parts.alerts.silences.list() });
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
      ...(parts.config.chainData ? { chainData: chainDataStatus(parts.store.chainData ?? emptySnapshot()) } : {}),
    }),
    target: (name) => {
      const target = statuses().find((t) => t.name === name);
      if (!target) return undefined;
      const raw = rawResponse(name);
      return { ...target, ...(raw !== undefined ? { lastResponse: raw } : {}), alerts: parts.alerts.list().filter((a) => a.target === name) };
    },
    alerts: () => ({ alerts: parts.alerts.list(), silences: parts.alerts.silences.list(), queues: parts.notifier.queueLengths() }),
    model,
    rawResponse,
  };
}

/** Every route, in match order: the page's routes come from the status module itself. */
export function daemonRoutes(parts: Components, state: DaemonState, actions: AdminActions): Route[] {
  const view = stateView(parts, state);
  return [...healthRoutes(view), ...metricsRoutes(view), ...apiRoutes(view), ...adminRoutes(actions), ...statusPageRoutes(view)];
}
