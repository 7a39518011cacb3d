/**
 * The alert pipeline, wired once: rules (verdicts.ts) → incidents (incidents.ts, a pure state
 * machine) → policy (policy.ts: inhibition, silences, maintenance, flap holds) → state
 * (persistence.ts: restore, persist, reconcile) → a BatchSink (the notifier, which knows no
 * pipeline). Each stage hands the next a plain value; this module only passes them along and keeps
 * the book of open incidents that the views read (`list`, `firing`).
 */
import { randomUUID } from 'node:crypto';
import type { ConfigDiff } from '../config/diff.js';
import type { Config } from '../config/load.js';
import type { Logger } from '../log.js';
import type { Store } from '../store.js';
import { fleetTargetOf, FleetView, networkOfFleetTarget } from './fleet.js';
import { awaitingOutcomeOnly, noticeOf, step } from './incidents.js';
import type { OpenIncident } from './persisted.js';
import { announcedIncident, reconcile, reopen, StateFile, type IncidentBook, type Told } from './persistence.js';
import { Policy } from './policy.js';
import { resolveSummary, ruleNamed, type RuleInputs, type RuleSource, type SourceUpdate } from './rules/index.js';
import { Silences } from './silences.js';
import type { AlertNotice, AlertState, BatchSink, Evaluation, UnknownVerdict, VerdictChange } from './types.js';
import { noteUnknown, RuleStage, type UnknownBook, type Verdict } from './verdicts.js';

export { MAX_ALERTS_PER_TARGET, sourceUpdate } from './verdicts.js';

export interface EngineOptions {
  log: Logger;
  /** Where batches go (the notifier); `connect` sets or replaces it. Until then batches are dropped. */
  sink?: BatchSink;
  /** A target's carried facts (the state map's carried files), sent with its alerts in the signed handover record. */
  carried?: (target: string) => Record<string, unknown> | undefined;
  /** Told after a verdict changed an incident (the silence mirror sends what a silence holds at once, not at its next pass). */
  changed?: () => void;
}

/** Verdict changes kept per target for its page. */
const MAX_CHANGES = 20;

/** How long a resolve that said "outcome not known yet" waits for the outcome before it says nothing more. */
export const OUTCOME_WAIT_MS = 6 * 3600_000;

export class AlertEngine {
  readonly silences: Silences;
  private readonly rules: RuleStage;
  private readonly policy: Policy;
  private readonly stateFile: StateFile;
  private readonly book: IncidentBook = new Map();
  /** What the latest evaluations could not know, and why (not persisted: the next poll says it again). */
  private readonly unknown: UnknownBook = new Map();
  /** Each target's last verdict changes, newest first (not persisted: a page's "since avahealth started"). */
  private readonly changes = new Map<string, VerdictChange[]>();
  /** The validators' network-wide verdicts, for the networks' own alerts (fleet.ts). */
  private readonly fleet: FleetView;
  /**
   * The restored incidents no verdict has found true since the start (their keys): state_dir is a
   * cache, and a shard that comes back on a volume from an earlier layout may hold incidents another
   * shard resolved since. They are not re-sent to receivers that forget (Alertmanager) until a
   * verdict of their target finds them (one that does not find them counts toward their resolve),
   * and a signed handover record replaces them.
   */
  private readonly unconfirmed = new Set<string>();
  private sink?: BatchSink;
  private resendTimer?: NodeJS.Timeout;
  private started = false;

  constructor(
    private config: Config,
    private readonly options: EngineOptions,
  ) {
    const { log } = options;
    this.rules = new RuleStage(config, log);
    this.fleet = new FleetView(config, Date.now());
    this.silences = new Silences(config.alerts, config.stateDir, log);
    this.stateFile = new StateFile(config.stateDir, log, {
      snapshot: () => JSON.stringify({ version: 1, alerts: this.list(), flaps: this.policy.flaps.toJSON() }),
      outboxesWritten: () => this.sink?.pendingWrites(),
    });
    const restored = this.stateFile.restore();
    for (const state of restored.incidents) {
      this.incidentsOf(state.target).set(state.key, state);
      this.unconfirmed.add(state.key);
      // What held it back is not kept: one receivers never heard of waits for its rule to speak again.
      if (state.phase === 'firing' && state.notified?.phase !== 'firing') state.awaitsVerdict = true;
    }
    const held = restored.incidents.filter((s) => s.state === 'flapping').map((s) => s.key);
    this.policy = new Policy(config.alerts, this.silences, log, { flaps: restored.flaps, held });
    this.sink = options.sink;
  }

