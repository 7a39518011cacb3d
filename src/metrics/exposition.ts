/**
 * Pre-rendered exposition of the per-target families, kept off the request path (the shape of
 * kube-state-metrics' metrics_store, WriteAll). Each owner (a target, or the whole-store series like
 * height lag) is a `Part`: its sample lines as bytes, family after family, in one buffer of its
 * own. A collector renders its samples of an owner into a `SampleWriter` (reusable byte buffers, one
 * per family) when its data changes, and `set` copies them over the collector's families of the
 * owner's buffer, in place: a poll allocates nothing here unless its lines outgrew the buffer. A scrape takes the owners as
 * they are (`capture`: references, no copy) and copies, family by family, the family's header and
 * every owner's bytes of it into the pieces it sends, in either format (Prometheus text or
 * OpenMetrics: they differ only in the family headers). While a capture that began after an
 * owner's bytes were made is open, `set` writes that owner's next bytes into a new buffer (copy on
 * write, once per owner and capture), so a scrape is the snapshot it began with. Sending,
 * backpressure and compression are the endpoint's (endpoint.ts), as is prom-client's small part.
 */

export interface Family {
  name: string;
  type: 'gauge' | 'counter' | 'summary';
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

/**
 * One owner's samples as they are rendered, family by family, straight into bytes: one growing
 * buffer per family, kept and written over by the next render (a collector keeps one writer).
 */
export class SampleWriter {
  /** `name{` of each family. */
  private readonly heads: Buffer[];
  readonly buffers: Buffer[];
  /** Bytes written of each family since `reset`. */
  readonly lengths: number[];
  /** Families not exported (`metrics.allow`/`deny`): their samples are not written. */
  off: readonly boolean[] = [];

  constructor(families: readonly Family[]) {
    this.heads = families.map((f) => Buffer.from(`${f.name}{`));
    this.buffers = families.map(() => Buffer.allocUnsafe(0));
    this.lengths = families.map(() => 0);
  }

  reset(): this {
    this.lengths.fill(0);
    return this;
  }

  /** `labels` is already label text (see labelText); `family` an index into the families; nothing is written for an undefined value. */
  add(family: number, labels: string, value: number | undefined): void {
    if (value === undefined || this.off[family]) return;
    const text = formatValue(value);
    const head = this.heads[family]!;
    let buffer = this.buffers[family]!;
    let at = this.lengths[family]!;
    // at most 3 bytes of UTF-8 per UTF-16 unit
    const most = at + head.length + 3 * labels.length + text.length + 3;
    if (most > buffer.length) buffer = this.grow(family, most);
    at += head.copy(buffer, at);
    at += buffer.write(labels, at);
    buffer[at++] = 0x7d; // }
    buffer[at++] = 0x20;
    at += buffer.write(text, at, 'latin1');
    buffer[at++] = 0x0a;
    this.lengths[family] = at;
  }

  total(): number {
    let n = 0;
    for (const length of this.lengths) n += length;
    return n;
  }

  /** Each family's text (for one-shot use and tests). */
  take(): string[] {
    return this.buffers.map((b, i) => b.toString('utf8', 0, this.lengths[i]));
  }

  private grow(family: number, least: number): Buffer {
    const grown = Buffer.allocUnsafe(Math.max(least, 2 * this.buffers[family]!.length, 256));
    this.buffers[family]!.copy(grown, 0, 0, this.lengths[family]);
    return (this.buffers[family] = grown);
  }
}

/**
 * One owner's bytes, family after family: family `f` is `bytes[ends[f - 1] .. ends[f]]` (ends[-1]
 * = 0), every family of the exposition (most empty). Handed out by `part` and kept by the owner
 * (a target, or the whole-store series) for as long as it exists.
 */
export class Part {
  bytes = EMPTY;
  length = 0;
  /** In the exposition's list (it has samples). */
  listed = false;
  /** The capture count when `bytes` and `ends` were made: captures begun later may hold them. */
  madeAt = 0;

  constructor(public ends: Uint32Array) {}
}

const EMPTY = Buffer.alloc(0);

/** A scrape's view of the owners as they were when it began, and how far it has copied them. */
export class Capture {
  private family = 0;
  private owner = 0;
  /** Bytes of the current region (or header) already copied. */
  private done = 0;
  private headed = false;
  private released = false;

  constructor(
    private readonly exposition: Exposition,
    /** Its number among the exposition's captures. */
    readonly seq: number,
    private readonly headers: Buffer[],
    /** Each owner's bytes and ends at the time. */
    private readonly bytes: Buffer[],
    private readonly ends: Uint32Array[],
    /** An upper bound of the bytes to copy (headers included). */
    readonly size: number,
  ) {}

  /**
   * Copies what comes next into `piece` from `at` on, and returns where it stopped: short of the
   * piece's end only at the end of the capture, which it then releases.
   */
  fill(piece: Buffer, at = 0): number {
    const families = this.headers.length;
    const owners = this.bytes.length;
    while (this.family < families && at < piece.length) {
      const f = this.family;
      if (this.owner >= owners) {
        this.family++;
        this.owner = 0;
        this.headed = false;
        continue;
      }
      const ends = this.ends[this.owner]!;
      const start = f === 0 ? 0 : ends[f - 1]!;
      const end = ends[f]!;
      if (end === start) {
        this.owner++;
        continue;
      }
      if (!this.headed) {
        const header = this.headers[f]!;
        const n = header.copy(piece, at, this.done);
        at += n;
        this.done += n;
        if (this.done < header.length) break;
        this.done = 0;
        this.headed = true;
      }
      const n = this.bytes[this.owner]!.copy(piece, at, start + this.done, end);
      at += n;
      this.done += n;
      if (start + this.done < end) break;
      this.done = 0;
      this.owner++;
    }
    if (this.family >= families) this.release();
    return at;
  }

