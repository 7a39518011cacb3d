/**
 * Wiring: config → poller → store → metrics/status, on the scheduler's clock, behind the HTTP
 * server. Start, reload (SIGHUP or POST /-/reload), graceful stop (SIGTERM/SIGINT).
 */
import type { AddressInfo } from 'node:net';
import { AlertEngine } from './alerts/engine.js';
import { Notifier } from './alerts/notifier.js';
import { loadConfigFile, type Config, type NodeTarget } from './config/load.js';
import { DiscoveryManager } from './discovery/index.js';
import { inShard, type Shard } from './shard.js';
import { ConfigError } from './config/errors.js';
import { HttpClient } from './http/client.js';
import { closeServer, createHttpServer, listen } from './http/server.js';
import { adminRoutes } from './http/routes/admin.js';
import { apiRoutes } from './http/routes/api.js';
import { healthRoutes } from './http/routes/health.js';
import { metricsRoutes } from './http/routes/metrics.js';
import type { StateView } from './http/routes/view.js';
import type { SilenceInput } from './alerts/silences.js';
import { fingerprintFiles, Gatekeeper, loadWebConfig } from './http/webconfig.js';
import type { Logger } from './log.js';
import { RateLimitGate } from './http/rate-limit.js';
import { MetricsView } from './metrics/view.js';
import { registerStateWriteMetrics } from './metrics/collectors/state.js';
import { emptySnapshot } from './model/chaindata.js';
import { targetsOf } from './model/targets.js';
import { Poller } from './poller.js';
import { Scheduler } from './scheduler/scheduler.js';
import { lockStateDir, type StateDirLock } from './state/lock.js';
import { watchStateWrites } from './state/write-health.js';
import type { PageModel } from './status/page.js';
import { statusPageRoutes } from './status/routes.js';
import { chainDataStatus, targetStatus } from './status/status.js';
import { Store } from './store.js';
import { VERSION } from './version.js';

export interface DaemonOptions {
  logger: Logger;
  /** Enables POST /-/reload. */
  enableLifecycle?: boolean;
  /** Enables POST/DELETE /api/v1/silences. */
  enableAdminApi?: boolean;
  /** Overrides `listen:` (tests use port 0). */
  listen?: { host: string; port: number };
  /** `--web.config.file`: TLS, basic auth and headers for every route. */
  webConfigFile?: string;
  /** `--shard I/N`: poll only the targets whose name hashes to shard I of N. */
  shard?: Shard;
  /** Re-read the config file when it changes (opt-in; SIGHUP and POST /-/reload always work). */
  watchConfig?: boolean;
  watchIntervalMs?: number;
}

export class Daemon {
  readonly store = new Store();
  private metrics: MetricsView;
  private poller: Poller;
  private readonly scheduler: Scheduler;
  private readonly server;
  private readonly pending = new Set<string>();
  private readonly gates = new Map<string, RateLimitGate>();
  private readonly gate?: Gatekeeper;
  /** The config as the file says; `config` adds discovered nodes and keeps this replica's shard. */
  private baseConfig: Config;
  private discovered: NodeTarget[] = [];
  private discovery?: DiscoveryManager;
  private readonly watchers: NodeJS.Timeout[] = [];
  readonly alerts: AlertEngine;
  private notifier: Notifier;
  /** Notifications have their own client: a reload may replace the probes' one. */
  private readonly deliveryHttp = new HttpClient({ maxResponseBytes: 1024 * 1024, userAgent: `avahealth/${VERSION}` });
  private firstRoundDone = false;
  address?: AddressInfo;

  private config: Config;

  /** Held from before anything in state_dir is read until stop(): one daemon per state_dir. */
  private readonly stateLock: StateDirLock;
  private readonly stopWriteWatch: () => void;

