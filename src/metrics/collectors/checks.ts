/**
 * Every health check of every view: passing, failures, timing. Rendered when a report changed (see
 * `depends`); the exposition's bytes are the only copy kept (no rendered strings beside them).
 */
import type { CheckResult } from '../../model/observation.js';
import { sanitizeLabelValue } from '../../util/labels.js';
import { escapeLabel } from '../exposition.js';
import { counter, defineCollector, defineFamilies, gauge, addReports, type Writer } from './collector.js';

const F = defineFamilies({
  passing: gauge('node_check_passing', 'The check has no error. A check the node has not run yet counts as failing.'),
  notYetRun: gauge('node_check_not_yet_run', 'The node registered the check but has not run it yet (after a restart or a new chain).'),
  contiguousFailures: gauge('node_check_contiguous_failures', 'Consecutive failed runs as counted by the node (one per health-check period).'),
  duration: gauge('node_check_duration_seconds', 'How long the last run of the check took on the node.'),
  lastRun: gauge('node_check_last_run_timestamp_seconds', 'When the node last ran the check (absent for a check not yet run).'),
  failingSince: gauge('node_check_failing_since_timestamp_seconds', 'When the current run of failures began (absent while passing).'),
  dropped: counter('node_checks_dropped_total', 'Checks not exported because a target returned more than limits.max_checks_per_target.'),
});
const I = F.index;

interface Memo {
  dropped: number;
  /** The last observation whose dropped checks were counted (a target is re-rendered without a new poll, e.g. on a skipped poll). */
  counted?: object;
}

export default defineCollector<Memo>({
  name: 'checks',
  families: F.list,
  newMemo: () => ({ dropped: 0 }),
  // The reports; a report over the limit counts dropped checks once per recorded observation, so then always.
  depends: ({ state, config }, _memo, deps) =>
    state !== undefined && !state.latest.endpoints.some((e) => e.report && e.report.checks.length > config.limits.maxChecksPerTarget) && addReports(deps, state),
  target(w, { base, state, config }, memo) {
    if (!state) return;
    const { maxChecksPerTarget: max, maxLabelLength } = config.limits;
    if (memo.counted !== state.latest) {
      memo.counted = state.latest;
      for (const e of state.latest.endpoints) if (e.report && e.report.checks.length > max) memo.dropped += e.report.checks.length - max;
    }
    for (const e of state.observation.endpoints) {
      if (!e.report) continue;
      const labels = `${base},endpoint="${escapeLabel(e.endpoint)}",view="${escapeLabel(e.view)}"`;
      const checks = e.report.checks;
      const details = config.metrics.checkDetails === 'all';
      for (let i = 0; i < checks.length && i < max; i++) writeCheck(w, `${labels},check="${escapeLabel(sanitizeLabelValue(checks[i]!.name, maxLabelLength))}"`, checks[i]!, details);
    }
    if (memo.dropped > 0) w.add(I.dropped, base, memo.dropped);
  },
});

/** A check's series; a passing one only `passing` unless `details` (`metrics.check_details: failing`). */
function writeCheck(w: Writer, labels: string, check: CheckResult, details: boolean): void {
  w.add(I.passing, labels, check.passing ? 1 : 0);
  if (check.passing && !details) return;
  w.add(I.notYetRun, labels, check.notYetRun ? 1 : 0);
  w.add(I.contiguousFailures, labels, check.contiguousFailures);
  w.add(I.duration, labels, check.durationSeconds);
  w.add(I.lastRun, labels, check.lastRun);
  if (!check.passing) w.add(I.failingSince, labels, check.failingSince);
}
