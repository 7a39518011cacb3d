/**
 * info.peers (api/info/service.go `PeersReply`: `numPeers` as a json.Uint64 string and `peers`,
 * each a network/peer.Info with `version` and the chains it is `benched` on). Untrusted: the list
 * is read up to MAX_PEERS entries, a version becomes a label only when it looks like one.
 */
import { MAX_PEER_VERSIONS, OTHER_VERSIONS, type PeersReport } from '../model/peers.js';
import { describe, isObject, type ParseOutcome } from './avalanchego.js';
import { isNodeId } from './validator.js';

/** More than any node connects to (mainnet has about 1,600 validators). */
const MAX_PEERS = 20_000;
const VERSION = /^[A-Za-z][\w.-]{0,31}\/v?\d{1,6}\.\d{1,6}\.\d{1,6}[\w.+-]{0,32}$/;

export function parsePeers(result: unknown): ParseOutcome<PeersReport> {
  if (!isObject(result)) return { ok: false, error: `info.peers result must be an object, got ${describe(result)}` };
  // AvalancheGo sends the list (`make([]Peer, n)`; before v1.7.7 a nil one, `null`, when it had no
  // peers): null stands for no peers only where numPeers says "0"; otherwise it is a bad shape.
  const list = result.peers === null && result.numPeers === '0' ? [] : result.peers;
  if (!Array.isArray(list)) return { ok: false, error: `peers must be an array, got ${describe(list)}` };
  const counted = typeof result.numPeers === 'string' && /^\d{1,9}$/.test(result.numPeers) ? Number(result.numPeers) : list.length;
  const versions = new Map<string, number>();
  let benched = 0;
  for (const peer of list.slice(0, MAX_PEERS)) {
    if (!isObject(peer)) continue;
    const version = typeof peer.version === 'string' && VERSION.test(peer.version) ? peer.version : OTHER_VERSIONS;
    versions.set(version, (versions.get(version) ?? 0) + 1);
    if (Array.isArray(peer.benched) && peer.benched.length > 0) benched++;
  }
  const sorted = [...versions].filter(([v]) => v !== OTHER_VERSIONS).sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
  const byVersion = sorted.slice(0, MAX_PEER_VERSIONS).map(([version, peers]) => ({ version, peers }));
  const other = (versions.get(OTHER_VERSIONS) ?? 0) + sorted.slice(MAX_PEER_VERSIONS).reduce((n, [, peers]) => n + peers, 0);
  if (other > 0) byVersion.push({ version: OTHER_VERSIONS, peers: other });
  return { ok: true, value: { peers: counted, byVersion, benched } };
}

/**
 * The connected peers of an info.peers answer whose last Ping said 0 % for this node
 * (`observedUptime`, a json.Uint32 string: network/peer/peer.go, handlePing, Info), by NodeID, and
 * how many peers were read. A peer still bootstrapping sends 0 in every Ping (getUptime: its uptime
 * calculator errs, snow/uptime/locked_calculator.go), as does a connection not yet pinged.
 */
export function parseZeroReporters(result: unknown): ParseOutcome<{ peers: number; zero: string[] }> {
  if (!isObject(result)) return { ok: false, error: `info.peers result must be an object, got ${describe(result)}` };
  const list = result.peers === null && result.numPeers === '0' ? [] : result.peers;
  if (!Array.isArray(list)) return { ok: false, error: `peers must be an array, got ${describe(list)}` };
  const zero: string[] = [];
  let peers = 0;
  for (const peer of list.slice(0, MAX_PEERS)) {
    if (!isObject(peer)) continue;
    peers++;
    const uptime = peer.observedUptime;
    if ((uptime === '0' || uptime === 0) && isNodeId(peer.nodeID)) zero.push(peer.nodeID);
  }
  return { ok: true, value: { peers, zero } };
}
