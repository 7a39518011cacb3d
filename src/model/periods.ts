/**
 * "Was it paid?": the ended validation periods of an own validator and whether each was rewarded.
 * What AvalancheGo does at a period's end (vms/platformvm/txs/executor/proposal_tx_executor.go):
 *  - a plain validator (RewardValidatorTx) is removed on both branches of the reward vote; on
 *    commit the potential reward is paid as a reward UTXO of the staking transaction, on abort it
 *    is not (the delegatee commission is paid on both, as a reward UTXO too);
 *  - an auto-renewed validator (ACP-236, RewardAutoRenewedValidatorTx) with a next period stays in
 *    the set with `startTime` = the old `endTime` on commit and is removed on abort, whatever
 *    `nextPeriod` said; its reward UTXOs belong to the reward transaction, not the staking one.
 * So the node's own evidence is the validator set (renewed or removed) and `platform.getRewardUTXOs`
 * of the staking transaction; the Data API's completed validation (`rewards.validationRewardAmount`)
 * is the second source. The pure decisions live here; the validator probe asks, the ledger keeps.
 */
import { z } from 'zod';

/** Outcomes kept per node (newest first): enough for the status page's history. */
export const MAX_PERIOD_OUTCOMES = 5;
/** How long a period's outcome is looked for after its end before it is called unknown. */
export const OUTCOME_SEARCH_SECONDS = 6 * 3600;

/** The validation period being followed (what the last validator poll showed). */
export const trackedPeriodSchema = z.object({
  txId: z.string().max(64),
  startTime: z.number(),
  endTime: z.number(),
  potentialRewardNAvax: z.number().optional(),
  /** An auto-renewed validator with a next period (ACP-236): it renews on commit. */
  renews: z.boolean(),
  /** An auto-renewed validator at all (its reward UTXOs are not the staking transaction's). */
  autoRenewed: z.boolean(),
  /** The last `weightedAveragePercentage` seen during the period (info.uptime), 0–1. */
  uptimeRatio: z.number().optional(),
  requirement: z.number().optional(),
  /** An auto-renewed validator's `autoCompoundRewardShares`, 0–1: the share of the reward restaked on commit. */
  restakeShare: z.number().min(0).max(1).optional(),
  /** Its weight during the period, nAVAX (what restaking may add up to MaxValidatorStake). */
  weightNAvax: z.number().optional(),
  /** Validation rewards earlier cycles restaked (`restakedValidationRewards`, later v1.15 releases), nAVAX. */
  restakedValidationNAvax: z.number().optional(),
});
export type TrackedPeriod = z.infer<typeof trackedPeriodSchema>;

export const periodOutcomeSchema = trackedPeriodSchema.extend({
  /** true paid, false not, null unknown (no source could tell within OUTCOME_SEARCH_SECONDS). */
  rewarded: z.boolean().nullable(),
  validationRewardNAvax: z.number().optional(),
  /** Of a renewed cycle's validation reward, the part restaked into its stake (the rest was paid out). */
  restakedNAvax: z.number().optional(),
  /** The restaked part was computed from the shares and the cap, not read from the node's accrued figure. */
  restakedEstimated: z.boolean().optional(),
  delegateeRewardNAvax: z.number().optional(),
  /** What told: the validator set, the reward UTXOs, the Data API. */
  evidence: z.string().max(300),
  /** The node and the Data API disagree: what each said (the node's word counts). */
  disagreement: z.string().max(300).optional(),
  /** Epoch seconds the outcome was learnt. */
  decidedAt: z.number(),
});
export type PeriodOutcome = z.infer<typeof periodOutcomeSchema>;

/** One node's entry in the ledger: the period followed, one that ended and awaits its outcome, the last outcomes. */
export const periodEntrySchema = z.object({
  tracking: trackedPeriodSchema.optional(),
  ended: trackedPeriodSchema.optional(),
  outcomes: z.array(periodOutcomeSchema).max(MAX_PERIOD_OUTCOMES),
});
export type PeriodEntry = z.infer<typeof periodEntrySchema>;

/** What a period's reward UTXOs (platform.getRewardUTXOs of the staking transaction) say. */
export function verdictFromRewardUtxos(period: TrackedPeriod, amountsNAvax: readonly number[]): Pick<PeriodOutcome, 'rewarded' | 'validationRewardNAvax' | 'delegateeRewardNAvax' | 'evidence'> {
  const potential = period.potentialRewardNAvax;
  // Commit pays the potential reward and then the delegatee commission; abort pays the commission alone.
  const index = potential !== undefined && potential > 0 ? amountsNAvax.indexOf(potential) : -1;
  const paid = index >= 0 || amountsNAvax.length >= 2;
  const rest = amountsNAvax.filter((_, i) => i !== (paid ? (index >= 0 ? index : 0) : -1));
  const delegatee = rest.reduce((sum, n) => sum + n, 0);
  return {
    rewarded: potential === 0 ? true : paid,
    ...(paid ? { validationRewardNAvax: index >= 0 ? amountsNAvax[index]! : amountsNAvax[0]! } : { validationRewardNAvax: 0 }),
    ...(delegatee > 0 ? { delegateeRewardNAvax: delegatee } : {}),
    evidence: `platform.getRewardUTXOs: ${amountsNAvax.length} reward UTXO${amountsNAvax.length === 1 ? '' : 's'}${paid ? ', the validation reward among them' : ', no validation reward'}`,
  };
}

