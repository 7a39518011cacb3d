/**
 * Pre-rendered exposition of the per-target families, kept off the request path. Each owner (a
 * target, or a global part like height lag) hands in the rendered sample lines of its series,
 * family by family, when its data changes; they are encoded to bytes once, there. A snapshot joins
 * the owners' bytes family by family (a copy, no re-encoding); large fleets build it in the
 * background at most once a second, yielding to the event loop every few milliseconds. Each
 * snapshot renders a format (Prometheus text or OpenMetrics: they differ only in the family
 * headers) on first demand and deflates it once (in zlib's thread pool); every scraper of that
 * snapshot shares the same buffers. So a scrape of unchanged data costs a buffer write.
 * (prom-client serves the small families: self, alerts, network-wide, process; see endpoint.ts.)
 */
import { once } from 'node:events';
import { constants, crc32, createDeflateRaw } from 'node:zlib';

export interface Family {
  name: string;
  type: 'gauge' | 'counter';
  help: string;
}

export type Labels = Record<string, string>;

/** The two exposition formats: Prometheus text 0.0.4 and OpenMetrics 1.0.0. */
export type Format = 'text' | 'openmetrics';

/** Label text as the exposition format wants it: `a="x",b="y"` with `\`, `"` and newlines escaped. */
export function labelText(labels: Labels): string {
  let out = '';
  for (const key in labels) out += `${out ? ',' : ''}${key}="${escapeLabel(labels[key]!)}"`;
  return out;
}

