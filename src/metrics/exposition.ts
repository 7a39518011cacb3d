/**
 * Pre-rendered exposition of the per-target families, kept off the request path. Each owner (a
 * target, or a global part like height lag) hands in the rendered sample lines of its series,
 * family by family, when its data changes; they are encoded to bytes once, there, and the strings
 * are let go. A scrape takes a snapshot (the owners' current byte buffers: no copy) and writes the
 * format it wants (Prometheus text or OpenMetrics: they differ only in the family headers) piece
 * by piece into buffers the caller hands in (snapshot.ts). Compression is the endpoint's
 * (endpoint.ts), as is prom-client's small part (self, alerts, process).
 */
import { type Encoded, Snapshot } from './snapshot.js';

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

export class Exposition {
  private readonly owners = new Map<string, Encoded>();
  private readonly headers: Record<Format, Buffer[]>;
  private snapshot?: Snapshot;

  constructor(readonly families: Family[]) {
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

  delete(owner: string): void {
    if (this.owners.delete(owner)) this.changed();
  }

  /** The Prometheus text of the per-target families, joined now (for one-shot use such as `check`). */
  render(): Buffer {
    return this.current().joinNow(this.headers.text);
  }

  /** The per-target part's length in a format, as `write` would write it if called now. */
  size(format: Format): number {
    return this.current().size(this.headers[format]);
  }

  /** The per-target part of a scrape in pieces filled into `buffers` in turn, each handed to `take` as it is assembled (see Snapshot.write). */
  write(format: Format, buffers: readonly Buffer[], take: (piece: Buffer) => Promise<void>): Promise<void> {
    return this.current().write(this.headers[format], buffers, take);
  }

  /** Kept only while nothing changes: a stale snapshot would keep replaced owners' buffers alive (work in flight holds its own). */
  private current(): Snapshot {
    this.snapshot ??= new Snapshot([...this.owners.values()], this.families.length);
    return this.snapshot;
  }

  private changed(): void {
    this.snapshot?.retire();
    this.snapshot = undefined;
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
