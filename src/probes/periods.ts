/**
 * Follows an own validator's periods from poll to poll and judges each one that ends (see
 * model/periods.ts for what AvalancheGo does at a period's end): the validator set says whether an
 * auto-renewed cycle renewed; `platform.getRewardUTXOs` of the staking transaction says whether a
 * plain validation was paid; the Data API's completed validation confirms, or tells where the node
 * cannot. One call per ended period (and a retry per poll while it fails); none otherwise.
 */
import type { CompletedValidation, PeriodEntry, PeriodOutcome, TrackedPeriod } from '../model/periods.js';
import { completedFor, outcomeOf, OUTCOME_SEARCH_SECONDS, restakedOf, samePeriod, verdictFromRewardUtxos, withDataApi, withOutcome } from '../model/periods.js';
import type { ValidatorReport } from '../model/validator.js';
import type { Ledger } from '../state/ledger.js';

/**
 * How far the P-Chain's time may run ahead of this machine's clock when a period ends: AvalancheGo
 * accepts a block up to 10 s ahead of its own clock (SyncBound), and the two clocks may differ.
 */
const END_CLOCK_SLACK_SECONDS = 300;

/** platform.getRewardUTXOs of a staking transaction: the amounts, or why not. */
export type AskRewardUtxos = (txId: string) => Promise<{ ok: true; amounts: number[] } | { ok: false; error: string }>;

/** The period the poll shows, when it shows the node's own Primary Network validation. */
function periodShown(report: ValidatorReport): TrackedPeriod | undefined {
  const primary = report.primary;
  if (!primary?.txId) return undefined;
  return {
    txId: primary.txId,
    startTime: primary.startTime,
    endTime: primary.endTime,
    ...(primary.potentialRewardNAvax !== undefined ? { potentialRewardNAvax: primary.potentialRewardNAvax } : {}),
    renews: primary.autoRenewal?.renews === true,
    autoRenewed: primary.autoRenewal !== undefined,
    ...(report.uptime ? { uptimeRatio: report.uptime.weightedAverageRatio } : {}),
    ...(report.economics?.requirement !== undefined ? { requirement: report.economics.requirement } : {}),
    ...(primary.autoRenewal ? { restakeShare: primary.autoRenewal.autoCompoundRatio } : {}),
    ...(primary.autoRenewal && primary.weightNAvax !== undefined ? { weightNAvax: primary.weightNAvax } : {}),
    ...(primary.autoRenewal?.restakedValidationNAvax !== undefined ? { restakedValidationNAvax: primary.autoRenewal.restakedValidationNAvax } : {}),
  };
}

/** Whether the poll's getCurrentValidators answered (so a missing validation is an answer). */
function setAnswered(report: ValidatorReport): boolean {
  return report.nodeId !== undefined && !report.problems.some((p) => p.call === 'platform.getCurrentValidators');
}

/** The uptime seen is the last one before the end; a poll after it (a removed node) keeps the old. */
function merged(was: TrackedPeriod, now: TrackedPeriod): TrackedPeriod {
  return { ...now, ...(now.uptimeRatio === undefined && was.uptimeRatio !== undefined ? { uptimeRatio: was.uptimeRatio } : {}) };
}

