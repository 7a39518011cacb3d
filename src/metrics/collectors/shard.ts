import { Gauge, type Registry } from 'prom-client';
import type { Shard } from '../../shard.js';

/**
 * `avahealth_shard_count{shard_index}` = N: this replica polls shard `shard_index` of N (`--shard`).
 * Prometheus compares the replicas' N (the shipped AvahealthShardsDisagree / AvahealthShardMissing
 * alerts). The label is not `shard`: the sharded overlay's PodMonitor sets that one on every series.
 */
export function shardGauge(registry: Registry, shard: Shard): Gauge {
  const gauge = new Gauge({
    name: 'avahealth_shard_count',
    help: 'How many shards this replica splits the fleet into (--shard I/N: N), labelled with its own index I.',
    labelNames: ['shard_index'],
    registers: [registry],
  });
  gauge.set({ shard_index: String(shard.index) }, shard.count);
  return gauge;
}