  /** The receivers' side: batches go there from now on (a reload that replaces the notifier calls it again). */
  connect(sink: BatchSink): void {
    this.sink = sink;
    if (this.started) this.start();
  }

  /** Hands the sink the firing incidents again at the interval it asks for (Alertmanager forgets alerts it is not re-told of). */
  start(): void {
    this.started = true;
    clearInterval(this.resendTimer);
    const every = this.sink?.resendIntervalMs();
    if (every === undefined) return;
    this.resendTimer = setInterval(() => this.resendNow(), every);
  }

  /** Hands the sink the firing incidents again now (after adopting incidents: Alertmanager holds them under their old owner's endsAt). */
  resendNow(): void {
    const alerts = this.withCarried(this.firing());
    if (alerts.length > 0) this.sink?.dispatch({ id: randomUUID(), target: '*', createdAt: Date.now(), alerts, resend: true });
  }

  stop(): void {
    this.started = false;
    clearInterval(this.resendTimer);
  }

  /** A reload: new rules, routes and silences; alerts of targets that left the config resolve. */
  reconfigure(diff: ConfigDiff, now = Date.now()): void {
    // Only the old config knows the network of a validator that left: its network's alert is
    // evaluated again without it (no verdict may come any more once the last one left).
    const networks = new Set(diff.targets.removed.flatMap((name) => this.fleet.networkOf(name) ?? []));
    this.setConfig(diff.next);
    for (const name of diff.targets.removed) this.removeTarget(name, now);
    for (const network of networks) this.evaluateFleet(network, now);
  }

  setConfig(config: Config): void {
    this.config = config;
    this.rules.setConfig(config);
    this.fleet.setConfig(config);
    this.policy.setConfig(config.alerts);
  }

  /** Every incident this daemon tracks (pending, firing, and resolved ones whose resolve is still held). */
  list(): AlertState[] {
    return [...this.book.values()].flatMap((byKey) => [...byKey.values()]);
  }

  /** A target's last verdict changes (an incident began firing, changed severity or resolved), newest first. */
  changesOf(target: string): readonly VerdictChange[] {
    return this.changes.get(target) ?? [];
  }

  /** What the rules cannot know about a target now, and why (views say it beside the target's state). */
  unknownOf(target: string): UnknownVerdict[] {
    return [...(this.unknown.get(target)?.values() ?? [])];
  }

  /** What receivers that forget are re-sent while it lasts: the firing incidents receivers were told of, and only those the policy lets through now. */
  firing(now = Date.now()): AlertNotice[] {
    return this.policy.resendable(this.confirmed(), now, this.config.externalUrl);
  }

  /** Every incident but the restored ones no verdict has spoken for yet. */
  private confirmed(): AlertState[] {
    return this.list().filter((s) => !this.unconfirmed.has(s.key));
  }

  /** The active incidents a silence holds, as receivers would be told them, with the silence and its end (policy.ts `silenced`): what the Alertmanager silence mirror sends, muted. */
  silenced(now = Date.now()): Array<{ silence: string; until: number; notice: AlertNotice }> {
    return this.policy.silenced(this.book.values(), now, this.config.externalUrl);
  }

  /** The incidents receivers were told fire (whatever the policy says now): what an outbox journal from before open incidents were recorded is seeded with. */
  toldFiring(now = Date.now()): AlertNotice[] {
    return this.list()
      .filter((s) => s.notified?.phase === 'firing')
      .map((s) => ({ ...noticeOf(s, 'firing', now, this.config.externalUrl), labels: { ...(s.notified!.labels ?? s.labels), severity: s.notified!.severity } }));
  }

  /** Follows the store: each report becomes verdicts, and each verdict goes down the pipeline. */
  attach(store: Store): void {
    this.rules.attach(store, (verdict) => this.apply(verdict));
  }

  /** One report on a target (as attach hands them; tests call it directly). */
  updated(update: SourceUpdate, now = Date.now()): void {
    for (const verdict of this.rules.updated(update, now)) this.apply(verdict);
  }

  /** Runs every rule of a source over what it reported about a target, and applies the verdicts. */
  observe<S extends RuleSource>(source: S, target: string, input: RuleInputs[S], now = Date.now()): void {
    this.apply({ evaluation: this.rules.observe(source, target, input, now), now });
  }

