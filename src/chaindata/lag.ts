/**
 * Height lag of each node's chains against the best-known network height: the Data API's latest
 * block for the chain (C ↔ 43114/43113, an L1 ↔ its EVM chain through `platformChainId`) and the
 * highest height among our own nodes on the same network and chain, whichever is higher. Without
 * a Data API the fleet alone is the reference, so the signal works offline too.
 */
import { C_CHAIN, type NodeTarget } from '../config/load.js';
import type { Store } from '../store.js';
import type { ChainDataSnapshot } from './chaindata.js';

export interface ChainLag {
  target: string;
  chain: string;
  lagBlocks: number;
}

export function chainLags(nodes: NodeTarget[], store: Store, snapshot: ChainDataSnapshot | undefined): ChainLag[] {
  const heights: Array<{ target: string; key: string; chain: string; height: number }> = [];
  const reference = new Map<string, number>();
  const raise = (key: string, height: number) => reference.set(key, Math.max(reference.get(key) ?? 0, height));

  for (const chain of snapshot?.chains.values() ?? []) {
    if (chain.height === undefined) continue;
    const check = chain.evmChainId === C_CHAIN[chain.network] ? 'C' : chain.platformChainId;
    if (check) raise(`${chain.network}/${check}`, chain.height);
  }
  for (const node of nodes) {
    const health = store.get(node.name)?.observation.endpoints.filter((e) => e.endpoint === 'health' && e.report) ?? [];
    const seen = new Set<string>();
    for (const e of health) {
      for (const check of e.report!.checks) {
        const height = check.chain?.lastAcceptedHeight;
        if (height === undefined || seen.has(check.name)) continue;
        seen.add(check.name);
        const key = `${node.network}/${check.name}`;
        heights.push({ target: node.name, key, chain: check.name, height });
        raise(key, height);
      }
    }
  }
  return heights.map(({ target, key, chain, height }) => ({ target, chain, lagBlocks: Math.max(0, reference.get(key)! - height) }));
}
