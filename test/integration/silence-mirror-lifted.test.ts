/**
 * A silence lifted while something else still holds the incident: the copy the mirror sent
 * Alertmanager under the silence (muted there, never told to a receiver) must end at Alertmanager,
 * or Alertmanager, which no longer mutes it, pages it while the daemon holds it. The mirror took an
 * incident still firing for "the pipeline's again", but the pipeline tells only what nothing holds
 * (here a maintenance window, which is not mirrored; in seed 27 of the trust week, a chain check
 * the network-wide dip held back when the silence ended: three false pages at Alertmanager). The
 * components are the daemon's own (buildComponents), driven by the store; Alertmanager's v2 API is a
 * local stand-in.
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

describe('a silence lifted while a maintenance window holds the incident', () => {
  let am: Awaited<ReturnType<typeof startCapture>>;
  let parts: Components;

  beforeAll(async () => {
    am = await startCapture((req) =>
      !req.path.startsWith('/api/v2/silences') ? { status: 200 } : req.method === 'GET' ? { status: 200, body: '[]' } : { status: 200, body: JSON.stringify({ silenceID: 'am-1' }) },
    );
    const dir = mkdtempSync(join(tmpdir(), 'avahealth-mirror-lifted-'));
    // a window starting every minute for an hour: n1 is always inside one
    const config = parseConfig(
      `state_dir: ${dir}
nodes:
  - {name: n1, url: "http://127.0.0.1:1", validator: false}
alerts:
  for_polls: 1
  resolve_polls: 1
  maintenance:
    - {matchers: {target: n1}, schedule: "* * * * *", duration: 1h, comment: "rolling upgrade"}
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

  /** Every copy of the node's alerts posted to Alertmanager, firing or ended, in the order sent. */
  const posted = () => am.requests.filter((r) => r.path === '/api/v2/alerts').flatMap((r) => (r.json as AmAlert[]).filter((a) => a.labels.target === 'n1').map((a) => ({ alertname: a.labels.alertname, firing: Date.parse(a.endsAt) > r.at })));

  it('ends the muted copy at Alertmanager, and tells no receiver', { timeout: 60_000 }, async () => {
    const silence = parts.alerts.silences.add({ matchers: { target: 'n1' }, endsAt: Date.now() + 3_600_000, comment: 'disk swap' });
    parts.silenceMirrors.nudge();
    parts.store.record({ ...nodeState('n1', failing({ diskspace: 1 }, HEALTHY())).observation, at: Date.now() / 1000 });
    await waitFor('the muted copy at Alertmanager', () => posted().some((a) => a.firing), 30_000);
    const muted = new Set(posted().filter((a) => a.firing).map((a) => a.alertname));

    parts.alerts.silences.expire(silence.id);
    parts.silenceMirrors.nudge();
    // still failing, still held: by the maintenance window now
    parts.store.record({ ...nodeState('n1', failing({ diskspace: 1 }, HEALTHY())).observation, at: Date.now() / 1000 });
    expect(parts.alerts.list().filter((a) => a.target === 'n1' && a.phase === 'firing').map((a) => a.alertname).sort()).toEqual([...muted].sort());
    await waitFor('each muted copy ended at Alertmanager', () => [...muted].every((name) => posted().some((a) => a.alertname === name && !a.firing)), 30_000);
    // and nothing of it was told as news: the last word on each is its end
    for (const name of muted) expect(posted().filter((a) => a.alertname === name).at(-1)).toEqual({ alertname: name, firing: false });
  });
});
