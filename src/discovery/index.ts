/**
 * Finds nodes in file_sd files and DNS, each source on its own refresh interval. A source that
 * fails keeps its last answer (a DNS hiccup must not drop a fleet); the combined list goes to
 * `onChange` only when it changed.
 */
import { discoveredNode, type DiscoveryConfig, type NodeTarget } from '../config/load.js';
import type { Logger } from '../log.js';
import { resolveDns } from './dns.js';
import { readFileSd } from './file-sd.js';
import type { DiscoveredTarget } from './types.js';

export type { DiscoveredTarget } from './types.js';

type Source = { label: string; refreshMs: number; read: () => Promise<{ targets: DiscoveredTarget[]; problems: string[] }> };

export class DiscoveryManager {
  private readonly results = new Map<string, DiscoveredTarget[]>();
  private readonly problems = new Map<string, string>();
  private readonly timers: NodeJS.Timeout[] = [];
  private last = '';

  constructor(
    private readonly config: DiscoveryConfig,
    private readonly log: Logger,
    private readonly onChange: (nodes: NodeTarget[]) => void,
  ) {}

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
    const seen = new Set<string>();
    const nodes: NodeTarget[] = [];
    for (const target of [...this.results.values()].flat()) {
      if (seen.has(target.name)) continue;
      seen.add(target.name);
      nodes.push(discoveredNode(this.config.template, target.name, target.url, target.labels));
    }
    return nodes;
  }

  private async refresh(source: Source): Promise<void> {
    let result;
    try {
      result = await source.read();
    } catch (err) {
      result = { targets: [], problems: [String(err)] };
    }
    const problems = result.problems.join('; ');
    if (problems !== (this.problems.get(source.label) ?? '')) {
      if (problems) this.log.warn({ source: source.label, problems: result.problems }, 'discovery problems');
      this.problems.set(source.label, problems);
    }
    // Nothing found because every lookup failed: keep what we had.
    if (result.targets.length === 0 && result.problems.length > 0 && this.results.has(source.label)) return;
    this.results.set(source.label, result.targets);
    const now = JSON.stringify(this.nodes().map((n) => [n.name, n.baseUrl, n.labels]));
    if (now === this.last) return;
    this.last = now;
    this.log.info({ source: source.label, targets: result.targets.length }, 'discovered targets changed');
    this.onChange(this.nodes());
  }
}
