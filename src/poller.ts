/**
 * Runs probe jobs and records what they saw: registry → probe → store. Shared by the daemon (each
 * job on its schedule) and by `avahealth check` (one round). Every job comes from the probe
 * registry (src/probes/registry.ts); the poller knows no probe kind. Logs transitions at info/warn
 * and every poll at debug.
 */
import pLimit from 'p-limit';
import type { Config } from './config/load.js';
import { HttpClient } from './transport/client.js';
import { RateLimitGate } from './transport/rate-limit.js';
import type { Logger } from './log.js';
import type { EndpointObservation, TargetObservation } from './model/observation.js';
import { ParseCache, SharedAnswers } from './probes/exchange.js';
import { jobsOf, runProbe, type ProbeContext, type ProbeJob } from './probes/registry.js';
import type { Schedule } from './scheduler/scheduler.js';
import { probeMemory, type ProbeMemory } from './state/ledger.js';
import { sourceOf, type Store } from './store.js';
import { VERSION } from './version.js';
import type { ConfigDiff } from './config/diff.js';

export class Poller {
  readonly http: HttpClient;
  readonly context: ProbeContext;
  private jobs = new Map<string, ProbeJob>();
  /** Jobs running now: a run asked for meanwhile shares the running one. */
  private readonly running = new Map<string, Promise<void>>();
  /** Replaced by a reload (or stopped): polls still running record nothing. */
  private closed = false;

  constructor(
    config: Config,
    private readonly store: Store,
    private readonly log: Logger,
    /** Rate-limit state per service; kept by the caller so it survives a new Poller after a reload. */
    gates = new Map<string, RateLimitGate>(),
    /** What probes remember; the daemon's is on disk and survives a new Poller too. */
    memory: ProbeMemory = probeMemory(),
  ) {
    this.http = new HttpClient({ maxResponseBytes: config.limits.maxResponseBytes, userAgent: `avahealth/${VERSION}`, log });
    const gate = (service: string) => {
      let found = gates.get(service);
      if (!found) gates.set(service, (found = new RateLimitGate()));
      return found;
    };
    this.context = {
      http: this.http,
      limit: pLimit(config.limits.maxConcurrentRequests),
      gate,
      parsed: new ParseCache(),
      shared: new SharedAnswers(),
      log,
      secrets: [],
      now: () => Date.now(),
      memory,
      store,
    };
    this.setConfig(config);
  }

  /** A reload that keeps this Poller (same limits, chain data on or off as before). */
  reconfigure(diff: ConfigDiff): void {
    this.setConfig(diff.next);
  }

  setConfig(config: Config): void {
    const previous = this.jobs;
    this.jobs = new Map(jobsOf(config).map((job) => [job.key, job]));
    const targets = new Set([...this.jobs.values()].map((j) => j.target));
    for (const job of previous.values()) {
      if (!job.target) continue;
      if (!targets.has(job.target)) {
        this.context.parsed.forget(`${job.target}\u0000`);
        this.context.shared.forget(`${job.target}\u0000`);
      } else if (job.key === job.target && urlOf(job.subject) !== urlOf(this.jobs.get(job.key)?.subject)) {
        // Another node answers under the name now: what the old one said is not its answer.
        this.context.shared.forget(`${job.target}\u0000`);
      }
    }
    this.context.secrets = [...new Set([...config.nodes, ...config.services].flatMap((t) => t.secrets))];
  }

  /** Every job, for the scheduler: key, interval, cron. */
  schedules(): Schedule[] {
    // Whole-config sources (chain data) start after the first round of the targets' jobs.
    return [...this.jobs.values()].map((j) => ({
      name: j.key,
      intervalMs: j.intervalMs,
      ...(j.cron ? { cron: j.cron } : {}),
      ...(j.deadlineMs !== undefined ? { deadlineMs: j.deadlineMs } : {}),
      ...(j.target ? {} : { afterFirstRound: true }),
    }));
  }

  /** The whole-config sources (chain data), run once after the first round. */
  sources(): string[] {
    return [...this.jobs.values()].filter((j) => !j.target).map((j) => j.key);
  }

  /** The target a job records into (a job's key is not always a target's name). */
  targetOf(key: string): string | undefined {
    return this.jobs.get(key)?.target;
  }

  /** The job that is the target's own poll (its key is the target's name). */
  isTargetPoll(key: string): boolean {
    const job = this.jobs.get(key);
    return job !== undefined && job.target === key;
  }

