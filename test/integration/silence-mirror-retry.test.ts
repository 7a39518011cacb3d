/**
 * Mirroring silences never blocks the daemon and retries (#34.3), through the receiver's outbox
 * (#48): against a local server that answers as Alertmanager's v2 API does, but refuses the first
 * silence twice with a 503, the daemon keeps polling and serving, the outbox logs each failed
 * attempt and retries it, the silence is made once, and only then are the alerts it holds sent
 * (before, Alertmanager would have paged them).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SimServer } from '../../src/sim/server.js';
import { startCapture } from '../helpers/capture.js';
import { get, startDaemon, startSim, waitFor, type RunningDaemon } from '../helpers/harness.js';

type Posted = Array<{ labels: Record<string, string> }>;

describe('silence mirroring when Alertmanager fails', () => {
  let sim: SimServer;
  let am: Awaited<ReturnType<typeof startCapture>>;
  let d: RunningDaemon;
  let silencePosts = 0;

  beforeAll(async () => {
    sim = await startSim([{ name: 'n1', scenario: 'network-down' }]);
    let made: unknown;
    am = await startCapture((req) => {
      if (req.path === '/api/v2/silences') {
        if (++silencePosts <= 2) return { status: 503, body: 'not ready' };
        made = { ...(req.json as object), id: 'am-1', status: { state: 'active' } };
        return { status: 200, body: '{"silenceID":"am-1"}' };
      }
      if (req.path === '/api/v2/silence/am-1') return { status: 200, body: JSON.stringify(made) };
      // the silences with given matchers (Alertmanager's filter): the one made, once it is
      if (req.path.startsWith('/api/v2/silences?')) return { status: 200, body: JSON.stringify(made ? [made] : []) };
      return { status: 200 };
    });
    d = await startDaemon(`
nodes:
  - {name: n1, url: "${sim.nodeUrl('n1')}", interval: 1s}
alerts:
  for_polls: 1
  silences:
    - {matchers: {target: n1}, ends_at: "${new Date(Date.now() + 3600_000).toISOString()}", comment: swap}
  receivers:
    - {name: am, alertmanager: {url: "${am.url}", resend_interval: 1s}}
`);
  }, 30_000);

  afterAll(async () => {
    await d?.stop();
    await sim?.close();
    await am?.close();
  });

  it('retries through the outbox, serves meanwhile, makes the silence once, and sends the held alerts only once it is made', { timeout: 60_000 }, async () => {
    // the third POST of the silence is the one answered 200
    const made = await waitFor('the silence made on a later attempt', () => am.requests.filter((r) => r.path === '/api/v2/silences' && (r.json as { comment?: string } | undefined)?.comment?.startsWith('swap'))[2], 30_000);
    await waitFor('the silence noted as made', () => d.logs().includes('silence mirrored to Alertmanager'), 20_000);
    const failed = d.logs().split('\n').filter((line) => line.includes('notification delivery failed; will retry'));
    expect(failed).toHaveLength(2);
    expect(failed.every((line) => line.includes('"receiver":"am"') && line.includes('HTTP 503'))).toBe(true);
    expect((await get(`${d.url}/-/healthy`)).status).toBe(200);
    expect(d.daemon.store.get('n1')!.rounds).toBeGreaterThan(1);
    await waitFor('the held alerts sent, muted there', () => am.on('/api/v2/alerts').some((r) => (r.json as Posted).some((a) => a.labels.target === 'n1')), 20_000);
    const early = am.on('/api/v2/alerts').filter((r) => r.at < made.at && (r.json as Posted).some((a) => a.labels.target === 'n1'));
    expect(early).toEqual([]);
    // read back by its id on later passes, never made twice
    await waitFor('the silence read back', () => am.requests.some((r) => r.path === '/api/v2/silence/am-1'), 20_000);
    expect(silencePosts).toBe(3);
  });
});
