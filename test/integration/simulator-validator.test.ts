import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiSpec } from '../../src/openapi/spec.js';
import { readRpcAnswer, rpcRequest, type RpcAnswer } from '../../src/parse/jsonrpc.js';
import {
  parseFeeState,
  parseL1Validator,
  parseL1Validators,
  parseNodeIdResult,
  parseNodeVersion,
  parsePrimaryValidators,
  parseStakingDistribution,
  parseUpgrades,
  parseUptime,
  parseValidatorRecordHealth,
} from '../../src/parse/validator.js';
import { isVersionBehind, runwaySeconds } from '../../src/model/validator.js';
import type { SimServer } from '../../src/sim/server.js';
import { SIM_FEE_PRICE, SIM_HELICON_TIME, SIM_PRE_HELICON_VERSION } from '../../src/sim/validator.js';
import { setScenario, startSim } from '../helpers/harness.js';

let nextId = 1;

describe('simulated nodes answer info.* and platform.* with AvalancheGo\'s shapes', () => {
  let sim: SimServer;

  beforeAll(async () => {
    sim = await startSim([
      { name: 'v', scenario: 'healthy' },
      { name: 'l1v', scenario: 'healthy', l1: true },
      { name: 'rpc', scenario: 'healthy', validator: false },
    ]);
  });
  afterAll(() => sim.close());

  async function call(node: string, path: '/ext/info' | '/ext/bc/P', method: string, params: Record<string, unknown> = {}): Promise<RpcAnswer> {
    const id = nextId++;
    const res = await request(`${sim.nodeUrl(node)}${path}`, { method: 'POST', body: rpcRequest(method, params, id), headers: { 'content-type': 'application/json' } });
    return readRpcAnswer(res.statusCode, await res.body.text(), id);
  }

  async function result(node: string, path: '/ext/info' | '/ext/bc/P', method: string, params: Record<string, unknown> = {}): Promise<unknown> {
    const answer = await call(node, path, method, params);
    if (answer.kind !== 'result') throw new Error(`${method}: ${JSON.stringify(answer)}`);
    return answer.result;
  }

  async function raw(node: string, path: string, method: string, params: Record<string, unknown> = {}) {
    const res = await request(`${sim.nodeUrl(node)}${path}`, { method: 'POST', body: rpcRequest(method, params, 1), headers: { 'content-type': 'application/json' } });
    return { status: res.statusCode, text: await res.body.text() };
  }

  const ok = <T>(outcome: { ok: true; value: T } | { ok: false; error: string }): T => {
    if (!outcome.ok) throw new Error(outcome.error);
    return outcome.value;
  };

  it('numbers on the wire are strings, as AvalancheGo encodes them', async () => {
    const uptime = JSON.parse((await raw('v', '/ext/info', 'info.uptime')).text);
    expect(uptime.result).toEqual({ rewardingStakePercentage: expect.stringMatching(/^\d+\.\d{4}$/), weightedAveragePercentage: expect.stringMatching(/^\d+\.\d{4}$/) });
    const validators = JSON.parse((await raw('v', '/ext/bc/P', 'platform.getCurrentValidators', { nodeIDs: [sim.nodes.get('v')!.nodeId] })).text);
    expect(validators.result.validators[0]).toMatchObject({ startTime: expect.stringMatching(/^\d+$/), endTime: expect.stringMatching(/^\d+$/), potentialReward: '117431493426', delegationFee: '2.0000' });
    const fee = JSON.parse((await raw('v', '/ext/bc/P', 'platform.getValidatorFeeState')).text);
    expect(fee.result).toEqual({ excess: 26956, price: 512, timestamp: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/) });
  });

  it('a healthy validator: NodeID, uptime, version with Helicon, its current validation', async () => {
    const node = sim.nodes.get('v')!;
    expect(ok(parseNodeIdResult(await result('v', '/ext/info', 'info.getNodeID')))).toBe(node.nodeId);
    // network/network.go NodeUptime: peers' whole-percent Pings (about 99 %), the two small validators not connected at 0 %
    const uptime = ok(parseUptime(await result('v', '/ext/info', 'info.uptime')));
    expect(uptime.rewardingStakeRatio).toBeGreaterThan(0.999);
    expect(uptime.rewardingStakeRatio).toBeLessThan(1);
    expect(uptime.weightedAverageRatio).toBeGreaterThan(0.975);
    expect(uptime.weightedAverageRatio).toBeLessThan(0.995);
    expect(ok(parseNodeVersion(await result('v', '/ext/info', 'info.getNodeVersion')))).toBe('avalanchego/1.15.2');
    expect(ok(parseUpgrades(await result('v', '/ext/info', 'info.upgrades')))).toEqual({ heliconTime: Date.UTC(2026, 8, 22, 15) / 1000 });
    const primary = ok(parsePrimaryValidators(await result('v', '/ext/bc/P', 'platform.getCurrentValidators', { nodeIDs: [node.nodeId] }), node.nodeId));
    expect(primary).toMatchObject({ startTime: node.economics.validationStartsAt, endTime: Math.floor(node.validationEndsAt), potentialRewardNAvax: 117431493426 });
  });

  it('an L1 validator: its validation (and an inactive one of another node) on its subnet, getL1Validator, the fee state', async () => {
    const node = sim.nodes.get('l1v')!;
    const subnet = node.l1SubnetId!;
    const everyone = ok(parseL1Validators(await result('l1v', '/ext/bc/P', 'platform.getCurrentValidators', { subnetID: subnet }), subnet, undefined));
    expect(everyone.validations.map((v) => v.balanceNAvax > 0)).toEqual([true, false]);
    const mine = ok(parseL1Validators(await result('l1v', '/ext/bc/P', 'platform.getCurrentValidators', { subnetID: subnet, nodeIDs: [node.nodeId] }), subnet, node.nodeId));
    expect(mine.validations).toHaveLength(1);
    expect(mine.validations[0]).toMatchObject({ subnetId: subnet, validationId: node.economics.l1ValidationId, nodeId: node.nodeId });
    const one = ok(parseL1Validator(await result('l1v', '/ext/bc/P', 'platform.getL1Validator', { validationID: node.economics.l1ValidationId })));
    expect(one).toMatchObject({ subnetId: subnet, validationId: node.economics.l1ValidationId });
    expect(ok(parseFeeState(await result('l1v', '/ext/bc/P', 'platform.getValidatorFeeState'))).priceNAvaxPerSecond).toBe(SIM_FEE_PRICE);
  });

  it('a node that is not a validator says so; its Primary Network list is empty', async () => {
    expect(await call('rpc', '/ext/info', 'info.uptime')).toEqual({ kind: 'error', code: -32000, message: 'node is not a validator' });
    const nodeId = sim.nodes.get('rpc')!.nodeId;
    expect(ok(parsePrimaryValidators(await result('rpc', '/ext/bc/P', 'platform.getCurrentValidators', { nodeIDs: [nodeId] }), nodeId))).toBeNull();
  });

  it('unknown methods answer gorilla\'s "can\'t find method" (a disabled API to the probe)', async () => {
    expect(await call('v', '/ext/info', 'info.peerz')).toEqual({ kind: 'disabled', detail: 'JSON-RPC error -32000: rpc: can\'t find method "info.Peerz"' });
    expect((await raw('v', '/ext/bc/P', 'info.uptime')).text).toContain('can\'t find method');
    const get = await request(`${sim.nodeUrl('v')}/ext/info`);
    expect(get.statusCode).toBe(405);
    await get.body.dump();
  });

  it('reward-at-risk: 72.5 % rewarding stake, 66 % weighted uptime; the Data API sees the same', async () => {
    await setScenario(sim, 'v', 'reward-at-risk');
    expect(ok(parseUptime(await result('v', '/ext/info', 'info.uptime')))).toEqual({ rewardingStakeRatio: 0.725, weightedAverageRatio: 0.66 });
    const nodeId = sim.nodes.get('v')!.nodeId;
    const res = await request(`${sim.serviceUrl('data-api')}/v1/networks/mainnet/validators/${nodeId}`);
    const records = ((await res.body.json()) as { validators: Array<Record<string, unknown>> }).validators;
    const active = records.find((r) => r.validationStatus === 'active');
    expect(parseValidatorRecordHealth(active)).toMatchObject({ uptimePerformanceRatio: 0.66, reachabilityRatio: 0.725, benchedRequestsRatio: { C: 0.125 } });
    await setScenario(sim, 'v', 'healthy', { rewardingStakePercent: 55, weightedAveragePercent: 80 });
    expect(ok(parseUptime(await result('v', '/ext/info', 'info.uptime')))).toEqual({ rewardingStakeRatio: 0.55, weightedAverageRatio: 0.8 });
    sim.nodes.get('v')!.economics.rewardingStakePercent = undefined;
    sim.nodes.get('v')!.economics.weightedAveragePercent = undefined;
  });

  it('l1-balance-low: about 2.3 days of runway at 512 nAVAX/s; l1-inactive: balance "0"', async () => {
    const node = sim.nodes.get('l1v')!;
    const mine = async () => ok(parseL1Validators(await result('l1v', '/ext/bc/P', 'platform.getCurrentValidators', { subnetID: node.l1SubnetId, nodeIDs: [node.nodeId] }), node.l1SubnetId!, node.nodeId)).validations[0]!;
    await setScenario(sim, 'l1v', 'l1-balance-low');
    expect(runwaySeconds((await mine()).balanceNAvax, SIM_FEE_PRICE)! / 86400).toBeCloseTo(2.3, 2);
    await setScenario(sim, 'l1v', 'l1-inactive');
    expect((await mine()).balanceNAvax).toBe(0);
    await setScenario(sim, 'l1v', 'healthy');
    expect((await mine()).balanceNAvax).toBeGreaterThan(8_000_000_000);
  });

  it('version-behind: an older v1.15 build that knows Helicon, while most of the network\'s stake runs newer; its chains are fine', async () => {
    // releases/v1.15.0-fuji: version/constants.go RPCChainVMProtocol 46 and MinimumCompatibleVersion 1.15.0; its
    // RELEASES.md schedules Helicon's ACPs. A 1.15.2 peer keeps a 1.15.0 node connected after the activation.
    await setScenario(sim, 'v', 'version-behind');
    const version = ok(parseNodeVersion(await result('v', '/ext/info', 'info.getNodeVersion')));
    expect(version).toBe('avalanchego/1.15.0');
    expect(await result('v', '/ext/info', 'info.getNodeVersion')).toMatchObject({ rpcProtocolVersion: '46' });
    expect(ok(parseUpgrades(await result('v', '/ext/info', 'info.upgrades')))).toEqual({ heliconTime: Date.parse(SIM_HELICON_TIME) / 1000 });
    const details = await request(`${sim.serviceUrl('data-api')}/v1/networks/mainnet`);
    const distribution = ok(parseStakingDistribution(await details.body.json()));
    expect(isVersionBehind(version, distribution)).toBe(true);
    const health = (await (await request(`${sim.nodeUrl('v')}/ext/health`)).body.json()) as { healthy: boolean; checks: Record<string, { error?: string }> };
    expect(health.healthy).toBe(true);
    await setScenario(sim, 'v', 'healthy');
    expect(isVersionBehind(ok(parseNodeVersion(await result('v', '/ext/info', 'info.getNodeVersion'))), distribution)).toBe(false);
  });

  it('a build from before Helicon, given explicitly: Helicon unscheduled, and past the activation its upgraded peers drop it', async () => {
    // version/constants.go on v1.15: GetCompatibility's MinCompatibleAfterUpgrade is 1.15.0, so after the upgrade time
    // network/peer/peer.go disconnects a v1.14.2 peer; upgrade/upgrade.go: v1.14 reads heliconTime as UnscheduledActivationTime.
    await setScenario(sim, 'v', 'healthy', { version: SIM_PRE_HELICON_VERSION });
    try {
      expect(await result('v', '/ext/info', 'info.getNodeVersion')).toMatchObject({ version: SIM_PRE_HELICON_VERSION, rpcProtocolVersion: '45' });
      expect(ok(parseUpgrades(await result('v', '/ext/info', 'info.upgrades')))).toEqual({ heliconTime: null });
      const health = (await (await request(`${sim.nodeUrl('v')}/ext/health`)).body.json()) as { healthy: boolean; checks: Record<string, { error?: string; message?: { networking?: { percentConnected: number } } }> };
      expect(health.healthy).toBe(false);
      expect(health.checks.C!.error).toMatch(/^not connected to enough stake/);
      expect(health.checks.C!.message!.networking!.percentConnected).toBeLessThan(0.8);
      // dropped: the peers it still has advertise its own time, so futureupgrade passes (node/node.go)
      expect(health.checks.futureupgrade!.error).toBeUndefined();
    } finally {
      await setScenario(sim, 'v', 'healthy', { version: null });
    }
    expect(await result('v', '/ext/info', 'info.getNodeVersion')).toMatchObject({ version: 'avalanchego/1.15.2' });
  });

  it('not-validator: the error answer, no current validation, and no active record in the Data API', async () => {
    await setScenario(sim, 'v', 'not-validator');
    expect(await call('v', '/ext/info', 'info.uptime')).toMatchObject({ kind: 'error', message: 'node is not a validator' });
    const nodeId = sim.nodes.get('v')!.nodeId;
    const res = await request(`${sim.serviceUrl('data-api')}/v1/networks/mainnet/validators/${nodeId}`);
    const body = (await res.body.json()) as { validators: Array<Record<string, unknown>> };
    expect(body.validators.map((r) => r.validationStatus)).toEqual(['completed', 'completed']);
    await setScenario(sim, 'v', 'healthy');
  });

  it('info-api-disabled: /ext/info is a 404 while health stays healthy', async () => {
    await setScenario(sim, 'v', 'info-api-disabled');
    expect(await call('v', '/ext/info', 'info.uptime')).toEqual({ off: true, kind: 'disabled', detail: 'HTTP 404: 404 page not found' });
    expect((await call('v', '/ext/bc/P', 'platform.getValidatorFeeState')).kind).toBe('result');
    const health = await request(`${sim.nodeUrl('v')}/ext/health`);
    expect(health.statusCode).toBe(200);
    await health.body.dump();
    await setScenario(sim, 'v', 'healthy');
  });

  it('validator-bad-shape: out-of-range percent, no endTime, no price (each a shape error)', async () => {
    await setScenario(sim, 'v', 'validator-bad-shape');
    const nodeId = sim.nodes.get('v')!.nodeId;
    expect(parseUptime(await result('v', '/ext/info', 'info.uptime'))).toMatchObject({ ok: false, error: expect.stringContaining('"172.5000"') });
    expect(parsePrimaryValidators(await result('v', '/ext/bc/P', 'platform.getCurrentValidators', { nodeIDs: [nodeId] }), nodeId)).toMatchObject({ ok: false, error: 'endTime nothing is not a time' });
    expect(parseFeeState(await result('v', '/ext/bc/P', 'platform.getValidatorFeeState'))).toMatchObject({ ok: false });
    await setScenario(sim, 'v', 'healthy');
  });

  it('the Data API network details and validator records still match the published spec', async () => {
    const spec = ApiSpec.load('data-api');
    for (const scenario of ['healthy', 'reward-at-risk', 'version-behind', 'not-validator'] as const) {
      await setScenario(sim, 'v', scenario);
      for (const path of ['/v1/networks/mainnet', `/v1/networks/mainnet/validators/${sim.nodes.get('v')!.nodeId}`]) {
        const res = await request(`${sim.serviceUrl('data-api')}${path}`);
        const body = await res.body.json();
        expect(spec.check(spec.findOperation('GET', path)!, res.statusCode, body), `${scenario} ${path}`).toBeUndefined();
      }
    }
    await setScenario(sim, 'v', 'healthy');
  });
});
