/**
 * The peers poll of one node (`endpoint="peers"`): one info.peers JSON-RPC call to /ext/info on its
 * own interval, for nodes with `peers` on. Its failure never makes the node unreachable.
 */
import type { NodeTarget } from '../config/load.js';
import { PEERS_ENDPOINT } from '../model/peers.js';
import { parsePeers } from '../parse/peers.js';
import { ProbeError } from '../transport/client.js';
import { callNode, observe } from './exchange.js';
import { perTarget, type Prober } from './types.js';

export const peersProber: Prober<NodeTarget> = {
  jobs: (config) => perTarget(config.nodes.filter((n) => n.peers), 'peers', { extra: true, intervalMs: (n) => n.peers!.intervalMs }),
  probe: async (target, ctx) => {
    const endpoint = await observe(PEERS_ENDPOINT, 'all', target.secrets, async (o) => {
      const { status, answer } = await callNode(target, '/ext/info', 'info.peers', {}, ctx);
      o.httpStatus = status;
      if (answer.kind === 'failure') throw new ProbeError(answer.reason, answer.error);
      if (answer.kind === 'disabled') throw new ProbeError('http_status', `info.peers unavailable: ${answer.detail}`);
      if (answer.kind === 'error') throw new ProbeError('rpc_error', `JSON-RPC error: ${answer.message}`);
      const parsed = parsePeers(answer.result);
      if (!parsed.ok) throw new ProbeError('bad_shape', parsed.error);
      o.detail = parsed.value;
    });
    return { observation: { target: target.name, kind: 'node', source: 'peers', network: target.network, at: endpoint.at, endpoints: [endpoint] } };
  },
};
