/** Every health check of every view: passing, failures, timing. Rendered once per distinct report. */
import type { CheckResult, HealthReport } from '../../model/observation.js';
import { endpointKey } from '../../store.js';
import { sanitizeLabelValue } from '../../util/labels.js';
import { escapeLabel } from '../exposition.js';
import { counter, defineCollector, defineFamilies, gauge, type Writer } from './collector.js';

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
  /** Rendered series per endpoint/view, reused while the report object is the same (an unchanged body). */
  rendered: Map<string, { report: HealthReport; parts: string[] }>;
  dropped: number;
  counted: WeakSet<object>;
}

export default defineCollector<Memo>({
  name: 'checks',
  families: F.list,
  newMemo: () => ({ rendered: new Map(), dropped: 0, counted: new WeakSet() }),
  // The reports; a report over the limit counts dropped checks once per recorded observation, so then always.
  depends: ({ state, config }) =>
    state && !state.latest.endpoints.some((e) => e.report && e.report.checks.length > config.limits.maxChecksPerTarget) ? state.observation.endpoints.map((e) => e.report) : undefined,
  target(w, { base, state, config }, memo) {
    if (!state) return;
    const { maxChecksPerTarget: max, maxLabelLength } = config.limits;
    if (!memo.counted.has(state.latest)) {
      memo.counted.add(state.latest);
      for (const e of state.latest.endpoints) if (e.report && e.report.checks.length > max) memo.dropped += e.report.checks.length - max;
    }
    for (const e of state.observation.endpoints) {
      if (!e.report) continue;
      const key = endpointKey(e);
      let cached = memo.rendered.get(key);
      if (cached?.report !== e.report) {
        const cw = w.fork();
        const labels = `${base},endpoint="${escapeLabel(e.endpoint)}",view="${escapeLabel(e.view)}"`;
        for (const check of e.report.checks.slice(0, max)) writeCheck(cw, `${labels},check="${escapeLabel(sanitizeLabelValue(check.name, maxLabelLength))}"`, check);
        cached = { report: e.report, parts: cw.parts() };
        memo.rendered.set(key, cached);
      }
      w.append(cached.parts);
    }
    if (memo.dropped > 0) w.add(I.dropped, base, memo.dropped);
  },
});

function writeCheck(w: Writer, labels: string, check: CheckResult): void {
  w.add(I.passing, labels, check.passing ? 1 : 0);
  w.add(I.notYetRun, labels, check.notYetRun ? 1 : 0);
  w.add(I.contiguousFailures, labels, check.contiguousFailures);
  w.add(I.duration, labels, check.durationSeconds);
  w.add(I.lastRun, labels, check.lastRun);
  if (!check.passing) w.add(I.failingSince, labels, check.failingSince);
}
