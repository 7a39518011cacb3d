/**
 * "Was it paid?" from the node's evidence: the amounts of getRewardUTXOs' hex-encoded UTXOs
 * (vms/platformvm/service.go, utils/formatting/encoding.go, vms/platformvm/txs/codec.go) and what
 * they say about a period (vms/platformvm/txs/executor/proposal_tx_executor.go: commit pays the
 * potential reward and the commission, abort the commission alone).
 */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { completedFor, MAX_VALIDATOR_STAKE_NAVAX, restakedOf, verdictFromRewardUtxos, withDataApi, withOutcome, MAX_PERIOD_OUTCOMES, type PeriodOutcome, type TrackedPeriod } from '../../src/model/periods.js';
import { encodeRewardUtxo, parseCompletedValidations, parseRewardUtxos, rewardAmount } from '../../src/parse/rewards.js';

const tx = createHash('sha256').update('tx').digest();
const period: TrackedPeriod = { txId: '2Z4', startTime: 1_000, endTime: 2_000, potentialRewardNAvax: 117_431_493_426, renews: false, autoRenewed: false };

describe('reward UTXOs', () => {
  it('reads the amount of a TransferOutput and of a stakeable LockOut', () => {
    expect(rewardAmount(encodeRewardUtxo(tx, 2, 117_431_493_426))).toBe(117_431_493_426);
    // A LockOut (type 22): locktime, then the TransferOutput with its type ID.
    const plain = Buffer.from(encodeRewardUtxo(tx, 3, 5_000).slice(2), 'hex').subarray(0, -4);
    const locked = Buffer.concat([plain.subarray(0, 70), Buffer.from([0, 0, 0, 22]), Buffer.alloc(8, 1), plain.subarray(70)]);
    const checksum = createHash('sha256').update(locked).digest().subarray(-4);
    expect(rewardAmount(`0x${Buffer.concat([locked, checksum]).toString('hex')}`)).toBe(5_000);
  });

  it('refuses a wrong checksum, another output type, an encoding it does not read, too many UTXOs', () => {
    const good = encodeRewardUtxo(tx, 2, 1);
    expect(rewardAmount(`${good.slice(0, -2)}00`)).toBeUndefined();
    expect(parseRewardUtxos({ numFetched: '1', utxos: [`${good.slice(0, -2)}00`], encoding: 'hex' })).toMatchObject({ ok: false });
    expect(parseRewardUtxos({ utxos: [good], encoding: 'cb58' })).toMatchObject({ ok: false });
    expect(parseRewardUtxos({ utxos: Array(65).fill(good), encoding: 'hex' })).toMatchObject({ ok: false });
    expect(parseRewardUtxos({ numFetched: '0', utxos: [], encoding: 'hex' })).toEqual({ ok: true, value: [] });
  });
});

describe('a period from its reward UTXOs', () => {
  it('commit: the potential reward is among them', () => {
    expect(verdictFromRewardUtxos(period, [117_431_493_426, 9_876_543])).toMatchObject({ rewarded: true, validationRewardNAvax: 117_431_493_426, delegateeRewardNAvax: 9_876_543 });
  });
  it('abort: the commission alone is paid, not the reward', () => {
    expect(verdictFromRewardUtxos(period, [9_876_543])).toMatchObject({ rewarded: false, validationRewardNAvax: 0, delegateeRewardNAvax: 9_876_543 });
    expect(verdictFromRewardUtxos(period, [])).toMatchObject({ rewarded: false, validationRewardNAvax: 0 });
  });
});

