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
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Components } from '../../src/app/components.js';
import { waitFor } from '../helpers/harness.js';
import { startMirrorRig, type MirrorRig } from '../helpers/mirror.js';
import { failing, HEALTHY, nodeState } from '../helpers/states.js';

type AmAlert = { labels: Record<string, string>; endsAt: string };

describe('a silence lifted while a maintenance window holds the incident', () => {
  let rig: MirrorRig;
  let am: MirrorRig['am'];
  let parts: Components;

  beforeAll(async () => {
    // a window starting every minute for an hour: n1 is always inside one
    rig = await startMirrorRig(`  maintenance:
    - {matchers: {target: n1}, schedule: "* * * * *", duration: 1h, comment: "rolling upgrade"}
`);
    ({ am, parts } = rig);
  });
  afterAll(() => rig?.stop());

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
