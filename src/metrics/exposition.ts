/**
 * Pre-rendered Prometheus text for the per-target families. Each owner (a target, or a global
 * part like height lag) holds the rendered sample lines of its series, family by family, rebuilt
 * only when its data changes; a scrape joins the fragments under each family's HELP/TYPE and reuses
 * the result until something changes. So a scrape costs at most a string join, not a
 * re-serialisation of every series, and with a large fleet it does not grow with the number of
 * scrapers (see render()). (prom-client renders every series
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

  /** Adds samples rendered earlier (by another writer), family by family. */
  append(parts: string[]): void {
    for (let i = 0; i < parts.length; i++) if (parts[i]) this.parts[i] += parts[i]!;
  }

  take(): string[] {
    return this.parts;
  }
}

/** A render that takes longer than this switches the cache to background rebuilds. */
const SYNC_BUDGET_MS = 5;
/** In background mode, rebuilt at most this often: scrapes see data at most about this old. */
const REBUILD_GAP_MS = 1000;

export class Exposition {
  private readonly owners = new Map<string, string[]>();
  private latest?: Buffer;
  private dirty = true;
  private lastBuildMs = 0;
  private lastBuildAt = 0;
  private timer?: NodeJS.Timeout;
  private building = false;

  constructor(readonly families: Family[]) {}

  writer(): SampleWriter {
    return new SampleWriter(this.families);
  }

  set(owner: string, fragments: string[]): void {
    this.owners.set(owner, fragments);
    this.invalidate();
  }

  delete(owner: string): void {
    if (this.owners.delete(owner)) this.invalidate();
  }

  /**
   * The exposition of the per-target families. Cheap fleets are rendered on the spot, so a scrape
   * always sees the last poll; when a render gets expensive (thousands of targets), scrapes get the
   * latest render while a fresh one is built in the background, at most once a second.
   */
  render(): Buffer {
    if (!this.dirty && this.latest !== undefined) return this.latest;
    if (this.latest === undefined || this.lastBuildMs <= SYNC_BUDGET_MS) return this.buildNow();
    this.schedule();
    return this.latest;
  }

  stop(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  private invalidate(): void {
    this.dirty = true;
    if (this.lastBuildMs > SYNC_BUDGET_MS) this.schedule();
  }

  private schedule(): void {
    if (this.timer || this.building) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.buildInBackground();
    }, Math.max(0, this.lastBuildAt + REBUILD_GAP_MS - Date.now()));
    this.timer.unref();
  }

  private buildNow(): Buffer {
    const started = performance.now();
    this.dirty = false;
    const out: string[] = [];
    for (let i = 0; i < this.families.length; i++) this.appendFamily(out, i);
    this.finish(out, performance.now() - started);
    return this.latest!;
  }

  /** The same work as buildNow, yielding to the event loop between families. */
  private async buildInBackground(): Promise<void> {
    this.building = true;
    let busy = 0;
    this.dirty = false;
    const out: string[] = [];
    try {
      for (let i = 0; i < this.families.length; i++) {
        const t = performance.now();
        this.appendFamily(out, i);
        busy += performance.now() - t;
        if (i % 4 === 3) await new Promise((resolve) => setImmediate(resolve));
      }
      const t = performance.now();
      this.finish(out, busy + (performance.now() - t));
    } finally {
      this.building = false;
      if (this.dirty) this.schedule();
    }
  }

  private appendFamily(out: string[], i: number): void {
    const family = this.families[i]!;
    let header = false;
    for (const fragments of this.owners.values()) {
      const samples = fragments[i];
      if (!samples) continue;
      if (!header) {
        out.push(`# HELP ${family.name} ${family.help}\n# TYPE ${family.name} ${family.type}\n`);
        header = true;
      }
      out.push(samples);
    }
  }

  /** Encoded once per build, so scrapes send bytes as they are. */
  private finish(out: string[], busyMs: number): void {
    this.latest = Buffer.from(out.join(''), 'utf8');
    this.lastBuildMs = busyMs;
    this.lastBuildAt = Date.now();
  }
}