  evaluate(evaluation: Evaluation, now = Date.now(), options: { resolveAtOnce?: boolean; handover?: boolean } = {}): void {
    this.apply({ evaluation, now, ...(options.resolveAtOnce ? { resolveAtOnce: true } : {}) }, options.handover);
  }

  /** After a start, before any evaluation: the incidents follow what the outboxes say receivers were told (persistence.ts). */
  reconcile(told: Told, now = Date.now()): void {
    const { reopened, closed } = reconcile(this.book, told, (s) => ({ ...noticeOf(s, 'firing', now, this.config.externalUrl), labels: { ...(s.notified?.labels ?? s.labels), severity: s.notified!.severity } }));
    if (reopened + closed === 0) return;
    this.options.log.info({ reopened, closed }, 'alert states reconciled with what receivers were told');
    this.stateFile.schedule();
  }

  /**
   * Acknowledges the firing incidents whose fingerprint starts with each of `refs` (Telegram's
   * /ack): no more reminders until they resolve or escalate. A ref that names none, or several,
   * is returned as such.
   */
  acknowledge(refs: readonly string[], by: string, now = Date.now()): { acknowledged: AlertState[]; unknown: string[]; ambiguous: string[] } {
    const firing = this.list().filter((s) => s.phase === 'firing');
    const result = { acknowledged: [] as AlertState[], unknown: [] as string[], ambiguous: [] as string[] };
    for (const ref of refs) {
      const found = firing.filter((s) => s.fingerprint.startsWith(ref));
      if (found.length === 0) result.unknown.push(ref);
      else if (found.length > 1) result.ambiguous.push(ref);
      else {
        found[0]!.acknowledged = { by, at: now, severity: found[0]!.severity };
        result.acknowledged.push(found[0]!);
      }
    }
    if (result.acknowledged.length > 0) this.stateFile.schedule();
    return result;
  }

  /**
   * Incidents another avahealth of the fleet announced for targets now polled here, as their signed
   * handover records say (receivers/alertmanager/adopt.ts): firing here as told, under the startsAt
   * they were announced with, unless this daemon has the incident open at its receivers itself (its
   * own record wins). Their words are ours, made here. Returns them as incidents told, for the
   * outboxes to hold open.
   */
  adopt(announced: ReadonlyArray<Parameters<typeof announcedIncident>[0]>, now = Date.now()): OpenIncident[] {
    const incidents = announced
      .map((a) => announcedIncident(a, this.targetLabels(a.labels.target ?? ''), this.config.externalUrl, now))
      .filter((i) => i !== undefined)
      // this daemon's own word wins, unless it is a restored one no verdict has confirmed yet
      .filter((i) => this.book.get(i.alert.labels.target!)?.get(i.alert.key!)?.notified?.phase !== 'firing' || this.unconfirmed.has(i.alert.key!));
    for (const i of incidents) this.unconfirmed.delete(i.alert.key!);
    const reopened = reopen(this.book, incidents);
    if (reopened > 0) {
      this.options.log.info({ incidents: reopened }, 'incidents of targets that moved to this shard adopted from Alertmanager');
      this.stateFile.schedule();
    }
    return incidents;
  }

  /**
   * After a start, the restored alerts of targets this daemon does not watch: those of a target
   * that now belongs to another shard (the shard count changed) are handed over (with an
   * `alertmanager` receiver its new owner adopts them from there, and nothing is told anywhere;
   * without one they resolve, saying so, and the new owner announces what still holds afresh);
   * those of a target that left the config while the daemon was down resolve, as on a reload
   * (unless `resolveUnwatched` is false, as with discovery, whose answer may still be incomplete).
   */
  settleRestored(watched: ReadonlySet<string>, ownedHere: (name: string) => boolean, resolveUnwatched: boolean, now = Date.now()): void {
    const networks = this.fleet.networks();
    for (const name of [...this.book.keys()]) {
      if (watched.has(name)) continue;
      const network = networkOfFleetTarget(name);
      if (network !== undefined) {
        // A network's alert is derived again from its validators' verdicts here; with none of them left, it ends.
        if (!networks.has(network)) this.removeTarget(name, now, { because: 'no validator of this network is watched here any more' });
        continue;
      }
      if (!ownedHere(name)) {
        this.options.log.info({ target: name, alerts: this.book.get(name)?.size ?? 0 }, 'restored alerts of a target that moved to another shard handed over');
        this.removeTarget(name, now, { because: 'target moved to another shard', handover: true });
      } else if (resolveUnwatched) this.removeTarget(name, now);
    }
  }

