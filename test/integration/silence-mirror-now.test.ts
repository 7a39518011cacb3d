/**
 * The silence mirror tells Alertmanager at once when a verdict changes what a silence holds, not at
 * its next pass (every resend_interval, at most 5 s apart). A silenced node that recovered, and a
 * daemon killed in the seconds before the mirror's next pass, left the muted alert firing at
 * Alertmanager, which paged it when the silence ended while the daemon was still down (seed 2 of
 * the trust week). The components are the daemon's own (buildComponents), driven by the store;
 * Alertmanager's v2 API is a local stand-in.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildComponents, type Components } from '../../src/app/components.js';
import { parseConfig } from '../../src/config/load.js';
import { createLogger } from '../../src/log.js';
import { startCapture } from '../helpers/capture.js';
import { waitFor } from '../helpers/harness.js';
import { failing, HEALTHY, nodeState } from '../helpers/states.js';

type AmAlert = { labels: Record<string, string>; endsAt: string };

describe('a verdict that changes what a silence holds', () => {
  let am: Awaited<ReturnType<typeof startCapture>>;
  let parts: Components;

  beforeAll(async () => {
    am = await startCapture((req) =>
      !req.path.startsWith('/api/v2/silences') ? { status: 200 } : req.method === 'GET' ? { status: 200, body: '[]' } : { status: 200, body: JSON.stringify({ silenceID: 'am-1' }) },
    );
    const dir = mkdtempSync(join(tmpdir(), 'avahealth-mirror-now-'));
    // an hour between re-sends: the mirror's own passes are 5 s apart
    const config = parseConfig(
      `state_dir: ${dir}
nodes:
  - {name: n1, url: "http://127.0.0.1:1", validator: false}
alerts:
  for_polls: 1
  resolve_polls: 1
  silences:
    - {matchers: {target: n1}, ends_at: "${new Date(Date.now() + 3600_000).toISOString()}", comment: "disk swap"}
  receivers:
    - {name: am, alertmanager: {url: "${am.url}", resend_interval: 1h}}
`,
      join(dir, 'c.yaml'),
      {},
    );
    parts = buildComponents(config, createLogger({ level: 'silent', format: 'json' }));
    parts.notifier.start();
    parts.alerts.start();
    parts.silenceMirrors.start();
  });
  afterAll(async () => {
    parts?.silenceMirrors.stop();
    parts?.alerts.stop();
    await parts?.notifier.stop();
    await am?.close();
  });

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
