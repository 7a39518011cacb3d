/**
 * Polls targets and records what it saw: probe → store. Shared by the daemon (on its schedule)
 * and by `avahealth check` (one round). Logs transitions, not every poll.
 */
import pLimit from 'p-limit';
import { ChainData } from './chaindata/chaindata.js';
import type { Config, Target } from './config/load.js';
import { HttpClient } from './http/client.js';
import { RateLimitGate } from './http/rate-limit.js';
import type { Logger } from './log.js';
import { targetsOf } from './model/targets.js';
import type { EndpointObservation, TargetObservation } from './model/observation.js';
import { ParseCache } from './probes/exchange.js';
import { probeNode } from './probes/node.js';
import { probeService, type ServiceContext } from './probes/service.js';
import { endpointKey, type Store } from './store.js';
import { VERSION } from './version.js';

export class Poller {
  readonly http: HttpClient;
  readonly context: ServiceContext;
  readonly chainData?: ChainData;
  private targets = new Map<string, Target>();
  private config: Config;

  constructor(
    config: Config,
    private readonly store: Store,
    private readonly log: Logger,
    /** Rate-limit state per service; kept by the caller so it survives a new Poller after a reload. */
    gates = new Map<string, RateLimitGate>(),
  ) {
    this.config = config;
    this.http = new HttpClient({ maxResponseBytes: config.limits.maxResponseBytes, userAgent: `avahealth/${VERSION}` });
    const gate = (service: string) => {
      let found = gates.get(service);
      if (!found) gates.set(service, (found = new RateLimitGate()));
      return found;
    };
    this.context = { http: this.http, limit: pLimit(config.limits.maxConcurrentRequests), gate, parsed: new ParseCache() };
    this.setConfig(config);
    if (config.chainData) {
      this.chainData = new ChainData(config.chainData, this.serviceMap(), () => this.config.nodes, store, this.context, log);
    }
  }

  setConfig(config: Config): void {
    this.config = config;
    const previous = this.targets;
    this.targets = new Map(targetsOf(config).map((t) => [t.name, t]));
    for (const name of previous.keys()) if (!this.targets.has(name)) this.context.parsed?.forget(`${name}\u0000`);
    if (config.chainData) this.chainData?.reconfigure(config.chainData, this.serviceMap(), () => this.config.nodes);
  }

  private serviceMap() {
    return new Map(this.config.services.map((s) => [s.name, s]));
  }

  async poll(name: string): Promise<TargetObservation | undefined> {
    const target = this.targets.get(name);
    if (!target) return undefined;
    const observation = target.kind === 'node' ? await probeNode(target, this.context) : await probeService(target, this.context);
    // A target removed by a reload while this poll ran must not come back.
    if (this.targets.get(name) !== target) return undefined;
    this.logTransitions(observation);
    this.store.record(observation);
    return observation;
  }

  async pollAll(): Promise<TargetObservation[]> {
    const results = await Promise.all([...this.targets.keys()].map((name) => this.poll(name)));
    return results.filter((o): o is TargetObservation => o !== undefined);
  }

  async close(): Promise<void> {
    await this.http.close();
  }

  private logTransitions(observation: TargetObservation): void {
    const previous = this.store.get(observation.target)?.observation;
    const before = new Map(previous?.endpoints.map((e) => [endpointKey(e), e]));
    for (const e of observation.endpoints) {
      const was = before.get(endpointKey(e));
      const fields = { target: observation.target, endpoint: e.endpoint, view: e.view };
      if (!e.ok && (was === undefined || was.ok || was.reason !== e.reason)) {
        this.log.warn({ ...fields, reason: e.reason, status: e.httpStatus, error: e.error }, 'probe failed');
      } else if (e.ok && was && !was.ok) {
        this.log.info(fields, 'probe recovered');
      }
      const healthy = healthOf(e);
      if (healthy === undefined) continue;
      const wasHealthy = was ? healthOf(was) : undefined;
      // The first poll only reports trouble; after that every change of health is logged.
      if (healthy !== wasHealthy && !(wasHealthy === undefined && healthy)) {
        const failing = e.report?.checks.filter((c) => !c.passing).map((c) => c.name) ?? e.service?.components.filter((c) => !c.up).map((c) => c.name);
        const message = e.service?.message;
        const kind = observation.kind === 'node' ? 'node' : 'service';
        this.log[healthy ? 'info' : 'warn']({ ...fields, healthy, failing, ...(message ? { message } : {}) }, healthy ? `${kind} healthy` : `${kind} unhealthy`);
      }
    }
  }
}

function healthOf(e: EndpointObservation): boolean | undefined {
  return e.report?.healthy ?? e.service?.healthy;
}
