/**
 * Pre-rendered exposition of the per-target families, kept off the request path. Each owner (a
 * target, or a global part like height lag) hands in the rendered sample lines of its series,
 * family by family, when its data changes; they are encoded to bytes once, there, and the strings
 * are let go. A scrape takes a snapshot (the owners' current byte buffers: no copy) and renders the
 * format it wants (Prometheus text or OpenMetrics: they differ only in the family headers) once
 * per snapshot (snapshot.ts): deflated in zlib's thread pool for gzip scrapers (the main thread
 * only assembles the body, a few milliseconds at a time), joined for the others. Every scraper of a
 * snapshot shares the same buffers, so a scrape of unchanged data costs a buffer write. A large
 * fleet's gzip scrape gets the newest finished compression instead of waiting for a newer one;
 * the first one can be started before anyone asks (`prepare`, once the first poll round is in),
 * a scrape that comes before any compression has finished waits for the one in flight, and
 * changed data is compressed again within FRESH_WITHIN_MS for the formats scraped lately.
 * (prom-client serves the small families: self, alerts, network-wide, process; see endpoint.ts.)
 */
import { type Deflated, type Encoded, Snapshot } from './snapshot.js';

export { GZIP_LEVEL, type Deflated } from './snapshot.js';

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

/** Collects one owner's samples family by family (lines kept in arrays: take() returns flat strings, not ropes). */
export class SampleWriter {
  private readonly parts: string[][];

  constructor(private readonly families: Family[]) {
    this.parts = families.map(() => []);
  }

  /** `labels` is already label text (see labelText); `family` an index into the families. */
  add(family: number, labels: string, value: number | undefined): void {
    if (value === undefined) return;
    this.parts[family]!.push(`${this.families[family]!.name}{${labels}} ${formatValue(value)}\n`);
  }

  take(): string[] {
    return this.parts.map((lines) => lines.join(''));
  }
}

/**
 * Slices deflated side by side while a scrape waits (the first compression); each holds a 4 MiB
 * buffer until done. A compression nobody waits for deflates one slice at a time: zlib's threads
 * share the cores with the event loop.
 */
const DEFLATES_WHILE_WAITED_FOR = 2;
/** How long a scrape waits for the first compression of a large snapshot before it is answered uncompressed. */
const FIRST_DEFLATE_WAIT_MS = 2_000;
/**
 * A large fleet's gzip scrape gets the newest finished compression, which a scrape starts: scraped
 * every 15 s, its data would be 15 s behind. Changed data is compressed again within this, scrape or
 * not (at 5,000 nodes ≈ 100 ms of compression every 5 s; a 1,000-node body ≈ 10 ms).
 */
export const FRESH_WITHIN_MS = 5_000;
/** A format nobody has scraped for this long is no longer compressed ahead (a Prometheus gone or moved to another format). */
export const SCRAPER_GONE_AFTER_MS = 10 * 60_000;

/** The byte range of family `f` in `owner`, or undefined when the owner has nothing of it. */
function familyRange(owner: Encoded, f: number): [number, number] | undefined {
  const i = f - owner.first;
  if (i < 0 || i >= owner.ends.length) return undefined;
  const start = i === 0 ? 0 : owner.ends[i - 1]!;
  return owner.ends[i]! > start ? [start, owner.ends[i]!] : undefined;
}

export class Exposition {
  private readonly owners = new Map<string, Encoded>();
  private readonly headers: Record<Format, Buffer[]>;
  private version = 0;
  private snapshot?: Snapshot;
  /** The newest finished deflate per format, served to a large fleet's scrapes while a newer snapshot is being compressed. */
  private readonly latestDeflated = new Map<Format, { version: number; value: Deflated }>();
  /** At most one compression per format at a time. */
  private readonly compressing = new Map<Format, Promise<Deflated>>();
  /** The next compression of changed data, scrape or not (FRESH_WITHIN_MS). */
  private refresh?: NodeJS.Timeout;
  /** When each format's compression was last asked for by a scrape. */
  private readonly scrapedAt = new Map<Format, number>();

  constructor(
    readonly families: Family[],
    private readonly freshWithinMs = FRESH_WITHIN_MS,
    private readonly scraperGoneAfterMs = SCRAPER_GONE_AFTER_MS,
  ) {
    this.headers = {
      text: families.map((f) => Buffer.from(familyHeader(f, 'text'))),
      openmetrics: families.map((f) => Buffer.from(familyHeader(f, 'openmetrics'))),
    };
  }

  writer(): SampleWriter {
    return new SampleWriter(this.families);
  }

  /** An owner's samples of the families `first .. first + fragments.length - 1`, replacing everything it had. */
  set(owner: string, fragments: string[], first = 0): void {
    this.changed(); // first: the current snapshot, if idle, lets go of the owner
    const existing = this.owners.get(owner);
    if (!existing || existing.holds > 0 || !encodeInto(existing, fragments, first)) this.owners.set(owner, encode(fragments, first));
  }

  /** Replaces one family of an owner's samples, keeping the others (e.g. a counter that moved between polls). */
  setFamily(owner: string, family: number, samples: string): void {
    const existing = this.owners.get(owner);
    const text = (i: number) => {
      const range = existing && familyRange(existing, i);
      return range ? existing.bytes.toString('utf8', range[0], range[1]) : '';
    };
    this.set(owner, this.families.map((_, i) => (i === family ? samples : text(i))));
  }

  delete(owner: string): void {
    if (this.owners.delete(owner)) this.changed();
  }

