/** A node's health per endpoint and view, and its NodeID. */
import { escapeLabel } from '../exposition.js';
import { defineCollector, defineFamilies, gauge, addReports } from './collector.js';

const F = defineFamilies({
  healthy: gauge('node_healthy', 'The node reports healthy for this endpoint and view (from the body, not the status code).'),
  info: gauge('node_info', 'NodeID of the target (from the node-id response header).'),
});

export default defineCollector({
  name: 'node',
  families: F.list,
  depends: ({ state }, _memo, deps) => state !== undefined && (deps.add(state.nodeId), addReports(deps, state)),
  target(w, { base, state }) {
    if (!state) return;
    for (const e of state.observation.endpoints) {
      if (e.report) w.add(F.index.healthy, `${base},endpoint="${escapeLabel(e.endpoint)}",view="${escapeLabel(e.view)}"`, e.report.healthy ? 1 : 0);
    }
    if (state.nodeId) w.add(F.index.info, `${base},node_id="${escapeLabel(state.nodeId)}"`, 1);
  },
});
