/**
 * avahealth_state_write_failures_total: failed writes of files under state_dir (alert states, silences, outboxes);
 * avahealth_outbox_journal_records_total / _syncs_total: outbox operations and the fsyncs that made them durable
 * (group commit: many operations per fsync under load).
 */
import { Counter, type Registry } from 'prom-client';
import { journalTotals } from '../../state/journal.js';
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
  new Counter({
    name: 'avahealth_outbox_journal_records_total',
    help: 'Operations (enqueues, delivery marks, retries) appended to the outbox journals.',
    registers: [registry],
    collect() {
      this.reset();
      this.inc(journalTotals().records);
    },
  });
  new Counter({
    name: 'avahealth_outbox_journal_syncs_total',
    help: 'fsync/fdatasync calls of the outbox journals: one per group of operations written together, two per compaction.',
    registers: [registry],
    collect() {
      this.reset();
      this.inc(journalTotals().syncs);
    },
  });
}
