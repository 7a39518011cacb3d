/** The scheduler's own counter per target: polls skipped because the last one still ran (at 0 from the start). */
import { counter, defineCollector, defineFamilies } from './collector.js';

const F = defineFamilies({
  skippedPolls: counter('scheduler_skipped_polls_total', 'Polls skipped because the previous poll of the target was still running.'),
});

export default defineCollector({
  name: 'scheduler',
  families: F.list,
  depends: ({ skipped }, _memo, deps) => (deps.add(skipped), true),
  target(w, { base, skipped }) {
    w.add(F.index.skippedPolls, base, skipped);
  },
});
