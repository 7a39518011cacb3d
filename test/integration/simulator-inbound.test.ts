// A simulated validator whose staking port is closed behaves as AvalancheGo's source says: it dials
// every validator, so validators see it connected (vms/platformvm/service.go: Peers().Has, either
// direction); a node that is not a validator cannot connect to it; after the ingress grace
// (--network-no-ingress-connections-grace-period, 10 minutes) its network check reports
// ingressConnectionCount 0 and fails (network/network.go HealthCheck, network/no_ingress_conn_alert.go).
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseHealthReport } from '../../src/parse/avalanchego.js';
import { rpcRequest } from '../../src/parse/jsonrpc.js';
import type { SimServer } from '../../src/sim/server.js';
import { startSim } from '../helpers/harness.js';

describe('a simulated validator with its staking port closed', () => {
  let sim: SimServer;

  beforeAll(async () => {
    sim = await startSim([
      { name: 'v1' },
      { name: 'rpc', validator: false },
      { name: 'closed', scenario: 'inbound-closed' },
      { name: 'fresh', scenario: 'inbound-closed', startedAgoMs: 0 },
    ]);
  });
  afterAll(() => sim.close());

  const connected = async (observer: string, subject: string) => {
    const body = rpcRequest('platform.getCurrentValidators', { nodeIDs: [sim.nodes.get(subject)!.nodeId, 'NodeID-111111111111111111116DBWJs'] }, 1);
    const res = await request(`${sim.nodeUrl(observer)}/ext/bc/P`, { method: 'POST', body, headers: { 'content-type': 'application/json' } });
    return ((await res.body.json()) as { result: { validators: Array<{ connected: boolean }> } }).result.validators[0]!.connected;
  };
  const network = async (node: string) => {
    const parsed = parseHealthReport(await (await request(`${sim.nodeUrl(node)}/ext/health`)).body.json());
    if (!parsed.ok) throw new Error(parsed.error);
    return parsed.value.checks.find((c) => c.name === 'network')!;
  };

  it('validators see it connected, a node that is not a validator does not', async () => {
    expect(await connected('v1', 'closed')).toBe(true);
    expect(await connected('rpc', 'closed')).toBe(false);
    expect(await connected('rpc', 'v1')).toBe(true);
  });

  it('past the grace its network check fails with no inbound connections; inside it the count is not reported', async () => {
    const closed = await network('closed');
    expect(closed).toMatchObject({ passing: false, error: 'network layer is unhealthy reason: primary network validator has no inbound connections', network: { ingressConnections: 0, primaryNetworkValidator: true } });
    const fresh = await network('fresh');
    expect(fresh.passing).toBe(true);
    expect(fresh.network?.ingressConnections).toBeUndefined();
    // a node that is not a validator has no inbound connections either, and passes (no_ingress_conn_alert.go)
    expect(await network('rpc')).toMatchObject({ passing: true, network: { ingressConnections: 0, primaryNetworkValidator: false } });
    expect(await network('v1')).toMatchObject({ passing: true, network: { ingressConnections: 702, primaryNetworkValidator: true } });
  });

  it('a restart starts the grace over, with the grace the node restarted with', async () => {
    const restart = (grace: number) => request(`${sim.baseUrl}/sim/nodes/closed/restart`, { method: 'POST', body: JSON.stringify({ ingressGraceSeconds: grace }) }).then((r) => r.body.text());
    const node = sim.nodes.get('closed')!;
    // the health worker's next run (startSim's period is an hour)
    const nextRun = () => node.health(undefined, Date.now() + 3_600_000).checks.network!.error;
    await restart(7200);
    expect((await network('closed')).passing).toBe(true);
    expect(nextRun()).toBeUndefined();
    await restart(30);
    expect((await network('closed')).passing).toBe(true);
    expect(nextRun()).toMatch(/no inbound connections/);
  });
});
