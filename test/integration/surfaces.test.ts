/**
 * The status page and the API say the same (issue 48): an alert its root cause holds back
 * (inhibition: AvalancheDiskLow holds back AvalancheNodeUnhealthy when diskspace is the only
 * failing check) is shown `held` on the
 * page and in /api/v1/alerts, and the page's header counts alerts by the state the API counts
 * (firing, held, flapping apart); every time the API gives is in epoch seconds. The daemon
 * against the simulator: a node whose disk is low, one whose C-Chain check flaps.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SimServer } from '../../src/sim/server.js';
import { get, startDaemon, startSim, waitFor, type RunningDaemon } from '../helpers/harness.js';

type ApiAlert = { alertname: string; target: string; state: string; inhibitedBy?: string; labels: Record<string, string>; activeSince: number; firingSince?: number; notified?: { at: number } };
type Counts = { firing: number; held: number; silenced: number; flapping: number; pending: number };

describe('the page and the API count and show alerts alike', () => {
  let sim: SimServer;
  let d: RunningDaemon;
  let startedAt: number;

  beforeAll(async () => {
    sim = await startSim([
      { name: 'disk', scenario: 'disk-low' },
      { name: 'flappy', scenario: 'flapping', periodMs: 1000 },
    ]);
    startedAt = Date.now();
    d = await startDaemon(`
listen: 127.0.0.1:0
defaults: {endpoints: [health], interval: 1s, timeout: 2s, validator: false}
nodes:
  - {name: disk, url: "${sim.nodeUrl('disk')}"}
  - {name: flappy, url: "${sim.nodeUrl('flappy')}"}
alerts:
  for_polls: 1
  resolve_polls: 1
  flap_threshold: 2
`);
  }, 30_000);

  afterAll(async () => {
    await d?.stop();
    await sim?.close();
  });

  const alerts = async () => (JSON.parse((await get(`${d.url}/api/v1/alerts`)).body) as { alerts: ApiAlert[] }).alerts;
  const counts = async () => (JSON.parse((await get(`${d.url}/api/v1/status`)).body) as { alerts: Counts }).alerts;

  it('a held symptom is shown held, by its root cause; the header counts firing, held and flapping apart, as the API does', { timeout: 60_000 }, async () => {
    const isHeld = (a: ApiAlert) => a.alertname === 'AvalancheNodeUnhealthy' && a.target === 'disk';
    await waitFor('the disk node\'s unhealthy alert held back by AvalancheDiskLow, and a flapping alert', async () => {
      const now = await alerts();
      return now.some((a) => isHeld(a) && a.state === 'held') && now.some((a) => a.state === 'flapping');
    }, 40_000);
    expect((await alerts()).find(isHeld)!.inhibitedBy).toBe('AvalancheDiskLow');

    // one moment: the API's counts read before and after the page agree
    const { page, api } = await waitFor('a page read between two equal counts', async () => {
      const before = await counts();
      const body = (await get(`${d.url}/`)).body;
      const after = await counts();
      return JSON.stringify(before) === JSON.stringify(after) ? { page: body, api: after } : undefined;
    }, 20_000);
    expect(api.held).toBeGreaterThanOrEqual(1);
    expect(api.flapping).toBeGreaterThanOrEqual(1);
    const header = /<p class="summary" role="status">(.*?)<\/p>/.exec(page)![1]!;
    const said = (state: string) => Number(new RegExp(`(\\d+) (?:alerts? )?${state}`).exec(header)?.[1] ?? 0);
    const { firing, held, flapping, silenced, pending } = api;
    expect({ firing: said('firing'), held: said('held'), flapping: said('flapping'), silenced: said('silenced'), pending: said('pending') }).toEqual({ firing, held, flapping, silenced, pending });

    // the alert's row: held, and by which root cause, not a badge of its severity as if it paged
    const alertsTable = page.slice(page.indexOf('<h2 id="alerts">'));
    const cells = alertsTable.split('<tr>').find((row) => row.includes('AvalancheNodeUnhealthy') && row.includes('href="/targets/disk"'))!;
    expect(cells).toMatch(/<span class="badge held"[^>]*>‖ held \((warning|critical)\)<\/span><div class="muted">by <code>AvalancheDiskLow<\/code><\/div>/);
  });

  it('every time in /api/v1 is in epoch seconds: alerts, silences and the status alike', { timeout: 30_000 }, async () => {
    const disk = (await alerts()).find((a) => a.alertname === 'AvalancheDiskLow')!;
    const seconds = (t: number | undefined) => t !== undefined && t >= startedAt / 1000 - 1 && t <= Date.now() / 1000 + 1;
    expect(seconds(disk.activeSince)).toBe(true);
    expect(seconds(disk.firingSince)).toBe(true);
    expect(seconds(disk.notified?.at)).toBe(true);
    const target = JSON.parse((await get(`${d.url}/api/v1/status`)).body) as { targets: Array<{ name: string; lastPollAt: number }> };
    expect(seconds(target.targets[0]!.lastPollAt)).toBe(true);

    const endsAt = new Date(Date.now() + 3_600_000);
    const created = await fetch(`${d.url}/api/v1/silences`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ matchers: { alertname: 'AvalancheDiskLow' }, endsAt: endsAt.toISOString(), comment: 'new disk' }) });
    expect(created.status).toBe(200);
    const { id } = (await created.json()) as { id: string };
    const silences = JSON.parse((await get(`${d.url}/api/v1/silences`)).body) as Array<{ id: string; startsAt: number; endsAt: number }>;
    expect(silences.find((s) => s.id === id)!.endsAt).toBe(endsAt.getTime() / 1000);
    const status = JSON.parse((await get(`${d.url}/api/v1/status`)).body) as { alerts: { silencedAlerts: Array<{ silencedBy: { id: string; endsAt: number } }> } };
    expect(status.alerts.silencedAlerts.find((a) => a.silencedBy.id === id)!.silencedBy.endsAt).toBe(endsAt.getTime() / 1000);
    const shown = (await alerts()).find((a) => a.alertname === 'AvalancheDiskLow') as ApiAlert & { silencedBy: { endsAt: number } };
    expect(shown.silencedBy.endsAt).toBe(endsAt.getTime() / 1000);
  });
});