  /** The Prometheus text of the per-target families, joined now (for one-shot use such as `check`). */
  render(): Buffer {
    return this.current().joinNow(this.headers.text);
  }

  /** The per-target part of a scrape, uncompressed. */
  chunks(format: Format): Promise<Buffer[]> {
    return this.current().join(this.headers[format]);
  }

  /**
   * The per-target part of a scrape, deflated once per snapshot and format. A large fleet's scrape
   * does not wait for a newer compression when one has finished: it gets the newest finished one,
   * at most FRESH_WITHIN_MS (plus the compression's own time) behind the data, however seldom it
   * is scraped.
   * Before the first has finished it waits for the one in flight (at most FIRST_DEFLATE_WAIT_MS;
   * undefined then, and the scrape is answered uncompressed, which every scraper accepts).
   */
  async deflated(format: Format): Promise<Deflated | undefined> {
    this.scrapedAt.set(format, Date.now());
    const snapshot = this.current();
    const latest = this.latestDeflated.get(format);
    if (latest?.version === snapshot.version) return latest.value;
    if (!snapshot.large) return this.compress(snapshot, format);
    if (latest) {
      // the newer compression starts once this scrape is answered: its first step would delay the answer
      setImmediate(() => this.prepare(format));
      return latest.value;
    }
    const pending = this.compressing.get(format) ?? this.compress(snapshot, format);
    let timer: NodeJS.Timeout | undefined;
    const waited = new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), FIRST_DEFLATE_WAIT_MS)));
    try {
      return await Promise.race([pending.catch(() => undefined), waited]);
    } finally {
      clearTimeout(timer);
    }
  }

  /**
   * Starts compressing the current snapshot in the format a scraper is expected to ask for, so the
   * first scrape of a large fleet need not wait for all of it (or be sent 50 MiB uncompressed). Does
   * nothing for a small snapshot (compressed on demand in a few ms), one already compressed, or
   * while a compression of that format is running: at most one compression per snapshot version.
   */
  prepare(format: Format): void {
    const snapshot = this.current();
    if (!snapshot.large || this.compressing.has(format) || this.latestDeflated.get(format)?.version === snapshot.version) return;
    this.compress(snapshot, format).catch(() => undefined); // a scrape that needs it compresses again
  }

  /** The compression of `snapshot` in `format`: one per snapshot and format, one per format at a time. */
  private compress(snapshot: Snapshot, format: Format): Promise<Deflated> {
    const existing = snapshot.deflated.get(format);
    if (existing) return existing;
    const pending = snapshot.deflate(this.headers[format], this.latestDeflated.has(format) ? 1 : DEFLATES_WHILE_WAITED_FOR).then((value) => {
      const newest = this.latestDeflated.get(format);
      if (!newest || newest.version < snapshot.version) this.latestDeflated.set(format, { version: snapshot.version, value });
      return value;
    });
    snapshot.deflated.set(format, pending);
    this.compressing.set(format, pending);
    const done = () => this.compressing.get(format) === pending && this.compressing.delete(format);
    pending.then(done, () => (done(), snapshot.deflated.delete(format)));
    return pending;
  }

  stop(): void {
    clearTimeout(this.refresh);
    this.refresh = undefined;
  }

  /** Kept only while nothing changes: a stale snapshot would keep replaced owners' buffers alive (work in flight holds its own). */
  private current(): Snapshot {
    this.snapshot ??= new Snapshot(this.version, [...this.owners.values()], this.families.length);
    return this.snapshot;
  }

  private changed(): void {
    this.version++;
    this.snapshot?.retire();
    this.snapshot = undefined;
    // changed data is compressed again within freshWithinMs in the formats scraped lately
    if (!this.refresh && this.scrapedAt.size > 0) {
      this.refresh = setTimeout(() => {
        this.refresh = undefined;
        const since = Date.now() - this.scraperGoneAfterMs;
        for (const [format, at] of this.scrapedAt) {
          if (at >= since) this.prepare(format);
          else this.scrapedAt.delete(format);
        }
      }, this.freshWithinMs);
      this.refresh.unref();
    }
  }
}

function encode(fragments: string[], first: number): Encoded {
  const ends = new Array<number>(fragments.length);
  let total = 0;
  for (let i = 0; i < fragments.length; i++) {
    const fragment = fragments[i];
    if (fragment) total += Buffer.byteLength(fragment);
    ends[i] = total;
  }
  // room for numbers that grow a little (a duration with more digits) without a new buffer
  const bytes = Buffer.allocUnsafeSlow(total + (total >> 4));
  for (let i = 0, pos = 0; i < fragments.length; i++) {
    const fragment = fragments[i];
    if (fragment) pos += bytes.write(fragment, pos);
  }
  return { bytes, first, ends, holds: 0 };
}

/** Rewrites an Encoded no snapshot holds with new fragments of the same families, if they fit in its buffer. */
function encodeInto(encoded: Encoded, fragments: string[], first: number): boolean {
  const { bytes, ends } = encoded;
  if (encoded.first !== first || ends.length !== fragments.length) return false;
  let total = 0;
  for (let i = 0; i < ends.length; i++) if (fragments[i]) total += Buffer.byteLength(fragments[i]!);
  if (total > bytes.length) return false;
  for (let i = 0, pos = 0; i < ends.length; i++) {
    const fragment = fragments[i];
    if (fragment) pos += bytes.write(fragment, pos);
    ends[i] = pos;
  }
  return true;
}
