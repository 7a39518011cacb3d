// info.peers as AvalancheGo answers it: api/info/service.go (PeersReply: `numPeers` a json.Uint64,
// written as a string; `peers`, each a network/peer.Info — ip, publicIP, nodeID, version,
// upgradeTime, lastSent, lastReceived, observedUptime (json.Uint32 string), trackedSubnets,
// supportedACPs, objectedACPs — plus `benched`, the chain aliases the node benched it on), as of
// ava-labs/avalanchego 1cf1fc3d.
import { describe, expect, it } from 'vitest';
import { MAX_PEER_VERSIONS } from '../../src/model/peers.js';
import { parsePeers, parseZeroReporters } from '../../src/parse/peers.js';

const peer = (version: unknown, benched: string[] = []) => ({
  ip: '10.0.0.1:9651',
  publicIP: '203.0.113.1:9651',
  nodeID: 'NodeID-7Xhw2mDxuDS44j42TCB6U5579esbSt3Lg',
  version,
  upgradeTime: 0,
  lastSent: '2026-11-26T06:00:00Z',
  lastReceived: '2026-11-26T06:00:01Z',
  observedUptime: '100',
  trackedSubnets: [],
  supportedACPs: [23, 24],
  objectedACPs: [],
  benched,
});

describe('info.peers', () => {
  it('counts peers, per version (most first) and benched', () => {
    const result = { numPeers: '4', peers: [peer('avalanchego/1.14.2'), peer('avalanchego/1.15.2', ['C']), peer('avalanchego/1.15.2'), peer('avalanchego/1.15.2', ['P', 'X'])] };
    expect(parsePeers(result)).toEqual({
      ok: true,
      value: { peers: 4, benched: 2, byVersion: [{ version: 'avalanchego/1.15.2', peers: 3 }, { version: 'avalanchego/1.14.2', peers: 1 }] },
    });
  });

  it('keeps the most common versions by name and counts the rest, and anything that is no version, under other', () => {
    const peers = Array.from({ length: MAX_PEER_VERSIONS + 3 }, (_, i) => peer(`avalanchego/1.${i}.0`));
    peers.push(peer('avalanchego/1.0.0'), peer('<script>'), peer(42), 'not a peer' as never);
    const parsed = parsePeers({ numPeers: String(peers.length), peers });
    expect(parsed.ok && parsed.value.byVersion).toHaveLength(MAX_PEER_VERSIONS + 1);
    expect(parsed.ok && parsed.value.byVersion[0]).toEqual({ version: 'avalanchego/1.0.0', peers: 2 });
    expect(parsed.ok && parsed.value.byVersion.at(-1)).toEqual({ version: 'other', peers: 3 + 2 });
  });

  it('a node with no peers, and answers of the wrong shape', () => {
    expect(parsePeers({ numPeers: '0', peers: null })).toEqual({ ok: true, value: { peers: 0, benched: 0, byVersion: [] } });
    expect(parsePeers({ numPeers: '1', peers: {} })).toMatchObject({ ok: false, error: expect.stringContaining('peers must be an array') });
    expect(parsePeers('peers')).toMatchObject({ ok: false });
  });
});

// A peer still bootstrapping sends 0 in every Ping (network/peer/peer.go getUptime); handlePing keeps
// it as observedUptime, a json.Uint32 string.
describe('the peers whose last Ping said 0 % (parseZeroReporters)', () => {
  it('lists their NodeIDs and counts the peers read; ignores what is not a NodeID', () => {
    const at = (nodeID: unknown, observedUptime: unknown) => ({ ...peer('avalanchego/1.15.2'), nodeID, observedUptime });
    const result = {
      numPeers: '5',
      peers: [at('NodeID-7Xhw2mDxuDS44j42TCB6U5579esbSt3Lg', '0'), at('NodeID-MFrZFVCXPv5iCn6M9K6XduxGTYp891xXZ', '99'), at('NodeID-NFBbbJ4qCmNaCzeW7sxErhvWqvEQMnYcN', 0), at('not-an-id', '0'), 'junk'],
    };
    expect(parseZeroReporters(result)).toEqual({ ok: true, value: { peers: 4, zero: ['NodeID-7Xhw2mDxuDS44j42TCB6U5579esbSt3Lg', 'NodeID-NFBbbJ4qCmNaCzeW7sxErhvWqvEQMnYcN'] } });
    expect(parseZeroReporters({ numPeers: '0', peers: null })).toEqual({ ok: true, value: { peers: 0, zero: [] } });
    expect(parseZeroReporters({ numPeers: '1', peers: {} })).toMatchObject({ ok: false });
  });
});
