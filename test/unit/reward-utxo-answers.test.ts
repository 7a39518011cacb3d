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
});
