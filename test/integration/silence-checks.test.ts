/**
 * Silences that would mislead are refused when posted (issues 45.9 and 46): an end a year or more
 * ahead (one in year 275760 was accepted, and Alertmanager refused its mirror while it lasted), an
 * end in the past answered with an example that is not in the past, and a matcher that matches
 * nothing (an unknown label, a mistyped target or alert, a regex matching no target): accepted, it
 * was mirrored to Alertmanager as a silence of nothing while the pages it was meant to hold went out.
 * A real daemon with the admin API and an `alertmanager` receiver that mirrors silences.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCapture } from '../helpers/capture.js';
import { startDaemon, waitFor, type RunningDaemon } from '../helpers/harness.js';

const YEAR_MS = 365 * 86_400_000;

describe('silences posted to the admin API', () => {
  let d: RunningDaemon;
  let am: Awaited<ReturnType<typeof startCapture>>;
  const stateDir = mkdtempSync(join(tmpdir(), 'avahealth-silence-checks-'));

  beforeAll(async () => {
    // As Alertmanager answers: the list on GET (the mirror looks for its own silences first), the new id on POST.
    am = await startCapture((req) =>
      !req.path.startsWith('/api/v2/silences') ? { status: 200 } : req.method === 'GET' ? { status: 200, body: '[]' } : { status: 200, body: JSON.stringify({ silenceID: `am-${Math.random()}` }) },
    );
    // Stored by an earlier version: an end in year 275760.
    writeFileSync(join(stateDir, 'silences.json'), JSON.stringify({ version: 1, silences: [{ id: 'forever', matchers: { target: 'node-1' }, startsAt: 0, endsAt: 8.64e15, comment: '', createdBy: 'api', source: 'api' }] }));
    d = await startDaemon(`
listen: 127.0.0.1:0
state_dir: ${stateDir}
nodes:
  - {name: node-1, url: "http://127.0.0.1:1", interval: 1h, labels: {team: storage}}
  - {name: node-2, url: "http://127.0.0.1:1", interval: 1h}
alerts:
  receivers:
    - {name: am, alertmanager: {url: "${am.url}"}}
`);
  }, 30_000);

  afterAll(async () => {
    await d?.stop();
    await am?.close();
  });

  const post = async (body: unknown) => {
    const res = await fetch(`${d.url}/api/v1/silences`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    return { status: res.status, body: (await res.json()) as { id?: string; error?: string } };
  };
  const inHours = (hours: number) => new Date(Date.now() + hours * 3_600_000).toISOString();

  it('an end more than a year ahead is refused with the latest end allowed and where lasting silences go', async () => {
    const res = await post({ matchers: { target: 'node-1' }, endsAt: '+275760-09-13T00:00:00.000Z' });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatch(/^endsAt must be within a year \(by \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ\): .*alerts\.silences/);
    expect((await post({ matchers: { target: 'node-1' }, endsAt: new Date(Date.now() + YEAR_MS + 86_400_000).toISOString() })).status).toBe(400);
    expect((await post({ matchers: { target: 'node-1' }, endsAt: new Date(Date.now() + YEAR_MS - 86_400_000).toISOString() })).status).toBe(200);
  });

  it('an end in the past is refused with an example that would be accepted', async () => {
    const res = await post({ matchers: { target: 'node-1' }, endsAt: '2026-01-01T00:00:00Z' });
    expect(res.status).toBe(400);
    const example = /such as (\S+)$/.exec(res.body.error!)?.[1];
    expect(Date.parse(example!)).toBeGreaterThan(Date.now());
    expect((await post({ matchers: { target: 'node-1' }, endsAt: example })).status).toBe(200);
    expect((await post({ matchers: { target: 'node-1' }, startsAt: inHours(3), endsAt: inHours(2) })).body.error).toContain('startsAt must be before endsAt');
  });

  it('a matcher that would match nothing is refused, with the nearest name; none is mirrored', async () => {
    const mirroredBefore = am.on('/api/v2/silences').filter((r) => r.method === 'POST').length;
    const refused: Array<[Record<string, string>, string]> = [
      [{ target: 'node-l' }, 'matchers.target: no target is named "node-l" (did you mean "node-1"?); the silence would match nothing'],
      [{ tagret: 'node-1' }, 'matchers.tagret: no alert carries the label "tagret" (did you mean "target"?)'],
      [{ alertname: 'AvalancheDiskLo' }, 'matchers.alertname: no alert is named "AvalancheDiskLo" (did you mean "AvalancheDiskLow"?)'],
      [{ target: '~validator-.*' }, 'matchers.target: "~validator-.*" matches no target today'],
      [{ team: 'network', target: 'nowhere' }, 'no target is named "nowhere"'],
    ];
    for (const [matchers, error] of refused) {
      const res = await post({ matchers, endsAt: inHours(2) });
      expect(res.status, JSON.stringify(matchers)).toBe(400);
      expect(res.body.error).toContain(error);
    }
    // What alerts carry: the target's own labels, identity labels, regexes that match a target.
    for (const matchers of [{ team: 'storage' }, { check: 'C', target: 'node-2' }, { target: '~node-.*', alertname: 'AvalancheNodeUnreachable' }]) {
      expect((await post({ matchers, endsAt: inHours(2) })).status, JSON.stringify(matchers)).toBe(200);
    }
    await waitFor('the accepted silences mirrored', () => am.on('/api/v2/silences').filter((r) => r.method === 'POST').length >= mirroredBefore + 3, 20_000);
    const mirrored = am.on('/api/v2/silences').filter((r) => r.method === 'POST').map((r) => (r.json as { matchers: Array<{ name: string; value: string }> }).matchers.map((m) => `${m.name}=${m.value}`).sort().join(','));
    for (const [matchers] of refused) {
      expect(mirrored).not.toContain(Object.entries(matchers).map(([name, value]) => `${name}=${value.replace(/^~/, '')}`).sort().join(','));
    }
  });

  it('a silence stored before the cap ends a year from now, and says so', async () => {
    const listed = (await (await fetch(`${d.url}/api/v1/silences`)).json()) as Array<{ id: string; endsAt: string | number }> | { silences: Array<{ id: string; endsAt: string | number }> };
    const silences = Array.isArray(listed) ? listed : listed.silences;
    const forever = silences.find((s) => s.id === 'forever');
    expect(forever).toBeDefined();
    const endsAt = typeof forever!.endsAt === 'number' ? forever!.endsAt : Date.parse(forever!.endsAt);
    expect(endsAt).toBeLessThanOrEqual(Date.now() + YEAR_MS);
    expect(d.logs()).toContain('stored silence ended more than a year ahead; it now ends a year from now');
  });
});
