/**
 * The fleet as observers (docs/validators.md): per own validator, each other fleet node's view of it
 * (`target` is the validator, `observer` the answering fleet node), and per baseline observer its
 * view of the whole network (`network`, `observer`, `quantile`: stake-weighted). Cardinality: own
 * validators × own observers, and 4 series per baseline observer; nothing per foreign validator.
 */
import { BASELINE_ENDPOINT, baselineReport, OBSERVED_ENDPOINT, observedReport } from '../../model/observed.js';
import { sanitizeLabelValue } from '../../util/labels.js';
import { escapeLabel } from '../exposition.js';
import { defineCollector, defineFamilies, gauge, summary } from './collector.js';

const F = defineFamilies({
  observedUptime: gauge('validator_observed_uptime_ratio', "This validator's uptime as another fleet node (observer) measured it (platform.getCurrentValidators uptime, 0–1)."),
  observedConnected: gauge('validator_observed_connected', 'Whether another fleet node (observer) is connected to this validator now (platform.getCurrentValidators connected).'),
  observedWitness: gauge('validator_observed_witness', "Whether what another fleet node (observer) says of this validator counts for a verdict: its own health and network checks pass and it sees most of the network connected (docs/validators.md)."),
  networkUptime: summary('network_observed_uptime_ratio', "Stake-weighted quantile of every validator's uptime as one fleet node (observer) measured it: the network baseline (0–1)."),
  networkConnectedStake: gauge('network_connected_stake_ratio', "Share of the network's stake one fleet node (observer) is connected to now (0–1)."),
});
const I = F.index;

export default defineCollector({
  name: 'observed',
  families: F.list,
  depends: ({ state }, _memo, deps) => {
    for (const e of state?.observation.endpoints ?? []) if (e.endpoint === OBSERVED_ENDPOINT || e.endpoint === BASELINE_ENDPOINT) deps.add(e.detail);
    return true;
  },
  target(w, { base, state, target, config }) {
    if (!state) return;
    const maxLength = config.limits.maxLabelLength;
    for (const e of state.observation.endpoints) {
      const observed = observedReport(e);
      if (observed) {
        const nodeId = `,node_id="${escapeLabel(sanitizeLabelValue(observed.nodeId, maxLength))}"`;
        for (const view of observed.views) {
          const labels = `${base}${nodeId},observer="${escapeLabel(view.observer)}"`;
          w.add(I.observedUptime, labels, view.uptimeRatio);
          if (view.connected !== undefined) w.add(I.observedConnected, labels, view.connected ? 1 : 0);
          if (view.witness !== undefined) w.add(I.observedWitness, labels, view.witness ? 1 : 0);
        }
      }
      const baseline = baselineReport(e);
      if (baseline) {
        const labels = `network="${escapeLabel(baseline.network)}",observer="${escapeLabel(target.name)}"`;
        for (const q of baseline.uptimeQuantiles) w.add(I.networkUptime, `${labels},quantile="${q.quantile}"`, q.ratio);
        w.add(I.networkConnectedStake, labels, baseline.connectedStakeRatio);
      }
    }
  },
});
