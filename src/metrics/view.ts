/**
 * Keeps the metrics in step with the store, through the collectors (./collectors/): after each
 * update of a target, every collector renders its series of that target once into the Exposition
 * cache (replacing what it had, so a vanished check or a failed endpoint simply has no series any
 * more); series derived from the whole store (height lag, validator records, network-wide chain
 * data) are re-rendered before a scrape after anything changed. A scrape joins the cached
 * fragments. Every series about a target carries `target` and the target's static labels.
 */
import { isDeepStrictEqual } from 'node:util';
import type { Config, Target } from '../config/load.js';
import { familyMatcher, type MetricsSettings } from '../config/schema/metrics.js';
import { targetsOf } from '../model/targets.js';
import type { Store, TargetState } from '../store.js';
import { Dependencies, Writer, type StoreInput } from './collectors/collector.js';
import { COLLECTORS, FAMILIES, OFFSETS } from './collectors/index.js';
import { bodyBytes, MetricsEndpoint, type ScrapeRequest, type ScrapeResponse } from './endpoint.js';
import { Exposition, labelText, SampleWriter, type Part } from './exposition.js';
import { createMetricFamilies, initReceiverSeries, type MetricFamilies } from './registry.js';
import type { ConfigDiff } from '../config/diff.js';

interface TargetMetrics {
  target: Target;
  /** Label text of `target` and the static labels, escaped once. */
  base: string;
  skipped: number;
  /** Each collector's memory of this target (counters), by collector position. */
  memos: unknown[];
  /** The target's series in the exposition, every collector's. */
  part: Part;
  /** What each collector with a `depends` rendered from last time (none for the others: they render on every update), and with which config. */
  rendered: Array<Dependencies | undefined>;
  renderedWith?: Config;
}

export class MetricsView {
  readonly families: MetricFamilies;
  readonly exposition = new Exposition(FAMILIES);
  private readonly endpoint: MetricsEndpoint;
  /** Each collector's writer, written over by every render (rendering is synchronous). */
  private readonly writers = COLLECTORS.map((c) => new SampleWriter(c.families));
  private readonly targetWriters = this.writers.map((w) => new Writer(w, 0));
  /** The whole-store series (height lag, validator records, network-wide). */
  private readonly storePart = this.exposition.part();
  private readonly storeWriter = this.exposition.writer();
  private readonly targets = new Map<string, TargetMetrics>();
  private store?: Store;
  /** Whole-store series depend on every node and on chain data: re-rendered at most once per scrape, after a change. */
  private storeDirty = false;

  constructor(
    private config: Config,
    options: { defaultMetrics: boolean } = { defaultMetrics: true },
  ) {
    this.families = createMetricFamilies(options);
    for (const collector of COLLECTORS) collector.register?.(this.families.registry);
    this.endpoint = new MetricsEndpoint(this.exposition, this.families.registry);
    this.exportFamilies(config.metrics);
    this.setTargets(targetsOf(config));
    initReceiverSeries(this.families.alerts, receiverNames(config));
  }

  setTargets(targets: Target[]): void {
    const keep = new Set(targets.map((t) => t.name));
    for (const name of [...this.targets.keys()]) if (!keep.has(name)) this.removeTarget(name);
    for (const target of targets) {
      const base = labelText({ target: target.name, ...target.labels });
      const existing = this.targets.get(target.name);
      if (existing && existing.base === base) existing.target = target;
      else {
        if (existing) this.removeTarget(target.name);
        this.targets.set(target.name, { target, base, skipped: 0, memos: COLLECTORS.map((c) => c.newMemo?.()), part: this.exposition.part(), rendered: COLLECTORS.map((c) => (c.target && c.depends ? new Dependencies() : undefined)) });
        // counters exist at 0 from the start, so rate() over them works before the first poll
        this.renderTarget(target.name);
      }
    }
    this.storeDirty = true;
  }

  /** A reload: the new config and its targets (a target whose labels changed starts over). */
  reconfigure(diff: ConfigDiff): void {
    this.setConfig(diff.next);
    this.setTargets(targetsOf(diff.next));
  }

  setConfig(config: Config): void {
    initReceiverSeries(this.families.alerts, receiverNames(config), receiverNames(this.config));
    const metricsChanged = !isDeepStrictEqual(config.metrics, this.config.metrics);
    this.config = config;
    if (!metricsChanged) return;
    this.exportFamilies(config.metrics);
    for (const name of this.targets.keys()) this.renderTarget(name);
    this.storeDirty = true;
  }

