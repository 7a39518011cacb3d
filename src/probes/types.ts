/** The one signature every probe has, and what it is given (see registry.ts for how to add a probe). */
import type { Config } from '../config/load.js';
import type { HttpClient } from '../transport/client.js';
import type { RateLimitGate } from '../transport/rate-limit.js';
import type { Logger } from '../log.js';
import type { ChainDataSnapshot } from '../model/chaindata.js';
import type { TargetObservation } from '../model/observation.js';
import type { ProbeMemory } from '../state/ledger.js';
import type { Store } from '../store.js';
import type { ParseCache, SharedAnswers } from './exchange.js';

/** What every probe may use; the same object for every kind. */
export interface ProbeContext {
  /** The one shared client (undici Agent, timeouts, size cap). */
  http: HttpClient;
  /** Runs a request under the global concurrency cap. */
  limit: <T>(fn: () => Promise<T>) => Promise<T>;
  /** The last body (by hash) and what it parsed to, per target endpoint. */
  parsed: ParseCache;
  /** Answers shared by several jobs for a while, by key (`<target>\u0000<what>`). */
  shared: SharedAnswers;
  /** The rate-limit gate of a hosted service, shared by every request sent to it. */
  gate: (service: string) => RateLimitGate;
  log: Logger;
  /** Every secret of the config, for redacting anything a probe logs or keeps. */
  secrets: readonly string[];
  /** Epoch milliseconds. */
  now: () => number;
  /** What probes remember across restarts (state_dir in the daemon): validation periods, missed upgrades. */
  memory: ProbeMemory;
  /** Read-only view of what earlier jobs recorded (a source may build on its last result). */
  store: Pick<Store, 'get' | 'entries' | 'networkOf' | 'networksVersion' | 'chainData'>;
}

/** What a probe hands to the store: a target's observation (its own job or an extra one), or chain data. */
export type ProbeResult = { observation: TargetObservation } | { chainData: ChainDataSnapshot };

export type ProbeFn<S> = (subject: S, ctx: ProbeContext) => Promise<ProbeResult>;

export interface ProbeJob<S = unknown> {
  /** Unique scheduler key: a target's name for its own poll, `<target>@<kind>`, or `@<kind>` for a whole-config source. */
  key: string;
  /** The prober that runs it (a key of PROBERS in registry.ts). */
  kind: string;
  /** The target the job records into; absent for a whole-config source. */
  target?: string;
  intervalMs: number;
  /** A cron pattern used instead of the interval. */
  cron?: string;
  /** The latest the probe can take (its requests' timeouts); absent when unbounded. */
  deadlineMs?: number;
  /** What the probe function is called with (a target's config, or the source's settings). */
  subject: S;
}

export interface Prober<S> {
  /** This kind's jobs for a config (none when it does not apply). */
  jobs(config: Config): Array<ProbeJob<S>>;
  probe: ProbeFn<S>;
  /** A failed endpoint of this kind makes its target unreachable (status, `check`): a target's own poll does; an extra job such as `validator` does not. */
  decidesReachability?: boolean;
}

/** One job per matching target: its own poll (key = its name) or, with `kind`, an extra job `<target>@<kind>`. */
export function perTarget<T extends { name: string; intervalMs: number }>(targets: readonly T[], kind: string, options: { extra?: boolean; intervalMs?: (t: T) => number; cron?: (t: T) => string | undefined; deadlineMs?: (t: T) => number } = {}): Array<ProbeJob<T>> {
  return targets.map((t) => {
    const cron = options.cron?.(t);
    return {
      key: options.extra ? `${t.name}@${kind}` : t.name,
      kind,
      target: t.name,
      intervalMs: options.intervalMs?.(t) ?? t.intervalMs,
      ...(cron ? { cron } : {}),
      ...(options.deadlineMs ? { deadlineMs: options.deadlineMs(t) } : {}),
      subject: t,
    };
  });
}
