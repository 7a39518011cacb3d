/**
 * Wiring: config → poller → store → metrics/status, on the scheduler's clock, behind the HTTP
 * server. Start, reload (SIGHUP or POST /-/reload), graceful stop (SIGTERM/SIGINT).
 */
import type { AddressInfo } from 'node:net';
import { loadConfigFile, type Config } from './config/load.js';
import { ConfigError } from './config/errors.js';
import { closeServer, createHttpServer, listen } from './http/server.js';
import type { Logger } from './log.js';
import { MetricsView } from './metrics/view.js';
import { Poller } from './poller.js';
import { Scheduler } from './scheduler/scheduler.js';
import { renderLandingPage } from './status/page.js';
import { targetStatus } from './status/status.js';
import { Store } from './store.js';
import { VERSION } from './version.js';

export interface DaemonOptions {
  logger: Logger;
  /** Enables POST /-/reload. */
  enableLifecycle?: boolean;
  /** Overrides `listen:` (tests use port 0). */
  listen?: { host: string; port: number };
}

export class Daemon {
  readonly store = new Store();
  private metrics: MetricsView;
  private poller: Poller;
  private readonly scheduler: Scheduler;
  private readonly server;
  private readonly pending = new Set<string>();
  private firstRoundDone = false;
  address?: AddressInfo;

  constructor(
    private config: Config,
    private readonly options: DaemonOptions,
  ) {
    const log = options.logger;
    this.metrics = new MetricsView(config);
    this.metrics.attach(this.store);
    this.metrics.setReloadResult(true);
    this.poller = new Poller(config, this.store, log);
    this.scheduler = new Scheduler({
      poll: (name) => this.pollTarget(name),
      onSkip: (name) => {
        this.metrics.countSkippedPoll(name);
        log.debug({ target: name }, 'poll skipped: previous poll still running');
      },
    });
    this.scheduler.setSchedules(schedulesOf(config));
    this.server = createHttpServer(
      {
        metrics: async () => ({ contentType: this.metrics.families.registry.contentType, body: await this.metrics.families.registry.metrics() }),
        ready: () => this.firstRoundDone,
        statusJson: () => ({ version: VERSION, ready: this.firstRoundDone, targets: this.statuses() }),
        landingPage: () => renderLandingPage(this.statuses(), VERSION),
        ...(options.enableLifecycle ? { reload: () => this.reload() } : {}),
      },
      (err) => log.error({ err }, 'HTTP handler failed'),
    );
  }

  get ready(): boolean {
    return this.firstRoundDone;
  }

  async start(): Promise<void> {
    const { host, port } = this.options.listen ?? this.config.listen;
    this.address = await listen(this.server, host, port);
    for (const node of this.config.nodes) this.pending.add(node.name);
    if (this.pending.size === 0) this.firstRoundDone = true;
    this.scheduler.start();
    this.options.logger.info({ address: `${this.address.address}:${this.address.port}`, targets: this.config.nodes.length, version: VERSION }, 'avahealth started');
  }

  /** Re-reads the config file; a config that does not load leaves the running one in place. */
  async reload(): Promise<{ ok: boolean; error?: string }> {
    const log = this.options.logger;
    let next: Config;
    try {
      next = loadConfigFile(this.config.file);
    } catch (err) {
      this.metrics.setReloadResult(false);
      const error = err instanceof ConfigError ? err.message : String(err);
      log.error({ error }, 'config reload failed; keeping the running config');
      return { ok: false, error };
    }
    await this.apply(next);
    this.metrics.setReloadResult(true);
    log.info({ targets: next.nodes.length }, 'config reloaded');
    return { ok: true };
  }

  private async apply(next: Config): Promise<void> {
    const removed = this.config.nodes.filter((n) => !next.nodes.some((m) => m.name === n.name)).map((n) => n.name);
    if (!this.metrics.fits(next)) {
      this.metrics = new MetricsView(next);
      this.metrics.attach(this.store);
    } else {
      this.metrics.setLimits(next);
      this.metrics.setTargets(next.nodes);
    }
    if (JSON.stringify(next.limits) !== JSON.stringify(this.config.limits)) {
      const old = this.poller;
      this.poller = new Poller(next, this.store, this.options.logger);
      void old.close();
    } else {
      this.poller.setTargets(next.nodes);
    }
    for (const name of removed) this.store.remove(name);
    this.config = next;
    this.scheduler.setSchedules(schedulesOf(next));
  }

  private async pollTarget(name: string): Promise<void> {
    try {
      await this.poller.poll(name);
    } catch (err) {
      this.options.logger.error({ err, target: name }, 'poll failed unexpectedly');
    } finally {
      if (this.pending.delete(name) && this.pending.size === 0 && !this.firstRoundDone) {
        this.firstRoundDone = true;
        this.options.logger.info('first poll round complete; ready');
      }
    }
  }

  private statuses() {
    return this.config.nodes.map((n) => targetStatus(n, this.store));
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
    await closeServer(this.server);
    await this.poller.close();
    log.info('stopped');
  }
}

function schedulesOf(config: Config) {
  return config.nodes.map((n) => ({ name: n.name, intervalMs: n.intervalMs, ...(n.schedule ? { cron: n.schedule } : {}) }));
}
