/**
 * "Was it paid?" from platform.getRewardUTXOs, robust to answers AvalancheGo never gives (issue
 * 45.6). What a paid period's UTXOs are (vms/platformvm/txs/executor/proposal_tx_executor.go,
 * rewardValidatorTx): on commit one UTXO of exactly the potential reward, then one of the delegatee
 * commission when there is one; on abort the commission alone; and the list is always sent
 * (vms/platformvm/service.go, GetRewardUTXOs: `make([]string, n)`). The answers are parsed by the
 * probe's own parser, as the node sent them.
 */
import { describe, expect, it } from 'vitest';
import { periodEntrySchema } from '../../src/model/periods.js';
import type { ValidatorReport } from '../../src/model/validator.js';
import { encodeRewardUtxo, parseRewardUtxos } from '../../src/parse/rewards.js';
import { followPeriods, type AskRewardUtxos } from '../../src/probes/periods.js';
import { Ledger } from '../../src/state/ledger.js';

const TX = '2H7pEcXNnmKpYZ6VxNY2nRZ6Kx1BT2qgcM8J9o8zWLgqDTN5E8';
const START = Date.UTC(2026, 10, 13) / 1000;
const END = START + 14 * 86_400;
const POTENTIAL = 117_431_493_426;
const COMMISSION = 9_876_543;
const utxo = (index: number, amount: number) => encodeRewardUtxo(Buffer.alloc(32, 3), index, amount);

/** The node's answer as JSON, through the probe's parser. */
const answering = (result: unknown): AskRewardUtxos => async () => {
  const parsed = parseRewardUtxos(result);
  return parsed.ok ? { ok: true, amounts: parsed.value } : { ok: false, error: parsed.error };
};

/** A period followed while it ran, then the poll after its end (the node no longer a validator), long after the end: the verdict is final. */
async function judged(result: unknown) {
  const ledger = new Ledger(periodEntrySchema);
  const validating: ValidatorReport = { l1: [], problems: [], nodeId: 'NodeID-Q4STe8P7iKKrZgDaTxY5yGdsUrCj1G4XY', primary: { txId: TX, startTime: START, endTime: END, potentialRewardNAvax: POTENTIAL } };
  await followPeriods('v1', validating, ledger, answering(result), undefined, END - 60);
  const { decided } = await followPeriods('v1', { l1: [], problems: [], nodeId: validating.nodeId! }, ledger, answering(result), undefined, END + 7 * 3600);
  return decided;
}

