/**
 * A simulated validator's periods and what happens when one ends, as AvalancheGo does it
 * (vms/platformvm/txs/executor/proposal_tx_executor.go):
 *  - the validator stays in the current set past its `endTime` until the reward proposal is
 *    accepted (here: REWARD_DELAY_SECONDS later);
 *  - the vote commits when the validators whose own cumulative measure of the validator meets the
 *    requirement hold more than half of the stake (block/executor/options.go prefersCommit, each
 *    with its own measure since the period's start; Snowman over stake): sim/observed.ts voteCommits;
 *    figures set through the control API (rewardingStakePercent) are played as those measures;
 *  - RewardValidatorTx (a plain validator): removed on both branches; commit pays the potential
 *    reward and the delegatee commission as reward UTXOs of the staking transaction, abort pays the
 *    commission alone;
 *  - RewardAutoRenewedValidatorTx (ACP-236): with a next period, commit keeps the validator with
 *    `startTime` = the old `endTime`, restakes its AutoCompoundRewardShares of the reward
 *    (`restakedValidationRewards`, `restakedDelegateeRewards`, later v1.15 releases) and pays out the rest; abort
 *    removes it. With `nextPeriod` 0 it is removed on both branches. Either way its reward UTXOs
 *    belong to the reward transaction, so `getRewardUTXOs` of the staking transaction lists none.
 * The simulated Data API lists a completed validation (with its rewards) for every removed one.
 */
import { createHash } from 'node:crypto';
import { rewardSplit } from '../model/periods.js';
import { encodeRewardUtxo } from '../parse/rewards.js';
import { blockchainIdFor } from './ids.js';

/** Seconds between a period's end and the accepted reward proposal (a block or two). */
export const REWARD_DELAY_SECONDS = 2;
export const SIM_POTENTIAL_REWARD = 117_431_493_426;
/** The commission of the four simulated delegators (2 % of their rewards). */
export const SIM_DELEGATEE_REWARD = 9_876_543;
/** autoCompoundRewardShares: 300000 millionths. */
const AUTO_COMPOUND_SHARE = 0.3;

export interface SimPeriod {
  txId: string;
  /** What the txID is made from (and the UTXOs' UTXOID bytes). */
  seed: string;
  startTime: number;
  endTime: number;
  potentialReward: number;
}

export interface EndedSimPeriod extends SimPeriod {
  committed: boolean;
  /** Still in the set (an auto-renewed commit), else removed. */
  renewed: boolean;
  autoRenewed: boolean;
  validationReward: number;
  delegateeReward: number;
}

/** What the periods need of the node: how the reward vote on its period goes now, and its auto-renewal setting. */
export interface PeriodSubject {
  readonly name: string;
  /** Whether the reward vote taken at `now` (epoch seconds) commits (a stake majority of validators whose own measure meets the requirement, sim/observed.ts voteCommits). */
  commits(now: number): boolean;
  /** undefined: a plain validator; 0: auto-renewed, exits; > 0: renews for that many seconds. */
  nextPeriodSeconds(): number | undefined;
}

export class SimPeriods {
  current?: SimPeriod;
  readonly ended: EndedSimPeriod[] = [];
  restakedValidation = 0;
  restakedDelegatee = 0;
  private validations = 0;

  constructor(private readonly subject: PeriodSubject, startTime: number, endTime: number) {
    this.current = this.newPeriod(startTime, endTime);
  }

  /** A new validation (a new staking transaction), e.g. the operator staking again after one ended. */
  start(startTime: number, endTime: number): void {
    this.current = this.newPeriod(startTime, endTime);
    this.restakedValidation = 0;
    this.restakedDelegatee = 0;
  }

  private newPeriod(startTime: number, endTime: number): SimPeriod {
    const seed = `${this.subject.name}:validation-tx${this.validations++ === 0 ? '' : `-${this.validations}`}`;
    return { txId: blockchainIdFor(seed), seed, startTime: Math.floor(startTime), endTime: Math.floor(endTime), potentialReward: SIM_POTENTIAL_REWARD };
  }

  /** Plays the reward proposal of a period that ended REWARD_DELAY_SECONDS ago; call before answering. */
  settle(now: number): void {
    const period = this.current;
    if (!period || now < period.endTime + REWARD_DELAY_SECONDS) return;
    const committed = this.subject.commits(now);
    const next = this.subject.nextPeriodSeconds();
    const autoRenewed = next !== undefined;
    const renewed = committed && next !== undefined && next > 0;
    const ended: EndedSimPeriod = { ...period, committed, renewed, autoRenewed, validationReward: committed ? period.potentialReward : 0, delegateeReward: SIM_DELEGATEE_REWARD };
    this.ended.unshift(ended);
    this.ended.splice(20);
    if (renewed) {
      // reward.Split (vms/platformvm/reward/calculator.go) of each by AutoCompoundRewardShares, far under MaxValidatorStake here.
      this.restakedValidation += rewardSplit(period.potentialReward, AUTO_COMPOUND_SHARE);
      this.restakedDelegatee += rewardSplit(SIM_DELEGATEE_REWARD, AUTO_COMPOUND_SHARE);
      this.current = { ...period, startTime: period.endTime, endTime: period.endTime + next };
    } else {
      this.current = undefined;
    }
    this.settle(now);
  }

  /** platform.getRewardUTXOs of a staking transaction: hex-encoded UTXOs (none for auto-renewed validators). */
  rewardUtxos(txId: string): string[] {
    const ended = this.ended.find((p) => p.txId === txId && !p.renewed);
    if (!ended || ended.autoRenewed) return [];
    const txBytes = createHash('sha256').update(ended.seed).digest();
    // Output indexes after the transaction's outputs and stake (one each here): commit pays the reward first.
    const amounts = ended.committed ? [ended.validationReward, ended.delegateeReward] : [ended.delegateeReward];
    return amounts.filter((a) => a > 0).map((amount, i) => encodeRewardUtxo(txBytes, 2 + i, amount));
  }

  /** The removed validations, as the Data API's CompletedValidatorDetails. */
  completed(nodeId: string): Array<Record<string, unknown>> {
    return this.ended
      .filter((p) => !p.renewed)
      .map((p) => ({
        txHash: p.txId,
        nodeId,
        subnetId: '11111111111111111111111111111111LpoYY',
        amountStaked: '2000000000000',
        delegationFee: '2.0',
        startTimestamp: p.startTime,
        endTimestamp: p.endTime,
        delegatorCount: 4,
        amountDelegated: '120000000000',
        rewards: { validationRewardAmount: String(p.validationReward), delegationRewardAmount: String(p.delegateeReward) },
        validationStatus: 'completed',
      }));
  }
}
