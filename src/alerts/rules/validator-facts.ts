/**
 * What the validator rules share: whether a part of the validator poll is known, and how amounts,
 * shares, durations and IDs are said in an alert an on-call person acts on.
 */
import { scopeOf } from '../../model/observed.js';
import { renewalDoubt } from '../../model/reward-vote.js';
import { validationRenews, validatorReport, withoutZeroReporters, type PrimaryValidation, type ValidatorReport, type ValidatorUptime } from '../../model/validator.js';
import { baselinePredates, type TargetObservation } from '../../model/observation.js';
import type { PeriodOutcome } from '../../model/periods.js';
import { nodeFacts, ownNetworkFailing } from './node-facts.js';
import { UNKNOWN } from './rule.js';
import type { ValidatorInput } from './rule.js';

const HOUR = 3600;
const DAY = 86_400;

/**
 * The report when the call(s) a rule needs answered; UNKNOWN while they fail (its alerts stay as
 * they are); `null` when the API is switched off (nothing will come: its alerts resolve).
 */
export function reportFor(input: ValidatorInput, calls: (call: string) => boolean): ValidatorReport | null | typeof UNKNOWN {
  const report = validatorReport(input.observation);
  if (!report) return UNKNOWN;
  // Still bootstrapping (v1.15 after a restart): the uptime is not known yet, its verdicts stay as they are.
  if (report.uptimeBootstrapping && calls('info.uptime')) return UNKNOWN;
  const problems = report.problems.filter((p) => calls(p.call));
  if (problems.length === 0) return report;
  return problems.every((p) => p.reason === 'disabled') ? null : UNKNOWN;
}

/**
 * `cycle` for an auto-renewed validator (ACP-236: its startTime/endTime are the current cycle, and
 * reward, requirement and downtime budget are per cycle), else `period`.
 */
export function periodOf(primary: PrimaryValidation | undefined): 'cycle' | 'period' {
  return primary?.autoRenewal ? 'cycle' : 'period';
}

/**
 * "4.6 h of the 4.8 h downtime budget left until 2026-11-29 15:00 UTC", or overspent; for an
 * auto-renewed validator "… of this cycle's 4.8 h downtime budget …" and what happens then. Empty
 * when the period or uptime is unknown.
 */
export function budgetLeft(report: ValidatorReport): string {
  const left = report.economics?.downtimeBudgetRemainingSeconds;
  const allowance = report.economics?.downtimeAllowanceSeconds;
  const primary = report.primary;
  if (left === undefined || allowance === undefined || !primary) return '';
  const end = endsAt(primary.endTime);
  const cycle = primary.autoRenewal !== undefined;
  const then = cycle ? ` (${cycleEnd(report)})` : '';
  if (left >= 0) return `${hours(left)} of ${cycle ? "this cycle's" : 'the'} ${hours(allowance)} downtime budget left until ${end}${then}`;
  return `${cycle ? "this cycle's " : ''}downtime budget overspent by ${hours(-left)} (the ${cycle ? 'cycle' : 'period'} ends ${end}${then})`;
}

