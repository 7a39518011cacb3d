/**
 * Pre-rendered Prometheus text for the per-target families. Each owner (a target, or a global
 * part like height lag) holds the rendered sample lines of its series, family by family, rebuilt
 * only when its data changes; a scrape joins the fragments under each family's HELP/TYPE and reuses
 * the result until something changes. So a scrape costs a string join, not a re-serialisation of
 * every series, and does not grow with the number of scrapers. (prom-client renders every series
 * on every scrape; it still serves the small families: self, alerts, network-wide, process.)
 */

export interface Family {
  name: string;
  type: 'gauge' | 'counter';
  help: string;
}

export type Labels = Record<string, string>;

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

  take(): string[] {
    return this.parts;
  }
}

export class Exposition {
  private readonly owners = new Map<string, string[]>();
  private cached?: string;

  constructor(readonly families: Family[]) {}

  writer(): SampleWriter {
    return new SampleWriter(this.families);
  }

  set(owner: string, fragments: string[]): void {
    this.owners.set(owner, fragments);
    this.cached = undefined;
  }

  delete(owner: string): void {
    if (this.owners.delete(owner)) this.cached = undefined;
  }

  render(): string {
    if (this.cached !== undefined) return this.cached;
    const out: string[] = [];
    this.families.forEach((family, i) => {
      const samples: string[] = [];
      for (const fragments of this.owners.values()) if (fragments[i]) samples.push(fragments[i]!);
      if (samples.length === 0) return;
      out.push(`# HELP ${family.name} ${family.help}\n# TYPE ${family.name} ${family.type}\n`, ...samples);
    });
    this.cached = out.join('');
    return this.cached;
  }
}
