/** What a node's info.peers poll says: how many peers it is connected to, and which versions they run. */
import type { EndpointObservation } from './observation.js';

/** The endpoint the peers poll records (`endpoint="peers"`). */
export const PEERS_ENDPOINT = 'peers';

/** Versions kept by name; the peers of any other version are counted under `other`. */
export const MAX_PEER_VERSIONS = 10;
export const OTHER_VERSIONS = 'other';

export interface PeersReport {
  /** Connected peers (`numPeers`). */
  peers: number;
  /** Peers per version (`avalanchego/1.14.2`), most peers first, at most MAX_PEER_VERSIONS then `other`. */
  byVersion: Array<{ version: string; peers: number }>;
  /** Peers this node has benched on at least one chain. */
  benched: number;
}

/** The peers poll's report on its endpoint; undefined for any other endpoint, or when the poll failed. */
export function peersReport(e: EndpointObservation | undefined): PeersReport | undefined {
  return e?.endpoint === PEERS_ENDPOINT ? (e.detail as PeersReport | undefined) : undefined;
}
