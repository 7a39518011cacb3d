/** The JSON API: status, one target, alerts, silences (read). */
import { GET, json, NO_STORE, type Route } from '../route.js';
import type { StateView } from './view.js';

export function apiRoutes(view: Pick<StateView, 'status' | 'target' | 'alerts'>): Route[] {
  return [
    { methods: GET, path: '/api/v1/status', handle: () => json(200, view.status(), NO_STORE) },
    { methods: GET, path: '/api/v1/alerts', handle: () => json(200, view.alerts(), NO_STORE) },
    { methods: GET, path: '/api/v1/silences', handle: () => json(200, view.alerts().silences) },
    {
      methods: GET,
      path: /^\/api\/v1\/targets\/([^/]+)$/,
      handle: ({ params: [name] }) => {
        const target = view.target(name!);
        return target === undefined ? json(404, { error: 'no such target' }) : json(200, target, NO_STORE);
      },
    },
  ];
}