  /** Resolves every alert of a target at once, policy or not; `because` is added to what their resolves say. */
  removeTarget(name: string, now = Date.now(), { because, handover = false }: { because?: string; handover?: boolean } = {}): void {
    this.rules.forgetTarget(name);
    this.unknown.delete(name);
    const incidents = [...(this.book.get(name)?.values() ?? [])];
    if (because) for (const s of incidents) s.annotations = { ...s.annotations, description: `${s.annotations.description} Resolved by avahealth: ${because}.` };
    for (const s of incidents) {
      const heldBy = s.notified?.phase === 'firing' ? this.policy.hold(s, now)?.reason : undefined;
      if (heldBy) this.options.log.info({ target: name, alertname: s.alertname, labels: s.labels, heldBy }, 'alert of a target that left the config resolved despite its silence or hold: the page it sent is closed');
    }
    const covers = [...new Set(incidents.map((s) => s.alertname))];
    if (covers.length > 0) this.apply({ evaluation: { target: name, covers, unknown: [], conditions: [] }, now, resolveAtOnce: true, gone: because ?? 'target removed from the config' }, handover);
    this.policy.forgetTarget(name);
    this.changes.delete(name);
    const network = this.fleet.forget(name);
    if (network !== undefined) this.evaluateFleet(network, now);
  }

  /** Writes the alert states now (on stop, and before reading them back in tests). */
  flush(): Promise<void> {
    return this.stateFile.flush();
  }

  /** One verdict down the pipeline: incidents, then policy, then the sink, then the state file. */
  private apply({ evaluation, now, resolveAtOnce, gone }: Verdict, handover = false): void {
    const { target } = evaluation;
    noteUnknown(this.unknown, evaluation);
    const incidents = this.incidentsOf(target);
    const aboutNetwork = networkOfFleetTarget(target) !== undefined;
    const before = new Map([...incidents.values()].map((s) => [s.key, { phase: s.phase, severity: s.severity }]));
    for (const s of incidents.values()) if (s.awaitsVerdict && evaluation.covers.includes(s.alertname)) delete s.awaitsVerdict;
    const awaitingOutcome = [...incidents.values()].filter((s) => s.awaitsOutcome && awaitingOutcomeOnly(s) && evaluation.covers.includes(s.alertname));
    const stepped = step(incidents, evaluation, evaluation.conditions, {
      now,
      settings: (alertname) => this.rules.settings(alertname, target),
      forPolls: this.config.alerts.forPolls,
      // A network's alert ends with the last validator it touches, whose own verdict already waited resolve_polls.
      resolvePolls: aboutNetwork ? 1 : this.config.alerts.resolvePolls,
      targetLabels: aboutNetwork ? {} : this.targetLabels(target),
      ...(resolveAtOnce ? { resolveAtOnce } : {}),
      ...(gone ? { gone } : {}),
    });
    if (this.unconfirmed.size > 0) {
      for (const s of incidents.values()) {
        const found = s.phase === 'firing' && s.okPolls === 0 && evaluation.covers.includes(s.alertname) && !evaluation.unknown.includes(s.alertname);
        if (found || s.phase !== 'firing') this.unconfirmed.delete(s.key);
      }
    }
    this.policy.recordTransitions(stepped.transitions, incidents, now, { forced: resolveAtOnce === true });
    this.noteChanges(target, before, incidents, now);
    // The network's alert first: while it lasts it holds back this validator's network-wide copies.
    const network = aboutNetwork ? undefined : this.fleet.note(evaluation, incidents, now);
    if (network !== undefined) this.evaluateFleet(network, now);
    const networkIncidents = aboutNetwork ? undefined : this.networkIncidentsOf(target);
    // A target or source that left: nothing holds the resolves of its alerts (a held one would never
    // be let out). Only those: the target's other alerts still pass silences and flap holds.
    const notices = [
      ...this.outcomesTold(awaitingOutcome, incidents, evaluation, now),
      ...this.policy.decide(incidents, now, this.config.externalUrl, { ...(resolveAtOnce ? { gone: evaluation.covers } : {}), ...(networkIncidents ? { networkIncidents } : {}), covers: evaluation.covers }),
    ];
    this.policy.endFlapHolds(target, incidents, now);
    if (incidents.size === 0) this.book.delete(target);
    if (notices.length > 0) this.sink?.dispatch({ id: randomUUID(), target, createdAt: now, alerts: this.withCarried(notices), ...(handover ? { handover: true } : {}) });
    if (stepped.changed || notices.length > 0) this.stateFile.schedule();
    if (stepped.changed) this.options.changed?.();
  }

