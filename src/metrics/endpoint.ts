/**
 * What `/metrics` answers: the format the scraper asks for (negotiate.ts), gzip when it accepts
 * it. The body is the Exposition's pre-rendered family bytes (exposition.ts), then prom-client's
 * small part (process, alerts, self), rendered as the scrape starts.
 *
 * Plain, the body is copied from the owners (a capture) into one buffer per scrape that is handed
 * to the socket whenever it is full (64 KiB) and filled again once it was taken: a slow scraper
 * slows only its own writing and holds one piece. Gzip, the per-target part is copied into a few
 * large pieces (4 MiB), each compressed on its own in zlib's thread pool, two at a time, as a run of
 * deflate blocks ending on a byte boundary (a sync flush); one gzip member is then the header,
 * those runs in order, prom-client's part as the final block, and the CRC-32 and length of the
 * whole, which are summed piece by piece as they are copied. Compressed once per version of the
 * exposition and format: scrapes of the same data share it, and hold nothing larger.
 */
import { constants, crc32, deflateRaw, deflateRawSync } from 'node:zlib';
import type { Registry } from 'prom-client';
import type { Capture, Exposition, Format } from './exposition.js';
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
/** The pieces the per-target part is compressed in, each a thread-pool job of its own. */
export const GZIP_PIECE_BYTES = 4 << 20;
/** Pieces compressed at a time (zlib's thread pool has four threads; the main thread fills the next meanwhile). */
const GZIP_PARALLEL = 2;
/** A gzip member's header: deflate, no name or time, fastest level (XFL 4), Unix. */
const GZIP_HEADER = Buffer.from([0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 4, 3]);

/** The per-target part of one version of the exposition, compressed: runs of deflate blocks, the CRC-32 and length of what they hold. */
interface Compressed {
  runs: Buffer[];
  crc: number;
  length: number;
}

export class MetricsEndpoint {
  /** The last compression of each format, with the version of the exposition it holds. */
  private readonly compressed: Partial<Record<Format, { version: number; body: Promise<Compressed> }>> = {};

  /** Which of prom-client's families are exported (`metrics.allow`/`deny`). */
  exported: (name: string) => boolean = () => true;

  constructor(
    private readonly exposition: Exposition,
    private readonly registry: Registry,
  ) {}

  /** The response: the per-target part as it is now, and prom-client's part (a failure to render it fails the scrape here). */
  async scrape(request: ScrapeRequest): Promise<ScrapeResponse> {
    const { format, contentType } = negotiate(request.accept);
    const registryPart = Buffer.from(await renderRegistry(this.registry, format, this.exported));
    if (!acceptsGzip(request.acceptEncoding)) {
      // captured when the writing starts (a HEAD request never starts it)
      return { contentType, body: { write: (take) => writePlain(this.exposition.capture(format), registryPart, take) } };
    }
    const targets = this.compress(format);
    return { contentType, contentEncoding: 'gzip', body: { write: async (take) => writeGzip(await targets, registryPart, take) } };
  }

  private compress(format: Format): Promise<Compressed> {
    const { version } = this.exposition;
    const last = this.compressed[format];
    if (last?.version === version) return last.body;
    const entry = { version, body: deflateCapture(this.exposition.capture(format)) };
    this.compressed[format] = entry;
    entry.body.catch(() => {
      if (this.compressed[format] === entry) delete this.compressed[format];
    });
    return entry.body;
  }
}

/** The capture's bytes, then `tail`, copied into one piece that is handed to `take` whenever it is full. */
async function writePlain(capture: Capture, tail: Buffer, take: (piece: Buffer) => Promise<void>): Promise<void> {
  const piece = Buffer.allocUnsafe(Math.max(1, Math.min(PIECE_BYTES, capture.size + tail.length)));
  try {
    let at = 0;
    for (;;) {
      at = capture.fill(piece, at);
      if (at < piece.length) break;
      await take(piece);
      at = 0;
    }
    for (let from = 0; from < tail.length; ) {
      const copied = tail.copy(piece, at, from);
      at += copied;
      from += copied;
      if (at === piece.length) {
        await take(piece);
        at = 0;
      }
    }
    if (at > 0) await take(piece.subarray(0, at));
  } finally {
    capture.release();
  }
}

/** One gzip member: the header, the per-target part's runs, `tail` as the final block, the trailer. */
async function writeGzip(targets: Compressed, tail: Buffer, take: (piece: Buffer) => Promise<void>): Promise<void> {
  await take(GZIP_HEADER);
  for (const run of targets.runs) await take(run);
  const last = deflateRawSync(tail, { level: GZIP_LEVEL });
  const trailer = Buffer.allocUnsafe(8);
  trailer.writeUInt32LE(crc32(tail, targets.crc), 0);
  trailer.writeUInt32LE((targets.length + tail.length) % 2 ** 32, 4);
  await take(Buffer.concat([last, trailer]));
}

/** Free pieces for compression, kept between scrapes (at most one per job in flight). */
const spare: Buffer[] = [];

/** Copies the capture into pieces and compresses each on its own, GZIP_PARALLEL at a time. */
async function deflateCapture(capture: Capture): Promise<Compressed> {
  const size = Math.max(1, Math.min(GZIP_PIECE_BYTES, capture.size));
  const runs: Array<Promise<Buffer>> = [];
  const inFlight: Array<Promise<void>> = [];
  let crc = 0;
  let length = 0;
  try {
    for (let full = true; full; ) {
      let piece = spare.pop();
      if (!piece || piece.length < size) piece = Buffer.allocUnsafeSlow(size);
      const filled = capture.fill(piece);
      full = filled === piece.length;
      if (filled === 0) {
        spare.push(piece);
        break;
      }
      const bytes = piece.subarray(0, filled);
      crc = crc32(bytes, crc);
      length += filled;
      const run = deflateRun(bytes);
      runs.push(run);
      // the piece is free again once zlib has read it
      const free = () => void (spare.length < GZIP_PARALLEL && spare.push(piece));
      inFlight.push(run.then(free, free));
      if (inFlight.length >= GZIP_PARALLEL) await inFlight.shift();
    }
  } finally {
    capture.release();
  }
  return { runs: await Promise.all(runs), crc, length };
}

/** Raw deflate blocks of `bytes` ending on a byte boundary (a sync flush, not a final block), in zlib's thread pool. */
function deflateRun(bytes: Buffer): Promise<Buffer> {
  const chunkSize = Math.min(1 << 20, Math.max(16 << 10, bytes.length >> 2));
  return new Promise((resolve, reject) =>
    deflateRaw(bytes, { level: GZIP_LEVEL, finishFlush: constants.Z_SYNC_FLUSH, chunkSize }, (err, out) => {
      if (err) return reject(err);
      // zlib's output may be a slice of its larger output buffer: keep only what it holds
      resolve(out.buffer.byteLength > out.length + (out.length >> 2) ? Buffer.from(out) : out);
    }),
  );
}
