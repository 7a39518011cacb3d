/**
 * The alerts the silence mirror sends Alertmanager for a silence (so it mutes them rather than take
 * the quiet for a resolve) are resolved there when they end, even if they end while avahealth is
 * away: what was sent is noted with the receiver, not only kept in memory. Without that, the muted
 * alert stayed firing at Alertmanager until its endsAt, and paged there once the silence ended
 * (seen on a seeded trust week: a silenced disk that recovered across a daemon kill).
 */
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { notesFile } from '../../src/alerts/receivers/notes.js';
import type { SimServer } from '../../src/sim/server.js';
import { startCapture } from '../helpers/capture.js';
import { setScenario, startDaemon, startSim, waitFor, type RunningDaemon } from '../helpers/harness.js';

type AmAlert = { labels: Record<string, string>; endsAt: string; annotations?: Record<string, string> };

/** One node polled every second, and an `alertmanager` receiver (the mirror on) at `amUrl`. */
const mirrorConfig = (stateDir: string, sim: SimServer, amUrl: string) => `
listen: 127.0.0.1:0
state_dir: ${stateDir}
nodes:
  - {name: n1, url: "${sim.nodeUrl('n1')}", interval: 1s, validator: false}
alerts:
  for_polls: 1
  receivers:
    - {name: am, alertmanager: {url: "${amUrl}", resend_interval: 1s}}
`;

describe('a muted alert that ends while avahealth is away', () => {
  let sim: SimServer;
  let am: Awaited<ReturnType<typeof startCapture>>;
  const stateDir = mkdtempSync(join(tmpdir(), 'avahealth-mirror-away-'));
  const config = () => mirrorConfig(stateDir, sim, am.url);

  beforeAll(async () => {
    sim = await startSim([{ name: 'n1', scenario: 'healthy', validator: false }]);
    // Alertmanager's v2 API as the mirror uses it: the silences listed on GET, an id for a new one.
    am = await startCapture((req) =>
      !req.path.startsWith('/api/v2/silences') ? { status: 200 } : req.method === 'GET' ? { status: 200, body: '[]' } : { status: 200, body: JSON.stringify({ silenceID: `am-${req.at}` }) },
    );
  });
  afterAll(async () => {
    await sim?.close();
    await am?.close();
  });

  const disk = (from = 0) =>
    am.requests.slice(from).filter((r) => r.path === '/api/v2/alerts').flatMap((r) => (r.json as AmAlert[]).filter((a) => a.labels.alertname === 'AvalancheDiskLow').map((a) => ({ ...a, at: r.at })));

  it('is resolved at Alertmanager by the next run', { timeout: 60_000 }, async () => {
    let d: RunningDaemon = await startDaemon(config());
    try {
      const res = await fetch(`${d.url}/api/v1/silences`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ matchers: { target: 'n1' }, endsAt: new Date(Date.now() + 3600_000).toISOString(), comment: 'disk swap' }) });
      expect(res.status).toBe(200);
      await setScenario(sim, 'n1', 'disk-low');
      await waitFor('the muted disk alert sent to Alertmanager', () => disk().some((a) => Date.parse(a.endsAt) > a.at), 20_000);
    } finally {
      await d.stop();
    }
    await setScenario(sim, 'n1', 'healthy');
    // As a daemon killed between the disk's recovery and the mirror's next pass leaves its state: the
    // incident is over (a silenced alert that ends is never told), Alertmanager still holds it muted.
    const file = join(stateDir, 'alerts.json');
    const saved = JSON.parse(readFileSync(file, 'utf8')) as { alerts: Array<{ alertname: string }> };
    expect(saved.alerts.map((a) => a.alertname)).toContain('AvalancheDiskLow');
    writeFileSync(file, JSON.stringify({ ...saved, alerts: saved.alerts.filter((a) => a.alertname !== 'AvalancheDiskLow') }));
    const from = am.requests.length;
    d = await startDaemon(config());
    try {
      await waitFor('the disk alert resolved at Alertmanager', () => disk(from).some((a) => Date.parse(a.endsAt) <= a.at), 20_000);
    } finally {
      await d.stop();
    }
  });
});

/**
 * The note of what the mirror sent is on disk before Alertmanager hears it: a daemon killed right
 * after the muted alert left (the notes were written after the send) came back not knowing it had
 * sent it, and left it firing at Alertmanager, which paged it when the silence ended (seed 1 of the
 * trust week, a validator cut off a second before a SIGKILL). Alertmanager's stand-in reads the
 * daemon's notes file at the moment each muted alert arrives.
 */
describe('the mirror notes what it sends before it sends it', () => {
  let sim: SimServer;
  let am: Awaited<ReturnType<typeof startCapture>>;
  const stateDir = mkdtempSync(join(tmpdir(), 'avahealth-mirror-noted-'));
  const notedAtArrival: Array<{ target: string; noted: boolean }> = [];

  beforeAll(async () => {
    sim = await startSim([{ name: 'n1', scenario: 'healthy', validator: false }]);
    am = await startCapture((req) => {
      if (req.path === '/api/v2/alerts' && req.method === 'POST') {
        const notes = existsSync(notesFile(stateDir, 'am')) ? readFileSync(notesFile(stateDir, 'am'), 'utf8') : '';
        // muted: still firing (endsAt ahead) while the pipeline never told it (a silence holds it)
        for (const alert of req.json as AmAlert[]) if (Date.parse(alert.endsAt) > req.at) notedAtArrival.push({ target: alert.labels.target!, noted: notes.includes('mirror fed') && notes.includes(alert.labels.alertname!) });
        return { status: 200 };
      }
      return !req.path.startsWith('/api/v2/silences') ? { status: 200 } : req.method === 'GET' ? { status: 200, body: '[]' } : { status: 200, body: JSON.stringify({ silenceID: `am-${req.at}` }) };
    });
  });
  afterAll(async () => {
    await sim?.close();
    await am?.close();
  });

  it('holds for every muted alert Alertmanager receives', { timeout: 60_000 }, async () => {
    const d = await startDaemon(mirrorConfig(stateDir, sim, am.url));
    try {
      const res = await fetch(`${d.url}/api/v1/silences`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ matchers: { target: 'n1' }, endsAt: new Date(Date.now() + 3600_000).toISOString(), comment: 'disk swap' }) });
      expect(res.status).toBe(200);
      await setScenario(sim, 'n1', 'disk-low');
      await waitFor('three muted sends to Alertmanager', () => notedAtArrival.length >= 3, 30_000);
    } finally {
      await d.stop();
    }
    expect(notedAtArrival.filter((a) => !a.noted)).toEqual([]);
  });
});