export function escapeLabel(value: string): string {
  return /[\\"\n]/.test(value) ? value.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n') : value;
}

export function formatValue(value: number): string {
  if (Number.isNaN(value)) return 'NaN';
  if (value === Infinity) return '+Inf';
  if (value === -Infinity) return '-Inf';
  return String(value);
}

/**
 * `# HELP` and `# TYPE` of a family. OpenMetrics names a counter family without its `_total` (the
 * samples keep it) and escapes `"` in help text too; prom-client does the same for its registry.
 */
export function familyHeader(family: { name: string; type: string; help: string }, format: Format): string {
  if (format === 'text') return `# HELP ${family.name} ${family.help.replace(/\\/g, '\\\\').replace(/\n/g, '\\n')}\n# TYPE ${family.name} ${family.type}\n`;
  const name = family.type === 'counter' ? family.name.replace(/_total$/, '') : family.name;
  return `# HELP ${name} ${escapeLabel(family.help)}\n# TYPE ${name} ${family.type}\n`;
}

/** Collects one owner's samples family by family. */
export class SampleWriter {
  private readonly parts: string[];

  constructor(private readonly families: Family[]) {
    this.parts = families.map(() => '');
  }

  /** `labels` is already label text (see labelText); `family` an index into the families. */
  add(family: number, labels: string, value: number | undefined): void {
    if (value === undefined) return;
    this.parts[family] += `${this.families[family]!.name}{${labels}} ${formatValue(value)}\n`;
  }

  /** Adds samples rendered earlier (by another writer), family by family. */
  append(parts: string[]): void {
    for (let i = 0; i < parts.length; i++) if (parts[i]) this.parts[i] += parts[i]!;
  }

  take(): string[] {
    return this.parts;
  }
}

/** A raw deflate stream ending in a sync flush (byte-aligned, not final: more may follow), with the CRC-32 and length of its input. */
export interface Deflated {
  chunks: Buffer[];
  crc: number;
  length: number;
}

export const GZIP_LEVEL = 6;
/** Fleets whose samples add up to less than this are joined on the spot, so a scrape always sees the last poll. */
const SYNC_BYTES = 1 << 20;
/** Larger fleets: rebuilt in the background at most this often; scrapes see data at most about this old. */
const REBUILD_GAP_MS = 1000;
/** Background work yields to the event loop after this much. */
const SLICE_MS = 4;
const CRC_SLICE = 1 << 20;

/** One owner's samples as bytes; family i is `bytes[ends[i-1] .. ends[i])`. */
interface Encoded {
  bytes: Buffer;
  ends: Uint32Array;
}

class Snapshot {
  private readonly bodies = new Map<Format, Buffer[]>();
  readonly deflated = new Map<Format, Promise<Deflated>>();

  /** `samples[i]`: all samples of family i (a view into one buffer). */
  constructor(
    readonly version: number,
    readonly samples: Buffer[],
    readonly bytes: number,
  ) {}

  body(format: Format, headers: Buffer[]): Buffer[] {
    let body = this.bodies.get(format);
    if (!body) {
      body = [];
      for (let i = 0; i < this.samples.length; i++) if (this.samples[i]!.length > 0) body.push(headers[i]!, this.samples[i]!);
      this.bodies.set(format, body);
    }
    return body;
  }
}

export class Exposition {
  private readonly owners = new Map<string, Encoded>();
  private readonly headers: Record<Format, Buffer[]>;
  private ownerBytes = 0;
  private version = 0;
  private snapshot?: Snapshot;
  private building?: Promise<Snapshot>;
  private timer?: NodeJS.Timeout;
  private lastBuildAt = 0;
  /** The newest finished deflate per format, served while a newer snapshot is still being compressed. */
  private readonly latestDeflated = new Map<Format, { version: number; value: Deflated }>();
  /** At most one compression per format at a time. */
  private readonly compressing = new Map<Format, Promise<Deflated>>();

  constructor(readonly families: Family[]) {
    this.headers = {
      text: families.map((f) => Buffer.from(familyHeader(f, 'text'))),
      openmetrics: families.map((f) => Buffer.from(familyHeader(f, 'openmetrics'))),
    };
  }

  writer(): SampleWriter {
    return new SampleWriter(this.families);
  }

  set(owner: string, fragments: string[]): void {
    const encoded = encode(fragments, this.families.length);
    this.ownerBytes += encoded.bytes.length - (this.owners.get(owner)?.bytes.length ?? 0);
    this.owners.set(owner, encoded);
    this.invalidate();
  }

  delete(owner: string): void {
    const existing = this.owners.get(owner);
    if (!existing) return;
    this.owners.delete(owner);
    this.ownerBytes -= existing.bytes.length;
    this.invalidate();
  }

  /** The Prometheus text of the per-target families, joined now (for one-shot use such as `check`). */
  render(): Buffer {
    const snapshot = this.snapshot?.version === this.version ? this.snapshot : this.install(drain(this.build()));
    return Buffer.concat(snapshot.body('text', this.headers.text));
  }

  /** The per-target part of a scrape, uncompressed. */
  async chunks(format: Format): Promise<Buffer[]> {
    return (await this.current()).body(format, this.headers[format]);
  }

  /**
   * The per-target part of a scrape, deflated once per snapshot and format. A large fleet's scrape
   * does not wait for a newer snapshot's compression when an older one is ready.
   */
  async deflated(format: Format): Promise<Deflated> {
    const snapshot = await this.current();
    const latest = this.latestDeflated.get(format);
    if (latest?.version === snapshot.version) return latest.value;
    let pending = snapshot.deflated.get(format);
    if (!pending) {
      const inFlight = this.compressing.get(format);
      if (inFlight && snapshot.bytes > SYNC_BYTES) return latest?.value ?? inFlight;
      pending = deflateChunks(snapshot.body(format, this.headers[format])).then((value) => {
        const newest = this.latestDeflated.get(format);
        if (!newest || newest.version < snapshot.version) this.latestDeflated.set(format, { version: snapshot.version, value });
        return value;
      });
      snapshot.deflated.set(format, pending);
      this.compressing.set(format, pending);
      pending.then(
        () => this.compressing.delete(format),
        () => (this.compressing.delete(format), snapshot.deflated.delete(format)),
      );
    }
    if (latest && snapshot.bytes > SYNC_BYTES) return latest.value;
    return pending;
  }

  stop(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  private get large(): boolean {
    return this.ownerBytes > SYNC_BYTES;
  }

  /** The snapshot a scrape gets: the data as of now for small fleets, the latest build for large ones. */
  private async current(): Promise<Snapshot> {
    if (this.snapshot?.version === this.version) return this.snapshot;
    if (!this.large) return this.install(drain(this.build()));
    if (this.snapshot) {
      this.schedule();
      return this.snapshot;
    }
    return this.buildInBackground();
  }

  private invalidate(): void {
    this.version++;
    if (this.large) this.schedule();
  }

  private schedule(): void {
    if (this.timer || this.building) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.buildInBackground();
    }, Math.max(0, this.lastBuildAt + REBUILD_GAP_MS - Date.now()));
    this.timer.unref();
  }

  private buildInBackground(): Promise<Snapshot> {
    this.stop();
    this.building ??= (async () => {
      try {
        const steps = this.build();
        for (let step = steps.next(); ; step = steps.next()) {
          if (step.done) return this.install(step.value);
          await new Promise((resolve) => setImmediate(resolve));
        }
      } finally {
        this.building = undefined;
        if (this.snapshot?.version !== this.version && this.large) this.schedule();
      }
    })();
    return this.building;
  }

  private install(snapshot: Snapshot): Snapshot {
    if (!this.snapshot || snapshot.version >= this.snapshot.version) this.snapshot = snapshot;
    this.lastBuildAt = Date.now();
    return this.snapshot;
  }

  /** Joins the owners' bytes family by family into one buffer; yields whenever a slice of work took SLICE_MS. */
  private *build(): Generator<void, Snapshot> {
    const version = this.version;
    const owners = [...this.owners.values()];
    let total = 0;
    for (const owner of owners) total += owner.bytes.length;
    const out = Buffer.allocUnsafeSlow(total);
    const samples: Buffer[] = [];
    let pos = 0;
    let sliceStart = performance.now();
    for (let f = 0; f < this.families.length; f++) {
      const familyStart = pos;
      for (let k = 0; k < owners.length; k++) {
        const { bytes, ends } = owners[k]!;
        const start = f === 0 ? 0 : ends[f - 1]!;
        if (ends[f]! > start) pos += bytes.copy(out, pos, start, ends[f]);
        if ((k & 255) === 255 && performance.now() - sliceStart > SLICE_MS) {
          yield;
          sliceStart = performance.now();
        }
      }
      samples.push(out.subarray(familyStart, pos));
    }
    return new Snapshot(version, samples, total);
  }
}

