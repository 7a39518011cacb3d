/** Connected peers of a node, from its info.peers poll: how many, which versions they run, how many are benched. */
import { PEERS_ENDPOINT, peersReport } from '../../model/peers.js';
import type { TargetState } from '../../store.js';
import { sanitizeLabelValue } from '../../util/labels.js';
import { escapeLabel } from '../exposition.js';
import { defineCollector, defineFamilies, gauge } from './collector.js';

const F = defineFamilies({
  peers: gauge('node_peers', 'Peers the node is connected to (info.peers numPeers).'),
  byVersion: gauge('node_peers_by_version', 'Connected peers per AvalancheGo version (info.peers; the ten most common, the rest under version="other").'),
  benched: gauge('node_peers_benched', 'Connected peers the node has benched on at least one chain (info.peers).'),
});
const I = F.index;

const reportOf = (state: TargetState | undefined) => peersReport(state?.observation.endpoints.find((e) => e.endpoint === PEERS_ENDPOINT));

export default defineCollector({
  name: 'peers',
  families: F.list,
  depends: ({ state }, _memo, deps) => (deps.add(reportOf(state)), true),
  target(w, { base, state, config }) {
    const report = reportOf(state);
    if (!report) return;
    w.add(I.peers, base, report.peers);
    for (const { version, peers } of report.byVersion) w.add(I.byVersion, `${base},version="${escapeLabel(sanitizeLabelValue(version, config.limits.maxLabelLength))}"`, peers);
    w.add(I.benched, base, report.benched);
  },
});
