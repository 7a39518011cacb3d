/**
 * avahealth_discovery_labels_dropped_total{source,label}: file_sd labels left out because avahealth
 * sets labels of that name itself; avahealth_discovery_targets_dropped_total{source,reason}:
 * discovered targets left out (an address that is not host:port, a name already taken). Both
 * count at every read of the source while the cause lasts.
 */
import { Counter, type Registry } from 'prom-client';
import type { DiscoveryTally } from '../../discovery/index.js';

export function registerDiscoveryMetrics(registry: Registry, tally: DiscoveryTally): void {
  new Counter({
    name: 'avahealth_discovery_labels_dropped_total',
    help: 'Labels of discovered targets left out because avahealth sets a label of that name itself (label="invalid": not a label name), counted at every read.',
    labelNames: ['source', 'label'],
    registers: [registry],
    collect() {
      this.reset();
      for (const [source, names] of tally.labels) for (const [label, count] of names) this.inc({ source, label }, count);
    },
  });
  new Counter({
    name: 'avahealth_discovery_targets_dropped_total',
    help: 'Discovered targets left out, counted at every read: invalid_address (not host:port), configured_name (a configured target has the name), duplicate_name (another discovered address has it), over_limit (beyond discovery.max_targets_per_source).',
    labelNames: ['source', 'reason'],
    registers: [registry],
    collect() {
      this.reset();
      for (const [source, reasons] of tally.targets) for (const [reason, count] of reasons) this.inc({ source, reason }, count);
    },
  });
}
