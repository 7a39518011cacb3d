/**
 * Whether anything pages: a config whose receivers would tell no one of a critical alert (none at
 * all, or every route leaves a target's critical alerts out) starts silently otherwise, and paging
 * ends without a word. `alerts.paging: prometheus` says the shipped Prometheus rules page instead
 * (through Alertmanager), which avahealth cannot see from here. Said at start (a warning) and on
 * the status page and `/api/v1/status`.
 */
import type { Config } from '../config/load.js';
import { targetsOf } from '../model/targets.js';
import { RULES } from './rules/index.js';
import { matches } from './silences.js';

export interface PagingCheck {
  /** Who pages on-call: avahealth's receivers, or the Prometheus rules through Alertmanager. */
  by: 'receivers' | 'prometheus';
  /** Receivers that take the critical alerts of at least one target. */
  receivers: string[];
  /** Targets none of whose critical alerts any receiver takes (at most MAX_LISTED, then `unroutedCount` says how many). */
  unrouted: string[];
  unroutedCount: number;
  /** Paging is by the receivers and some critical alert would reach no one: the words to say so. */
  problem?: string;
}

const MAX_LISTED = 10;
const checked = new WeakMap<Config, PagingCheck>();

/**
 * For each target, a critical alert of each rule its kind has (with its `alertname`, `target`,
 * static labels and `severity`; a label only the alert sets, such as `check`, is taken to match
 * no matcher): does some receiver's route take it? Worked out once per config.
 */
export function pagingCheck(config: Config): PagingCheck {
  const known = checked.get(config);
  if (known) return known;
  const receivers = config.alerts.receivers;
  const takers = new Set<string>();
  const unrouted: string[] = [];
  for (const target of targetsOf(config)) {
    const rules = RULES.filter((r) => (target.kind === 'service') === (r.source === 'service'));
    let routed = false;
    for (const rule of rules) {
      const labels = { alertname: rule.name, target: target.name, ...target.labels, severity: 'critical' };
      for (const receiver of receivers) {
        if (!matches(receiver.matchers, labels)) continue;
        takers.add(receiver.name);
        routed = true;
      }
    }
    if (!routed) unrouted.push(target.name);
  }
  const by = config.alerts.paging;
  const listed = unrouted.slice(0, MAX_LISTED).join(', ') + (unrouted.length > MAX_LISTED ? ` and ${unrouted.length - MAX_LISTED} more` : '');
  const fix = 'add a receiver under alerts.receivers, or set alerts.paging: prometheus when the shipped Prometheus rules page through Alertmanager';
  const problem =
    by === 'prometheus'
      ? undefined
      : receivers.length === 0
        ? `nothing pages: no receiver is configured, so no one is told of a critical alert; ${fix}`
        : unrouted.length > 0
          ? `no receiver takes the critical alerts of ${listed} (every route's matchers leave them out): no one is told when they fail; ${fix}`
          : undefined;
  const result: PagingCheck = { by, receivers: receivers.filter((r) => takers.has(r.name)).map((r) => r.name), unrouted: unrouted.slice(0, MAX_LISTED), unroutedCount: unrouted.length, ...(problem ? { problem } : {}) };
  checked.set(config, result);
  return result;
}
