/**
 * Keeps the metric families in step with the store: after each poll of a target its series are
 * set, and every series it no longer has (a vanished check, a failed endpoint) is removed.
 */
import { chainLags } from '../chaindata/lag.js';
import { VALIDATOR_STATUSES, type ChainDataSnapshot } from '../chaindata/chaindata.js';
import type { Config, Target } from '../config/load.js';
import type { CheckResult, EndpointObservation, ServiceReport } from '../observation.js';
import { endpointKey, type Store, type TargetState } from '../store.js';
import { sanitizeLabelValue, SeriesTracker, type Labels } from './labels.js';
import { createMetricFamilies, type MetricFamilies } from './registry.js';

interface TargetMetrics {
  target: Target;
  /** `target` plus the static labels, with every configured label name present. */
  base: Labels;
  series: SeriesTracker;
}

export class MetricsView {
  readonly families: MetricFamilies;
  private readonly targets = new Map<string, TargetMetrics>();
  private readonly staticLabelNames: string[];
  private store?: Store;
  private chainData?: ChainDataSnapshot;
  private readonly chainSeries = new SeriesTracker();
  private readonly lagSeries = new SeriesTracker();
  /** Lag depends on every node's height: it is recomputed at most once per scrape, and only after a change. */
  private lagDirty = false;

  constructor(
    private config: Config,
    options: { defaultMetrics: boolean } = { defaultMetrics: true },
  ) {
    this.staticLabelNames = staticLabelNames(config);
    this.families = createMetricFamilies(this.staticLabelNames, options);
    this.setTargets(targetsOf(config));
  }

  /** True when this view's label names fit `config`; otherwise a new view must be built. */
  fits(config: Config): boolean {
    const names = staticLabelNames(config);
    return names.length === this.staticLabelNames.length && names.every((n, i) => n === this.staticLabelNames[i]);
  }

  setTargets(nodes: Target[]): void {
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

  setConfig(config: Config): void {
    this.config = config;
  }

  attach(store: Store): void {
    this.store = store;
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
    this.lagDirty = true;
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
        if (e.service) this.setServiceReport(series, { ...base, endpoint: e.endpoint }, e.service);
      if (!e.report) continue;
      series.set(node.healthy, labels, e.report.healthy ? 1 : 0);
      const checks = e.report.checks;
      if (checks.length > limits.maxChecksPerTarget) node.checksDropped.inc(base, checks.length - limits.maxChecksPerTarget);
      for (const check of checks.slice(0, limits.maxChecksPerTarget)) {
        this.setCheck(series, { ...labels, check: sanitizeLabelValue(check.name, limits.maxLabelLength) }, check);
      }
    }
    if (state.nodeId) series.set(node.info, { ...base, node_id: state.nodeId }, 1);
    const rateLimit = state.observation.endpoints.find((e) => e.rateLimit)?.rateLimit;
    if (rateLimit?.limit !== undefined) series.set(this.families.service.rateLimitLimit, base, rateLimit.limit);
    if (rateLimit?.remaining !== undefined) series.set(this.families.service.rateLimitRemaining, base, rateLimit.remaining);
    this.setNodeDetails(entry, detailChecks(state.observation.endpoints, limits.maxChecksPerTarget));
    series.commit();
    if (state.observation.kind === 'node') this.lagDirty = true;
  }

  private setServiceReport(series: SeriesTracker, labels: Labels, report: ServiceReport): void {
    const { service } = this.families;
    series.set(service.healthy, labels, report.healthy ? 1 : 0);
    for (const component of report.components.slice(0, this.config.limits.maxChecksPerTarget)) {
      series.set(service.componentUp, { ...labels, component: sanitizeLabelValue(component.name, this.config.limits.maxLabelLength) }, component.up ? 1 : 0);
    }
  }

  /** Chain data: latest heights, status, TPS, validators, network totals. */
  setChainData(snapshot: ChainDataSnapshot): void {
    const { chain } = this.families;
    const series = this.chainSeries;
    this.chainData = snapshot;
    const put = (gauge: Parameters<SeriesTracker['set']>[0], labels: Labels, value: number | undefined) => {
      if (value !== undefined) series.set(gauge, labels, value);
    };
    for (const c of snapshot.chains.values()) {
      const labels = { chain_id: c.evmChainId };
      put(chain.latestHeight, labels, c.height);
      put(chain.latestTimestamp, labels, c.blockTimestamp);
      if (c.statusOk !== undefined) put(chain.statusOk, labels, c.statusOk ? 1 : 0);
      put(chain.avgTps, labels, c.avgTps);
    }
    for (const v of snapshot.validators.values()) {
      const entry = this.targets.get(v.target);
      if (!entry) continue;
      const labels = { ...entry.base, node_id: v.nodeId };
      for (const status of VALIDATOR_STATUSES) series.set(chain.validatorStatus, { ...labels, status }, status === v.status ? 1 : 0);
      put(chain.validatorEnd, labels, v.endTimestamp);
      put(chain.validatorDelegators, labels, v.delegators);
    }
    for (const [network, totals] of snapshot.networks) {
      put(chain.networkValidators, { network }, totals.validators);
      put(chain.networkDelegators, { network }, totals.delegators);
    }
    put(chain.refreshTimestamp, {}, snapshot.refreshedAt);
    series.set(chain.refreshErrors, {}, snapshot.errors.length);
    series.commit();
    this.lagDirty = true;
  }

  /** The `avahealth_alerts` gauge: counts by alertname, severity and state. */
  setAlertCounts(alerts: Array<{ alertname: string; severity: string; phase: string }>): void {
    const gauge = this.families.alerts.active;
    gauge.reset();
    for (const a of alerts) if (a.phase !== 'resolved') gauge.inc({ alertname: a.alertname, severity: a.severity, state: a.phase });
  }

  /** Called before each scrape: brings derived series (height lag) up to date when something changed. */
  beforeScrape(): void {
    if (!this.lagDirty || !this.store || !this.config.chainData) return;
    this.lagDirty = false;
    const maxLength = this.config.limits.maxLabelLength;
    for (const lag of chainLags(this.config.nodes, this.store, this.chainData)) {
      const entry = this.targets.get(lag.target);
      if (entry) this.lagSeries.set(this.families.chain.heightLag, { ...entry.base, chain: sanitizeLabelValue(lag.chain, maxLength) }, lag.lagBlocks);
    }
    this.lagSeries.commit();
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
  return [...new Set(targetsOf(config).flatMap((n) => Object.keys(n.labels)))].sort();
}

export function targetsOf(config: Config): Target[] {
  return [...config.nodes, ...config.services];
}

function sameLabels(a: Labels, b: Labels): boolean {
  const keys = Object.keys(a);
  return keys.length === Object.keys(b).length && keys.every((k) => a[k] === b[k]);
}
