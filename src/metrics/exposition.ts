/**
 * Pre-rendered exposition of the per-target families, kept off the request path (the shape of
 * kube-state-metrics' metrics_store, WriteAll). Each owner (a target's collector, or a global part
 * like height lag) hands in the rendered sample lines of its series, family by family, when its data
 * changes; they are encoded to bytes once, there, into a fresh buffer (never rewritten: a scrape in
 * flight keeps reading the one it started with). A scrape takes the owners as they are now and
 * writes, family by family, the family's header and every owner's bytes of it (`pieces`), in either
 * format (Prometheus text or OpenMetrics: they differ only in the family headers). Sending,
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

/** One owner's bytes: family `first + i` is `families[i]` (empty when it has no samples of it). */
interface Owned {
  first: number;
  families: Buffer[];
}

/** The owners whose families start at `first` (in practice one collector's), in the order they came. */
type Group = Map<string, Owned>;

export class Exposition {
  /** By the first family of their range: within a family, owners of an earlier range come first. */
  private readonly groups = new Map<number, Group>();
  private readonly ownerFirst = new Map<string, number>();
  private readonly headers: Record<Format, Buffer[]>;

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
    const bytes = Buffer.from(fragments.join(''));
    const families = new Array<Buffer>(fragments.length);
    for (let i = 0, pos = 0; i < fragments.length; i++) {
      const end = pos + Buffer.byteLength(fragments[i]!);
      families[i] = bytes.subarray(pos, end);
      pos = end;
    }
    if (this.ownerFirst.get(owner) !== first) this.delete(owner);
    this.ownerFirst.set(owner, first);
    let group = this.groups.get(first);
    if (!group) this.groups.set(first, (group = new Map()));
    group.set(owner, { first, families });
  }

  delete(owner: string): void {
    const first = this.ownerFirst.get(owner);
    if (first === undefined) return;
    this.ownerFirst.delete(owner);
    this.groups.get(first)!.delete(owner);
  }

  /**
   * The per-target part of a scrape as it is now, family after family: each family with samples
   * has its header, then every owner's bytes of it. Later changes do not reach a body already
   * begun (the owners' buffers are never rewritten).
   */
  pieces(format: Format): Iterable<Buffer> {
    const groups: Array<{ first: number; last: number; owners: Owned[] }> = [];
    for (const first of [...this.groups.keys()].sort((a, b) => a - b)) {
      const owners = [...this.groups.get(first)!.values()];
      let last = -1;
      for (const owner of owners) last = Math.max(last, first + owner.families.length - 1);
      if (owners.length > 0) groups.push({ first, last, owners });
    }
    return writeAll(groups, this.headers[format]);
  }

  /** The Prometheus text of the per-target families, joined now (for one-shot use such as `check`). */
  render(): Buffer {
    return Buffer.concat([...this.pieces('text')]);
  }
}

function* writeAll(groups: Array<{ first: number; last: number; owners: Owned[] }>, headers: Buffer[]): Generator<Buffer> {
  for (let f = 0; f < headers.length; f++) {
    let headed = false;
    for (const { first, last, owners } of groups) {
      if (first > f) break;
      if (last < f) continue;
      for (const { families } of owners) {
        const bytes = families[f - first];
        if (!bytes || bytes.length === 0) continue;
        if (!headed) yield headers[f]!;
        headed = true;
        yield bytes;
      }
    }
  }
}