function drain<T>(steps: Generator<void, T>): T {
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
  }
}

function encode(fragments: string[], count: number): Encoded {
  const ends = new Uint32Array(count);
  let total = 0;
  for (let i = 0; i < count; i++) {
    const fragment = fragments[i];
    if (fragment) total += Buffer.byteLength(fragment);
    ends[i] = total;
  }
  const bytes = Buffer.allocUnsafeSlow(total);
  for (let i = 0, pos = 0; i < count; i++) {
    const fragment = fragments[i];
    if (fragment) pos += bytes.write(fragment, pos);
  }
  return { bytes, ends };
}

/** Deflates in zlib's thread pool, a slice at a time, keeping the running CRC-32 the gzip trailer needs. */
export async function deflateChunks(chunks: Buffer[]): Promise<Deflated> {
  const deflate = createDeflateRaw({ level: GZIP_LEVEL, finishFlush: constants.Z_SYNC_FLUSH, chunkSize: 64 * 1024 });
  const out: Buffer[] = [];
  deflate.on('data', (chunk: Buffer) => out.push(chunk));
  const ended = once(deflate, 'end');
  ended.catch(() => undefined); // awaited below; an error while writing rejects the write loop first
  let crc = 0;
  let length = 0;
  for (const chunk of chunks) {
    for (let offset = 0; offset < chunk.length; offset += CRC_SLICE) {
      const slice = chunk.subarray(offset, offset + CRC_SLICE);
      crc = crc32(slice, crc);
      length += slice.length;
      if (!deflate.write(slice)) await once(deflate, 'drain');
    }
  }
  deflate.end();
  await ended;
  return { chunks: out, crc, length };
}
