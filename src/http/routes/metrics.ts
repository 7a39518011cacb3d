/** GET /metrics. */
import { GET, NO_STORE, type Route } from '../route.js';
import type { StateView } from './view.js';

export function metricsRoutes(view: Pick<StateView, 'metrics'>): Route[] {
  return [
    {
      methods: GET,
      path: '/metrics',
      handle: async (request) => {
        const { contentType, body, headers } = await view.metrics(request.headers);
        return { status: 200, contentType, body, headers: { ...NO_STORE, ...headers } };
      },
    },
  ];
}