export async function followPeriods(target: string, report: ValidatorReport, ledger: Ledger<PeriodEntry>, ask: AskRewardUtxos, completed: readonly CompletedValidation[] | undefined, now: number): Promise<{ entry: PeriodEntry; decided?: PeriodOutcome }> {
  const before = ledger.get(target) ?? { outcomes: [] };
  let { tracking, ended } = before;
  let outcomes = before.outcomes;
  let persist = false;
  let decided: PeriodOutcome | undefined;
  const shown = periodShown(report);

  if (tracking && shown && samePeriod(tracking, shown)) {
    persist = tracking.endTime !== shown.endTime || tracking.renews !== shown.renews || tracking.potentialRewardNAvax !== shown.potentialRewardNAvax;
    tracking = merged(tracking, shown);
  } else if (tracking && shown) {
    // Another period: an auto-renewed validator's next cycle (commit), or a new validation after the old one ended.
    if (shown.txId === tracking.txId && shown.startTime === tracking.endTime) {
      // Its reward was split: AutoCompoundRewardShares of it restaked (capped at MaxValidatorStake), the rest paid out.
      const restaked = restakedOf(tracking, shown);
      decided = outcomeOf(
        tracking,
        {
          rewarded: true,
          validationRewardNAvax: tracking.potentialRewardNAvax ?? 0,
          ...(restaked ? { restakedNAvax: restaked.restakedNAvax, ...(restaked.estimated ? { restakedEstimated: true } : {}) } : {}),
          evidence: `renewed: the next cycle started at the end of this one (the reward vote committed)`,
        },
        now,
      );
    } else if (now + END_CLOCK_SLACK_SECONDS >= tracking.endTime) ended = tracking;
    // else the period followed cannot have ended: AvalancheGo removes a validator only when the
    // chain's time is its end time (vms/platformvm/txs/executor/proposal_tx_executor.go,
    // rewardValidatorTx: ErrRemoveStakerTooEarly). The ledger followed another validation under this
    // name (another machine, a simulator started anew): nothing ended, nothing is judged.
    tracking = shown;
    persist = true;
  } else if (tracking && !shown && setAnswered(report) && now >= tracking.endTime) {
    ended = tracking;
    tracking = undefined;
    persist = true;
  } else if (!tracking && shown) {
    tracking = shown;
    persist = true;
  }

  if (ended) {
    const verdict = await judge(ended, ask, completed, now);
    if (verdict) {
      decided = verdict;
      ended = undefined;
      persist = true;
    }
  }
  // The node's word first; the Data API's record confirms it, disagrees, or tells where the node cannot.
  if (decided) outcomes = withOutcome(outcomes, withDataApi(decided, completedFor(decided, completed)));
  const entry: PeriodEntry = { ...(tracking ? { tracking } : {}), ...(ended ? { ended } : {}), outcomes };
  ledger.set(target, entry, persist);
  return { entry, ...(decided ? { decided: outcomes[0]! } : {}) };
}

/**
 * The reward UTXOs only where they are what AvalancheGo pays at a period's end
 * (proposal_tx_executor.go, rewardValidatorTx): on commit the potential reward as one UTXO, then the
 * delegatee commission as another; on abort the commission alone. So at most two, and two only with
 * the potential reward among them: anything else (two 1-nAVAX UTXOs against a 117 AVAX reward) is
 * no answer, and the period's outcome stays unknown rather than "paid".
 */
function consistent(period: TrackedPeriod, answer: Awaited<ReturnType<AskRewardUtxos>>): Awaited<ReturnType<AskRewardUtxos>> {
  if (!answer.ok) return answer;
  const { amounts } = answer;
  const potential = period.potentialRewardNAvax;
  const withReward = potential === undefined || potential === 0 || amounts.includes(potential);
  if (amounts.length <= 1 || (amounts.length === 2 && withReward)) return answer;
  return { ok: false, error: `${amounts.length} reward UTXOs (${amounts.slice(0, 3).join(', ')}${amounts.length > 3 ? ', …' : ''} nAVAX) are neither branch of the reward vote${potential ? ` for a potential reward of ${potential} nAVAX` : ''}` };
}

/** An ended period's outcome, or undefined while no source can tell yet. */
async function judge(period: TrackedPeriod, ask: AskRewardUtxos, completed: readonly CompletedValidation[] | undefined, now: number): Promise<PeriodOutcome | undefined> {
  const record = completedFor(period, completed);
  if (period.renews) {
    return outcomeOf(period, { rewarded: false, validationRewardNAvax: 0, evidence: 'removed at the end of its cycle instead of renewed: the reward vote aborted (ACP-236: principal returned, this cycle’s reward forfeited)' }, now);
  }
  if (!period.autoRenewed) {
    const answer = consistent(period, await ask(period.txId));
    if (answer.ok) return outcomeOf(period, verdictFromRewardUtxos(period, answer.amounts), now);
    if (!record && now - period.endTime < OUTCOME_SEARCH_SECONDS) return undefined;
    return outcomeOf(period, { rewarded: null, evidence: `unknown: platform.getRewardUTXOs failed (${answer.error.slice(0, 120)})${record ? '' : ' and the Data API lists no completed validation'}` }, now);
  }
  // An auto-renewed validator that exits (nextPeriod 0) is removed on both branches, and its reward
  // UTXOs belong to the reward transaction: only the Data API can tell.
  if (!record && now - period.endTime < OUTCOME_SEARCH_SECONDS) return undefined;
  return outcomeOf(period, { rewarded: null, evidence: `unknown: an exiting auto-renewed validator is removed whether paid or not${record ? '' : ', and the Data API lists no completed validation'}` }, now);
}