  /**
   * Resolved incidents whose resolve said an outcome still to come ("outcome not known yet"): once
   * their rule's words tell it ("validation period ended, paid 117.4 AVAX"), receivers hear it on the
   * same incident (a resolve again, same fingerprint and startsAt), once. Words that no longer speak
   * of it, or OUTCOME_WAIT_MS without it, end the wait silently (the target's page still says it).
   */
  private outcomesTold(awaiting: readonly AlertState[], incidents: Map<string, AlertState>, evaluation: Evaluation, now: number): AlertNotice[] {
    const told: AlertNotice[] = [];
    for (const s of awaiting) {
      // fired again meanwhile (a new incident), or its rule cannot say now
      if (incidents.get(s.key) !== s || evaluation.unknown.includes(s.alertname) || this.policy.hold(s, now)) continue;
      const words = evaluation.recovered?.(s.alertname, s.labels);
      const outcome = ruleNamed(s.alertname)?.outcome;
      if (words !== undefined && outcome?.pending(words) && now - (s.endedAt ?? now) < OUTCOME_WAIT_MS) continue;
      incidents.delete(s.key);
      this.stateFile.schedule();
      if (words === undefined || !outcome?.told(words)) continue;
      s.annotations = { ...s.annotations, summary: resolveSummary(s.alertname, s.target, s.labels, words) };
      told.push({ ...noticeOf(s, 'resolved', now, this.config.externalUrl), startsAt: new Date(s.awaitsOutcome!.since).toISOString() });
    }
    return told;
  }

  /** The verdict changes one step made (compared with each incident's phase and severity before it). */
  private noteChanges(target: string, before: ReadonlyMap<string, Pick<AlertState, 'phase' | 'severity'>>, incidents: ReadonlyMap<string, AlertState>, now: number): void {
    const noted: VerdictChange[] = [];
    for (const s of incidents.values()) {
      const was = before.get(s.key);
      const change = { at: now, alertname: s.alertname, severity: s.severity, labels: { ...s.labels }, summary: s.annotations.summary };
      if (s.phase === 'firing' && was?.phase !== 'firing') noted.push({ ...change, kind: 'firing' });
      else if (s.phase === 'firing' && was !== undefined && was.severity !== s.severity) noted.push({ ...change, kind: 'severity_changed', from: was.severity });
      else if (s.phase === 'resolved' && was?.phase === 'firing') noted.push({ ...change, kind: 'resolved' });
    }
    if (noted.length > 0) this.changes.set(target, [...noted, ...(this.changes.get(target) ?? [])].slice(0, MAX_CHANGES));
  }

  /** Firing notices with their target's carried facts, for the signed handover record. */
  private withCarried(notices: AlertNotice[]): AlertNotice[] {
    const { carried } = this.options;
    if (!carried) return notices;
    return notices.map((n) => {
      const facts = n.status === 'firing' ? carried(n.labels.target ?? '') : undefined;
      return facts ? { ...n, carried: facts } : n;
    });
  }

  /** The fleet rules of one network over the validators' latest verdicts, as a verdict on the network itself. */
  private evaluateFleet(network: string, now: number): void {
    this.apply({ evaluation: this.rules.observe('fleet', fleetTargetOf(network), this.fleet.input(network, now), now), now });
  }

  /** The incidents of the network a validator is on (its fleet alerts), when it is one and they exist. */
  private networkIncidentsOf(target: string): ReadonlyMap<string, AlertState> | undefined {
    const network = this.fleet.networkOf(target);
    return network === undefined ? undefined : this.book.get(fleetTargetOf(network));
  }

  private incidentsOf(target: string): Map<string, AlertState> {
    let byKey = this.book.get(target);
    if (!byKey) this.book.set(target, (byKey = new Map()));
    return byKey;
  }

  private targetLabels(name: string): Record<string, string> {
    const target = this.config.nodes.find((n) => n.name === name) ?? this.config.services.find((s) => s.name === name);
    return { ...target?.labels };
  }
}
