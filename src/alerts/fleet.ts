/**
 * The fleet's view for its network alerts: what each validator's latest verdicts of the `scoped`
 * rules say (which of them say every validator looks down from the fleet, `scope="network"`), by
 * network. The pipeline (engine.ts) updates it after each verdict and evaluates the `fleet` rules
 * over it, for a target that is the network itself (`mainnet network`: a name no configured target
 * can have, since target names have no spaces).
 */
import type { Config } from '../config/load.js';
import { keyOf } from './incidents.js';
import { ruleNamed, RULES, type AnyRule, type FleetInput } from './rules/index.js';
import type { AlertName, AlertState, Evaluation } from './types.js';

/** How long after a start a network with a validator not heard from yet waits before it is judged unaffected. */
export const FLEET_WAIT_MS = 5 * 60_000;

const SUFFIX = ' network';

/** The scoped rules: every validator is evaluated for each (its validator poll's, and the fleet's view of it once that poll reported). */
const SCOPED = RULES.filter((rule) => (rule as AnyRule).scoped).map((rule) => rule.name);

/** The target a network's fleet alerts are about. */
export function fleetTargetOf(network: string): string {
  return `${network}${SUFFIX}`;
}

/** The network a fleet target is about, or undefined for a configured target. */
export function networkOfFleetTarget(target: string): string | undefined {
  return target.includes(' ') && target.endsWith(SUFFIX) ? target.slice(0, -SUFFIX.length) : undefined;
}

export class FleetView {
  /** target → scoped alertname → the summaries of its active network-wide findings. */
  private readonly verdicts = new Map<string, Map<string, string[]>>();
  /** Per validator, when each scoped rule it was evaluated for last had a verdict (was not unknown), since the start. */
  private readonly decided = new Map<string, Map<string, number>>();
  /** Per network while one of its validators is affected: since when. */
  private readonly onsets = new Map<string, number>();

  /** Networks whose every validator has had a verdict since the start (it stays so). */
  private readonly complete = new Set<string>();
  /** Per network not complete yet: its validators without a verdict of every scoped rule since the start (kept per verdict, so a poll does not scan the fleet). */
  private readonly undecided = new Map<string, Set<string>>();
  /** The config's validators by name and by network, built once per config (a verdict asks per poll). */
  private index?: { byName: Map<string, { network: string; position: number }>; byNetwork: Map<string, { names: string[]; longestWaitMs: number }> };

  constructor(
    private config: Config,
    private readonly startedAt: number,
  ) {}

  setConfig(config: Config): void {
    this.config = config;
    this.index = undefined;
    this.complete.clear();
    this.undecided.clear();
  }

  private indexed(): NonNullable<FleetView['index']> {
    if (this.index) return this.index;
    const byName = new Map<string, { network: string; position: number }>();
    const byNetwork = new Map<string, { names: string[]; longestWaitMs: number }>();
    for (const node of this.config.nodes) {
      if (!node.validator) continue;
      byName.set(node.name, { network: node.network, position: byName.size });
      let of = byNetwork.get(node.network);
      if (!of) byNetwork.set(node.network, (of = { names: [], longestWaitMs: 0 }));
      of.names.push(node.name);
      // A verdict waits for its scope at most a validator poll and a baseline read (docs/validators.md).
      of.longestWaitMs = Math.max(of.longestWaitMs, node.validator.intervalMs + (node.validator.network?.intervalMs ?? 0));
    }
    return (this.index = { byName, byNetwork });
  }

  /** The network of a validator this view follows (a node with a validator poll), else undefined. */
  networkOf(target: string): string | undefined {
    return this.indexed().byName.get(target)?.network;
  }

