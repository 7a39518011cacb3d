/**
 * The probe registry: every kind of probe, by name, with one signature.
 *
 *   ProbeFn<S> = (subject: S, ctx: ProbeContext) => Promise<ProbeResult>
 *
 * A prober derives its jobs from the config (`jobs(config)`): one per target for `node` and
 * `service`, one for the whole config for `chaindata`. A target may have several jobs, each on its
 * own interval: its own poll (key = the target's name) and extra per-target jobs (key =
 * `<target>@<kind>`, e.g. `validator-1@validator`). The poller schedules every job, calls the
 * prober and records what it returns into the store; metrics, alerts and status subscribe to the
 * store, the same way for every source. Probes know nothing of metrics, alerts or the scheduler.
 *
 * Adding a probe (e.g. `validator`, one request set per node on its own interval):
 *   1. write `src/probes/<kind>.ts` exporting a `Prober`: `jobs(config)` (use `perTarget` for one job
 *      per target, with key `<target>@<kind>` when the target already has its own poll), and
 *      `probe(subject, ctx)` returning `{ observation }` with `source: '<kind>'` (its endpoints, e.g.
 *      `endpoint="validator"`, are merged into the target's state next to its health endpoints), or
 *      another ProbeResult;
 *   2. add one line to PROBERS below.
 * Then a collector (src/metrics/collectors/) renders what it recorded, and rules evaluate it.
 */
import type { Config } from '../config/load.js';
import { chainDataProber } from './chaindata.js';
import { nodeProber } from './node.js';
import { baselineProber, observedProber } from './observed.js';
import { peersProber } from './peers.js';
import { serviceProber } from './service.js';
import { validatorProber } from './validator.js';
import type { ProbeContext, ProbeJob, ProbeResult, Prober } from './types.js';

export type { ProbeContext, ProbeFn, ProbeJob, ProbeResult, Prober } from './types.js';
export { perTarget } from './types.js';

/** Registers a prober under its kind; the subject type is checked here and erased in the registry. */
function register<S>(prober: Prober<S>): Prober<unknown> {
  return prober as Prober<unknown>;
}

/** Every probe kind. Order matters only in `jobsOf`: target jobs first, whole-config sources last. */
export const PROBERS = {
  node: register(nodeProber),
  service: register(serviceProber),
  validator: register(validatorProber),
  observed: register(observedProber),
  baseline: register(baselineProber),
  peers: register(peersProber),
  chaindata: register(chainDataProber),
} as const;

export type ProbeKind = keyof typeof PROBERS;

/** Every job of a config, per-target jobs first. */
export function jobsOf(config: Config): ProbeJob[] {
  return Object.values(PROBERS).flatMap((prober) => prober.jobs(config));
}

export function runProbe(job: ProbeJob, ctx: ProbeContext): Promise<ProbeResult> {
  const prober = (PROBERS as Record<string, Prober<unknown>>)[job.kind];
  if (!prober) throw new Error(`no prober registered for kind "${job.kind}"`);
  return prober.probe(job.subject, ctx);
}


/** Whether a failed endpoint of this kind's jobs makes the target unreachable. */
export function decidesReachability(kind: string): boolean {
  return (PROBERS as Record<string, Prober<unknown>>)[kind]?.decidesReachability === true;
}
