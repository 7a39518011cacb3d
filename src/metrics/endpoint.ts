/**
 * What `/metrics` answers: the format the scraper asks for (negotiate.ts), gzip when it accepts
 * it. The body is a stream: the Exposition's pre-rendered family bytes (exposition.ts), then
 * prom-client's small part (process, alerts, self), rendered as the scrape starts, copied in turn
 * into one buffer per scrape that is handed on whenever it is full: to the socket (64 KiB), or to
 * zlib (1 MiB: a thread-pool job per piece, few enough that the event loop's turns between them
 * do not add up), whose output goes to the socket the same way. A buffer is filled again only once
 * its last piece was taken, so a body is never held whole and a slow scraper slows only its own
 * writing.
 */
import { createGzip } from 'node:zlib';
import type { Registry } from 'prom-client';
import type { Exposition } from './exposition.js';
import { acceptsGzip, negotiate, negotiateFormat } from './negotiate.js';
import { renderRegistry } from './registry.js';

export { acceptsGzip, negotiateFormat };

export interface ScrapeRequest {
  /** The `Accept` header. */
  accept?: string;
  /** The `Accept-Encoding` header. */
  acceptEncoding?: string;
}

/**
 * A body written as it is made, in pieces (the server sends it chunked): a large one is never held
 * whole. `write` hands each piece to `take` and waits for the promise `take` returned before the
 * next; that promise rejects when the client is gone, which ends the writing.
 */
export interface StreamedBody {
  write(take: (piece: Buffer) => Promise<void>): Promise<void>;
}

/** A streamed body's bytes, whole (for one-shot use). */
export async function bodyBytes(body: StreamedBody): Promise<Buffer> {
  const pieces: Buffer[] = [];
  await body.write(async (piece) => void pieces.push(Buffer.from(piece)));
  return Buffer.concat(pieces);
}

export interface ScrapeResponse {
  contentType: string;
  contentEncoding?: 'gzip';
  body: StreamedBody;
}

/** zlib's fastest level: a few times less CPU than the default for a slightly larger body; Prometheus only needs valid gzip. */
export const GZIP_LEVEL = 1;
/** The pieces a plain body is sent in. */
export const PIECE_BYTES = 64 << 10;
/** The pieces a body is handed to zlib in. */
const GZIP_PIECE_BYTES = 1 << 20;
/** zlib's output buffer: larger than a piece's compressed output, so each piece comes out at once. */
const GZIP_CHUNK_BYTES = 256 << 10;

export class MetricsEndpoint {
  constructor(
    private readonly exposition: Exposition,
    private readonly registry: Registry,
  ) {}

  /** The response: the per-target part as it is now, and prom-client's part (a failure to render it fails the scrape here). */
  async scrape(request: ScrapeRequest): Promise<ScrapeResponse> {
    const { format, contentType } = negotiate(request.accept);
    const families = this.exposition.pieces(format);
    const registryPart = Buffer.from(await renderRegistry(this.registry, format));
    const parts = [families, [registryPart]];
    if (!acceptsGzip(request.acceptEncoding)) return { contentType, body: { write: (take) => copyInto(parts, Buffer.allocUnsafe(PIECE_BYTES), take) } };
    return { contentType, contentEncoding: 'gzip', body: { write: (take) => gzip(parts, take) } };
  }
}

/**
 * The parts' bytes copied in turn into `piece`, handed to `take` whenever it is full (and the
 * rest at the end); it is filled again only once the promise `take` returned settled.
 */
async function copyInto(parts: Iterable<Buffer>[], piece: Buffer, take: (piece: Buffer) => Promise<void>): Promise<void> {
  let used = 0;
  for (const part of parts) {
    for (const bytes of part) {
      for (let from = 0; from < bytes.length; ) {
        const copied = bytes.copy(piece, used, from);
        used += copied;
        from += copied;
        if (used === piece.length) {
          await take(piece);
          used = 0;
        }
      }
    }
  }
  if (used > 0) await take(piece.subarray(0, used));
}

/** One gzip member of the parts: zlib reads a piece until its write callback, and pauses while its output is not taken. */
async function gzip(parts: Iterable<Buffer>[], take: (piece: Buffer) => Promise<void>): Promise<void> {
  const zip = createGzip({ level: GZIP_LEVEL, chunkSize: GZIP_CHUNK_BYTES });
  const write = (piece: Buffer) => new Promise<void>((resolve, reject) => zip.write(piece, (err) => (err ? reject(err) : resolve())));
  const fed = copyInto(parts, Buffer.allocUnsafe(GZIP_PIECE_BYTES), write).then(() => void zip.end());
  fed.catch((err: unknown) => zip.destroy(err as Error));
  try {
    for await (const out of zip) await take(out as Buffer);
  } finally {
    zip.destroy(); // its zlib memory now, not when collected (a no-op once it ended)
  }
  await fed;
}