  constructor(
    config: Config,
    private readonly options: DaemonOptions,
  ) {
    const log = options.logger;
    this.stateLock = lockStateDir(config.stateDir);
    if (this.stateLock.tookOverFrom) log.warn({ stateDir: config.stateDir, pid: this.stateLock.tookOverFrom }, 'state_dir lock of a process that is gone taken over');
    this.stopWriteWatch = watchStateWrites(config.stateDir, log);
    this.baseConfig = config;
    this.config = this.effective();
    config = this.config;
    this.metrics = new MetricsView(config);
    registerStateWriteMetrics(this.metrics.families.registry);
    this.metrics.attach(this.store);
    this.metrics.setReloadResult(true);
    this.poller = new Poller(config, this.store, log, this.gates);
    this.alerts = new AlertEngine(config, { log, onBatch: (batch) => this.notifier.dispatch(batch) });
    this.notifier = this.createNotifier(config);
    this.store.onUpdate((name, state, source) => {
      const target = targetsOf(this.config).find((t) => t.name === name);
      if (target?.kind === 'node' && source === 'node') {
        this.alerts.nodeUpdated(target, state);
        if (this.config.chainData) this.alerts.heightLagUpdated(target, state, this.store.lagsOf(name));
      } else if (target?.kind === 'service' && source === 'service') this.alerts.serviceUpdated(target, state);
    });
    this.store.onChainData((snapshot) => this.alerts.chainDataUpdated(snapshot, (name) => this.store.get(name)));
    this.scheduler = new Scheduler({
      poll: (key) => this.runJob(key),
      onSkip: (key) => {
        const target = this.poller.targetOf(key);
        if (target === key) this.metrics.countSkippedPoll(key);
        log.debug({ job: key, ...(target ? { target } : {}) }, 'poll skipped: previous poll still running');
      },
    });
    this.scheduler.setSchedules(this.poller.schedules());
    if (options.webConfigFile) this.gate = new Gatekeeper(loadWebConfig(options.webConfigFile));
    const view: StateView = {
      ready: () => this.firstRoundDone,
      metrics: async (headers) => {
        this.metrics.setAlertCounts(this.alerts.list());
        const { contentType, contentEncoding, body } = await this.metrics.scrape({ accept: headers.accept, acceptEncoding: headers['accept-encoding'] });
        return { contentType, body, headers: { vary: 'Accept, Accept-Encoding', ...(contentEncoding ? { 'content-encoding': contentEncoding } : {}) } };
      },
      status: () => ({
        version: VERSION,
        ready: this.firstRoundDone,
        targets: this.statuses(),
        ...(this.config.chainData ? { chainData: chainDataStatus(this.store.chainData ?? emptySnapshot()) } : {}),
      }),
      target: (name) => {
        const target = this.statuses().find((t) => t.name === name);
        if (!target) return undefined;
        const raw = this.rawResponse(name);
        return { ...target, ...(raw !== undefined ? { lastResponse: raw } : {}), alerts: this.alerts.list().filter((a) => a.target === name) };
      },
      alerts: () => ({ alerts: this.alerts.list(), silences: this.alerts.silences.list(), queues: this.notifier.queueLengths() }),
    };
    const routes = [
      ...healthRoutes(view),
      ...metricsRoutes(view),
      ...apiRoutes(view),
      ...adminRoutes({
        ...(options.enableLifecycle ? { reload: () => this.reload() } : {}),
        ...(options.enableAdminApi ? { silences: { add: (silence: SilenceInput) => this.alerts.silences.add(silence), expire: (id: string) => this.alerts.silences.expire(id) } } : {}),
      }),
      ...statusPageRoutes({ model: () => this.pageModel(), rawResponse: (name) => this.rawResponse(name) }),
    ];
    this.server = createHttpServer(routes, (err) => log.error({ err }, 'HTTP handler failed'), this.gate);
  }

