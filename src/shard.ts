/**
 * Sharding a fleet across replicas (`--shard I/N`): a target belongs to the shard its name hashes
 * to, stable across replicas and restarts. Prometheus scrapes every replica; Alertmanager
 * deduplicates their alerts.
 */
import { createHash } from 'node:crypto';

export interface Shard {
  index: number;
  count: number;
}

export function inShard(name: string, shard: Shard | undefined): boolean {
  if (!shard || shard.count <= 1) return true;
  return createHash('sha256').update(name).digest().readUInt32BE(0) % shard.count === shard.index;
}

/** `I/N`, or `auto/N` taking I from a hostname ending in `-<ordinal>` (a StatefulSet pod). */
export function parseShard(text: string, hostname = process.env.HOSTNAME ?? ''): Shard {
  const m = /^(auto|\d+)\/(\d+)$/.exec(text);
  if (!m) throw new Error('--shard must be I/N (e.g. 0/3) or auto/N');
  const count = Number(m[2]);
  const index = m[1] === 'auto' ? Number(/-(\d+)$/.exec(hostname)?.[1] ?? NaN) : Number(m[1]);
  if (Number.isNaN(index)) throw new Error(`--shard auto/N needs a hostname ending in -<ordinal> (got "${hostname}")`);
  if (count < 1 || index >= count) throw new Error(`--shard ${text}: I must be below N`);
  return { index, count };
}