  /** Which families are written (`metrics.allow` and `deny`): the writers skip the others, the endpoint prom-client's. */
  private exportFamilies(settings: MetricsSettings): void {
    const exported = exportedBy(settings);
    const off = FAMILIES.map((f) => !exported(f.name));
    this.writers.forEach((w, i) => (w.off = off.slice(OFFSETS[i], OFFSETS[i]! + COLLECTORS[i]!.families.length)));
    this.storeWriter.off = off;
    this.endpoint.exported = exported;
  }

  /** Whether a family of this name is exported under the config's `metrics:`. */
  exports(family: string): boolean {
    return this.endpoint.exported(family);
  }

  attach(store: Store): void {
    this.store = store;
    store.onUpdate((name, state) => this.update(name, state));
    store.onRemove((name) => this.removeTarget(name));
    store.onChainData(() => (this.storeDirty = true));
    for (const [name, state] of store.entries()) this.update(name, state);
  }

  removeTarget(name: string): void {
    const entry = this.targets.get(name);
    if (!entry) return;
    this.targets.delete(name);
    this.exposition.delete(entry.part);
    this.storeDirty = true;
  }

  countSkippedPoll(name: string): void {
    const entry = this.targets.get(name);
    if (!entry) return;
    entry.skipped++;
    this.renderTarget(name);
  }

  setReloadResult(success: boolean): void {
    this.families.self.reloadSuccessful.set(success ? 1 : 0);
    if (success) this.families.self.reloadSuccessTime.set(Date.now() / 1000);
  }

  /** A `/metrics` response in the format and encoding the scraper asked for (endpoint.ts). */
  async scrape(request: ScrapeRequest = {}): Promise<ScrapeResponse> {
    this.beforeScrape();
    return this.endpoint.scrape(request);
  }

  /** The whole exposition as Prometheus text. */
  async render(): Promise<string> {
    return (await bodyBytes((await this.scrape()).body)).toString('utf8');
  }

  update(name: string, state: TargetState): void {
    if (!this.targets.has(name)) return;
    this.renderTarget(name, state);
    if (state.observation.kind === 'node') this.storeDirty = true;
  }

  /**
   * Every collector's series of one target, replacing what it had. Each collector replaces only its
   * own families of the target's part, so a collector whose inputs did not change (`depends`) is
   * skipped whole: after a poll that returned the same bodies only the probe series are rendered.
   */
  private renderTarget(name: string, state: TargetState | undefined = this.store?.get(name)): void {
    const entry = this.targets.get(name)!;
    const input = { target: entry.target, base: entry.base, state, config: this.config, skipped: entry.skipped };
    const sameConfig = entry.renderedWith === this.config;
    entry.renderedWith = this.config;
    for (let i = 0; i < COLLECTORS.length; i++) {
      const collector = COLLECTORS[i]!;
      if (!collector.target) continue;
      const deps = entry.rendered[i];
      if (deps) {
        deps.start();
        if (!collector.depends!(input, entry.memos[i], deps)) deps.clear();
        else if (!deps.changed() && sameConfig) continue;
      }
      this.writers[i]!.reset();
      collector.target(this.targetWriters[i]!, input, entry.memos[i]);
      this.exposition.set(entry.part, this.writers[i]!, OFFSETS[i]);
    }
  }

  /** The `avahealth_alerts` gauge: counts by alertname, severity and state. */
  setAlertCounts(alerts: Array<{ alertname: string; severity: string; state: string }>): void {
    const gauge = this.families.alerts.active;
    gauge.reset();
    for (const a of alerts) if (a.state !== 'resolved') gauge.inc({ alertname: a.alertname, severity: a.severity, state: a.state });
  }

  /** Brings the whole-store series (height lag, validators, network-wide) up to date when something changed since the last scrape. */
  beforeScrape(): void {
    if (!this.storeDirty || !this.store) return;
    this.storeDirty = false;
    const sample = this.storeWriter.reset();
    const input: StoreInput = { store: this.store, config: this.config, bases: new Map([...this.targets].map(([name, t]) => [name, t.base])), registry: this.families.registry };
    COLLECTORS.forEach((collector, i) => collector.store?.(new Writer(sample, OFFSETS[i]!), input));
    this.exposition.set(this.storePart, sample);
  }
}

function exportedBy(settings: MetricsSettings): (name: string) => boolean {
  if (settings.allow.length === 0 && settings.deny.length === 0) return () => true;
  const allowed = settings.allow.length > 0 ? familyMatcher(settings.allow) : () => true;
  const denied = familyMatcher(settings.deny);
  const decided = new Map<string, boolean>();
  return (name) => {
    let yes = decided.get(name);
    if (yes === undefined) decided.set(name, (yes = allowed(name) && !denied(name)));
    return yes;
  };
}

function receiverNames(config: Config): string[] {
  return config.alerts.receivers.map((r) => r.name);
}
