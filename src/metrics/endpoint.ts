/**
 * What `/metrics` answers: the format the scraper asks for (negotiate.ts), gzip when it accepts
 * it. The body is a stream: the Exposition's pre-rendered family bytes (exposition.ts) gathered
 * into pieces of at most PIECE_BYTES, then prom-client's small part (process, alerts, self),
 * rendered as the scrape starts. Each piece is handed on only once the one before was taken (by
 * the socket, or by zlib, whose output is handed on the same way), so a body is never held whole
 * and a slow scraper slows only its own writing.
 */
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
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
  await body.write(async (piece) => void pieces.push(piece));
  return Buffer.concat(pieces);
}

export interface ScrapeResponse {
  contentType: string;
  contentEncoding?: 'gzip';
  body: StreamedBody;
}

/** zlib's fastest level: a few times less CPU than the default for a slightly larger body; Prometheus only needs valid gzip. */
export const GZIP_LEVEL = 1;
/** The most a piece of the body holds: zlib and the socket take a piece at a time. */
export const PIECE_BYTES = 64 << 10;

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
    const pieces = () => gather([families, [registryPart]]);
    if (!acceptsGzip(request.acceptEncoding)) return { contentType, body: { write: (take) => handOn(pieces(), take) } };
    return {
      contentType,
      contentEncoding: 'gzip',
      body: { write: (take) => pipeline(Readable.from(pieces(), { objectMode: false }), createGzip({ level: GZIP_LEVEL, chunkSize: PIECE_BYTES }), (zipped) => handOn(zipped, take)) },
    };
  }
}

/** Each piece to `take`, the next once it was taken. */
async function handOn(pieces: Iterable<Buffer> | AsyncIterable<Buffer>, take: (piece: Buffer) => Promise<void>): Promise<void> {
  for await (const piece of pieces) await take(piece);
}

/** The parts' buffers gathered into pieces of at most PIECE_BYTES (a longer buffer is cut up). */
function* gather(parts: Iterable<Buffer>[]): Generator<Buffer> {
  let batch: Buffer[] = [];
  let size = 0;
  for (const part of parts) {
    for (let bytes of part) {
      while (size + bytes.length > PIECE_BYTES) {
        const room = PIECE_BYTES - size;
        batch.push(bytes.subarray(0, room));
        yield Buffer.concat(batch, PIECE_BYTES);
        bytes = bytes.subarray(room);
        batch = [];
        size = 0;
      }
      batch.push(bytes);
      size += bytes.length;
    }
  }
  if (size > 0) yield Buffer.concat(batch, size);
}
