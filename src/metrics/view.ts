/**
 * Keeps the metrics in step with the store. After each poll of a target, its series are rendered
 * once into the Exposition cache (replacing what it had, so a vanished check or a failed endpoint
 * simply has no series any more); a scrape joins the cached fragments. Every series about a target
 * carries `target` and the target's static labels.
 */
import { VALIDATOR_STATUSES, type ChainDataSnapshot } from '../model/chaindata.js';
import type { Config, Target } from '../config/load.js';
import type { CheckResult, EndpointObservation, HealthReport, ServiceReport } from '../model/observation.js';
import { endpointKey, type Store, type TargetState } from '../store.js';
import { targetsOf } from '../model/targets.js';
import { escapeLabel, Exposition, labelText, type SampleWriter } from './exposition.js';
import { FAMILIES, I } from './families.js';
import { sanitizeLabelValue } from '../util/labels.js';
import { createMetricFamilies, initReceiverSeries, type MetricFamilies } from './registry.js';
import { MetricsEndpoint, type ScrapeRequest, type ScrapeResponse } from './endpoint.js';
import type { ConfigDiff } from '../config/diff.js';

interface TargetMetrics {
  target: Target;
  /** Label text of `target` and the static labels, escaped once. */
  base: string;
  /** Counters live as long as the target: failures by endpoint/view/reason, dropped checks, skipped polls. */
  failures: Map<string, number>;
  dropped: number;
  skipped: number;
  /** Rendered check series per endpoint/view, reused while the report object is the same (an unchanged body). */
  checks: Map<string, { report: HealthReport; parts: string[] }>;
  details?: { reports: HealthReport[]; parts: string[] };
}

const LAG_OWNER = '@lag';
const VALIDATOR_OWNER = '@validators';

export class MetricsView {
  readonly families: MetricFamilies;
  readonly exposition = new Exposition(FAMILIES);
  private readonly endpoint: MetricsEndpoint;
  private readonly targets = new Map<string, TargetMetrics>();
  private store?: Store;
  /** Lag depends on every node's height: it is recomputed at most once per scrape, and only after a change. */
  private lagDirty = false;

