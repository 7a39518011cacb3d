/**
 * What the chain-data source (Data API, Metrics API) records into the store: reference heights,
 * chain status, network totals, TPS and each known NodeID's validator record. Plain values, like
 * target observations; the height lag derived from them and from the nodes' own heights is
 * computed once, by the store (see heightLags).
 */

import type { CompletedValidation } from './periods.js';
import type { ValidatorRecordHealth, VersionStake } from './validator.js';

export const VALIDATOR_STATUSES = ['active', 'pending', 'completed', 'removed', 'none'] as const;
export type ValidatorStatus = (typeof VALIDATOR_STATUSES)[number];

export interface ChainInfo {
  evmChainId: string;
  network: string;
  name?: string;
  /** The chain's blockchain ID on the P-Chain: how an L1 node names its chain check. */
  platformChainId?: string;
  /** The name of the node health check this chain's height is compared with: `C`, or the L1's platformChainId. */
  check?: string;
  statusOk?: boolean;
  height?: number;
  blockTimestamp?: number;
  avgTps?: number;
}

export interface ValidatorInfo {
  nodeId: string;
  target: string;
  status: ValidatorStatus;
  endTimestamp?: number;
  delegators?: number;
  /** The live record's uptimePerformance and validatorHealth, when it carries them. */
  health?: ValidatorRecordHealth;
  /** The last completed validations with their rewards, newest first (at most MAX_COMPLETED). */
  completed?: CompletedValidation[];
  checkedAt: number;
}

export interface ChainDataSnapshot {
  refreshedAt?: number;
  chains: Map<string, ChainInfo>;
  validators: Map<string, ValidatorInfo>;
  networks: Map<string, { validators?: number; delegators?: number; versionStake?: VersionStake[] }>;
  /** Problems of the last refresh (redacted), for the status view. */
  errors: string[];
}

export function emptySnapshot(): ChainDataSnapshot {
  return { chains: new Map(), validators: new Map(), networks: new Map(), errors: [] };
}

export interface ChainLag {
  target: string;
  chain: string;
  lagBlocks: number;
}

/** A node's own chain heights, as its health checks report them. */
export interface NodeHeights {
  target: string;
  network: string;
  heights: Array<{ chain: string; height: number }>;
}

/**
 * Height lag of each node's chains against the best-known network height: the Data API's latest
 * block for the chain (C ↔ 43114/43113, an L1 ↔ its EVM chain through `platformChainId`) and the
 * highest height among our own nodes on the same network and chain, whichever is higher. Without
 * a Data API the fleet alone is the reference, so the signal works offline too.
 */
export function heightLags(nodes: Iterable<NodeHeights>, snapshot: ChainDataSnapshot | undefined): ChainLag[] {
  const reference = new Map<string, number>();
  const raise = (key: string, height: number) => reference.set(key, Math.max(reference.get(key) ?? 0, height));
  for (const chain of snapshot?.chains.values() ?? []) {
    if (chain.height !== undefined && chain.check) raise(`${chain.network}/${chain.check}`, chain.height);
  }
  const all: Array<{ target: string; key: string; chain: string; height: number }> = [];
  for (const node of nodes) {
    for (const { chain, height } of node.heights) {
      const key = `${node.network}/${chain}`;
      all.push({ target: node.target, key, chain, height });
      raise(key, height);
    }
  }
  return all.map(({ target, key, chain, height }) => ({ target, chain, lagBlocks: Math.max(0, reference.get(key)! - height) }));
}
