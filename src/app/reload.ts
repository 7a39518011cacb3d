/**
 * A reload or a discovery change: the next config is compared with the running one once
 * (config/diff.ts), and the diff is handed to each component's own `reconfigure`.
 */
import type { ConfigDiff } from '../config/diff.js';
import type { Logger } from '../log.js';
import { Poller } from '../poller.js';
import type { Scheduler } from '../scheduler/scheduler.js';
import { buildNotifier, type Components } from './components.js';

/** Applies a diff to every component, in the order the data flows. */
export async function applyDiff(parts: Components, scheduler: Scheduler, diff: ConfigDiff, log: Logger): Promise<void> {
  const { next } = diff;
  parts.metrics.reconfigure(diff);
  if (diff.limits || diff.chainData === 'added' || diff.chainData === 'removed') {
    // The HTTP client's caps and the chain data source are fixed per Poller.
    const old = parts.poller;
    parts.poller = new Poller(next, parts.store, log, parts.gates);
    void old.close();
  } else {
    parts.poller.reconfigure(diff);
  }
  parts.store.reconfigure(diff);
  parts.config = next;
  parts.alerts.reconfigure(diff);
  if (diff.receivers) {
    await parts.notifier.stop();
    parts.notifier = buildNotifier(parts, log);
    parts.notifier.start();
  }
  scheduler.setSchedules(parts.poller.schedules());
}
