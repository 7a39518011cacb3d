/** Probe series of every endpoint of every target (and of extra jobs such as `validator`). */
import { endpointKey } from '../../store.js';
import { escapeLabel } from '../exposition.js';
import { counter, defineCollector, defineFamilies, gauge } from './collector.js';

const F = defineFamilies({
  success: gauge('probe_success', 'Whether the exchange succeeded and the body had the expected shape (a 503 with a valid health body is a success).'),
  duration: gauge('probe_duration_seconds', 'Duration of the probe exchange, body included.'),
  httpStatus: gauge('probe_http_status_code', 'HTTP status code of the last response.'),
  lastSuccess: gauge('probe_last_success_timestamp_seconds', 'When the probe last succeeded.'),
  failures: counter('probe_failures_total', 'Failed probes by reason.'),
});
const I = F.index;

interface Memo {
  /** Failures by `endpoint/view/reason` label text: counters live as long as the target. */
  failures: Map<string, number>;
  /** Label text of each endpoint and view, made once (by endpoint, then view). */
  labels: Map<string, Map<string, string>>;
  /** The last observation counted (a target is re-rendered without a new poll, e.g. on a skipped poll). */
  counted?: object;
}

export default defineCollector<Memo>({
  name: 'probe',
  families: F.list,
  newMemo: () => ({ failures: new Map(), labels: new Map() }),
  target(w, { base, state }, memo) {
    if (!state) return;
    for (const e of state.observation.endpoints) {
      let views = memo.labels.get(e.endpoint);
      if (!views) memo.labels.set(e.endpoint, (views = new Map()));
      let labels = views.get(e.view);
      if (labels === undefined) views.set(e.view, (labels = `${base},endpoint="${escapeLabel(e.endpoint)}",view="${escapeLabel(e.view)}"`));
      w.add(I.success, labels, e.ok ? 1 : 0);
      w.add(I.duration, labels, e.durationSeconds);
      w.add(I.httpStatus, labels, e.httpStatus);
      w.add(I.lastSuccess, labels, state.lastSuccessAt.get(endpointKey(e)));
    }
    // Each job's observation is counted once, when it is recorded.
    const fresh = memo.counted !== state.latest;
    memo.counted = state.latest;
    for (const e of fresh ? state.latest.endpoints : []) {
      if (e.ok) continue;
      const key = `${base},endpoint="${escapeLabel(e.endpoint)}",view="${escapeLabel(e.view)}",reason="${e.reason ?? 'connect'}"`;
      memo.failures.set(key, (memo.failures.get(key) ?? 0) + 1);
    }
    for (const [labels, count] of memo.failures) w.add(I.failures, labels, count);
  },
});
