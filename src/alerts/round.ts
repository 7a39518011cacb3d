/**
 * One round of the alert pipeline on a private book: what `avahealth check` runs instead of
 * evaluating rules itself. The verdict stage is told this is the only round (the rules decide on
 * what it knows, none waits for a later poll), the incidents stage counts for_polls and
 * resolve_polls as 1 (a `for` duration cannot pass in one round: such an incident stays pending),
 * and the policy's inhibition marks what a root cause holds back. Nothing is read from or written
 * to state_dir, nothing is sent.
 */
import type { Config } from '../config/load.js';
import type { Logger } from '../log.js';
import { targetNamed } from '../model/targets.js';
import type { Store } from '../store.js';
import { step } from './incidents.js';
import { inhibitorOf } from './policy.js';
import type { AlertState, UnknownVerdict } from './types.js';
import { noteUnknown, RuleStage, type UnknownBook } from './verdicts.js';

export interface RoundVerdicts {
  /** The round's incidents (pending and firing), with `inhibitedBy` where a root cause holds one back. */
  incidents: AlertState[];
  /** What the round could not know, by target. */
  unknown: ReadonlyMap<string, UnknownVerdict[]>;
}

export function oneRound(config: Config, store: Store, log: Logger, now = Date.now()): RoundVerdicts {
  const rules = new RuleStage(config, log, { oneRound: true });
  const book = new Map<string, Map<string, AlertState>>();
  const unknown: UnknownBook = new Map();
  for (const { evaluation, resolveAtOnce } of rules.round(store, now)) {
    const { target } = evaluation;
    let incidents = book.get(target);
    if (!incidents) book.set(target, (incidents = new Map()));
    step(incidents, evaluation, evaluation.conditions, {
      now,
      settings: (alertname) => rules.settings(alertname, target),
      forPolls: config.alerts.forPolls,
      resolvePolls: config.alerts.resolvePolls,
      targetLabels: { ...targetNamed(config, target)?.labels },
      oneRound: true,
      ...(resolveAtOnce ? { resolveAtOnce } : {}),
    });
    noteUnknown(unknown, evaluation);
  }
  const incidents: AlertState[] = [];
  for (const ofTarget of book.values()) {
    for (const state of ofTarget.values()) {
      if (state.phase === 'resolved') continue;
      state.state = state.phase;
      const heldBy = inhibitorOf(state, ofTarget);
      if (heldBy) state.inhibitedBy = heldBy;
      incidents.push(state);
    }
  }
  return { incidents, unknown: new Map([...unknown].map(([target, byRule]) => [target, [...byRule.values()]])) };
}
