/**
 * Whether a validation was paid, as the node and the Data API tell it.
 *
 * platform.getRewardUTXOs (vms/platformvm/service.go; deprecated, still served):
 * `{"numFetched":"2","utxos":["0x…","0x…"],"encoding":"hex"}`. Each UTXO is
 * `txs.GenesisCodec.Marshal(CodecVersion, utxo)` in `formatting.Hex` (hex of the bytes and a
 * 4-byte SHA-256 checksum, utils/formatting/encoding.go): codec version (u16), UTXOID (txID 32
 * bytes, output index u32), asset ID (32 bytes), the output's type ID (u32) and the output. A
 * reward is a secp256k1fx.TransferOutput (type 7: amount u64 first) or, locked, a
 * stakeable.LockOut (type 22: locktime u64, then a TransferOutput with its type ID)
 * (vms/platformvm/txs/codec.go). Only the amounts are read.
 */
import { createHash } from 'node:crypto';
import type { CompletedValidation } from '../model/periods.js';
import { describe, isObject, type ParseOutcome } from './avalanchego.js';
import { epochSeconds, isCb58Id, unsigned } from './validator.js';

/** A node pays a validator at most a handful of reward UTXOs per transaction. */
const MAX_UTXOS = 64;
const MAX_UTXO_HEX = 4096;
const TRANSFER_OUTPUT = 7;
const STAKEABLE_LOCK_OUT = 22;
const HEADER = 2 + 32 + 4 + 32;
/** Completed validations kept per node (the Data API lists every past one). */
const MAX_COMPLETED = 10;

/**
 * The amounts of the reward UTXOs. AvalancheGo always sends the list (`make([]string, n)`: `[]` when
 * there are none), so a missing or `null` one is a bad shape, not "no reward"; so is a `numFetched`
 * that does not count it.
 */
export function parseRewardUtxos(value: unknown): ParseOutcome<number[]> {
  if (!isObject(value)) return { ok: false, error: 'result is not an object' };
  const utxos = value.utxos;
  if (!Array.isArray(utxos)) return { ok: false, error: `"utxos" must be an array, got ${describe(utxos)}` };
  if (utxos.length > MAX_UTXOS) return { ok: false, error: `"utxos" must be an array of at most ${MAX_UTXOS}` };
  if (value.numFetched !== undefined && unsigned(value.numFetched) !== utxos.length) return { ok: false, error: `numFetched does not count the ${utxos.length} UTXOs sent` };
  if (value.encoding !== undefined && value.encoding !== 'hex') return { ok: false, error: `encoding "${String(value.encoding).slice(0, 20)}" not read (ask for hex)` };
  const amounts: number[] = [];
  for (const utxo of utxos) {
    const amount = typeof utxo === 'string' ? rewardAmount(utxo) : undefined;
    if (amount === undefined) return { ok: false, error: 'a reward UTXO is not a hex-encoded secp256k1fx or stakeable output' };
    amounts.push(amount);
  }
  return { ok: true, value: amounts };
}

/** The amount (nAVAX) of one hex-encoded reward UTXO, or undefined when it is not one. */
export function rewardAmount(hex: string): number | undefined {
  if (hex.length > MAX_UTXO_HEX || !/^0x(?:[0-9a-fA-F]{2})+$/.test(hex)) return undefined;
  const checked = Buffer.from(hex.slice(2), 'hex');
  if (checked.length < HEADER + 4 + 8 + 4) return undefined;
  const bytes = checked.subarray(0, checked.length - 4);
  const checksum = createHash('sha256').update(bytes).digest().subarray(-4);
  if (!checksum.equals(checked.subarray(checked.length - 4))) return undefined;
  let at = HEADER;
  let type = bytes.readUInt32BE(at);
  at += 4;
  if (type === STAKEABLE_LOCK_OUT) {
    if (bytes.length < at + 8 + 4 + 8) return undefined;
    at += 8;
    type = bytes.readUInt32BE(at);
    at += 4;
  }
  if (type !== TRANSFER_OUTPUT || bytes.length < at + 8) return undefined;
  const amount = bytes.readBigUInt64BE(at);
  return amount <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(amount) : undefined;
}

/** Encodes a reward UTXO as AvalancheGo does (for the simulator and tests): a TransferOutput to one address. */
export function encodeRewardUtxo(txId: Buffer, outputIndex: number, amountNAvax: bigint | number, asset = Buffer.alloc(32, 0x21), address = Buffer.alloc(20, 0x42)): string {
  const out = Buffer.alloc(HEADER + 4 + 8 + 8 + 4 + 4 + 20);
  let at = 0;
  at = out.writeUInt16BE(0, at);
  at += txId.copy(out, at, 0, 32);
  at = out.writeUInt32BE(outputIndex, at);
  at += asset.copy(out, at, 0, 32);
  at = out.writeUInt32BE(TRANSFER_OUTPUT, at);
  at = out.writeBigUInt64BE(BigInt(amountNAvax), at);
  at = out.writeBigUInt64BE(0n, at); // locktime
  at = out.writeUInt32BE(1, at); // threshold
  at = out.writeUInt32BE(1, at); // one address
  address.copy(out, at, 0, 20);
  const checksum = createHash('sha256').update(out).digest().subarray(-4);
  return `0x${Buffer.concat([out, checksum]).toString('hex')}`;
}

/**
 * The Data API's completed validations of a node (CompletedValidatorDetails: `txHash`,
 * `startTimestamp`, `endTimestamp`, `rewards.validationRewardAmount`, `delegationRewardAmount`, in
 * nAVAX strings), newest first. A record without readable rewards is left out.
 */
export function parseCompletedValidations(records: ReadonlyArray<Record<string, unknown>>): CompletedValidation[] {
  const out: CompletedValidation[] = [];
  for (const r of records) {
    if (r.validationStatus !== 'completed' || !isObject(r.rewards)) continue;
    const start = epochSeconds(r.startTimestamp);
    const end = epochSeconds(r.endTimestamp);
    const validation = unsigned(r.rewards.validationRewardAmount);
    if (start === undefined || end === undefined || validation === undefined) continue;
    const delegation = unsigned(r.rewards.delegationRewardAmount);
    out.push({ ...(isCb58Id(r.txHash) ? { txHash: r.txHash } : {}), startTimestamp: start, endTimestamp: end, validationRewardNAvax: validation, ...(delegation !== undefined ? { delegationRewardNAvax: delegation } : {}) });
  }
  return out.sort((a, b) => b.endTimestamp - a.endTimestamp).slice(0, MAX_COMPLETED);
}
