/** A simulated L1's current validators as platform.getCurrentValidators {subnetID} answers them (ACP-77 shapes). */
import { blockchainIdFor, nodeIdFor } from './ids.js';
import { DAY, SIM_L1_BALANCE } from './validator-facts.js';

export interface L1Entry {
  validationID: string;
  nodeID: string;
  publicKey: string;
  startTime: string;
  weight: string;
  minNonce: string;
  balance: string;
}

/** This node's validation (and its further ones), an inactive one of another node, and 5,000 more for `l1-many-validations`. */
export function l1Entries(node: { name: string; nodeId: string; validationId: string; balance: number | string; more: Array<{ validationId: string; balance: number }>; startTime: number; many: boolean }): L1Entry[] {
  const entry = (nodeID: string, validationID: string, balance: number | string, start: number): L1Entry => ({
    validationID,
    nodeID,
    publicKey: `0x${'8f'.repeat(48)}`,
    startTime: String(start),
    weight: '20',
    minNonce: '0',
    balance: String(balance),
  });
  const entries = [
    entry(node.nodeId, node.validationId, node.balance, node.startTime),
    entry(nodeIdFor(`${node.name}:retired`), blockchainIdFor(`${node.name}:retired-validation`), 0, node.startTime - 90 * DAY),
  ];
  for (const more of node.more) entries.push(entry(node.nodeId, more.validationId, more.balance, node.startTime));
  if (node.many) {
    for (let i = 1; i < 5_000; i++) entries.push(entry(node.nodeId, blockchainIdFor(`${node.name}:l1-validation-${i}`), SIM_L1_BALANCE, node.startTime));
  }
  return entries;
}
