/**
 * What a reload changes: one typed diff between the running config and the next one, computed
 * once by the app and handed to each component's own `reconfigure(diff)`. Sections are compared
 * structurally (node:util isDeepStrictEqual: regexes, nested lists), never by serialising them.
 */
import { isDeepStrictEqual } from 'node:util';
import { targetsOf } from '../model/targets.js';
import type { Config, Target } from './load.js';

export type SectionChange = 'added' | 'removed' | 'changed' | 'unchanged';

export interface ConfigDiff {
  previous: Config;
  next: Config;
  targets: {
    added: Target[];
    /** Names of targets that are gone. */
    removed: string[];
    /** Targets whose settings changed (same name). */
    changed: Target[];
  };
  /** Rules, routes, silences, maintenance windows (anything under `alerts:` but the receivers). */
  alerts: boolean;
  /** The receivers. */
  receivers: boolean;
  discovery: SectionChange;
  chainData: SectionChange;
  limits: boolean;
  /** Which families /metrics exports (`metrics:`). */
  metrics: boolean;
  /** Settings read only at start: they change nothing until avahealth restarts. */
  restartOnly: { listen: boolean; log: boolean; stateDir: boolean };
  /** True when nothing at all changed. */
  none: boolean;
}

function section<T>(before: T | undefined, after: T | undefined): SectionChange {
  if (before === undefined) return after === undefined ? 'unchanged' : 'added';
  if (after === undefined) return 'removed';
  return isDeepStrictEqual(before, after) ? 'unchanged' : 'changed';
}

export function diffConfigs(previous: Config, next: Config): ConfigDiff {
  const before = new Map(targetsOf(previous).map((t) => [t.name, t]));
  const after = targetsOf(next);
  const afterNames = new Set(after.map((t) => t.name));
  const targets = {
    added: after.filter((t) => !before.has(t.name)),
    removed: [...before.keys()].filter((name) => !afterNames.has(name)),
    changed: after.filter((t) => before.has(t.name) && !isDeepStrictEqual(before.get(t.name), t)),
  };
  const { receivers: receiversBefore, ...alertsBefore } = previous.alerts;
  const { receivers: receiversAfter, ...alertsAfter } = next.alerts;
  const diff: Omit<ConfigDiff, 'none'> = {
    previous,
    next,
    targets,
    alerts: !isDeepStrictEqual(alertsBefore, alertsAfter) || previous.externalUrl !== next.externalUrl,
    receivers: !isDeepStrictEqual(receiversBefore, receiversAfter),
    discovery: section(previous.discovery, next.discovery),
    chainData: section(previous.chainData, next.chainData),
    limits: !isDeepStrictEqual(previous.limits, next.limits),
    metrics: !isDeepStrictEqual(previous.metrics, next.metrics),
    restartOnly: {
      listen: !isDeepStrictEqual(previous.listen, next.listen),
      log: !isDeepStrictEqual(previous.log, next.log),
      stateDir: previous.stateDir !== next.stateDir,
    },
  };
  const none =
    targets.added.length + targets.removed.length + targets.changed.length === 0 &&
    !diff.alerts &&
    !diff.receivers &&
    diff.discovery === 'unchanged' &&
    diff.chainData === 'unchanged' &&
    !diff.limits &&
    !diff.metrics &&
    !Object.values(diff.restartOnly).some(Boolean);
  return { ...diff, none };
}

/** The next config with the restart-only settings kept at their running values. */
export function keepRestartOnly(running: Config, next: Config): Config {
  return { ...next, listen: running.listen, log: running.log, stateDir: running.stateDir };
}

/** The names of the restart-only settings that changed, as the config spells them. */
export function restartRequired(diff: ConfigDiff): string[] {
  const names: Record<keyof ConfigDiff['restartOnly'], string> = { listen: 'listen', log: 'log', stateDir: 'state_dir' };
  return (Object.keys(names) as (keyof ConfigDiff['restartOnly'])[]).filter((k) => diff.restartOnly[k]).map((k) => names[k]);
}
