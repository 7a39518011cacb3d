/** avahealth_state_write_failures_total: failed writes of files under state_dir (alert states, silences, outboxes). */
import { Counter, type Registry } from 'prom-client';
import { stateWriteFailures } from '../../state/write-health.js';

export function registerStateWriteMetrics(registry: Registry): void {
  new Counter({
    name: 'avahealth_state_write_failures_total',
    help: 'Failed writes of state files (alert states, silences, outboxes); the log names the file and the error once per change.',
    registers: [registry],
    collect() {
      this.reset();
      this.inc(stateWriteFailures());
    },
  });
}
