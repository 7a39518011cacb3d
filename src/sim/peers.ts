/**
 * A simulated node's info.peers answer (AvalancheGo api/info/service.go `PeersReply`, each peer a
 * network/peer.Info plus `benched`): SIM_PEERS peers, most on the current version, some behind,
 * two benched on the C-Chain; none while the node's network is down.
 */
import { formatGoTime } from './go-format.js';
import { nodeIdFor } from './ids.js';

export const SIM_PEERS = 40;
/**
 * Of SIM_PEERS: how many run each version (the rest the current one), and how many are benched.
 * Past Helicon no peer older than v1.15.0 stays connected (MinCompatibleAfterUpgrade 1.15.0,
 * version/constants.go; network/peer/peer.go), so every version listed is a v1.15 one.
 */
export const SIM_PEERS_BEHIND = 9;
export const SIM_PEERS_BETWEEN = 3;
export const SIM_PEERS_BETWEEN_VERSION = 'avalanchego/1.15.1';
export const SIM_PEERS_BENCHED = 2;

export function simPeers(node: { name: string; has(name: string): boolean }, current: string, behind: string, now = Date.now()): { numPeers: string; peers: unknown[] } {
  if (node.has('network-down')) return { numPeers: '0', peers: [] };
  const peers = Array.from({ length: SIM_PEERS }, (_, i) => ({
    ip: `10.0.${Math.floor(i / 250)}.${(i % 250) + 1}:9651`,
    publicIP: `203.0.113.${(i % 250) + 1}:9651`,
    nodeID: nodeIdFor(`${node.name}:peer:${i}`),
    version: i < SIM_PEERS_BETWEEN ? SIM_PEERS_BETWEEN_VERSION : i < SIM_PEERS_BETWEEN + SIM_PEERS_BEHIND ? behind : current,
    upgradeTime: 0,
    lastSent: formatGoTime(now - 200),
    lastReceived: formatGoTime(now - 150),
    observedUptime: '100',
    trackedSubnets: [],
    supportedACPs: [],
    objectedACPs: [],
    benched: i >= SIM_PEERS - SIM_PEERS_BENCHED ? ['C'] : [],
  }));
  return { numPeers: String(peers.length), peers };
}
