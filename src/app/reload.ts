/**
 * A reload or a discovery change: the next config is compared with the running one once
 * (config/diff.ts), and the diff is handed to each component's own `reconfigure`.
 */
import type { ConfigDiff } from '../config/diff.js';
import type { Logger } from '../log.js';
import { Poller } from '../poller.js';
import { jobsOf } from '../probes/registry.js';
import type { Scheduler } from '../scheduler/scheduler.js';
import { buildNotifier, type Components } from './components.js';

/** Applies a diff to every component, in the order the data flows. */
export async function applyDiff(parts: Components, scheduler: Scheduler, diff: ConfigDiff, log: Logger): Promise<void> {
  const { next } = diff;
  parts.metrics.reconfigure(diff);
  if (diff.limits || diff.chainData === 'added' || diff.chainData === 'removed') {
    // The HTTP client's caps and the chain data source are fixed per Poller.
    const old = parts.poller;
    parts.poller = new Poller(next, parts.store, log, parts.gates, parts.memory);
    void old.close();
  } else {
    parts.poller.reconfigure(diff);
  }
  parts.store.reconfigure(diff);
  parts.config = next;
  parts.alerts.reconfigure(diff);
  parts.silenceMirrors.setConfig(next);
  dropStoppedJobs(parts, diff);
  if (diff.receivers) {
    await parts.notifier.stop();
    parts.notifier = buildNotifier(next, parts.metrics, parts.deliveryHttp, log);
    parts.notifier.recordOpen(parts.alerts.toldFiring());
    parts.alerts.connect(parts.notifier);
    parts.notifier.start();
  } else {
    parts.notifier.setConfig(next);
  }
  scheduler.setSchedules(parts.poller.schedules());
}

/**
 * What a job the next config no longer runs for a kept target (`validator: false`) recorded is
 * dropped from the store: its series leave /metrics and its alerts resolve (the job's kind is the
 * `source` its observations carry).
 */
function dropStoppedJobs(parts: Components, diff: ConfigDiff): void {
  if (diff.targets.changed.length === 0) return;
  const running = new Set(jobsOf(diff.next).flatMap((j) => (j.target ? [`${j.target}\u0000${j.kind}`] : [])));
  for (const target of diff.targets.changed) {
    for (const source of parts.store.get(target.name)?.jobs.keys() ?? []) if (!running.has(`${target.name}\u0000${source}`)) parts.store.dropSource(target.name, source);
  }
}