/** "2026-11-29 15:00 UTC": a period's end to the minute (a 12-hour cycle ends within a day). */
export function endsAt(epochSeconds: number): string {
  return `${new Date(epochSeconds * 1000).toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

/**
 * What happens at an auto-renewed validator's cycle end: renewal is conditional (ACP-236, AvalancheGo
 * vms/platformvm/txs/executor/proposal_tx_executor.go: the next cycle starts only if the reward vote
 * commits), so a new cycle is promised only while the outlook is likely.
 */
export function cycleEnd(report: ValidatorReport): string {
  if (!validationRenews(report.primary)) return 'it exits then';
  return renewalDoubt(report) ? 'the validation ends then unless the reward vote commits' : 'a new cycle starts then';
}

/**
 * Whether a verdict on info.uptime waits: the figures are an unsettled snapshot (the node just
 * (re)started, model/uptime-snapshot.ts), or its scope is not decided yet (the fleet's view or the
 * network's first baseline is awaited). Its alerts then stay as they are (UNKNOWN).
 */
export function uptimeVerdictWaits(input: ValidatorInput, report: ValidatorReport, state?: ScopeWait): boolean {
  // Held only as this daemon's first answer: the figures were seen from that answer on, which is the
  // verdict's onset (its scope then waits for no baseline read after the hold).
  if (report.uptimeSettling?.firstAnswer && state && !input.oneRound) state.onset ??= input.observation.at;
  return report.uptimeSettling !== undefined || input.scopeAwaited === true;
}

/** Polls a new verdict waits at most for the fleet's view of a validator whose NodeID was just learnt. */
export const VIEW_WAIT_POLLS = 3;

/** What a reward rule keeps between evaluations about its verdict's scope. */
export interface ScopeWait {
  /** Polls a new verdict waited for the fleet's view. */
  waited: number;
  /** When the current verdict was first seen (the validator poll's time), while there is one. */
  onset?: number;
  /** The end (epoch seconds) of the period its latest verdict was about: kept after the verdict, so its end is told as the period's outcome. */
  periodEnd?: number;
}

/** Remembers which period a verdict is about (its end), returning the findings. */
export function aboutPeriod<T>(state: ScopeWait | undefined, report: ValidatorReport, findings: T): T {
  if (state) {
    if (report.primary) state.periodEnd = report.primary.endTime;
    else delete state.periodEnd;
  }
  return findings;
}

/** Whether the period a verdict was about has ended (its incident then ends at once, with the period's outcome). */
export function periodOver(input: ValidatorInput, now: number, state: ScopeWait | undefined): boolean {
  return state?.periodEnd !== undefined && now >= state.periodEnd && typeof reportFor(input, (call) => call === 'platform.getCurrentValidators') === 'object';
}

/** How periodEnded's words end while the reward vote or its records have not told. */
const NOT_KNOWN_YET = '; outcome not known yet';

/** How long after a period's end a verdict that ends without knowing which period it was about says that period's outcome. */
export const PERIOD_END_TOLD_SECONDS = 3600;

/**
 * The outcome of a validation period that ended, as the verdicts about it end (never as good news):
 * "validation cycle ended, paid 117.4 AVAX", "validation period ended unpaid: 117.4 AVAX forfeited",
 * "validation cycle ended; outcome not known yet" (the node has not voted its reward yet, or its
 * records have not told: model/periods.ts). `about` is the end of the period the verdict was about,
 * when the rule knows it; else a period that ended within PERIOD_END_TOLD_SECONDS. Undefined while
 * no period has ended.
 */
export function periodEnded(report: ValidatorReport, now: number, about?: number): string | undefined {
  const outcomes = report.periods?.outcomes ?? [];
  const kind = (autoRenewed: boolean) => (autoRenewed ? 'cycle' : 'period');
  const notYet = (autoRenewed: boolean) => `validation ${kind(autoRenewed)} ended${NOT_KNOWN_YET}`;
  if (about !== undefined) {
    if (now < about) return undefined;
    const outcome = outcomes.find((o) => o.endTime === about);
    if (outcome) return outcomeWords(outcome);
    const period = [report.periods?.ended, report.periods?.tracking].find((p) => p?.endTime === about);
    return notYet(period?.autoRenewed ?? report.primary?.autoRenewal !== undefined);
  }
  const primary = report.primary;
  if (primary && primary.endTime <= now) return notYet(primary.autoRenewal !== undefined);
  const ended = report.periods?.ended;
  if (ended && ended.endTime <= now) return notYet(ended.autoRenewed);
  const last = outcomes[0];
  if (last && last.endTime <= now && now - last.endTime <= PERIOD_END_TOLD_SECONDS) return outcomeWords(last);
  return undefined;
}

/** Resolve words of a period's end (periodEnded): an outcome still to come, or the outcome (rules' `outcome`). */
export const PERIOD_OUTCOME = {
  pending: (words: string) => words.endsWith(NOT_KNOWN_YET),
  told: (words: string) => /^validation (period|cycle) ended/.test(words) && !words.endsWith(NOT_KNOWN_YET),
};

/** "validation cycle ended, paid 117.4 AVAX" (and its restaked part), unpaid, or not known. */
export function outcomeWords(outcome: PeriodOutcome): string {
  const kind = outcome.autoRenewed ? 'cycle' : 'period';
  const potential = outcome.potentialRewardNAvax;
  if (outcome.rewarded === true) {
    const paid = outcome.validationRewardNAvax ?? potential;
    const restaked = outcome.restakedNAvax;
    const split = paid !== undefined && restaked !== undefined ? `: ${outcome.restakedEstimated ? 'about ' : ''}${avax(restaked)} restaked, ${avax(paid - restaked)} paid out` : '';
    return `validation ${kind} ended, paid${paid !== undefined ? ` ${avax(paid)}` : ''}${split}`;
  }
  if (outcome.rewarded === false) return `validation ${kind} ended unpaid: ${potential !== undefined ? avax(potential) : 'its reward'} forfeited`;
  return `validation ${kind} ended; outcome not known`;
}

export const newScopeWait = (): ScopeWait => ({ waited: 0 });

/** No verdict now: the next one is new (its onset and waits start over). Returns no findings. */
export function noVerdict(state: ScopeWait | undefined): [] {
  if (state) {
    state.waited = 0;
    delete state.onset;
  }
  return [];
}

/**
 * Whether a new verdict waits before its scope is decided:
 * - for the fleet's view (`viewPending`: the view job ran before the NodeID was known), at most
 *   VIEW_WAIT_POLLS polls in a row;
 * - for a network baseline read after its onset (never in one round, `oneRound`). A node's
 *   info.uptime counts the stake it is not connected to as 0 at once (network/network.go,
 *   NodeUptime), so when the whole network dips every validator's figures fall in the same poll,
 *   while a baseline read before the dip still shows the network normal: deciding then would page
 *   each validator as its own fault. Until every observer has read again (model/observation.ts
 *   baselinePredates).
 */
export function scopeWaits(input: ValidatorInput, state: ScopeWait | undefined): boolean {
  // In the only round there is, this round's baseline is the one: no later read comes.
  if (!state || input.oneRound) return false;
  const at = input.observation.at;
  state.onset ??= at;
  if (input.viewPending && state.waited < VIEW_WAIT_POLLS) {
    state.waited++;
    return true;
  }
  return baselinePredates(input.observed?.baseline, state.onset);
}

/** "72.5 %" */
export function percent(ratio: number): string {
  return `${(ratio * 100).toFixed(1).replace(/\.0$/, '')} %`;
}

/** "12.6 h" up to four days (a period's allowance reads in hours), "5.3 days" above. */
export function hours(seconds: number): string {
  return seconds > 4 * DAY ? days(seconds) : `${(seconds / HOUR).toFixed(1)} h`;
}

export function days(seconds: number): string {
  return `${(seconds / DAY).toFixed(1)} days`;
}

/** "2026-11-27" */
export function day(epochSeconds: number): string {
  return new Date(epochSeconds * 1000).toISOString().slice(0, 10);
}

/** "117.43 AVAX" from nAVAX. */
export function avax(nAvax: number): string {
  const value = nAvax / 1e9;
  return `${value >= 100 ? value.toFixed(1) : value >= 1 ? value.toFixed(2) : value.toPrecision(3)} AVAX`;
}

/** Days of fee a top-up advice buys. */
export const TOP_UP_DAYS = 30;

/** "add 1.33 AVAX for 30 days": what keeps an L1 validation active that much longer at today's price. */
export function topUp(priceNAvaxPerSecond: number): string {
  return `add ${avax(priceNAvaxPerSecond * TOP_UP_DAYS * DAY)} for ${TOP_UP_DAYS} days`;
}

/** The same advice in a Prometheus annotation, from the node's fee price series. */
export const PROM_TOP_UP = `{{ with printf "avahealth_l1_fee_price_avax_per_second{target=%q} * ${TOP_UP_DAYS} * 86400" $labels.target | query }}add {{ . | first | value | printf "%.2f" }} AVAX for ${TOP_UP_DAYS} days{{ else }}top it up{{ end }}`;

/**
 * An L1 validation of the report as a resolve tells it: "L1 validation 2H7p… balance 31.2 AVAX:
 * 61.0 days of runway at 512 nAVAX/s" (`lead` goes after its ID), or that it is gone or empty.
 */
export function l1Standing(report: ValidatorReport, validationLabel: string | undefined, label: (value: string) => string, lead: string): string | undefined {
  if (validationLabel === undefined) return undefined;
  const i = report.l1.findIndex((v) => label(v.validationId) === validationLabel);
  if (i < 0) return `L1 validation ${shortId(validationLabel)} is no longer one of the node's validations`;
  const validation = report.l1[i]!;
  const name = `L1 validation ${shortId(validation.validationId)}`;
  if (validation.balanceNAvax <= 0) return `${name} ran out of balance: inactive until topped up`;
  const runway = report.economics?.l1RunwaySeconds?.[i];
  const price = report.feeState?.priceNAvaxPerSecond;
  return `${name} ${lead} ${avax(validation.balanceNAvax)}${runway !== undefined ? `: ${days(runway)} of runway${price !== undefined ? ` at ${price} nAVAX/s` : ''}` : ''}`;
}