/** The Data API's completed validation of a period, when it lists one. */
export interface CompletedValidation {
  txHash?: string;
  startTimestamp: number;
  endTimestamp: number;
  validationRewardNAvax: number;
  delegationRewardNAvax?: number;
}

export function completedFor(period: TrackedPeriod, completed: readonly CompletedValidation[] | undefined): CompletedValidation | undefined {
  return completed?.find((c) => c.txHash === period.txId && c.endTimestamp === period.endTime) ?? completed?.find((c) => c.startTimestamp === period.startTime && c.endTimestamp === period.endTime);
}

/** The node's verdict completed (or replaced, when the node could not tell) by the Data API's record. */
export function withDataApi(outcome: PeriodOutcome, record: CompletedValidation | undefined): PeriodOutcome {
  if (!record) return outcome;
  const paid = record.validationRewardNAvax > 0;
  const said = `the Data API lists a validation reward of ${record.validationRewardNAvax} nAVAX`;
  if (outcome.rewarded === null) {
    return { ...outcome, rewarded: paid, validationRewardNAvax: record.validationRewardNAvax, ...(record.delegationRewardNAvax !== undefined ? { delegateeRewardNAvax: record.delegationRewardNAvax } : {}), evidence: said };
  }
  if (outcome.rewarded !== paid) return { ...outcome, disagreement: `${outcome.evidence}; but ${said}` };
  return { ...outcome, evidence: `${outcome.evidence}; ${said}` };
}

export function outcomeOf(period: TrackedPeriod, verdict: Pick<PeriodOutcome, 'rewarded' | 'evidence'> & Partial<PeriodOutcome>, now: number): PeriodOutcome {
  return { ...period, ...verdict, decidedAt: now };
}

/** The newest outcome first, at most MAX_PERIOD_OUTCOMES; a period already decided is not added twice. */
export function withOutcome(outcomes: readonly PeriodOutcome[], outcome: PeriodOutcome): PeriodOutcome[] {
  const others = outcomes.filter((o) => !(o.txId === outcome.txId && o.startTime === outcome.startTime));
  return [outcome, ...others].slice(0, MAX_PERIOD_OUTCOMES);
}

export function samePeriod(a: Pick<TrackedPeriod, 'txId' | 'startTime'> | undefined, b: Pick<TrackedPeriod, 'txId' | 'startTime'> | undefined): boolean {
  return a !== undefined && b !== undefined && a.txId === b.txId && a.startTime === b.startTime;
}

/** MaxValidatorStake on mainnet and Fuji: 3 M AVAX (genesis/genesis_mainnet.go, genesis/genesis_fuji.go). */
export const MAX_VALIDATOR_STAKE_NAVAX = 3_000_000 * 1e9;
/** reward.PercentDenominator: shares are millionths. */
const PERCENT_DENOMINATOR = 1_000_000;

/**
 * Of a renewed cycle's validation reward, the part restaked into the stake (AvalancheGo
 * vms/platformvm/txs/executor/proposal_tx_executor.go, restakeAutoRenewedValidatorOnCommit): the
 * node's own accrued figure grown from this cycle to the next when both show it; else
 * reward.Split (vms/platformvm/reward/calculator.go) of the potential reward by
 * AutoCompoundRewardShares, capped so the weight stays within MaxValidatorStake (the cycle's
 * delegatee commission, restaked beside it, is not known here: with it the cap would restake less).
 * Undefined for a plain validation, or one whose shares are unknown.
 */
export function restakedOf(period: TrackedPeriod, next?: { restakedValidationNAvax?: number }): { restakedNAvax: number; estimated: boolean } | undefined {
  const reward = period.potentialRewardNAvax;
  if (!period.autoRenewed || reward === undefined) return undefined;
  if (period.restakedValidationNAvax !== undefined && next?.restakedValidationNAvax !== undefined) {
    return { restakedNAvax: Math.min(reward, Math.max(0, next.restakedValidationNAvax - period.restakedValidationNAvax)), estimated: false };
  }
  if (period.restakeShare === undefined) return undefined;
  const split = rewardSplit(reward, period.restakeShare);
  const capacity = period.weightNAvax !== undefined ? Math.max(0, MAX_VALIDATOR_STAKE_NAVAX - period.weightNAvax) : Infinity;
  return { restakedNAvax: Math.min(split, capacity), estimated: true };
}

/**
 * reward.Split (vms/platformvm/reward/calculator.go): the part of `total` nAVAX that `share` (0–1,
 * millionths on the chain) takes; the remainder is floored, so the share's part rounds up.
 */
export function rewardSplit(total: number, share: number): number {
  const shares = BigInt(Math.round(share * PERCENT_DENOMINATOR));
  const amount = BigInt(total);
  return Number(amount - ((BigInt(PERCENT_DENOMINATOR) - shares) * amount) / BigInt(PERCENT_DENOMINATOR));
}