  /** Runs one job and records its result; a run asked for while the same job runs shares it. */
  run(key: string): Promise<void> {
    let done = this.running.get(key);
    if (!done) {
      done = this.runOnce(key).finally(() => this.running.delete(key));
      this.running.set(key, done);
    }
    return done;
  }

  private async runOnce(key: string): Promise<void> {
    const job = this.jobs.get(key);
    if (!job) return;
    const result = await runProbe(job, this.context);
    // A target removed or replaced by a reload while it ran must not record (it would come back),
    // nor may a poll of a Poller a reload replaced (its config is the old one).
    const now = this.jobs.get(key);
    if (this.closed || !now || (job.target && now.subject !== job.subject)) return;
    if ('observation' in result) {
      this.logPoll(result.observation);
      this.logTransitions(result.observation);
      this.store.record(result.observation);
    } else {
      this.store.recordChainData(result.chainData);
    }
  }

  /** Polls one target's own job; the observation it recorded. */
  async poll(name: string): Promise<TargetObservation | undefined> {
    if (!this.isTargetPoll(name)) return undefined;
    await this.run(name);
    return this.store.get(name)?.jobs.get(this.store.get(name)!.observation.kind);
  }

  /** One round: every per-target job, then every whole-config source (chain data needs the NodeIDs). */
  async round(): Promise<void> {
    const jobs = [...this.jobs.values()];
    await Promise.all(jobs.filter((j) => j.target).map((j) => this.run(j.key)));
    await Promise.all(jobs.filter((j) => !j.target).map((j) => this.run(j.key)));
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.http.close();
  }

  private logPoll(observation: TargetObservation): void {
    if (!this.log.isLevelEnabled('debug')) return;
    for (const e of observation.endpoints) {
      this.log.debug(
        {
          target: observation.target,
          source: sourceOf(observation),
          endpoint: e.endpoint,
          view: e.view,
          ok: e.ok,
          status: e.httpStatus,
          durationSeconds: Number(e.durationSeconds.toFixed(4)),
          ...(e.ok ? {} : { reason: e.reason }),
        },
        'poll',
      );
    }
  }

  private logTransitions(observation: TargetObservation): void {
    const previous = this.store.get(observation.target)?.jobs.get(sourceOf(observation))?.endpoints ?? [];
    for (let i = 0; i < observation.endpoints.length; i++) {
      const e = observation.endpoints[i]!;
      const was = sameEndpoint(previous[i], e) ? previous[i] : previous.find((p) => sameEndpoint(p, e));
      const failed = !e.ok && (was === undefined || was.ok || was.reason !== e.reason);
      const recovered = e.ok && was !== undefined && !was.ok;
      const healthy = healthOf(e);
      const wasHealthy = was ? healthOf(was) : undefined;
      // The first poll only reports trouble; after that every change of health is logged.
      const healthChanged = healthy !== undefined && healthy !== wasHealthy && !(wasHealthy === undefined && healthy);
      if (!failed && !recovered && !healthChanged) continue; // the usual poll: nothing to log, nothing built
      const fields = { target: observation.target, endpoint: e.endpoint, view: e.view };
      if (failed) {
        this.log.warn({ ...fields, reason: e.reason, status: e.httpStatus, error: e.error }, 'probe failed');
      } else if (recovered) {
        this.log.info(fields, 'probe recovered');
      }
      if (healthChanged) {
        const failing = e.report?.checks.filter((c) => !c.passing).map((c) => c.name) ?? e.service?.components.filter((c) => !c.up).map((c) => c.name);
        const message = e.service?.message;
        const kind = observation.kind === 'node' ? 'node' : 'service';
        this.log[healthy ? 'info' : 'warn']({ ...fields, healthy, failing, ...(message ? { message } : {}) }, healthy ? `${kind} healthy` : `${kind} unhealthy`);
      }
    }
  }
}

/** Previous endpoints are usually in the same order: matched by position first, then searched. */
function sameEndpoint(a: EndpointObservation | undefined, b: EndpointObservation): boolean {
  return a !== undefined && a.endpoint === b.endpoint && a.view === b.view;
}

function healthOf(e: EndpointObservation): boolean | undefined {
  return e.report?.healthy ?? e.service?.healthy;
}

/** A target's base URL, when its job's subject is a target config. */
function urlOf(subject: unknown): string | undefined {
  return typeof subject === 'object' && subject !== null && 'baseUrl' in subject && typeof subject.baseUrl === 'string' ? subject.baseUrl : undefined;
}