  /** Polls the modification times of watched files (web config, certificates, the config). */
  private watch(files: () => string[], onChange: () => void, everyMs = this.options.watchIntervalMs ?? WATCH_INTERVAL_MS): void {
    let last = fingerprintFiles(files());
    const timer = setInterval(() => {
      const now = fingerprintFiles(files());
      if (now === last) return;
      last = now;
      onChange();
    }, everyMs);
    timer.unref();
    this.watchers.push(timer);
  }

  private reloadWebConfig(): void {
    const log = this.options.logger;
    try {
      const next = loadWebConfig(this.options.webConfigFile!);
      if (Boolean(next.tls) !== Boolean(this.gate!.current.tls)) {
        log.error('web config switches between HTTP and HTTPS: restart avahealth to apply it; keeping the current one');
        return;
      }
      if (next.tls) (this.server as unknown as { setSecureContext(o: object): void }).setSecureContext(next.tls);
      this.gate!.update(next);
      log.info({ tls: Boolean(next.tls), users: next.users.size }, 'web config reloaded');
    } catch (err) {
      log.error({ error: err instanceof ConfigError ? err.message : String(err) }, 'web config reload failed; keeping the current one');
    }
  }

  private createNotifier(config: Config): Notifier {
    const families = () => this.metrics.families.alerts;
    return new Notifier(
      config,
      this.deliveryHttp,
      {
        delivered: (receiver) => families().delivered.inc({ receiver }),
        failed: (receiver, reason) => families().failed.inc({ receiver, reason }),
        queueLength: (receiver, length) => families().queue.set({ receiver }, length),
      },
      () => this.alerts.firing(),
      this.options.logger,
    );
  }

  /** `https` when the web config turns TLS on. */
  get scheme(): 'http' | 'https' {
    return this.gate?.current.tls ? 'https' : 'http';
  }

  get ready(): boolean {
    return this.firstRoundDone;
  }

  /** Static and discovered nodes (static ones win a name clash), then only this replica's shard. */
  private effective(): Config {
    const base = this.baseConfig;
    const names = new Set(base.nodes.map((n) => n.name));
    const nodes = [...base.nodes, ...this.discovered.filter((n) => !names.has(n.name))].filter((n) => inShard(n.name, this.options.shard));
    return { ...base, nodes, services: base.services.filter((s) => inShard(s.name, this.options.shard)) };
  }

  private async startDiscovery(): Promise<void> {
    this.discovery?.stop();
    this.discovery = undefined;
    this.discovered = [];
    if (!this.baseConfig.discovery) return;
    this.discovery = new DiscoveryManager(this.baseConfig.discovery, this.options.logger, (nodes) => {
      this.discovered = nodes;
      void this.apply(this.effective());
    });
    await this.discovery.start();
  }

  async start(): Promise<void> {
    const { host, port } = this.options.listen ?? this.config.listen;
    this.address = await listen(this.server, host, port);
    await this.startDiscovery();
    for (const target of targetsOf(this.config)) this.pending.add(target.name);
    this.scheduler.start();
    if (this.pending.size === 0) {
      this.firstRoundDone = true;
      this.runSources();
    }
    this.notifier.start();
    if (this.gate) this.watch(() => this.gate!.current.files, () => this.reloadWebConfig());
    if (this.options.watchConfig) this.watch(() => [this.config.file], () => void this.reload());
    for (const warning of this.config.warnings) this.options.logger.warn({ file: warning.file, line: warning.line, col: warning.col }, warning.message);
    this.options.logger.info({ address: `${this.address.address}:${this.address.port}`, targets: this.pending.size, version: VERSION }, 'avahealth started');
  }

  /** Re-reads the config file; a config that does not load leaves the running one in place. */
  async reload(): Promise<{ ok: boolean; error?: string }> {
    const log = this.options.logger;
    let next: Config;
    try {
      next = loadConfigFile(this.baseConfig.file);
    } catch (err) {
      this.metrics.setReloadResult(false);
      const error = err instanceof ConfigError ? err.message : String(err);
      log.error({ error }, 'config reload failed; keeping the running config');
      return { ok: false, error };
    }
    const discoveryChanged = JSON.stringify(next.discovery) !== JSON.stringify(this.baseConfig.discovery);
    this.baseConfig = next;
    if (discoveryChanged) await this.startDiscovery();
    await this.apply(this.effective());
    this.metrics.setReloadResult(true);
    log.info({ targets: targetsOf(this.config).length }, 'config reloaded');
    return { ok: true };
  }

