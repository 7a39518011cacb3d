/**
 * The daemon: builds the components from a config (app/components.ts), serves the routes over a
 * read-only view (app/view.ts), and orders start, reload (SIGHUP, POST /-/reload, --config.watch)
 * and graceful stop (SIGTERM/SIGINT).
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { AlertEngine } from '../alerts/engine.js';
import { pagingCheck } from '../alerts/paging.js';
import { diffConfigs, keepRestartOnly, restartRequired } from '../config/diff.js';
import { ConfigError } from '../config/errors.js';
import { loadConfigFile, overrideListen, type Config, type NodeTarget } from '../config/load.js';
import { DiscoveryManager, DiscoveryTally } from '../discovery/index.js';
import type { ReloadResult } from '../http/routes/admin.js';
import { Gatekeeper } from '../http/gate.js';
import type { Gauge } from 'prom-client';
import { closeServer, createHttpServer, listen } from '../http/server.js';
import { loadWebConfig } from '../http/webconfig.js';
import { registerDiscoveryMetrics, shardGauge, webConfigReloadGauge } from '../metrics/registry.js';
import { redactLogsOf } from '../log.js';
import { targetsOf } from '../model/targets.js';
import { inShard } from '../shard.js';
import { Scheduler } from '../scheduler/scheduler.js';
import { flushProbeMemory } from '../state/ledger.js';
import { lockStateDir, logWritableStateDir, type StateDirLock } from '../state/lock.js';
import { secretsOf } from '../config/secrets.js';
import { watchStateWrites } from '../state/write-health.js';
import { forgetReserve, keepReserve } from '../state/reserve.js';
import type { Store } from '../store.js';
import { VERSION } from '../version.js';
import { adoptHandedOver, buildComponents, effectiveConfig, idleSilenceWarnings, silenceScopeOf, type Components, type DaemonOptions } from './components.js';
import type { CommandActions } from '../alerts/receivers/telegram/commands.js';
import { silenceScopeProblem, type SilenceInput } from '../alerts/silences.js';
import { fleetText } from '../status/fleet-text.js';
import { ackAnswer, BotCommands } from './bot-commands.js';
import { listenOrExplain } from './listen.js';
import { applyDiff } from './reload.js';
import { daemonRoutes, stateView } from './view.js';
import { FileWatchers, reloadWebConfig } from './watch.js';

export type { DaemonOptions } from './components.js';

export { StartError } from './listen.js';

export class Daemon {
  private readonly parts: Components;
  private readonly scheduler: Scheduler;
  private readonly server: Server;
  private readonly gate?: Gatekeeper;
  private readonly webConfigApplied?: Gauge;
  /** Held from before anything in state_dir is read until stop(): one daemon per state_dir. */
  private readonly stateLock: StateDirLock;
  private readonly stopWriteWatch: () => void;
  private readonly watchers: FileWatchers;
  private readonly pending = new Set<string>();
  private firstRoundDone = false;
  /** The config as the file says; the components' config adds discovered nodes and keeps this replica's shard. */
  private baseConfig: Config;
  private discovered: NodeTarget[] = [];
  private discovery?: DiscoveryManager;
  private readonly discoveryTally = new DiscoveryTally();
  private readonly bots: BotCommands;
  /** What was last said about paging (its problem, or who pages): said again only when it changes. */
  private pagingSaid?: string;
  address?: AddressInfo;

  constructor(
    config: Config,
    private readonly options: DaemonOptions,
  ) {
    const log = options.logger;
    this.stateLock = lockStateDir(config.stateDir);
    const { tookOverFrom, staleBecause, writableByOthers } = this.stateLock;
    if (writableByOthers !== undefined) logWritableStateDir(log, config.stateDir, writableByOthers);
    if (tookOverFrom) log.warn({ stateDir: config.stateDir, pid: tookOverFrom }, staleBecause === 'it is gone' || !staleBecause ? 'state_dir lock of a process that is gone taken over' : `state_dir lock taken over: ${staleBecause}`);
    const stopWatching = watchStateWrites(config.stateDir, log);
    keepReserve(config.stateDir, log);
    this.stopWriteWatch = () => {
      stopWatching();
      forgetReserve(config.stateDir);
    };
    this.baseConfig = overrideListen(config, options.listen);
    redactLogsOf(secretsOf(config));
    this.parts = buildComponents(this.effective(), log);
    registerDiscoveryMetrics(this.parts.metrics.families.registry, this.discoveryTally);
    this.watchers = new FileWatchers(options.watchIntervalMs);
    this.scheduler = new Scheduler({
      poll: (key) => this.runJob(key),
      onSkip: (key) => {
        const target = this.parts.poller.targetOf(key);
        if (target === key) this.parts.metrics.countSkippedPoll(key);
        log.debug({ job: key, ...(target ? { target } : {}) }, 'poll skipped: previous poll still running');
      },
    });
    this.scheduler.setSchedules(this.parts.poller.schedules());
    if (options.shard) shardGauge(this.parts.metrics.families.registry, options.shard);
    if (options.webConfigFile) {
      this.gate = new Gatekeeper(loadWebConfig(options.webConfigFile));
      this.webConfigApplied = webConfigReloadGauge(this.parts.metrics.families.registry);
    }
    const routes = daemonRoutes(this.parts, { ready: () => this.firstRoundDone, schedulerLagMs: () => this.scheduler.lagMs() }, {
      allowedHosts: () => {
        const { listen, externalUrl, allowedHosts } = this.parts.config;
        return [listen.host, ...(URL.canParse(externalUrl) ? [new URL(externalUrl).host] : []), ...allowedHosts];
      },
      ...(options.enableLifecycle ? { reload: () => this.reload() } : {}),
      ...(options.enableAdminApi ? { silences: { add: (silence) => this.addSilence(silence), expire: (id) => this.parts.alerts.silences.expire(id) } } : {}),
    });
    this.bots = new BotCommands(this.parts.deliveryHttp, this.commandActions(), !options.shard || options.shard.index === 0, log);
    this.server = createHttpServer(routes, (err) => log.error({ err }, 'HTTP handler failed'), this.gate);
  }

  /** A silence from the admin API or a Telegram command: refused when it would match nothing here. */
  private addSilence(silence: SilenceInput): { id: string } | { error: string } {
    const problem = silenceScopeProblem(silence.matchers, silenceScopeOf(this.baseConfig, this.discovered, this.options.shard));
    return problem ? { error: problem } : this.parts.alerts.silences.add(silence);
  }

  /** What the Telegram bot's commands do here (app/bot-commands.ts). */
  private commandActions(): CommandActions {
    const shard = this.options.shard;
    const scope = () => {
      if (!shard || shard.count <= 1) return undefined;
      const fleet = targetsOf(effectiveConfig(this.baseConfig, this.discovered, undefined)).length;
      return `This replica is shard ${shard.index}/${shard.count}: it watches ${targetsOf(this.parts.config).length} of the fleet's ${fleet} targets; the others' are not shown here.`;
    };
    const view = stateView(this.parts, { ready: () => this.firstRoundDone, schedulerLagMs: () => this.scheduler.lagMs() });
    return {
      status: () => fleetText(view.model(), `${this.parts.config.externalUrl}/`, { ...(scope() ? { scope: scope()! } : {}) }),
      ...(this.options.enableAdminApi ? { silence: (silence: SilenceInput) => this.addSilence(silence) } : {}),
      ack: (refs, by) => ackAnswer(this.parts.alerts.acknowledge(refs, by), scope()),
    };
  }

  get store(): Store {
    return this.parts.store;
  }

  get alerts(): AlertEngine {
    return this.parts.alerts;
  }

  /** `https` when the web config turns TLS on. */
  get scheme(): 'http' | 'https' {
    return this.gate?.current.tls ? 'https' : 'http';
  }

  get ready(): boolean {
    return this.firstRoundDone;
  }

  private effective(): Config {
    return effectiveConfig(this.baseConfig, this.discovered, this.options.shard);
  }

  private async startDiscovery(): Promise<void> {
    this.discovery?.stop();
    this.discovery = undefined;
    this.discovered = [];
    if (!this.baseConfig.discovery) return;
    const configuredNames = () => new Set([...this.baseConfig.nodes, ...this.baseConfig.services].map((t) => t.name));
    this.discovery = new DiscoveryManager(
      this.baseConfig.discovery,
      this.options.logger,
      (nodes) => {
        this.discovered = nodes;
        void this.apply();
      },
      { configuredNames, tally: this.discoveryTally },
    );
    await this.discovery.start();
  }

  async start(): Promise<void> {
    const log = this.options.logger;
    const config = this.parts.config;
    const { host, port } = config.listen;
    try {
      this.address = await listenOrExplain(() => listen(this.server, host, port), host, port);
    } catch (err) {
      this.stateLock.release();
      this.stopWriteWatch();
      throw err;
    }
    this.stateLock.serving(localUrl(this.scheme, this.address));
    await this.startDiscovery();
    const watched = new Set(targetsOf(this.effective()).map((t) => t.name));
    // With discovery, a target missing from an incomplete first answer (a failed lookup) may still be there.
    this.parts.alerts.settleRestored(watched, (name) => inShard(name, this.options.shard), !this.baseConfig.discovery || this.discovery?.complete === true);
    // Every start, whatever the shard count (back to one included): another shard may have opened what this one polls now.
    await adoptHandedOver(this.parts, log);
    if (this.options.shard && !config.alerts.handoverKey && this.notifierHasAlertmanager())
      log.warn('no alerts.handover_key: at a change of the shard count, a moved target\'s incidents are resolved by their old owner and announced afresh by the new one (docs/scaling.md)');
    for (const target of targetsOf(this.parts.config)) this.pending.add(target.name);
    this.scheduler.start();
    if (this.pending.size === 0) {
      this.firstRoundDone = true;
      this.runSources();
    }
    this.parts.notifier.start();
    this.parts.alerts.start();
    this.parts.silenceMirrors.start();
    this.bots.setConfig(this.parts.config);
    if (this.gate) this.watchers.watch(() => this.gate!.current.files, () => reloadWebConfig(this.options.webConfigFile!, this.gate!, this.server, log, this.webConfigApplied));
    if (this.options.watchConfig) this.watchers.watch(() => [this.baseConfig.file], () => void this.reload());
    for (const warning of config.warnings) log.warn({ file: warning.file, line: warning.line, col: warning.col }, warning.message);
    for (const warning of idleSilenceWarnings(this.baseConfig)) log.warn(warning);
    log.info({ address: `${this.address.address}:${this.address.port}`, targets: this.pending.size, version: VERSION }, 'avahealth started');
    this.sayPaging();
  }

  /** A loud start when nothing can page (alerts/paging.ts), and again whenever that changes (reload, discovery). */
  private sayPaging(): void {
    const log = this.options.logger;
    const paging = pagingCheck(this.parts.config);
    const said = paging.problem ?? paging.by;
    if (said === this.pagingSaid) return;
    const before = this.pagingSaid;
    this.pagingSaid = said;
    if (paging.problem) log.warn({ paging: paging.by, receivers: paging.receivers, unrouted: paging.unrouted, unroutedTargets: paging.unroutedCount }, paging.problem);
    else if (paging.by === 'prometheus') log.info({ paging: 'prometheus', receivers: paging.receivers }, 'paging is by the Prometheus rules through Alertmanager (alerts.paging: prometheus); avahealth cannot see whether they are loaded');
    else if (before !== undefined) log.info({ receivers: paging.receivers }, 'every target has a receiver for its critical alerts again');
  }

  private notifierHasAlertmanager(): boolean {
    return this.parts.config.alerts.receivers.some((r) => r.kind === 'alertmanager');
  }

  /** Re-reads the config file; a config that does not load leaves the running one in place. */
  async reload(): Promise<ReloadResult> {
    const log = this.options.logger;
    let loaded: Config;
    try {
      loaded = overrideListen(loadConfigFile(this.baseConfig.file), this.options.listen);
    } catch (err) {
      this.parts.metrics.setReloadResult(false);
      const error = err instanceof ConfigError ? err.message : String(err);
      log.error({ error }, 'config reload failed; keeping the running config');
      return { ok: false, error };
    }
    const fileDiff = diffConfigs(this.baseConfig, loaded);
    const restart = restartRequired(fileDiff);
    this.baseConfig = keepRestartOnly(this.baseConfig, loaded);
    redactLogsOf(secretsOf(this.baseConfig));
    if (fileDiff.discovery !== 'unchanged') await this.startDiscovery();
    await this.apply();
    this.parts.metrics.setReloadResult(true);
    if (restart.length > 0) log.warn({ settings: restart }, `config reloaded, but ${restart.join(', ')} changed: restart avahealth to apply (the running value stays until then)`);
    log.info({ targets: targetsOf(this.parts.config).length }, 'config reloaded');
    return { ok: true, ...(restart.length > 0 ? { restartRequired: restart } : {}) };
  }

  /** Brings the components to the effective config (after a reload or a discovery change). */
  private async apply(): Promise<void> {
    await applyDiff(this.parts, this.scheduler, diffConfigs(this.parts.config, this.effective()), this.options.logger);
    if (this.address) {
      this.sayPaging();
      this.bots.setConfig(this.parts.config);
    }
  }

  private async runJob(key: string): Promise<void> {
    const log = this.options.logger;
    try {
      await this.parts.poller.run(key);
    } catch (err) {
      log.error({ err, job: key }, 'poll failed unexpectedly');
    } finally {
      if (this.pending.delete(key) && this.pending.size === 0 && !this.firstRoundDone) {
        this.firstRoundDone = true;
        log.info('first poll round complete; ready');
        this.runSources();
      }
    }
  }

  /** The first run of chain data, once NodeIDs and heights are known (the scheduler runs the next ones). */
  private runSources(): void {
    for (const key of this.parts.poller.sources()) void this.runJob(key);
  }

  async stop(): Promise<void> {
    const log = this.options.logger;
    const { parts } = this;
    log.info('stopping: no new polls; waiting for in-flight polls');
    const timeout = parts.config.limits.shutdownTimeoutMs;
    let timer: NodeJS.Timeout | undefined;
    const drained = await Promise.race([
      this.scheduler.stop().then(() => true),
      new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), timeout))),
    ]);
    clearTimeout(timer);
    if (!drained) log.warn({ timeoutMs: timeout }, 'in-flight polls did not finish in time; abandoning them');
    this.watchers.stop();
    this.discovery?.stop();
    parts.alerts.stop();
    await parts.silenceMirrors.stop();
    await parts.notifier.stop();
    await parts.alerts.flush();
    flushProbeMemory(parts.memory);
    if (this.server.listening) await closeServer(this.server);
    await parts.poller.close();
    await this.bots.stop();
    await parts.deliveryHttp.close();
    this.stateLock.release();
    this.stopWriteWatch();
    log.info('stopped');
  }
}

/** Where this machine reaches the daemon's API: the bound address, loopback for a wildcard one. */
function localUrl(scheme: string, address: AddressInfo): string {
  const host = address.address === '0.0.0.0' ? '127.0.0.1' : address.address === '::' ? '::1' : address.address;
  return `${scheme}://${host.includes(':') ? `[${host}]` : host}:${address.port}`;
}
