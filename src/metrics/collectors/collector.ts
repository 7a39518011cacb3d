/**
 * What a metric collector is: one module per source under src/metrics/collectors/, owning its
 * metric families (name, help, type) and rendering its series from what the store holds. The
 * metrics view (../view.ts) loops over the registry (./index.ts) and knows no family by name.
 *
 * A collector renders either per target (`target`: after each store update of the target, and once
 * when the target appears, so counters start at 0) or from the whole store (`store`: chain data,
 * height lag; re-rendered before a scrape after anything changed). Family indices are the
 * collector's own (its `families` object's order); the writer maps them into the exposition.
 */
import type { Registry } from 'prom-client';
import type { Config, Target } from '../../config/load.js';
import type { Store, TargetState } from '../../store.js';
import type { Family, SampleWriter } from '../exposition.js';
import { PREFIX } from '../registry.js';

/** Builds a collector's families; `index` gives each one's position for Writer.add. */
export function defineFamilies<K extends string>(defs: Record<K, Family>): { list: Family[]; index: Record<K, number> } {
  const keys = Object.keys(defs) as K[];
  return { list: keys.map((k) => defs[k]), index: Object.fromEntries(keys.map((k, i) => [k, i])) as Record<K, number> };
}

export const gauge = (name: string, help: string): Family => ({ name: PREFIX + name, type: 'gauge', help });
export const counter = (name: string, help: string): Family => ({ name: PREFIX + name, type: 'counter', help });
/** Quantiles only (no `_sum`/`_count`): a `quantile` label on a gauge is what promtool refuses. */
export const summary = (name: string, help: string): Family => ({ name: PREFIX + name, type: 'summary', help });

/** A collector's view of a SampleWriter: its own family indices, shifted to the exposition's. */
export class Writer {
  constructor(
    private readonly inner: SampleWriter,
    private readonly offset: number,
  ) {}

  /** `labels` is label text (labelText/escapeLabel); nothing is written for an undefined value. */
  add(family: number, labels: string, value: number | undefined): void {
    this.inner.add(this.offset + family, labels, value);
  }
}

export interface TargetInput {
  target: Target;
  /** Label text of `target` and its static labels, escaped once. */
  base: string;
  /** Undefined until the target's first poll. */
  state: TargetState | undefined;
  config: Config;
  /** Polls skipped by the scheduler so far (the poll was still running). */
  skipped: number;
}

export interface StoreInput {
  store: Store;
  config: Config;
  /** `base` label text of each known target. */
  bases: ReadonlyMap<string, string>;
  /** The prom-client registry a collector registered its network-wide families on (see `register`). */
  registry: Registry;
}

export interface Collector<Memo = undefined> {
  name: string;
  families: Family[];
  /** Memory kept per target as long as it exists (counters). */
  newMemo?(): Memo;
  /** Network-wide families without a target, served by prom-client: created once per registry here. */
  register?(registry: Registry): void;
  target?(w: Writer, input: TargetInput, memo: Memo): void;
  /**
   * What `target` renders from, beyond the target, its labels and the config, each value handed to
   * `deps.add`: while every value is identical (===) to the last render's, the view keeps the series
   * it has (no render, no encoding; a node's unchanged body costs nothing here, and the comparison
   * allocates nothing). False, or no `depends`: render on every update.
   */
  depends?(input: TargetInput, memo: Memo, deps: Dependencies): boolean;
  store?(w: Writer, input: StoreInput): void;
}

/** What a collector rendered from last time, compared value by value as `depends` hands in the new ones. */
export class Dependencies {
  private readonly values: unknown[] = [];
  private count = 0;
  private differs = false;
  /** Cleared since the last comparison: the next one differs even with nothing handed in. */
  private forgotten = true;

  /** Before a `depends`. */
  start(): void {
    this.count = 0;
    this.differs = false;
  }

  add(value: unknown): void {
    if (this.count === this.values.length || this.values[this.count] !== value) {
      this.values[this.count] = value;
      this.differs = true;
    }
    this.count++;
  }

  /** After a `depends`: whether anything differs from the values of the time before. */
  changed(): boolean {
    if (this.forgotten || this.count !== this.values.length) {
      this.forgotten = false;
      this.values.length = this.count;
      return true;
    }
    return this.differs;
  }

  /** Forgets the values (the next comparison differs). */
  clear(): void {
    this.values.length = 0;
    this.forgotten = true;
  }
}

/** For `depends`: the report of each endpoint of the target's observation. */
export function addReports(deps: Dependencies, state: TargetState): true {
  for (const e of state.observation.endpoints) deps.add(e.report);
  return true;
}

export function defineCollector<Memo = undefined>(collector: Collector<Memo>): Collector<unknown> {
  return collector as Collector<unknown>;
}
