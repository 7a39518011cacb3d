/**
 * What `/metrics` answers: the format the scraper asks for (`Accept: application/openmetrics-text`
 * gets OpenMetrics 1.0.0, anything else Prometheus text 0.0.4), gzip when it accepts it. The large
 * per-target part comes from the Exposition cache, assembled piece by piece into two buffers, one
 * filled while the other is consumed, so a large body is never held whole; prom-client's small part
 * (process, alerts, self) is rendered per scrape, as it starts, and comes last. A plain body is
 * streamed to the scraper as it is assembled. A gzip body goes through node:zlib in its thread
 * pool, on demand, with the two buffers kept from one scrape to the next; one compression per
 * format at a time, shared by the gzip scrapes that arrive meanwhile. (The per-target part alone
 * is not compressed ahead to be reused: the body must be one gzip member, since curl and browsers
 * read only the first of several.)
 */
import { once } from 'node:events';
import { createGzip } from 'node:zlib';
import type { Registry } from 'prom-client';
import type { Exposition, Format } from './exposition.js';
import { renderRegistry } from './registry.js';

export interface ScrapeRequest {
  /** The `Accept` header. */
  accept?: string;
  /** The `Accept-Encoding` header. */
  acceptEncoding?: string;
}

/**
 * A body written as it is made, in pieces (the server sends it chunked): a large one is never held
 * whole. `write` hands each piece to `take` and may reuse its memory once the promise `take`
 * returned for it settled; that promise rejects when the client is gone, which ends the writing.
 */
export interface StreamedBody {
  write(take: (piece: Buffer) => Promise<void>): Promise<void>;
}

/** A streamed body's bytes, whole (for one-shot use). */
export async function bodyBytes(body: Buffer[] | StreamedBody): Promise<Buffer> {
  if (Array.isArray(body)) return Buffer.concat(body);
  const pieces: Buffer[] = [];
  await body.write(async (piece) => void pieces.push(Buffer.from(piece)));
  return Buffer.concat(pieces);
}

export interface ScrapeResponse {
  contentType: string;
  contentEncoding?: 'gzip';
  /** A gzip body whole (it is small); a plain one as it is assembled. */
  body: Buffer[] | StreamedBody;
}

export const CONTENT_TYPES: Record<Format, string> = {
  text: 'text/plain; version=0.0.4; charset=utf-8',
  openmetrics: 'application/openmetrics-text; version=1.0.0; charset=utf-8',
};

/** zlib's fastest level: a few times less CPU than the default for a slightly larger body; Prometheus only needs valid gzip. */
export const GZIP_LEVEL = 1;
/** zlib's output buffer: larger than a piece's compressed output, so each piece is one thread-pool job. */
const GZIP_CHUNK_BYTES = 256 << 10;
/** The pieces the per-target part is handed to zlib in: two buffers of this size per format, kept for the next scrape. */
const PIECE_BYTES = 1 << 20;
/**
 * The pieces a plain scrape is streamed in, two fresh buffers of at most this size per scrape: a
 * client that stops reading holds its two until the write deadline, and many such clients must
 * not add up to much.
 */
const PLAIN_PIECE_BYTES = 64 << 10;

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
  /** The gzip body being compressed, per format: scrapes arriving meanwhile share it. */
  private readonly compressing = new Map<Format, Promise<Buffer[]>>();
  /**
   * The buffers the body is assembled into for zlib, per format (one compression per format at a
   * time uses them). Kept: a body's worth of fresh buffers on every scrape would be external memory
   * that makes V8 collect its whole heap early.
   */
  private readonly pieces = new Map<Format, readonly Buffer[]>();

  constructor(
    private readonly exposition: Exposition,
    private readonly registry: Registry,
  ) {}

  async scrape(request: ScrapeRequest): Promise<ScrapeResponse> {
    const format = negotiateFormat(request.accept);
    const contentType = CONTENT_TYPES[format];
    if (!acceptsGzip(request.acceptEncoding)) return { contentType, body: { write: (take) => this.plain(format, take) } };
    let body = this.compressing.get(format);
    if (!body) {
      const compressed = this.gzip(format);
      this.compressing.set(format, (body = compressed));
      const done = () => this.compressing.delete(format);
      compressed.then(done, done);
    }
    return { contentType, contentEncoding: 'gzip', body: await body };
  }

  /** Both parts, the per-target one in pieces of at most PLAIN_PIECE_BYTES handed to `take` as they are assembled. */
  private async plain(format: Format, take: (piece: Buffer) => Promise<void>): Promise<void> {
    const registryPart = this.registryPart(format);
    const size = Math.min(PLAIN_PIECE_BYTES, this.exposition.size(format));
    await this.exposition.write(format, [Buffer.allocUnsafeSlow(size), Buffer.allocUnsafeSlow(size)], take);
    await take(Buffer.from(await registryPart));
  }

  /**
   * prom-client's part, rendered as the scrape starts: not after the last piece, with the scraper
   * (or zlib) waiting on it. A failure is thrown where it is awaited, never left unhandled meanwhile.
   */
  private registryPart(format: Format): Promise<string> {
    const part = renderRegistry(this.registry, format);
    part.catch(() => {});
    return part;
  }

  /** One gzip member of both parts. */
  private async gzip(format: Format): Promise<Buffer[]> {
    const zip = createGzip({ level: GZIP_LEVEL, chunkSize: GZIP_CHUNK_BYTES });
    const out: Buffer[] = [];
    zip.on('data', (chunk: Buffer) => out.push(chunk));
    const ended = once(zip, 'end');
    let pieces = this.pieces.get(format);
    if (!pieces) this.pieces.set(format, (pieces = [Buffer.allocUnsafeSlow(PIECE_BYTES), Buffer.allocUnsafeSlow(PIECE_BYTES)]));
    const registryPart = this.registryPart(format);
    try {
      // zlib reads a piece until its write callback: its buffer is filled again only after that.
      await this.exposition.write(format, pieces, (piece) => new Promise<void>((consumed) => zip.write(piece, () => consumed())));
      zip.end(Buffer.from(await registryPart));
    } catch (err) {
      zip.destroy(); // its zlib memory now, not when collected
      throw err;
    }
    await ended;
    return out;
  }
}
