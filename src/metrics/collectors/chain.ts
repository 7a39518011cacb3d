/**
 * Chain data: each node's height lag (the store's, computed once), its validator record, and the
 * network-wide series (latest block, chain status, TPS, network totals, refresh health), which
 * have no target and are served by prom-client.
 */
import { Gauge, type Registry } from 'prom-client';
import { VALIDATOR_STATUSES } from '../../model/chaindata.js';
import { sanitizeLabelValue } from '../../util/labels.js';
import { escapeLabel } from '../exposition.js';
import { PREFIX } from '../registry.js';
import { defineCollector, defineFamilies, gauge } from './collector.js';

const F = defineFamilies({
  heightLag: gauge('node_chain_height_lag_blocks', 'Blocks the node is behind the best-known network height of the chain (Data API or our own fleet).'),
  validatorStatus: gauge('validator_status', 'Validation status of the node (one series per status; 1 on the current one). "none": no validation on record.'),
  validatorEnd: gauge('validator_end_timestamp_seconds', 'When the current validation ends.'),
  validatorDelegators: gauge('validator_delegators', 'Delegators of the current validation.'),
});
const I = F.index;

function networkFamilies(registry: Registry) {
  const g = (name: string, help: string, labelNames: string[]) => new Gauge({ name: PREFIX + name, help, labelNames, registers: [registry] });
  return {
    latestHeight: g('chain_latest_block_height', 'Height of the latest block of the chain, from the Data API.', ['chain_id']),
    latestTimestamp: g('chain_latest_block_timestamp_seconds', 'Timestamp of the latest block of the chain, from the Data API.', ['chain_id']),
    statusOk: g('chain_status_ok', 'The Data API reports the chain status as OK.', ['chain_id']),
    avgTps: g('chain_avg_tps', 'Average transactions per second over the last hour, from the Metrics API.', ['chain_id']),
    networkValidators: g('network_validators', 'Validators of the network.', ['network']),
    networkDelegators: g('network_delegators', 'Delegators of the network.', ['network']),
    refreshTimestamp: g('chain_data_last_refresh_timestamp_seconds', 'When chain data was last refreshed (at least one request answered).', []),
    refreshErrors: g('chain_data_last_refresh_errors', 'Requests that failed in the last chain data refresh (details in /api/v1/status).', []),
  };
}
const NETWORK = new WeakMap<Registry, ReturnType<typeof networkFamilies>>();

export default defineCollector({
  name: 'chain',
  families: F.list,
  register(registry) {
    if (!NETWORK.has(registry)) NETWORK.set(registry, networkFamilies(registry));
  },
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
    const chain = NETWORK.get(registry);
    if (!chain) return;
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
