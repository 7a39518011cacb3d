/**
 * Content negotiation of `/metrics` (Prometheus' "Scrape protocol content negotiation"): the
 * supported media range with the highest q-value in `Accept` wins, the earlier one on a tie;
 * OpenMetrics (1.0.0 or 0.0.1 asked: 1.0.0 served) or Prometheus text (0.0.4; also for `*` and
 * for a text/plain 1.0.0, whose names and escaping are the same for avahealth's legacy names).
 * Nothing supported, or no header: Prometheus text 0.0.4, the protocol's last resort.
 *
 * Prometheus 3 asks with an `escaping=` parameter for OpenMetrics 1.0.0
 * (`application/openmetrics-text;version=1.0.0;escaping=allow-utf-8;q=0.6,…,*\/*;q=0.2`) and reads it
 * back from the Content-Type. Every avahealth name is in the legacy character set, so each scheme
 * (allow-utf-8, underscores, dots, values) leaves it as it is: the scheme asked is named back.
 */
import type { Format } from './exposition.js';

export const ESCAPING_SCHEMES = ['allow-utf-8', 'underscores', 'dots', 'values'] as const;

const CONTENT_TYPES: Record<Format, string> = {
  text: 'text/plain; version=0.0.4; charset=utf-8',
  openmetrics: 'application/openmetrics-text; version=1.0.0; charset=utf-8',
};

interface Range {
  type: string;
  params: Map<string, string>;
  q: number;
}

/** Media ranges of an Accept-style header with their parameters and q-values (q=0: not acceptable). */
function ranges(header: string | undefined): Range[] {
  if (!header) return [];
  return header.slice(0, 4096).split(',').map((part) => {
    const [type = '', ...rest] = part.split(';').map((s) => s.trim());
    const params = new Map<string, string>();
    for (const param of rest) {
      const eq = param.indexOf('=');
      if (eq > 0) params.set(param.slice(0, eq).trim().toLowerCase(), param.slice(eq + 1).trim().replace(/^"(.*)"$/, '$1'));
    }
    const q = params.has('q') ? Number(params.get('q')) : 1;
    return { type: type.toLowerCase(), params, q: Number.isFinite(q) ? Math.min(Math.max(q, 0), 1) : 0 };
  });
}

/** What a range gets served, if anything. */
function served(range: Range): Format | undefined {
  const version = range.params.get('version');
  if (range.type === 'application/openmetrics-text') return version === undefined || version === '1.0.0' || version === '0.0.1' ? 'openmetrics' : undefined;
  if (range.type === 'text/plain') return version === undefined || version === '0.0.4' || version === '1.0.0' ? 'text' : undefined;
  if (range.type === 'text/*' || range.type === '*/*') return 'text';
  return undefined;
}

/** The format and the Content-Type that answer an `Accept` header. */
export function negotiate(accept: string | undefined): { format: Format; contentType: string } {
  let best: { format: Format; range: Range } | undefined;
  for (const range of ranges(accept)) {
    const format = served(range);
    if (format && range.q > 0 && (!best || range.q > best.range.q)) best = { format, range };
  }
  const format = best?.format ?? 'text';
  const escaping = best?.range.params.get('escaping');
  const named = format === 'openmetrics' && (ESCAPING_SCHEMES as readonly string[]).includes(escaping ?? '') ? `; escaping=${escaping}` : '';
  return { format, contentType: CONTENT_TYPES[format] + named };
}

export function negotiateFormat(accept: string | undefined): Format {
  return negotiate(accept).format;
}

export function acceptsGzip(acceptEncoding: string | undefined): boolean {
  return ranges(acceptEncoding).some((r) => (r.type === 'gzip' || r.type === 'x-gzip') && r.q > 0);
}