/** "2H7p…": enough of a CB58 ID to recognise it in a wallet. */
export function shortId(id: string): string {
  return id.length > 8 ? `${id.slice(0, 4)}…` : id;
}

/**
 * The `scope` of a validator alert (`self`, or `network` when every validator looks down from the
 * fleet's vantage points, or, given `upgradeDay`, when the figures are low only because peers are
 * bootstrapping: see bootstrappingExcuse), its identity label, and the words that lead its summary
 * and end its description.
 */
export function scopeFor(input: ValidatorInput, report: ValidatorReport, upgradeDay?: (without: ValidatorUptime) => string | undefined): { identity: { scope: string }; lead: string; note: string; bootstrapping?: true } {
  // Its own node says it is cut off: its own problem, even while the whole network dips.
  const cutOff = ownNodeCutOff(input.node);
  if (cutOff) return { identity: { scope: 'self' }, lead: '', note: ` Its own node says it is cut off: "${cutOff}".` };
  const excused = upgradeDay ? bootstrappingExcuse(report, upgradeDay) : undefined;
  if (excused) return { identity: { scope: 'network' }, ...excused, bootstrapping: true };
  const verdict = scopeOf(input.observed?.baseline, report.economics?.requirement ?? 0.8);
  if (verdict.scope === 'network') {
    return {
      identity: { scope: 'network' },
      lead: `${verdict.words}; `,
      note: " Every validator looks this way from the fleet's nodes, so it is most likely not this validator's own fault: check the fleet's network and the network's status before touching the node.",
    };
  }
  return { identity: { scope: 'self' }, lead: '', note: verdict.words ? ` Only this validator: ${verdict.words}.` : '' };
}