describe('reward UTXOs as AvalancheGo pays them, and nothing else', () => {
  it('commit (the potential reward, then the commission) is paid; abort (the commission alone, or nothing) is not', async () => {
    expect(await judged({ numFetched: '2', utxos: [utxo(2, POTENTIAL), utxo(3, COMMISSION)], encoding: 'hex' })).toMatchObject({ rewarded: true, validationRewardNAvax: POTENTIAL, delegateeRewardNAvax: COMMISSION });
    expect(await judged({ numFetched: '1', utxos: [utxo(2, POTENTIAL)], encoding: 'hex' })).toMatchObject({ rewarded: true });
    expect(await judged({ numFetched: '1', utxos: [utxo(2, COMMISSION)], encoding: 'hex' })).toMatchObject({ rewarded: false, delegateeRewardNAvax: COMMISSION });
    expect(await judged({ numFetched: '0', utxos: [], encoding: 'hex' })).toMatchObject({ rewarded: false });
  });

  it('a list from a P-Chain still bootstrapping is no answer: a resync past the end judges nothing until the chain is current', async () => {
    // vms/platformvm/state/state.go: the lists are the replayed height's (the validation absent), info.isBootstrapped false meanwhile
    const ledger = new Ledger(periodEntrySchema);
    const nodeId = 'NodeID-Q4STe8P7iKKrZgDaTxY5yGdsUrCj1G4XY';
    const paid = answering({ numFetched: '1', utxos: [utxo(2, POTENTIAL)], encoding: 'hex' });
    await followPeriods('v1', { l1: [], problems: [], nodeId, primary: { txId: TX, startTime: START, endTime: END, potentialRewardNAvax: POTENTIAL } }, ledger, paid, undefined, END - 60);
    const replaying: ValidatorReport = { l1: [], nodeId, pChainBootstrapping: true, problems: [{ call: 'platform.getCurrentValidators', reason: 'bootstrapping', error: 'not known yet' }] };
    const during = await followPeriods('v1', replaying, ledger, paid, undefined, END + 7 * 3600);
    expect(during.decided).toBeUndefined();
    expect(during.entry.tracking?.txId).toBe(TX);
    const { decided } = await followPeriods('v1', { l1: [], problems: [], nodeId }, ledger, paid, undefined, END + 7 * 3600 + 60);
    expect(decided).toMatchObject({ txId: TX, rewarded: true });
  });

  it('`{}` and `utxos: null` are no answer: the outcome is unknown, not "ended unpaid"', async () => {
    for (const result of [{}, { numFetched: '0', utxos: null, encoding: 'hex' }]) {
      const outcome = await judged(result);
      expect(outcome, JSON.stringify(result)).toMatchObject({ rewarded: null });
      expect(outcome!.evidence).toContain('"utxos" must be an array');
    }
  });

  it('two 1-nAVAX UTXOs against a 117 AVAX potential reward are not "paid": unknown', async () => {
    const outcome = await judged({ numFetched: '2', utxos: [utxo(2, 1), utxo(3, 1)], encoding: 'hex' });
    expect(outcome).toMatchObject({ rewarded: null });
    expect(outcome!.evidence).toContain('neither branch of the reward vote');
    expect(await judged({ numFetched: '3', utxos: [utxo(2, POTENTIAL), utxo(3, 1), utxo(4, 1)], encoding: 'hex' })).toMatchObject({ rewarded: null });
  });

  it('a period that gives way to another before its end time did not end: nothing is judged (a ledger of another machine, a simulator started anew)', async () => {
    // AvalancheGo removes a validator only when the chain's time is its end time
    // (vms/platformvm/txs/executor/proposal_tx_executor.go, rewardValidatorTx: ErrRemoveStakerTooEarly).
    const ledger = new Ledger(periodEntrySchema);
    const nodeId = 'NodeID-Q4STe8P7iKKrZgDaTxY5yGdsUrCj1G4XY';
    const unpaid = answering({ numFetched: '0', utxos: [], encoding: 'hex' });
    await followPeriods('v1', { l1: [], problems: [], nodeId, primary: { txId: TX, startTime: START, endTime: END, potentialRewardNAvax: POTENTIAL } }, ledger, unpaid, undefined, START + 3600);
    const other = { txId: '2jHkVqUuy7uZ9W5GXn4yTyBfQDMsN6RBJ2kQh3nVn8dw6KycT9', startTime: START + 86_400, endTime: START + 31 * 86_400, potentialRewardNAvax: POTENTIAL };
    const early = await followPeriods('v1', { l1: [], problems: [], nodeId, primary: other }, ledger, unpaid, undefined, START + 86_400 + 60);
    expect(early.decided).toBeUndefined();
    expect(early.entry).toEqual({ tracking: expect.objectContaining({ txId: other.txId }), outcomes: [] });
    // …while a new validation after the old one's end time is still the old one ended, and judged
    const later = new Ledger(periodEntrySchema);
    await followPeriods('v1', { l1: [], problems: [], nodeId, primary: { txId: TX, startTime: START, endTime: END, potentialRewardNAvax: POTENTIAL } }, later, unpaid, undefined, END - 60);
    const after = await followPeriods('v1', { l1: [], problems: [], nodeId, primary: { ...other, startTime: END + 600, endTime: END + 30 * 86_400 } }, later, unpaid, undefined, END + 7 * 3600);
    expect(after.decided).toMatchObject({ rewarded: false, txId: TX });
  });
});
