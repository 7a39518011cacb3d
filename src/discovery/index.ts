/**
 * Finds nodes in file_sd files and DNS, each source on its own refresh interval. A source that
 * fails keeps its last answer (a DNS hiccup must not drop a fleet); the combined list goes to
 * `onChange` only when it changed. What a source leaves out (reserved labels, addresses that are
 * not `host:port`, names already taken) is logged once per change and counted at every read.
 */
import { discoveredNode, type DiscoveryConfig, type NodeTarget } from '../config/load.js';
import type { Logger } from '../log.js';
import { resolveDns } from './dns.js';
import { readFileSd } from './file-sd.js';
import { MAX_DISCOVERED_LABELS } from './names.js';
import { DiscoveryTally } from './tally.js';
import type { DiscoveredTarget, SourceAnswer } from './types.js';

export type { DiscoveredTarget } from './types.js';
export { DiscoveryTally, TARGET_DROP_REASONS, type TargetDropReason } from './tally.js';

type Source = { label: string; refreshMs: number; read: () => Promise<SourceAnswer> };

/** A discovered target left out of the fleet because its name is taken. */
interface NameClash {
  source: string;
  target: string;
  url: string;
  reason: 'configured_name' | 'duplicate_name';
}

export interface DiscoveryOptions {
  /** Names of the configured targets (nodes and services): a discovered target never takes one. */
  configuredNames: () => ReadonlySet<string>;
  tally: DiscoveryTally;
}

export class DiscoveryManager {
  private readonly results = new Map<string, DiscoveredTarget[]>();
  private readonly problems = new Map<string, string>();
  private readonly droppedLabels = new Map<string, string>();
  /** Sources over `max_targets_per_source` at their last read (logged once, when they get there). */
  private readonly overLimit = new Set<string>();
  private clashes = '';
  private readonly timers: NodeJS.Timeout[] = [];
  private last = '';

  constructor(
    private readonly config: DiscoveryConfig,
    private readonly log: Logger,
    private readonly onChange: (nodes: NodeTarget[]) => void,
    private readonly options: DiscoveryOptions,
  ) {
    options.tally.declare(this.sources().map((s) => s.label));
  }

  private sources(): Source[] {
    return [
      ...this.config.fileSd.map((f, i) => ({ label: `file_sd[${i}]`, refreshMs: f.refreshMs, read: () => readFileSd(f.files, f.scheme, f.labels) })),
      ...this.config.dns.map((d, i) => ({ label: `dns[${i}]`, refreshMs: d.refreshMs, read: () => resolveDns(d) })),
    ];
  }

  /** Reads every source once (so the first poll round already has them), then keeps them fresh. */
  async start(): Promise<void> {
    const sources = this.sources();
    await Promise.all(sources.map((s) => this.refresh(s)));
    for (const source of sources) {
      const timer = setInterval(() => void this.refresh(source), source.refreshMs);
      timer.unref();
      this.timers.push(timer);
    }
  }

  stop(): void {
    for (const timer of this.timers) clearInterval(timer);
    this.timers.length = 0;
  }

  /** Every source has answered, the last time without a problem: the list is the whole fleet. */
  get complete(): boolean {
    return this.sources().every((s) => this.results.has(s.label) && !this.problems.get(s.label));
  }

  nodes(): NodeTarget[] {
    return this.combine().nodes;
  }

  /**
   * The sources' targets as nodes, in source order. A target whose name a configured target has,
   * or an earlier discovered one at another address, is left out (the same address found twice is
   * simply the same node).
   */
  private combine(): { nodes: NodeTarget[]; clashes: NameClash[] } {
    const configured = this.options.configuredNames();
    const seen = new Map<string, string>();
    const nodes: NodeTarget[] = [];
    const clashes: NameClash[] = [];
    for (const [source, targets] of this.results) {
      for (const target of targets) {
        const earlier = seen.get(target.name);
        if (earlier === target.url) continue;
        if (configured.has(target.name) || earlier !== undefined) {
          clashes.push({ source, target: target.name, url: target.url, reason: configured.has(target.name) ? 'configured_name' : 'duplicate_name' });
          continue;
        }
        seen.set(target.name, target.url);
        nodes.push(discoveredNode(this.config.template, target.name, target.url, target.labels));
      }
    }
    return { nodes, clashes };
  }

  /**
   * A source's distinct addresses (host names compare case-insensitively: they are lower-cased where
   * read), the first `max_targets_per_source` of them: one SRV answer or file must not add
   * thousands of nodes, each a poll and an alert. The rest are counted at every read, logged once.
   */
  private withinLimit(label: string, targets: DiscoveredTarget[]): DiscoveredTarget[] {
    const urls = new Set<string>();
    const distinct = targets.filter((t) => !urls.has(t.url) && urls.add(t.url));
    const limit = this.config.maxTargetsPerSource;
    if (distinct.length <= limit) {
      this.overLimit.delete(label);
      return distinct;
    }
    this.options.tally.countTargets(label, 'over_limit', distinct.length - limit);
    if (!this.overLimit.has(label)) {
      this.overLimit.add(label);
      this.log.warn({ source: label, found: distinct.length, kept: limit }, 'discovered targets over discovery.max_targets_per_source: the first ones kept, the rest left out');
    }
    return distinct.slice(0, limit);
  }

  private async refresh(source: Source): Promise<void> {
    let result: SourceAnswer;
    try {
      result = await source.read();
    } catch (err) {
      result = { targets: [], problems: [String(err)], droppedLabels: [], invalidAddresses: 0 };
    }
    const { tally } = this.options;
    const problems = result.problems.join('; ');
    if (problems !== (this.problems.get(source.label) ?? '')) {
      if (problems) this.log.warn({ source: source.label, problems: result.problems }, 'discovery problems');
      this.problems.set(source.label, problems);
    }
    tally.countTargets(source.label, 'invalid_address', result.invalidAddresses);
    for (const name of result.droppedLabels) tally.countLabel(source.label, name);
    const dropped = [...new Set(result.droppedLabels)].sort().join(',');
    if (dropped !== (this.droppedLabels.get(source.label) ?? '')) {
      if (dropped) {
        const names = dropped.split(',');
        this.log.warn({ source: source.label, labels: names.slice(0, 20), ...(names.length > 20 ? { more: names.length - 20 } : {}) }, `discovered labels dropped: avahealth sets labels of these names itself, they are no label names, or a target has more than ${MAX_DISCOVERED_LABELS}`);
      }
      this.droppedLabels.set(source.label, dropped);
    }
    result.targets = this.withinLimit(source.label, result.targets);
    // Nothing found because every lookup failed: keep what we had.
    if (result.targets.length > 0 || result.problems.length === 0 || !this.results.has(source.label)) this.results.set(source.label, result.targets);
    const { nodes, clashes } = this.combine();
    for (const clash of clashes) if (clash.source === source.label) tally.countTargets(source.label, clash.reason, 1);
    const clashText = JSON.stringify(clashes);
    if (clashText !== this.clashes) {
      this.clashes = clashText;
      if (clashes.length > 0) this.log.warn({ targets: clashes }, 'discovered targets left out: their names are taken (configured_name: by a configured target; duplicate_name: by another discovered address)');
    }
    const now = JSON.stringify(nodes.map((n) => [n.name, n.baseUrl, n.labels]));
    if (now === this.last) return;
    this.last = now;
    this.log.info({ source: source.label, targets: result.targets.length }, 'discovered targets changed');
    this.onChange(nodes);
  }
}