/** Whether a verdict's summary is an upgrade day's (bootstrappingExcuse's lead): the network's alert says so. */
export function isUpgradeDaySummary(summary: string): boolean {
  return / bootstrapping and reports? 0 % for everyone; /.test(summary);
}

/**
 * Upgrade day: peers bootstrapping report 0 % for every validator (AvalancheGo network/peer/peer.go
 * getUptime: its uptime calculator errs until the P-Chain is bootstrapped,
 * snow/uptime/locked_calculator.go), and info.uptime counts them at 0 % and not rewarding
 * (network/network.go NodeUptime). When the figures without them clear the verdict's bar
 * (`clears` says how, in words, or undefined when they do not), it is not the validator's doing:
 * the lead and note that say so.
 */
export function bootstrappingExcuse(report: ValidatorReport, clears: (without: ValidatorUptime) => string | undefined): { lead: string; note: string } | undefined {
  const peers = report.bootstrappingPeers;
  const without = report.uptime ? withoutZeroReporters(report.uptime, peers) : undefined;
  if (!peers || !without) return undefined;
  const cleared = clears(without);
  if (!cleared) return undefined;
  const who = `${peers.peers} peer${peers.peers === 1 ? '' : 's'} holding ${percent(peers.stakeRatio)} of the stake ${peers.peers === 1 ? 'is bootstrapping and reports' : 'are bootstrapping and report'} 0 % for everyone`;
  return {
    lead: `${who}; `,
    note: ` Not this validator's doing: ${who} (a node sends 0 % in its Pings until its P-Chain is bootstrapped, as when many validators restart on an upgrade day), and without them ${cleared}. The figures climb back as they finish bootstrapping; the reward vote, each node's own measure since the period started, does not count these Pings.`,
  };
}

/**
 * The error of the node's own `network` check when it fails for its own connectivity (no peers, no
 * messages either way, sends failing: network/network.go HealthCheck), not only for a closed staking
 * port (AvalancheValidatorUnreachableByPeers speaks for that one).
 */
export function ownNodeCutOff(node: TargetObservation | undefined): string | undefined {
  const network = node ? ownNetworkFailing(nodeFacts(node)) : undefined;
  return network ? (network.error ?? 'network failing') : undefined;
}
