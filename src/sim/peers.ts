/**
 * A simulated node's info.peers answer (AvalancheGo api/info/service.go `PeersReply`, each peer a
 * network/peer.Info plus `benched`): the validators connected to it first, each with the percent
 * its last Ping said of this node (`observedUptime`: network/peer/peer.go handlePing; "0" from a
 * validator still bootstrapping, getUptime), then non-validator peers up to SIM_PEERS; most on the
 * current version, some behind, two benched on the C-Chain; none while the node's network is down.
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

export function simPeers(
  node: { name: string; has(name: string): boolean },
  current: string,
  behind: string,
  now = Date.now(),
  validators: ReadonlyArray<{ nodeId: string; observedUptime: number }> = [],
): { numPeers: string; peers: unknown[] } {
  if (node.has('network-down')) return { numPeers: '0', peers: [] };
  const count = Math.max(SIM_PEERS, validators.length);
  const peers = Array.from({ length: count }, (_, i) => ({
    ip: `10.0.${Math.floor(i / 250)}.${(i % 250) + 1}:9651`,
    publicIP: `203.0.113.${(i % 250) + 1}:9651`,
    nodeID: validators[i]?.nodeId ?? nodeIdFor(`${node.name}:peer:${i}`),
    version: i < SIM_PEERS_BETWEEN ? SIM_PEERS_BETWEEN_VERSION : i < SIM_PEERS_BETWEEN + SIM_PEERS_BEHIND ? behind : current,
    upgradeTime: 0,
    lastSent: formatGoTime(now - 200),
    lastReceived: formatGoTime(now - 150),
    // A non-validator peer's Ping says 100 here (its own measure of a validator it always saw).
    observedUptime: String(validators[i]?.observedUptime ?? 100),
    trackedSubnets: [],
    supportedACPs: [],
    objectedACPs: [],
    benched: i >= SIM_PEERS - SIM_PEERS_BENCHED && i < SIM_PEERS ? ['C'] : [],
  }));
  return { numPeers: String(peers.length), peers };
}
