/**
 * Polls each target on its own interval (or cron pattern). The first round starts at once; after
 * that each target ticks at a fixed, name-derived phase inside its interval so a fleet spreads
 * out instead of polling in bursts. A poll still running when its next tick comes makes that tick
 * a skip, counted through `onSkip`, unless the poll's deadline (`deadlineMs` after its tick) has
 * come by then: a poll that timed out is over, even if its abort has yet to settle, and the next
 * poll follows it at once.
 */
import { createHash } from 'node:crypto';
import { Cron } from 'croner';

export interface Schedule {
  name: string;
  intervalMs: number;
  /** A cron pattern used instead of the interval. */
  cron?: string;
  /**
   * Not run when the scheduler starts: the caller runs it once the first round of the other jobs is
   * done (chain data needs the NodeIDs, and one run there, not two, keeps for_polls honest).
   */
  afterFirstRound?: boolean;
  /** The latest a poll can last (its requests' timeouts); a poll past it no longer counts as running. */
  deadlineMs?: number;
}

interface Job {
  schedule: Schedule;
  running: Promise<void> | undefined;
  /** When the running poll's deadline comes (its tick's time + deadlineMs). */
  runningUntil: number | undefined;
  /** A tick that came at the running poll's deadline, waiting for its timeout to settle. */
  following?: boolean;
  timer?: NodeJS.Timeout;
  cron?: Cron;
  nextAt: number;
}

export interface SchedulerHooks {
  poll: (name: string) => Promise<void>;
  onSkip: (name: string) => void;
}

/** Deterministic offset in [0, intervalMs) from the target name. */
export function phaseOffset(name: string, intervalMs: number): number {
  const hash = createHash('sha256').update(name).digest().readUInt32BE(0);
  return hash % intervalMs;
}

export class Scheduler {
  private readonly jobs = new Map<string, Job>();
  private started = false;

  constructor(private readonly hooks: SchedulerHooks) {}

  /** Adds, removes and reschedules jobs; new targets are polled at once when running. */
  setSchedules(schedules: Schedule[]): void {
    const keep = new Set(schedules.map((s) => s.name));
    for (const [name, job] of this.jobs) {
      if (!keep.has(name)) {
        this.cancel(job);
        this.jobs.delete(name);
      }
    }
    for (const schedule of schedules) {
      const existing = this.jobs.get(schedule.name);
      if (existing && existing.schedule.intervalMs === schedule.intervalMs && existing.schedule.cron === schedule.cron) {
        existing.schedule = schedule;
        continue;
      }
      if (existing) this.cancel(existing);
      const job: Job = { schedule, nextAt: 0, running: existing?.running, runningUntil: existing?.running ? existing.runningUntil : undefined };
      this.jobs.set(schedule.name, job);
      if (this.started) this.begin(job, !existing);
    }
  }

  start(): void {
    if (this.started) return;
    this.started = true;
    for (const job of this.jobs.values()) this.begin(job, !job.schedule.afterFirstRound);
  }

  /** Stops scheduling; resolves when in-flight polls finish (the caller bounds the wait). */
  async stop(): Promise<void> {
    this.started = false;
    for (const job of this.jobs.values()) this.cancel(job);
    await Promise.allSettled([...this.jobs.values()].map((j) => j.running));
  }

  /**
   * How far behind the scheduler is: the longest a job's timer is overdue or a poll has outlived its
   * deadline without settling; 0 while every job is on time. Backs `/-/healthy`.
   */
  lagMs(now = Date.now()): number {
    let lag = 0;
    if (!this.started) return lag;
    for (const job of this.jobs.values()) {
      if (job.timer) lag = Math.max(lag, now - job.nextAt);
      if (job.runningUntil !== undefined) lag = Math.max(lag, now - job.runningUntil);
    }
    return lag;
  }

  private begin(job: Job, pollNow: boolean): void {
    if (pollNow) this.tick(job);
    if (job.schedule.cron) {
      job.cron = new Cron(job.schedule.cron, () => this.tick(job));
      return;
    }
    const { intervalMs, name } = job.schedule;
    job.nextAt = Date.now() + phaseOffset(name, intervalMs) + intervalMs;
    this.arm(job);
  }

  private arm(job: Job): void {
    job.timer = setTimeout(() => {
      if (!this.started) return;
      // The grid time, not the clock: a poll whose deadline is one interval comes due at exactly this tick.
      this.tick(job, job.nextAt);
      const now = Date.now();
      job.nextAt += job.schedule.intervalMs;
      // After a stall (suspended VM, blocked loop) resume on the grid instead of firing a burst.
      if (job.nextAt <= now) job.nextAt += Math.ceil((now - job.nextAt + 1) / job.schedule.intervalMs) * job.schedule.intervalMs;
      this.arm(job);
    }, Math.max(0, job.nextAt - Date.now()));
  }

  private tick(job: Job, at = Date.now()): void {
    if (job.running) {
      if (job.following || job.runningUntil === undefined || at < job.runningUntil) {
        this.hooks.onSkip(job.schedule.name);
        return;
      }
      // Its timeout is due now (its abort timer fires a moment after this tick): poll once it has.
      job.following = true;
      const follow = () => {
        job.following = false;
        if (this.started && this.jobs.get(job.schedule.name) === job && !job.running) this.startPoll(job, at);
      };
      void job.running.then(follow, follow);
      return;
    }
    this.startPoll(job, at);
  }

  private startPoll(job: Job, at: number): void {
    const name = job.schedule.name;
    const running = this.hooks.poll(name).finally(() => {
      // The job may have been replaced by a reschedule meanwhile: clear whichever holds this poll.
      const current = this.jobs.get(name);
      // (set to undefined, not deleted: a deleted property turns the job into a dictionary that is reallocated every poll)
      if (current?.running === running) current.running = current.runningUntil = undefined;
      if (job.running === running) job.running = job.runningUntil = undefined;
    });
    job.running = running;
    job.runningUntil = job.schedule.deadlineMs !== undefined ? at + job.schedule.deadlineMs : undefined;
  }

  private cancel(job: Job): void {
    if (job.timer) clearTimeout(job.timer);
    job.cron?.stop();
    delete job.timer;
    delete job.cron;
  }
}