  constructor(
    private config: Config,
    options: { defaultMetrics: boolean } = { defaultMetrics: true },
  ) {
    this.families = createMetricFamilies(options);
    this.endpoint = new MetricsEndpoint(this.exposition, this.families.registry);
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
        this.targets.set(target.name, { target, base, failures: new Map(), dropped: 0, skipped: 0, checks: new Map() });
        // counters exist at 0 from the start, so rate() over them works before the first poll
        const w = this.exposition.writer();
        w.add(I.skippedPolls, base, 0);
        this.exposition.set(target.name, w.take());
      }
    }
  }

  /** A reload: the new config and its targets (a target whose labels changed starts over). */
  reconfigure(diff: ConfigDiff): void {
    this.setConfig(diff.next);
    this.setTargets(targetsOf(diff.next));
  }

  setConfig(config: Config): void {
    initReceiverSeries(this.families.alerts, receiverNames(config), receiverNames(this.config));
    this.config = config;
  }

  attach(store: Store): void {
    this.store = store;
    store.onUpdate((name, state) => this.update(name, state));
    store.onRemove((name) => this.removeTarget(name));
    store.onChainData((snapshot) => this.setChainData(snapshot));
    for (const [name, state] of store.entries()) this.update(name, state);
    if (store.chainData) this.setChainData(store.chainData);
  }

  removeTarget(name: string): void {
    if (!this.targets.delete(name)) return;
    this.exposition.delete(name);
    this.lagDirty = true;
  }

  countSkippedPoll(name: string): void {
    const entry = this.targets.get(name);
    if (!entry) return;
    entry.skipped++;
    this.exposition.setFamily(name, I.skippedPolls, `${FAMILIES[I.skippedPolls]!.name}{${entry.base}} ${entry.skipped}\n`);
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
    return Buffer.concat((await this.scrape()).body).toString('utf8');
  }

  update(name: string, state: TargetState): void {
    const entry = this.targets.get(name);
    if (!entry) return;
    const w = this.exposition.writer();
    const { base } = entry;
    const limits = this.config.limits;

    for (const e of state.observation.endpoints) {
      const labels = `${base},endpoint="${escapeLabel(e.endpoint)}",view="${escapeLabel(e.view)}"`;
      w.add(I.probeSuccess, labels, e.ok ? 1 : 0);
      w.add(I.probeDuration, labels, e.durationSeconds);
      w.add(I.probeHttpStatus, labels, e.httpStatus);
      w.add(I.probeLastSuccess, labels, state.lastSuccessAt.get(endpointKey(e)));
      if (!e.ok) {
        const key = `${labels},reason="${e.reason ?? 'connect'}"`;
        entry.failures.set(key, (entry.failures.get(key) ?? 0) + 1);
      }
      if (e.service) this.writeService(w, `${base},endpoint="${escapeLabel(e.endpoint)}"`, e.service);
      if (!e.report) continue;
      w.add(I.nodeHealthy, labels, e.report.healthy ? 1 : 0);
      const checks = e.report.checks;
      if (checks.length > limits.maxChecksPerTarget) entry.dropped += checks.length - limits.maxChecksPerTarget;
      const key = endpointKey(e);
      let cached = entry.checks.get(key);
      if (cached?.report !== e.report) {
        const cw = this.exposition.writer();
        for (const check of checks.slice(0, limits.maxChecksPerTarget)) {
          writeCheck(cw, `${labels},check="${escapeLabel(sanitizeLabelValue(check.name, limits.maxLabelLength))}"`, check);
        }
        cached = { report: e.report, parts: cw.take() };
        entry.checks.set(key, cached);
      }
      w.append(cached.parts);
    }
    for (const [labels, count] of entry.failures) w.add(I.probeFailures, labels, count);
    if (entry.dropped > 0) w.add(I.checksDropped, base, entry.dropped);
    w.add(I.skippedPolls, base, entry.skipped);
    if (state.nodeId) w.add(I.nodeInfo, `${base},node_id="${escapeLabel(state.nodeId)}"`, 1);
    const rateLimit = state.observation.endpoints.find((e) => e.rateLimit)?.rateLimit;
    w.add(I.serviceRateLimitLimit, base, rateLimit?.limit);
    w.add(I.serviceRateLimitRemaining, base, rateLimit?.remaining);
    const reports = state.observation.endpoints.filter((e) => e.endpoint === 'health' && e.report).map((e) => e.report!);
    if (!entry.details || entry.details.reports.length !== reports.length || entry.details.reports.some((r, i) => r !== reports[i])) {
      const dw = this.exposition.writer();
      writeNodeDetails(dw, base, detailChecks(state.observation.endpoints, limits.maxChecksPerTarget), limits.maxLabelLength);
      entry.details = { reports, parts: dw.take() };
    }
    w.append(entry.details.parts);
    this.exposition.set(name, w.take());
    if (state.observation.kind === 'node') this.lagDirty = true;
  }

  private writeService(w: SampleWriter, labels: string, report: ServiceReport): void {
    w.add(I.serviceHealthy, labels, report.healthy ? 1 : 0);
    for (const component of report.components.slice(0, this.config.limits.maxChecksPerTarget)) {
      w.add(I.serviceComponentUp, `${labels},component="${escapeLabel(sanitizeLabelValue(component.name, this.config.limits.maxLabelLength))}"`, component.up ? 1 : 0);
    }
  }

  /** Chain data: network-wide series through prom-client, validator series pre-rendered. */
  setChainData(snapshot: ChainDataSnapshot): void {
    const { chain } = this.families;
    for (const gauge of [chain.latestHeight, chain.latestTimestamp, chain.statusOk, chain.avgTps, chain.networkValidators, chain.networkDelegators]) gauge.reset();
    const put = (gauge: (typeof chain)['latestHeight'], labels: Record<string, string>, value: number | undefined) => {
      if (value !== undefined) gauge.set(labels, value);
    };
    for (const c of snapshot.chains.values()) {
      const labels = { chain_id: c.evmChainId };
      put(chain.latestHeight, labels, c.height);
      put(chain.latestTimestamp, labels, c.blockTimestamp);
      if (c.statusOk !== undefined) put(chain.statusOk, labels, c.statusOk ? 1 : 0);
      put(chain.avgTps, labels, c.avgTps);
    }
    for (const [network, totals] of snapshot.networks) {
      put(chain.networkValidators, { network }, totals.validators);
      put(chain.networkDelegators, { network }, totals.delegators);
    }
    if (snapshot.refreshedAt !== undefined) chain.refreshTimestamp.set(snapshot.refreshedAt);
    chain.refreshErrors.set(snapshot.errors.length);
    const w = this.exposition.writer();
    for (const v of snapshot.validators.values()) {
      const entry = this.targets.get(v.target);
      if (!entry) continue;
      const labels = `${entry.base},node_id="${escapeLabel(v.nodeId)}"`;
      for (const status of VALIDATOR_STATUSES) w.add(I.validatorStatus, `${labels},status="${status}"`, status === v.status ? 1 : 0);
      w.add(I.validatorEnd, labels, v.endTimestamp);
      w.add(I.validatorDelegators, labels, v.delegators);
    }
    this.exposition.set(VALIDATOR_OWNER, w.take());
    this.lagDirty = true;
  }

  /** The `avahealth_alerts` gauge: counts by alertname, severity and state. */
  setAlertCounts(alerts: Array<{ alertname: string; severity: string; state: string }>): void {
    const gauge = this.families.alerts.active;
    gauge.reset();
    for (const a of alerts) if (a.state !== 'resolved') gauge.inc({ alertname: a.alertname, severity: a.severity, state: a.state });
  }

  /** Brings derived series (height lag) up to date when something changed since the last scrape. */
  beforeScrape(): void {
    if (!this.lagDirty || !this.store || !this.config.chainData) return;
    this.lagDirty = false;
    const w = this.exposition.writer();
    const maxLength = this.config.limits.maxLabelLength;
    for (const [target, lags] of this.store.lags()) {
      const entry = this.targets.get(target);
      if (!entry) continue;
      for (const lag of lags) w.add(I.chainHeightLag, `${entry.base},chain="${escapeLabel(sanitizeLabelValue(lag.chain, maxLength))}"`, lag.lagBlocks);
    }
    this.exposition.set(LAG_OWNER, w.take());
  }
}

