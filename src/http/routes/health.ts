/** Liveness and readiness of avahealth itself (never of the nodes it watches). */
import { GET, text, type Route } from '../route.js';
import type { StateView } from './view.js';

/** How far behind its schedule the scheduler may fall before `/-/healthy` says 503. */
export const STALLED_AFTER_MS = 30_000;

export function healthRoutes(view: Pick<StateView, 'ready' | 'schedulerLagMs'>, stalledAfterMs = STALLED_AFTER_MS): Route[] {
  const healthy = () => {
    const lag = view.schedulerLagMs();
    if (lag <= stalledAfterMs) return text(200, 'Healthy\n');
    return text(503, `Unhealthy: the scheduler is ${(lag / 1000).toFixed(1)} s behind (limit ${stalledAfterMs / 1000} s)\n`);
  };
  return [
    { methods: GET, path: '/-/healthy', handle: healthy },
    { methods: GET, path: '/-/ready', handle: () => (view.ready() ? text(200, 'Ready\n') : text(503, 'Not ready: first poll round not complete\n')) },
  ];
}
