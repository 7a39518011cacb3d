/**
 * The admin routes: POST /-/reload (--web.enable-lifecycle), POST /api/v1/silences and
 * DELETE /api/v1/silences/{id} (--web.enable-admin-api). Refused with 403 when not enabled.
 */
import { silenceBodySchema, type SilenceInput } from '../../alerts/silences.js';
import { BadRequest, json, text, type Route } from '../route.js';
import { refuseForeignWrite, requireJson } from './write-guard.js';

export interface ReloadResult {
  ok: boolean;
  error?: string;
  /** Settings that changed in the file but take effect only after a restart (e.g. `listen`). */
  restartRequired?: string[];
}

export interface AdminActions {
  /** Host names a write may name besides localhost and IP addresses: the listen address, the external URL's host, `allowed_hosts`. */
  allowedHosts: () => Iterable<string>;
  /** Present only with --web.enable-lifecycle. */
  reload?: () => Promise<ReloadResult>;
  /** Present only with --web.enable-admin-api. */
  silences?: {
    /** The new silence's id, or why it is refused (it would match nothing). */
    add: (silence: SilenceInput) => { id: string } | { error: string };
    expire: (id: string) => boolean;
  };
}

export function reloadAnswer(result: ReloadResult): string {
  if (!result.ok) return `reload failed:\n${result.error}\n`;
  const restart = result.restartRequired?.length ? `restart avahealth to apply: ${result.restartRequired.join(', ')} (the running value stays until then)\n` : '';
  return `config reloaded\n${restart}`;
}

export function adminRoutes(actions: AdminActions): Route[] {
  const { reload, silences } = actions;
  const refuseForeign = (headers: Parameters<typeof refuseForeignWrite>[0]) => refuseForeignWrite(headers, actions.allowedHosts());
  const notAdmin = () => json(403, { error: 'the admin API is not enabled (--web.enable-admin-api)' });
  return [
    {
      methods: ['*'],
      path: '/-/reload',
      handle: async ({ method, headers }) => {
        if (method !== 'POST' && method !== 'PUT') return text(405, 'use POST\n', { allow: 'POST, PUT' });
        if (!reload) return text(403, 'lifecycle API is not enabled (--web.enable-lifecycle)\n');
        const foreign = refuseForeign(headers);
        if (foreign) return foreign;
        const result = await reload();
        return text(result.ok ? 200 : 500, reloadAnswer(result));
      },
    },
    {
      methods: ['*'],
      path: '/api/v1/silences',
      handle: async (request) => {
        if (!silences) return notAdmin();
        if (request.method !== 'POST') return json(405, { error: 'use GET or POST /api/v1/silences, DELETE /api/v1/silences/{id}' });
        const refused = refuseForeign(request.headers) ?? requireJson(request.headers);
        if (refused) return refused;
        let body: unknown;
        try {
          body = await request.json();
        } catch (err) {
          if (err instanceof BadRequest) return json(err.status, { error: `body must be JSON: ${err.message}` });
          throw err;
        }
        const parsed = silenceBodySchema.safeParse(body);
        if (!parsed.success) return json(400, { error: parsed.error.issues.map((i) => i.message).join('; ') });
        const added = silences.add(parsed.data);
        return 'error' in added ? json(400, { error: added.error }) : json(200, { id: added.id });
      },
    },
    {
      methods: ['*'],
      path: /^\/api\/v1\/silences\/([^/]+)$/,
      handle: ({ method, headers, params: [id] }) => {
        if (!silences) return notAdmin();
        if (method !== 'DELETE') return json(405, { error: 'use GET or POST /api/v1/silences, DELETE /api/v1/silences/{id}' });
        const foreign = refuseForeign(headers);
        if (foreign) return foreign;
        return silences.expire(id!) ? json(200, { expired: id }) : json(404, { error: 'no such silence' });
      },
    },
  ];
}
