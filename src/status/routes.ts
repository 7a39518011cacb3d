/**
 * The status page's routes, handed to the HTTP server by the app: the fleet at `/`, one target at
 * `/targets/{name}` (`?fragment=main`: only the inner HTML of <main>, for the refresh script), and
 * the page's stylesheet, script and icon.
 */
import { GET, text, type Reply, type Route } from '../http/route.js';
import { FAVICON, SCRIPT, STYLESHEET } from './assets.js';
import { renderFleetMain, renderPage, renderTargetMain, type PageModel } from './page.js';

export interface PageView {
  model(): PageModel;
  /** The last raw response of a target, shown on its page. */
  rawResponse(name: string): string | undefined;
}

/** No inline code at all: the page's one stylesheet and one script are served from /static/. */
const PAGE_HEADERS = {
  'content-security-policy': "default-src 'none'; style-src 'self'; script-src 'self'; connect-src 'self'; img-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  'x-frame-options': 'DENY',
  'cache-control': 'no-store',
};

const html = (body: string): Reply => ({ status: 200, contentType: 'text/html; charset=utf-8', body, headers: PAGE_HEADERS });
const asset = (contentType: string, body: string, maxAge: number): Reply => ({ status: 200, contentType, body, headers: { 'cache-control': `public, max-age=${maxAge}` } });

export function statusPageRoutes(view: PageView): Route[] {
  return [
    {
      methods: GET,
      path: '/',
      handle: ({ query }) => {
        const model = view.model();
        const main = renderFleetMain(model);
        return html(query.get('fragment') === 'main' ? main : renderPage('avahealth', main, model.version));
      },
    },
    {
      methods: GET,
      path: /^\/targets\/([^/]+)$/,
      handle: ({ params: [name], query }) => {
        const model = view.model();
        const target = model.targets.find((t) => t.name === name);
        if (!target) return text(404, 'no such target\n');
        const main = renderTargetMain(target, view.rawResponse(name!), model);
        return html(query.get('fragment') === 'main' ? main : renderPage(`${name} · avahealth`, main, model.version));
      },
    },
    { methods: GET, path: '/static/avahealth.css', handle: () => asset('text/css; charset=utf-8', STYLESHEET, 300) },
    { methods: GET, path: '/static/avahealth.js', handle: () => asset('text/javascript; charset=utf-8', SCRIPT, 300) },
    { methods: GET, path: '/static/favicon.svg', handle: () => asset('image/svg+xml', FAVICON, 86400) },
    { methods: GET, path: '/favicon.ico', handle: () => ({ status: 204, contentType: 'image/svg+xml', body: '' }) },
  ];
}