describe('the Data API beside the node', () => {
  const outcome: PeriodOutcome = { ...period, rewarded: false, validationRewardNAvax: 0, evidence: 'platform.getRewardUTXOs: 1 reward UTXO, no validation reward', decidedAt: 2_100 };
  const records = parseCompletedValidations([
    { validationStatus: 'completed', txHash: '2Z4', startTimestamp: 1_000, endTimestamp: 2_000, rewards: { validationRewardAmount: '117431493426', delegationRewardAmount: '0' } },
    { validationStatus: 'active', txHash: 'x', startTimestamp: 2_000, endTimestamp: 3_000 },
    { validationStatus: 'completed', startTimestamp: 'soon', endTimestamp: 2_000, rewards: {} },
  ]);

  it('keeps readable completed records only, and finds the period by its transaction', () => {
    expect(records).toEqual([{ txHash: '2Z4', startTimestamp: 1_000, endTimestamp: 2_000, validationRewardNAvax: 117_431_493_426, delegationRewardNAvax: 0 }]);
    expect(completedFor(period, records)).toBe(records[0]);
  });

  it('the node’s word counts; a disagreement is said', () => {
    expect(withDataApi(outcome, records[0])).toMatchObject({ rewarded: false, disagreement: expect.stringContaining('the Data API lists a validation reward of 117431493426 nAVAX') });
  });

  it('where the node cannot tell, the Data API does', () => {
    expect(withDataApi({ ...outcome, rewarded: null, evidence: 'unknown' }, records[0])).toMatchObject({ rewarded: true, validationRewardNAvax: 117_431_493_426 });
  });

  it('an outcome is kept once, newest first, a few at most', () => {
    let kept: PeriodOutcome[] = [];
    for (let i = 0; i < 8; i++) kept = withOutcome(kept, { ...outcome, txId: `t${i}`, startTime: i });
    kept = withOutcome(kept, { ...outcome, txId: 't7', startTime: 7 });
    expect(kept.map((o) => o.txId)).toEqual(['t7', 't6', 't5', 't4', 't3'].slice(0, MAX_PERIOD_OUTCOMES));
  });
});

describe("a renewed cycle's reward: restaked and paid out (proposal_tx_executor.go, restakeAutoRenewedValidatorOnCommit)", () => {
  // reward.Split (vms/platformvm/reward/calculator.go): the restaked part is AutoCompoundRewardShares
  // millionths of the reward, the rounding in its favour; capped so the weight stays within
  // MaxValidatorStake (3 M AVAX on mainnet and Fuji, genesis/genesis_mainnet.go); the rest is paid out.
  const cycle: TrackedPeriod = { ...period, renews: true, autoRenewed: true, restakeShare: 0.5, weightNAvax: 2_000 * 1e9 };

  it('split by the shares', () => {
    expect(restakedOf(cycle)).toEqual({ restakedNAvax: 58_715_746_713, estimated: true });
    expect(restakedOf({ ...cycle, restakeShare: 0 })).toEqual({ restakedNAvax: 0, estimated: true });
    expect(restakedOf({ ...cycle, restakeShare: 1 })).toEqual({ restakedNAvax: 117_431_493_426, estimated: true });
    // 333,333 millionths of 117,431,493,426: the remainder 666,667 × V / 1e6 is floored, the restaked part rounds up
    expect(restakedOf({ ...cycle, restakeShare: 0.333333 })).toEqual({ restakedNAvax: 39_143_791_999, estimated: true });
  });

  it('capped at MaxValidatorStake: only what fits is restaked', () => {
    expect(restakedOf({ ...cycle, restakeShare: 1, weightNAvax: MAX_VALIDATOR_STAKE_NAVAX - 10e9 })).toEqual({ restakedNAvax: 10e9, estimated: true });
    expect(restakedOf({ ...cycle, restakeShare: 1, weightNAvax: MAX_VALIDATOR_STAKE_NAVAX })).toEqual({ restakedNAvax: 0, estimated: true });
  });

  it("the node's own accrued figure, when both cycles show it, is what was restaked", () => {
    expect(restakedOf({ ...cycle, restakedValidationNAvax: 1_000 }, { restakedValidationNAvax: 58_715_747_713 })).toEqual({ restakedNAvax: 58_715_746_713, estimated: false });
  });

  it('no split for a plain validation or one that exits', () => {
    expect(restakedOf(period)).toBeUndefined();
    expect(restakedOf({ ...cycle, restakeShare: undefined })).toBeUndefined();
  });
});
