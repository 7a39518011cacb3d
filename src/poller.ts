/**
 * Polls targets and records what it saw: probe → store. Shared by the daemon (on its schedule)
 * and by `avahealth check` (one round). Logs transitions, not every poll.
 */
import pLimit from 'p-limit';
import type { Config, NodeTarget } from './config/load.js';
import { HttpClient } from './http/client.js';
import type { Logger } from './log.js';
import type { NodeObservation } from './observation.js';
import { probeNode, type ProbeContext } from './probes/node.js';
import { endpointKey, type Store } from './store.js';
import { VERSION } from './version.js';

export class Poller {
  readonly http: HttpClient;
  private readonly context: ProbeContext;
  private targets = new Map<string, NodeTarget>();

  constructor(
    config: Config,
    private readonly store: Store,
    private readonly log: Logger,
  ) {
    this.http = new HttpClient({ maxResponseBytes: config.limits.maxResponseBytes, userAgent: `avahealth/${VERSION}` });
    this.context = { http: this.http, limit: pLimit(config.limits.maxConcurrentRequests) };
    this.setTargets(config.nodes);
  }

  setTargets(nodes: NodeTarget[]): void {
    this.targets = new Map(nodes.map((n) => [n.name, n]));
  }

  target(name: string): NodeTarget | undefined {
    return this.targets.get(name);
  }

  async poll(name: string): Promise<NodeObservation | undefined> {
    const target = this.targets.get(name);
    if (!target) return undefined;
    const observation = await probeNode(target, this.context);
    // A target removed by a reload while this poll ran must not come back.
    if (this.targets.get(name) !== target) return undefined;
    this.logTransitions(observation);
    this.store.record(observation);
    return observation;
  }

  async pollAll(): Promise<NodeObservation[]> {
    const results = await Promise.all([...this.targets.keys()].map((name) => this.poll(name)));
    return results.filter((o): o is NodeObservation => o !== undefined);
  }

  async close(): Promise<void> {
    await this.http.close();
  }

  private logTransitions(observation: NodeObservation): void {
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
      if (!e.report) continue;
      const failing = e.report.checks.filter((c) => !c.passing).map((c) => c.name);
      const wasHealthy = was?.report?.healthy;
      // The first poll only reports trouble; after that every change of `healthy` is logged.
      if (e.report.healthy !== wasHealthy && !(wasHealthy === undefined && e.report.healthy)) {
        const level = e.report.healthy ? 'info' : 'warn';
        this.log[level]({ ...fields, healthy: e.report.healthy, failing }, e.report.healthy ? 'node healthy' : 'node unhealthy');
      }
    }
  }
}