  /**
   * After a verdict on `target` was stepped into its `incidents`: records its network-wide findings
   * of the scoped rules the verdict speaks for. Returns the target's network when the verdict spoke
   * for a scoped rule (the network's fleet alert is to be evaluated again), else undefined.
   */
  note(evaluation: Evaluation, incidents: ReadonlyMap<string, AlertState>, now: number): string | undefined {
    const { target } = evaluation;
    const network = this.networkOf(target);
    if (network === undefined) return undefined;
    const scoped = evaluation.covers.filter((name) => ruleNamed(name)?.scoped);
    if (scoped.length === 0) return undefined;
    let decided = this.decided.get(target);
    if (!decided) this.decided.set(target, (decided = new Map()));
    // An unknown that is the validator's own whatever it is (rules' `ownOnly`) decides that it is not network-wide.
    const undecided = (name: AlertName) => evaluation.unknown.includes(name) && !evaluation.unknownOwnOnly?.includes(name);
    for (const name of scoped) if (!decided.has(name) || !undecided(name)) decided.set(name, undecided(name) ? -Infinity : now);
    this.noteUndecided(network, target);
    const spoken = scoped.filter((name) => !evaluation.unknown.includes(name));
    if (spoken.length === 0) return network;
    let byRule = this.verdicts.get(target);
    if (!byRule) this.verdicts.set(target, (byRule = new Map()));
    for (const name of spoken) {
      const active = evaluation.conditions.filter((c) => c.alertname === name && c.identity.scope === 'network' && isActive(incidents.get(keyOf(c.alertname, target, c.identity))));
      if (active.length > 0) byRule.set(name, active.map((c) => c.summary));
      // Cleared, while its incident still counts its good polls (resolve_polls): still in the dip as
      // that incident is, so the network's alert ends with the last of them, not at a flicker.
      else if (!fading(name, incidents)) byRule.delete(name);
    }
    if (byRule.size === 0) this.verdicts.delete(target);
    return network;
  }

  /** A target that left: it no longer counts; returns its network when it was one of the view's. */
  forget(target: string): string | undefined {
    const network = this.networkOf(target);
    this.verdicts.delete(target);
    this.decided.delete(target);
    if (network !== undefined) this.noteUndecided(network, target);
    return network;
  }

  /** What the fleet rules of `network` are handed now. */
  input(network: string, now: number): FleetInput {
    const { names: validators, longestWaitMs } = this.indexed().byNetwork.get(network) ?? { names: [], longestWaitMs: 0 };
    const affected: Array<{ target: string; summaries: string[] }> = [];
    for (const [target, byRule] of this.verdicts) if (this.networkOf(target) === network) affected.push({ target, summaries: [...byRule.values()].flat() });
    const position = (target: string) => this.indexed().byName.get(target)?.position ?? 0;
    affected.sort((a, b) => position(a.target) - position(b.target));
    if (!this.complete.has(network) && (now - this.startedAt >= FLEET_WAIT_MS || this.undecidedOf(network, validators).size === 0)) {
      this.complete.add(network);
      this.undecided.delete(network);
    }
    let onset = this.onsets.get(network);
    if (affected.length === 0) this.onsets.delete(network);
    else if (onset === undefined) this.onsets.set(network, (onset = now));
    const touched = new Set(affected.map((a) => a.target));
    const settled = onset === undefined || now - onset >= longestWaitMs || validators.every((v) => touched.has(v) || this.decidedSince(v, onset!));
    return { network, validators: validators.length, affected, complete: this.complete.has(network), settled };
  }

  /** Whether `target` had a verdict of every scoped rule since `since` (not only of those whose source spoke first). */
  private decidedSince(target: string, since: number): boolean {
    const decided = this.decided.get(target);
    if (!decided) return false;
    for (const name of SCOPED) if (!((decided.get(name) ?? -Infinity) >= since)) return false;
    return true;
  }

  /** The validators of a network not complete yet that lack a verdict since the start: listed once, then kept per verdict. */
  private undecidedOf(network: string, validators: readonly string[]): Set<string> {
    let undecided = this.undecided.get(network);
    if (!undecided) this.undecided.set(network, (undecided = new Set(validators.filter((v) => !this.decidedSince(v, 0)))));
    return undecided;
  }

  private noteUndecided(network: string, target: string): void {
    const undecided = this.undecided.get(network);
    if (!undecided) return;
    if (this.decidedSince(target, 0)) undecided.delete(target);
    else undecided.add(target);
  }

  /** The networks this daemon watches validators of. */
  networks(): Set<string> {
    return new Set(this.indexed().byNetwork.keys());
  }
}

function isActive(state: AlertState | undefined): boolean {
  return state !== undefined && state.phase !== 'resolved';
}

/** Whether an incident of the rule fires on while its verdicts no longer find it (counting down resolve_polls). */
function fading(alertname: AlertName, incidents: ReadonlyMap<string, AlertState>): boolean {
  for (const state of incidents.values()) if (state.alertname === alertname && state.phase === 'firing' && state.okPolls > 0) return true;
  return false;
}
