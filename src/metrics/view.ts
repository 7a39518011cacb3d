/**
 * Keeps the metric families in step with the store: after each poll of a target its series are
 * set, and every series it no longer has (a vanished check, a failed endpoint) is removed.
 */
import type { Config, NodeTarget } from '../config/load.js';
import type { CheckResult, EndpointObservation } from '../observation.js';
import { endpointKey, type Store, type TargetState } from '../store.js';
import { sanitizeLabelValue, SeriesTracker, type Labels } from './labels.js';
import { createMetricFamilies, type MetricFamilies } from './registry.js';

interface TargetMetrics {
  target: NodeTarget;
  /** `target` plus the static labels, with every configured label name present. */
  base: Labels;
  series: SeriesTracker;
}

export class MetricsView {
  readonly families: MetricFamilies;
  private readonly targets = new Map<string, TargetMetrics>();
  private readonly staticLabelNames: string[];

  constructor(
    private config: Config,
    options: { defaultMetrics: boolean } = { defaultMetrics: true },
  ) {
    this.staticLabelNames = staticLabelNames(config);
    this.families = createMetricFamilies(this.staticLabelNames, options);
    this.setTargets(config.nodes);
  }

  /** True when this view's label names fit `config`; otherwise a new view must be built. */
  fits(config: Config): boolean {
    const names = staticLabelNames(config);
    return names.length === this.staticLabelNames.length && names.every((n, i) => n === this.staticLabelNames[i]);
  }

  setTargets(nodes: NodeTarget[]): void {
    const keep = new Set(nodes.map((n) => n.name));
    for (const name of [...this.targets.keys()]) if (!keep.has(name)) this.removeTarget(name);
    for (const target of nodes) {
      const base: Labels = { target: target.name };
      for (const name of this.staticLabelNames) base[name] = target.labels[name] ?? '';
      const existing = this.targets.get(target.name);
      if (existing && sameLabels(existing.base, base)) existing.target = target;
      else {
        if (existing) this.removeTarget(target.name);
        this.targets.set(target.name, { target, base, series: new SeriesTracker() });
      }
    }
  }

  setLimits(config: Config): void {
    this.config = config;
  }

  attach(store: Store): void {
    store.onUpdate((name, state) => this.update(name, state));
    store.onRemove((name) => this.removeTarget(name));
    for (const [name, state] of store.entries()) this.update(name, state);
  }

  removeTarget(name: string): void {
    const entry = this.targets.get(name);
    if (!entry) return;
    entry.series.clear();
    const match = { target: name };
    for (const counter of [this.families.probe.failures, this.families.node.checksDropped, this.families.self.skippedPolls]) counter.remove(match);
    this.targets.delete(name);
  }

  countSkippedPoll(name: string): void {
    const entry = this.targets.get(name);
    if (entry) this.families.self.skippedPolls.inc(entry.base);
  }

  setReloadResult(success: boolean): void {
    this.families.self.reloadSuccessful.set(success ? 1 : 0);
    if (success) this.families.self.reloadSuccessTime.set(Date.now() / 1000);
  }

  update(name: string, state: TargetState): void {
    const entry = this.targets.get(name);
    if (!entry) return;
    const { probe, node } = this.families;
    const { base, series } = entry;
    const limits = this.config.limits;

    for (const e of state.observation.endpoints) {
      const labels = { ...base, endpoint: e.endpoint, view: e.view };
      series.set(probe.success, labels, e.ok ? 1 : 0);
      series.set(probe.duration, labels, e.durationSeconds);
      if (e.httpStatus !== undefined) series.set(probe.httpStatus, labels, e.httpStatus);
      const lastSuccess = state.lastSuccessAt.get(endpointKey(e));
      if (lastSuccess !== undefined) series.set(probe.lastSuccess, labels, lastSuccess);
      if (!e.ok) probe.failures.inc({ ...labels, reason: e.reason ?? 'connect' });
      if (!e.report) continue;
      series.set(node.healthy, labels, e.report.healthy ? 1 : 0);
      const checks = e.report.checks;
      if (checks.length > limits.maxChecksPerTarget) node.checksDropped.inc(base, checks.length - limits.maxChecksPerTarget);
      for (const check of checks.slice(0, limits.maxChecksPerTarget)) {
        this.setCheck(series, { ...labels, check: sanitizeLabelValue(check.name, limits.maxLabelLength) }, check);
      }
    }
    if (state.nodeId) series.set(node.info, { ...base, node_id: state.nodeId }, 1);
    this.setNodeDetails(entry, detailChecks(state.observation.endpoints, limits.maxChecksPerTarget));
    series.commit();
  }

