/** Liveness and readiness of avahealth itself (never of the nodes it watches). */
import { GET, text, type Route } from '../route.js';
import type { StateView } from './view.js';

export function healthRoutes(view: Pick<StateView, 'ready'>): Route[] {
  return [
    { methods: GET, path: '/-/healthy', handle: () => text(200, 'Healthy\n') },
    { methods: GET, path: '/-/ready', handle: () => (view.ready() ? text(200, 'Ready\n') : text(503, 'Not ready: first poll round not complete\n')) },
  ];
}
