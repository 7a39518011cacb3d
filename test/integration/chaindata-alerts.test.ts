import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SimServer } from '../../src/sim/server.js';
import { startCapture } from '../helpers/capture.js';
import { startDaemon, waitFor, type RunningDaemon } from '../helpers/harness.js';

type Webhook = { status: string; alerts: Array<{ labels: Record<string, string> }> };

describe('chain-data alerts on a fresh start', () => {
  let sim: SimServer;
  let capture: Awaited<ReturnType<typeof startCapture>>;
  let d: RunningDaemon;
  /** Polls of the lagging node completed when each webhook arrived. */
  const roundsAtPage: number[] = [];

  beforeAll(async () => {
    // heights stand still: one block an hour
    sim = new SimServer(
      [
        { name: 'ahead', scenario: 'healthy', periodMs: 3_600_000 },
        { name: 'behind', scenario: 'lagging', lagBlocks: 600, periodMs: 3_600_000 },
      ],
      { blockMs: 3_600_000 },
    );
    await sim.listen(0);
    capture = await startCapture(() => {
      roundsAtPage.push(d.daemon.store.get('behind')?.rounds ?? 0);
      return { status: 200 };
    });
    d = await startDaemon(`
nodes:
  - {name: ahead, url: "${sim.nodeUrl('ahead')}", interval: 2s}
  - {name: behind, url: "${sim.nodeUrl('behind')}", interval: 2s}
services:
  - {name: data-api, kind: data-api, url: "${sim.serviceUrl('data-api')}", interval: 1m}
chain_data: {interval: 1m}
alerts:
  for_polls: 2
  receivers:
    - {name: oncall, webhook: {url: "${capture.url}/hook"}}
`);
  });
  afterAll(async () => {
    await d?.stop();
    await sim?.close();
    await capture?.close();
  });

  it('AvalancheNodeHeightLag waits for two real polls of the node: the chain-data refresh after the first round does not count', async () => {
    await waitFor('chain data after the first round', () => d.daemon.store.chainData?.refreshedAt);
    const hook = await waitFor('the height-lag page', () => capture.on('/hook').find((r) => (r.json as Webhook).alerts.some((a) => a.labels.alertname === 'AvalancheNodeHeightLag')), 15_000);
    const page = hook.json as Webhook;
    expect(page.alerts.map((a) => [a.labels.alertname, a.labels.target, a.labels.severity])).toContainEqual(['AvalancheNodeHeightLag', 'behind', 'critical']);
    expect(roundsAtPage[capture.requests.indexOf(hook)]).toBeGreaterThanOrEqual(2);
    expect(d.daemon.store.lagsOf('behind').find((l) => l.chain === 'C')?.lagBlocks).toBe(600);
  });
});