  private setCheck(series: SeriesTracker, labels: Labels, check: CheckResult): void {
    const { node } = this.families;
    series.set(node.checkPassing, labels, check.passing ? 1 : 0);
    series.set(node.checkNotYetRun, labels, check.notYetRun ? 1 : 0);
    series.set(node.checkContiguousFailures, labels, check.contiguousFailures);
    series.set(node.checkDuration, labels, check.durationSeconds);
    if (check.lastRun !== undefined) series.set(node.checkLastRun, labels, check.lastRun);
    if (check.failingSince !== undefined && !check.passing) series.set(node.checkFailingSince, labels, check.failingSince);
  }

  /** Chain, network, router, disk and upgrade gauges, from the checks of the health endpoint. */
  private setNodeDetails({ base, series }: TargetMetrics, checks: CheckResult[]): void {
    const { node } = this.families;
    const maxLength = this.config.limits.maxLabelLength;
    const put = (gauge: Parameters<SeriesTracker['set']>[0], labels: Labels, value: number | undefined) => {
      if (value !== undefined) series.set(gauge, labels, value);
    };
    for (const check of checks) {
      if (check.chain) {
        const c = check.chain;
        const labels = { ...base, chain: sanitizeLabelValue(check.name, maxLength) };
        put(node.chainConnectedStake, labels, c.connectedStakeRatio);
        put(node.chainHeight, labels, c.lastAcceptedHeight);
        put(node.chainProcessing, labels, c.processingBlocks);
        put(node.chainLongestProcessing, labels, c.longestProcessingBlockSeconds);
        put(node.chainDisconnectedValidators, labels, c.disconnectedValidators);
        if (c.bootstrapping !== undefined) put(node.chainBootstrapping, labels, c.bootstrapping ? 1 : 0);
      }
      if (check.network) {
        const n = check.network;
        put(node.networkPeers, base, n.connectedPeers);
        put(node.networkSendFail, base, n.sendFailRatio);
        put(node.networkReceivedAge, base, n.lastMessageReceivedAgeSeconds);
        put(node.networkSentAge, base, n.lastMessageSentAgeSeconds);
        put(node.networkIngress, base, n.ingressConnections);
      }
      if (check.router) {
        put(node.routerOutstanding, base, check.router.outstandingRequests);
        put(node.routerLongest, base, check.router.longestRunningRequestSeconds);
      }
      if (check.disk) {
        put(node.diskAvailable, base, check.disk.availableBytes);
        put(node.diskAvailableRatio, base, check.disk.availableRatio);
      }
      if (check.bootstrappingSubnets) put(node.bootstrappingSubnets, base, check.bootstrappingSubnets.length);
      if (check.upgrade) {
        put(node.upgradeModeWeight, base, check.upgrade.modeWeightRatio);
        put(node.upgradeTimeUntil, base, check.upgrade.timeUntilSeconds);
      }
    }
  }
}

/**
 * The checks of every successful health view, first occurrence winning: the unfiltered view
 * normally has them all, and an L1 node polled only through a tag view still reports its chain.
 */
function detailChecks(endpoints: EndpointObservation[], max: number): CheckResult[] {
  const byName = new Map<string, CheckResult>();
  for (const e of endpoints) {
    if (e.endpoint !== 'health' || !e.report) continue;
    for (const check of e.report.checks.slice(0, max)) if (!byName.has(check.name)) byName.set(check.name, check);
  }
  return [...byName.values()];
}

function staticLabelNames(config: Config): string[] {
  return [...new Set(config.nodes.flatMap((n) => Object.keys(n.labels)))].sort();
}

function sameLabels(a: Labels, b: Labels): boolean {
  const keys = Object.keys(a);
  return keys.length === Object.keys(b).length && keys.every((k) => a[k] === b[k]);
}
