/**
 * A copy the silence mirror sends Alertmanager for an incident no receiver was told of exists only
 * to be muted there: it ends with the silence. Sent with the usual endsAt (four resend intervals
 * ahead), it outlived the silence at Alertmanager, which paged it when its copy of the silence ended
 * unless the daemon resolved it first: seed 31 of the trust week, where the daemon was killed under
 * the silence, the node healed while it was away, and it started again two seconds before the
 * silence ended (four false pages). An incident receivers were told of keeps its copy up through
 * the silence and after, as before: Alertmanager must not hear it end. The components are the
 * daemon's own (buildComponents), driven by the store; Alertmanager's v2 API is a local stand-in.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Components } from '../../src/app/components.js';
import { waitFor } from '../helpers/harness.js';
import { startMirrorRig, type MirrorRig } from '../helpers/mirror.js';
import { failing, HEALTHY, nodeState } from '../helpers/states.js';

type AmAlert = { labels: Record<string, string>; endsAt: string };

describe("the muted copy of an incident no receiver heard of", () => {
  let rig: MirrorRig;
  let am: MirrorRig['am'];
  let parts: Components;

  beforeAll(async () => {
    rig = await startMirrorRig('');
    ({ am, parts } = rig);
  });
  afterAll(() => rig?.stop());

  /** The firing copies of one alert posted to Alertmanager (AvalancheCheckFailing: of one check), in the order sent. */
  const firingCopies = (alertname: string, check?: string) =>
    am.requests
      .filter((r) => r.path === '/api/v2/alerts')
      .flatMap((r) => (r.json as AmAlert[]).filter((a) => a.labels.alertname === alertname && a.labels.check === check && Date.parse(a.endsAt) > r.at).map((a) => ({ endsAt: a.endsAt, at: r.at })));
  const poll = (checks: Record<string, number>) => parts.store.record({ ...nodeState('n1', failing(checks, HEALTHY())).observation, at: Date.now() / 1000 });

  it('ends with its silence, while a told one stays up past it', { timeout: 60_000 }, async () => {
    // told first: the disk check fails before any silence
    poll({ diskspace: 1 });
    await waitFor('the low disk told to Alertmanager', () => firingCopies('AvalancheNodeUnhealthy').length > 0, 30_000);

    const silence = parts.alerts.silences.add({ matchers: { target: 'n1' }, endsAt: Date.now() + 10 * 60_000, comment: 'chain resync' });
    const silenceEnds = new Date(silence.endsAt).toISOString();
    parts.silenceMirrors.nudge();
    // then the C chain fails under the silence: no receiver hears of it
    poll({ diskspace: 2, C: 1 });
    await waitFor('the muted copy of the C check', () => firingCopies('AvalancheCheckFailing', 'C').length > 0, 30_000);
    await waitFor('the told low disk sent muted too', () => firingCopies('AvalancheNodeUnhealthy').some((c) => c.at >= silence.startsAt), 30_000);

    expect(firingCopies('AvalancheCheckFailing', 'C').map((c) => c.endsAt)).toEqual(firingCopies('AvalancheCheckFailing', 'C').map(() => silenceEnds));
    // resend_interval 1h: a told copy stands four hours, well past the silence's end
    for (const copy of firingCopies('AvalancheNodeUnhealthy')) expect(Date.parse(copy.endsAt)).toBeGreaterThan(silence.endsAt + 3_600_000);
    expect(parts.alerts.list().filter((a) => a.target === 'n1' && a.phase === 'firing').map((a) => `${a.alertname}${a.labels.check ? `/${a.labels.check}` : ''}`)).toEqual(expect.arrayContaining(['AvalancheNodeUnhealthy', 'AvalancheCheckFailing/C']));
  });
});
