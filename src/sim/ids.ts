/** Deterministic CB58 IDs (base58 + 4-byte sha256 checksum), so simulated NodeIDs and chain IDs look real. */
import { createHash } from 'node:crypto';

const ALPHABET = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';

export function base58(bytes: Uint8Array): string {
  let n = BigInt(`0x${Buffer.from(bytes).toString('hex') || '0'}`);
  let out = '';
  while (n > 0n) {
    out = ALPHABET[Number(n % 58n)]! + out;
    n /= 58n;
  }
  for (const b of bytes) {
    if (b !== 0) break;
    out = `1${out}`;
  }
  return out;
}

export function cb58(bytes: Uint8Array): string {
  const checksum = createHash('sha256').update(bytes).digest().subarray(-4);
  return base58(Buffer.concat([bytes, checksum]));
}

function seeded(seed: string, length: number): Buffer {
  return createHash('sha256').update(seed).digest().subarray(0, length);
}

export const nodeIdFor = (seed: string) => `NodeID-${cb58(seeded(`node:${seed}`, 20))}`;
export const blockchainIdFor = (seed: string) => cb58(seeded(`chain:${seed}`, 32));
export const PRIMARY_SUBNET = '11111111111111111111111111111111LpoYY';

/** A small deterministic PRNG (mulberry32) for churn and jitter that tests can reproduce. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function hashString(text: string): number {
  let h = 2166136261;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 16777619);
  return h >>> 0;
}

/** The EVM chain ID the simulated Data API gives the L1 a node named `name` tracks. */
export const l1EvmChainIdFor = (name: string) => String(990_000 + (hashString(name) % 9_000));