  private async apply(next: Config): Promise<void> {
    const nextNames = new Set(targetsOf(next).map((t) => t.name));
    const removed = targetsOf(this.config).filter((t) => !nextNames.has(t.name)).map((t) => t.name);
    this.metrics.setConfig(next);
    this.metrics.setTargets(targetsOf(next));
    if (JSON.stringify(next.limits) !== JSON.stringify(this.config.limits) || Boolean(next.chainData) !== Boolean(this.config.chainData)) {
      const old = this.poller;
      this.poller = new Poller(next, this.store, this.options.logger, this.gates);
      void old.close();
    } else {
      this.poller.setConfig(next);
    }
    for (const name of removed) this.store.remove(name);
    const receiversChanged = JSON.stringify(next.alerts.receivers) !== JSON.stringify(this.config.alerts.receivers) || next.stateDir !== this.config.stateDir;
    this.config = next;
    this.alerts.setConfig(next);
    for (const name of removed) this.alerts.removeTarget(name);
    if (receiversChanged) {
      await this.notifier.stop();
      this.notifier = this.createNotifier(next);
      this.notifier.start();
    }
    this.scheduler.setSchedules(this.poller.schedules());
  }

  private async runJob(key: string): Promise<void> {
    try {
      await this.poller.run(key);
    } catch (err) {
      this.options.logger.error({ err, job: key }, 'poll failed unexpectedly');
    } finally {
      if (this.pending.delete(key) && this.pending.size === 0 && !this.firstRoundDone) {
        this.firstRoundDone = true;
        this.options.logger.info('first poll round complete; ready');
        this.runSources();
      }
    }
  }

  /** The first run of chain data, once NodeIDs and heights are known (the scheduler runs the next ones). */
  private runSources(): void {
    for (const key of this.poller.sources()) void this.runJob(key);
  }

  private statuses() {
    const lags = this.config.chainData ? this.store.lags() : new Map<string, never[]>();
    return targetsOf(this.config).map((t) => {
      const status = targetStatus(t, this.store);
      for (const lag of lags.get(t.name) ?? []) status.lag[lag.chain] = lag.lagBlocks;
      return status;
    });
  }

  private pageModel(): PageModel {
    return { version: VERSION, now: Date.now() / 1000, targets: this.statuses(), alerts: this.alerts.list(), silences: this.alerts.silences.list() };
  }

  private rawResponse(name: string): string | undefined {
    return this.store.get(name)?.observation.endpoints.find((e) => e.raw !== undefined)?.raw;
  }

  async stop(): Promise<void> {
    const log = this.options.logger;
    log.info('stopping: no new polls; waiting for in-flight polls');
    const timeout = this.config.limits.shutdownTimeoutMs;
    let timer: NodeJS.Timeout | undefined;
    const drained = await Promise.race([
      this.scheduler.stop().then(() => true),
      new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), timeout))),
    ]);
    clearTimeout(timer);
    if (!drained) log.warn({ timeoutMs: timeout }, 'in-flight polls did not finish in time; abandoning them');
    for (const timer of this.watchers) clearInterval(timer);
    this.discovery?.stop();
    this.metrics.exposition.stop();
    await this.notifier.stop();
    this.alerts.flush();
    await closeServer(this.server);
    await this.poller.close();
    await this.deliveryHttp.close();
    this.stateLock.release();
    this.stopWriteWatch();
    log.info('stopped');
  }
}

/** How often watched files (web config, certificates, config) are checked for changes. */
const WATCH_INTERVAL_MS = 2000;
