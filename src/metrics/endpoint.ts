/**
 * What `/metrics` answers: the format the scraper asks for (`Accept: application/openmetrics-text`
 * gets OpenMetrics 1.0.0, anything else Prometheus text 0.0.4), gzip when it accepts it. The large
 * per-target part comes pre-built and pre-deflated from the Exposition cache; the small
 * prom-client part (process, alerts, self) is rendered and deflated per scrape (synchronously: it
 * is small) and appended to the
 * same deflate stream, so the response is one ordinary gzip member.
 */
import { crc32, deflateRawSync } from 'node:zlib';
import type { Registry } from 'prom-client';
import { GZIP_LEVEL, type Exposition, type Format } from './exposition.js';
import { renderRegistry } from './registry.js';

export interface ScrapeRequest {
  /** The `Accept` header. */
  accept?: string;
  /** The `Accept-Encoding` header. */
  acceptEncoding?: string;
}

export interface ScrapeResponse {
  contentType: string;
  contentEncoding?: 'gzip';
  body: Buffer[];
}

export const CONTENT_TYPES: Record<Format, string> = {
  text: 'text/plain; version=0.0.4; charset=utf-8',
  openmetrics: 'application/openmetrics-text; version=1.0.0; charset=utf-8',
};

/** Magic, deflate, no flags, no mtime, no extra flags, OS unknown (RFC 1952). */
const GZIP_HEADER = Buffer.from([0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 255]);

/** Media ranges of an Accept-style header with their q-values (q=0 means "not acceptable"). */
function ranges(header: string | undefined): Array<{ value: string; q: number }> {
  if (!header) return [];
  return header.split(',').map((part) => {
    const [value = '', ...params] = part.split(';').map((s) => s.trim().toLowerCase());
    const q = params.find((p) => p.startsWith('q='));
    return { value, q: q === undefined ? 1 : Number(q.slice(2)) || 0 };
  });
}

export function negotiateFormat(accept: string | undefined): Format {
  return ranges(accept).some((r) => r.value === 'application/openmetrics-text' && r.q > 0) ? 'openmetrics' : 'text';
}

export function acceptsGzip(acceptEncoding: string | undefined): boolean {
  return ranges(acceptEncoding).some((r) => (r.value === 'gzip' || r.value === 'x-gzip') && r.q > 0);
}

export class MetricsEndpoint {
  constructor(
    private readonly exposition: Exposition,
    private readonly registry: Registry,
  ) {}

  async scrape(request: ScrapeRequest): Promise<ScrapeResponse> {
    const format = negotiateFormat(request.accept);
    const contentType = CONTENT_TYPES[format];
    const own = Buffer.from(await renderRegistry(this.registry, format));
    const targets = acceptsGzip(request.acceptEncoding) ? await this.exposition.deflated(format) : undefined;
    if (!targets) return { contentType, body: [...(await this.exposition.chunks(format)), own] };
    // the registry's part is small (tens of KiB: well under a millisecond): deflated on the spot, not
    // queued in zlib's thread pool behind a snapshot's compression
    const tail = deflateRawSync(own, { level: GZIP_LEVEL });
    const trailer = Buffer.allocUnsafe(8);
    trailer.writeUInt32LE(crc32(own, targets.crc) >>> 0, 0);
    trailer.writeUInt32LE((targets.length + own.length) % 2 ** 32, 4);
    return { contentType, contentEncoding: 'gzip', body: [GZIP_HEADER, ...targets.chunks, tail, trailer] };
  }
}
