/**
 * The silence mirror tells Alertmanager at once when a verdict changes what a silence holds, not at
 * its next pass (every resend_interval, at most 5 s apart). A silenced node that recovered, and a
 * daemon killed in the seconds before the mirror's next pass, left the muted alert firing at
 * Alertmanager, which paged it when the silence ended while the daemon was still down (seed 2 of
 * the trust week). The components are the daemon's own (buildComponents), driven by the store;
 * Alertmanager's v2 API is a local stand-in.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Components } from '../../src/app/components.js';
import { waitFor } from '../helpers/harness.js';
import { startMirrorRig, type MirrorRig } from '../helpers/mirror.js';
import { failing, HEALTHY, nodeState } from '../helpers/states.js';

type AmAlert = { labels: Record<string, string>; endsAt: string };

describe('a verdict that changes what a silence holds', () => {
  let rig: MirrorRig;
  let am: MirrorRig['am'];
  let parts: Components;

  beforeAll(async () => {
    rig = await startMirrorRig(`  silences:
    - {matchers: {target: n1}, ends_at: "${new Date(Date.now() + 3600_000).toISOString()}", comment: "disk swap"}
`);
    ({ am, parts } = rig);
  });
  afterAll(() => rig?.stop());

  const unhealthy = () => am.requests.filter((r) => r.path === '/api/v2/alerts').flatMap((r) => (r.json as AmAlert[]).filter((a) => a.labels.alertname === 'AvalancheNodeUnhealthy').map((a) => ({ firing: Date.parse(a.endsAt) > r.at })));
  const diskReport = () => failing({ diskspace: 1 }, HEALTHY());
  /** What the mirror queued or sent for the unhealthy node: muted batches in the outbox, and what reached Alertmanager. */
  const resolvedAtAlertmanager = () =>
    unhealthy().some((a) => !a.firing) ||
    (parts.notifier.outlet('am')?.queued() ?? []).some((item) => item.batch.muted && item.batch.alerts.some((a) => a.labels.alertname === 'AvalancheNodeUnhealthy' && a.status === 'resolved'));

  it('is queued for Alertmanager within the same turn of the event loop', { timeout: 60_000 }, async () => {
    parts.store.record({ ...nodeState('n1', diskReport()).observation, at: Date.now() / 1000 });
    await waitFor('the muted alert at Alertmanager', () => unhealthy().some((a) => a.firing), 30_000);

    parts.store.record({ ...nodeState('n1', HEALTHY()).observation, at: Date.now() / 1000 });
    // the mirror's pass runs at the next timer turn: a timer set now fires after it
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(resolvedAtAlertmanager()).toBe(true);
  });
});
