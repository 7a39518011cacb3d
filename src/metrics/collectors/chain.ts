/**
 * Chain data: each node's height lag (the store's, computed once), its validator record, and the
 * network-wide series (latest block, chain status, TPS, network totals), which have no target and
 * are served by prom-client (registry.ts).
 */
import { VALIDATOR_STATUSES } from '../../model/chaindata.js';
import { sanitizeLabelValue } from '../../util/labels.js';
import { escapeLabel } from '../exposition.js';
import { defineCollector, defineFamilies, gauge } from './collector.js';

const F = defineFamilies({
  heightLag: gauge('node_chain_height_lag_blocks', 'Blocks the node is behind the best-known network height of the chain (Data API or our own fleet).'),
  validatorStatus: gauge('validator_status', 'Validation status of the node (one series per status; 1 on the current one). "none": no validation on record.'),
  validatorEnd: gauge('validator_end_timestamp_seconds', 'When the current validation ends.'),
  validatorDelegators: gauge('validator_delegators', 'Delegators of the current validation.'),
});
const I = F.index;

export default defineCollector({
  name: 'chain',
  families: F.list,
  store(w, { store, config, bases, registry }) {
    if (!config.chainData) return;
    const maxLength = config.limits.maxLabelLength;
    for (const [target, lags] of store.lags()) {
      const base = bases.get(target);
      if (base === undefined) continue;
      for (const lag of lags) w.add(I.heightLag, `${base},chain="${escapeLabel(sanitizeLabelValue(lag.chain, maxLength))}"`, lag.lagBlocks);
    }
    const snapshot = store.chainData;
    if (!snapshot) return;
    for (const v of snapshot.validators.values()) {
      const base = bases.get(v.target);
      if (base === undefined) continue;
      const labels = `${base},node_id="${escapeLabel(v.nodeId)}"`;
      for (const status of VALIDATOR_STATUSES) w.add(I.validatorStatus, `${labels},status="${status}"`, status === v.status ? 1 : 0);
      w.add(I.validatorEnd, labels, v.endTimestamp);
      w.add(I.validatorDelegators, labels, v.delegators);
    }
    const { chain } = registry;
    for (const gauge of [chain.latestHeight, chain.latestTimestamp, chain.statusOk, chain.avgTps, chain.networkValidators, chain.networkDelegators]) gauge.reset();
    const put = (g: (typeof chain)['latestHeight'], labels: Record<string, string>, value: number | undefined) => {
      if (value !== undefined) g.set(labels, value);
    };
    for (const c of snapshot.chains.values()) {
      const labels = { chain_id: c.evmChainId };
      put(chain.latestHeight, labels, c.height);
      put(chain.latestTimestamp, labels, c.blockTimestamp);
      if (c.statusOk !== undefined) put(chain.statusOk, labels, c.statusOk ? 1 : 0);
      put(chain.avgTps, labels, c.avgTps);
    }
    for (const [network, totals] of snapshot.networks) {
      put(chain.networkValidators, { network }, totals.validators);
      put(chain.networkDelegators, { network }, totals.delegators);
    }
    if (snapshot.refreshedAt !== undefined) chain.refreshTimestamp.set(snapshot.refreshedAt);
    chain.refreshErrors.set(snapshot.errors.length);
  },
});