  /** Ends the capture (the scrape was cut short, or is done): the owners are written in place again. */
  release(): void {
    if (this.released) return;
    this.released = true;
    this.exposition.endCapture(this.seq);
  }
}

export class Exposition {
  /** The owners with samples, in the order they were (last) listed: within a family, theirs come in this order. */
  private readonly owners = new Set<Part>();
  private readonly headers: Record<Format, Buffer[]>;
  private readonly headerBytes: Record<Format, number>;
  /** Captures begun so far. */
  private captures = 0;
  /** The numbers of the open captures, in the order they began. */
  private readonly open: number[] = [];
  /** Bytes of every owner. */
  private bytes = 0;
  /** Moves with every change of any owner's bytes (a compressed body of the same version is the same). */
  version = 0;

  constructor(readonly families: Family[]) {
    this.headers = {
      text: families.map((f) => Buffer.from(familyHeader(f, 'text'))),
      openmetrics: families.map((f) => Buffer.from(familyHeader(f, 'openmetrics'))),
    };
    this.headerBytes = { text: sum(this.headers.text), openmetrics: sum(this.headers.openmetrics) };
  }

  /** A writer for samples of every family (indices are the exposition's). */
  writer(): SampleWriter {
    return new SampleWriter(this.families);
  }

  /** A new owner, with no samples yet. */
  part(): Part {
    return new Part(new Uint32Array(this.families.length));
  }

  /**
   * The owner's samples of the families `first ..` as `writer` holds them now (family `first + i`
   * in the writer's family `i`), replacing what it had of them; its other families stay. An owner
   * with no samples at all leaves the exposition until it has some again (then after the owners
   * listed meanwhile).
   */
  set(part: Part, writer: SampleWriter, first = 0): void {
    const count = writer.lengths.length;
    const from = first === 0 ? 0 : part.ends[first - 1]!;
    const to = part.ends[first + count - 1]!;
    const length = writer.total();
    const total = part.length - (to - from) + length;
    if (total === 0) return this.delete(part);
    let { bytes, ends } = part;
    // an open capture begun since these bytes were made may be reading them: new ones, once per capture
    const copy = (this.open.at(-1) ?? 0) > part.madeAt;
    if (copy) ends = ends.slice();
    if (copy || bytes.length < total) {
      // a little room to grow: a value a digit longer next time is written in place
      bytes = Buffer.allocUnsafeSlow(total + (total >> 4) + 16);
      part.madeAt = this.captures;
      part.bytes.copy(bytes, 0, 0, from);
      part.bytes.copy(bytes, from + length, to, part.length);
    } else if (length !== to - from) {
      bytes.copy(bytes, from + length, to, part.length);
    }
    let at = from;
    for (let i = 0; i < count; i++) {
      at += writer.buffers[i]!.copy(bytes, at, 0, writer.lengths[i]);
      ends[first + i] = at;
    }
    const moved = length - (to - from);
    if (moved !== 0) for (let f = first + count; f < ends.length; f++) ends[f]! += moved;
    this.bytes += total - part.length;
    part.bytes = bytes;
    part.ends = ends;
    part.length = total;
    this.version++;
    if (!part.listed) {
      part.listed = true;
      this.owners.add(part);
    }
  }

  delete(part: Part): void {
    if (part.listed) {
      part.listed = false;
      this.owners.delete(part);
      this.version++;
    }
    this.bytes -= part.length;
    part.length = 0;
    part.bytes = EMPTY;
    // (a capture may hold the old ends)
    part.ends = new Uint32Array(part.ends.length);
    part.madeAt = this.captures;
  }

  /**
   * The owners as they are now, to be copied into a scrape's pieces family by family: each family
   * with samples has its header, then every owner's bytes of it. Later changes do not reach it;
   * release it (or copy it to the end) for the owners to be written in place again.
   */
  capture(format: Format): Capture {
    const bytes: Buffer[] = [];
    const ends: Uint32Array[] = [];
    for (const part of this.owners) {
      bytes.push(part.bytes);
      ends.push(part.ends);
    }
    const seq = ++this.captures;
    this.open.push(seq);
    return new Capture(this, seq, this.headers[format], bytes, ends, this.bytes + this.headerBytes[format]);
  }

  /** Called by a Capture once, when it is released. */
  endCapture(seq: number): void {
    this.open.splice(this.open.indexOf(seq), 1);
  }

  /** The per-target families in one format, copied now (for one-shot use such as `check`). */
  render(format: Format = 'text'): Buffer {
    const capture = this.capture(format);
    const out = Buffer.allocUnsafe(capture.size);
    const length = capture.fill(out);
    capture.release();
    return out.subarray(0, length);
  }
}

function sum(buffers: Buffer[]): number {
  let n = 0;
  for (const b of buffers) n += b.length;
  return n;
}