function writeCheck(w: SampleWriter, labels: string, check: CheckResult): void {
  w.add(I.checkPassing, labels, check.passing ? 1 : 0);
  w.add(I.checkNotYetRun, labels, check.notYetRun ? 1 : 0);
  w.add(I.checkContiguousFailures, labels, check.contiguousFailures);
  w.add(I.checkDuration, labels, check.durationSeconds);
  w.add(I.checkLastRun, labels, check.lastRun);
  if (!check.passing) w.add(I.checkFailingSince, labels, check.failingSince);
}

/** Chain, network, router, disk and upgrade gauges, from the checks of the health endpoint. */
function writeNodeDetails(w: SampleWriter, base: string, checks: CheckResult[], maxLength: number): void {
  for (const check of checks) {
    if (check.chain) {
      const c = check.chain;
      const labels = `${base},chain="${escapeLabel(sanitizeLabelValue(check.name, maxLength))}"`;
      w.add(I.chainConnectedStake, labels, c.connectedStakeRatio);
      w.add(I.chainHeight, labels, c.lastAcceptedHeight);
      w.add(I.chainProcessing, labels, c.processingBlocks);
      w.add(I.chainLongestProcessing, labels, c.longestProcessingBlockSeconds);
      w.add(I.chainDisconnectedValidators, labels, c.disconnectedValidators);
      if (c.bootstrapping !== undefined) w.add(I.chainBootstrapping, labels, c.bootstrapping ? 1 : 0);
    }
    if (check.network) {
      const n = check.network;
      w.add(I.networkPeers, base, n.connectedPeers);
      w.add(I.networkSendFail, base, n.sendFailRatio);
      w.add(I.networkReceivedAge, base, n.lastMessageReceivedAgeSeconds);
      w.add(I.networkSentAge, base, n.lastMessageSentAgeSeconds);
      w.add(I.networkIngress, base, n.ingressConnections);
    }
    if (check.router) {
      w.add(I.routerOutstanding, base, check.router.outstandingRequests);
      w.add(I.routerLongest, base, check.router.longestRunningRequestSeconds);
    }
    if (check.disk) {
      w.add(I.diskAvailable, base, check.disk.availableBytes);
      w.add(I.diskAvailableRatio, base, check.disk.availableRatio);
    }
    if (check.bootstrappingSubnets) w.add(I.bootstrappingSubnets, base, check.bootstrappingSubnets.length);
    if (check.upgrade) {
      w.add(I.upgradeModeWeight, base, check.upgrade.modeWeightRatio);
      w.add(I.upgradeTimeUntil, base, check.upgrade.timeUntilSeconds);
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

function receiverNames(config: Config): string[] {
  return config.alerts.receivers.map((r) => r.name);
}
