import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { MAX_JSON_DEPTH, readRpcAnswer } from '../../src/parse/jsonrpc.js';
import {
  decimal,
  isNotValidatorError,
  parseFeeState,
  parseIsBootstrapped,
  parseL1Validator,
  parseL1Validators,
  parseNetworkId,
  parseNodeIdResult,
  parseNodeVersion,
  parsePrimaryValidators,
  parseStakingDistribution,
  parseTotalStake,
  parseUpgrades,
  parseUptime,
  parseValidatorRecordHealth,
  percentRatio,
  unsigned,
} from '../../src/parse/validator.js';
import { OWN_FIXTURES, readJson, utc } from '../helpers/fixtures.js';

const NODE = 'NodeID-Q4STe8P7iKKrZgDaTxY5yGdsUrCj1G4XY';
const OTHER = 'NodeID-Mdq9QprMhhaGeTt45sBhhTiD4tZpeU2Tn';
const SUBNET = 'csu12v5GV2hVy5gLTGap8zJNX2q6Ka4cKZ4Xfyq6sqh7GtpPB';
const path = (name: string) => join(OWN_FIXTURES, 'avalanchego', 'validator', name);

/** The result of a fixture's JSON-RPC envelope, through the same classifier the probe uses. */
function result(name: string): unknown {
  const body = readFileSync(path(name), 'utf8');
  const id = (JSON.parse(body) as { id: number }).id;
  const answer = readRpcAnswer(200, body, id);
  if (answer.kind !== 'result') throw new Error(`${name}: ${JSON.stringify(answer)}`);
  return answer.result;
}

function value<T>(outcome: { ok: true; value: T } | { ok: false; error: string }): T {
  if (!outcome.ok) throw new Error(outcome.error);
  return outcome.value;
}

function error(outcome: { ok: true; value: unknown } | { ok: false; error: string }): string {
  expect(outcome.ok).toBe(false);
  return outcome.ok ? '' : outcome.error;
}

describe('numbers as strings or plain numbers', () => {
  it('reads Go json.Float64 strings, uint64 strings and plain numbers', () => {
    expect(decimal('72.5000')).toBe(72.5);
    expect(decimal(99)).toBe(99);
    expect(unsigned('117431493426')).toBe(117431493426);
    expect(unsigned(512)).toBe(512);
    expect(percentRatio('100.0000')).toBe(1);
  });

  it('rejects everything else instead of producing NaN', () => {
    for (const bad of ['', 'NaN', 'Infinity', '1e3', ' 1', '0x10', '12abc', null, true, {}, [], '9'.repeat(50), Number.NaN, Number.POSITIVE_INFINITY]) {
      expect(decimal(bad), JSON.stringify(bad)).toBeUndefined();
    }
    for (const bad of ['-1', '1.5', -1, 1.5, '1'.repeat(21), 2 ** 60]) expect(unsigned(bad), JSON.stringify(bad)).toBeUndefined();
    for (const bad of ['100.0001', '-0.5', 101, 'ninety']) expect(percentRatio(bad), JSON.stringify(bad)).toBeUndefined();
  });
});

describe('info.*', () => {
  it('info.getNodeID', () => {
    expect(value(parseNodeIdResult(result('info-getNodeID.json')))).toBe(NODE);
    expect(error(parseNodeIdResult({ nodeID: 'NodeID-<script>' }))).toContain('not a NodeID');
  });

  it('info.uptime with percent strings and with plain numbers', () => {
    expect(value(parseUptime(result('info-uptime.json')))).toEqual({ rewardingStakeRatio: 1, weightedAverageRatio: 0.99 });
    expect(value(parseUptime(result('info-uptime-at-risk.json')))).toEqual({ rewardingStakeRatio: 0.725, weightedAverageRatio: expect.closeTo(0.861234, 9) });
    expect(value(parseUptime(result('info-uptime-numbers.json')))).toEqual({ rewardingStakeRatio: 0.9825, weightedAverageRatio: 0.99 });
  });

  it('info.uptime percent out of range or not numeric is a shape error', () => {
    expect(error(parseUptime({ rewardingStakePercentage: '100.5000', weightedAveragePercentage: '99.0000' }))).toContain('rewardingStakePercentage "100.5000"');
    expect(error(parseUptime({ rewardingStakePercentage: '99.0000', weightedAveragePercentage: '-1.0000' }))).toContain('weightedAveragePercentage');
    expect(error(parseUptime({ rewardingStakePercentage: 'high', weightedAveragePercentage: '99.0000' }))).toContain('"high"');
    expect(error(parseUptime({ rewardingStakePercentage: '99.0000' }))).toContain('weightedAveragePercentage nothing');
    expect(error(parseUptime('99'))).toContain('must be an object');
  });

  it('"node is not a validator" is an error answer the probe tells apart', () => {
    const answer = readRpcAnswer(200, readFileSync(path('info-uptime-not-validator.json'), 'utf8'), 2);
    expect(answer).toEqual({ kind: 'error', code: -32000, message: 'node is not a validator' });
    expect(isNotValidatorError(answer.kind === 'error' ? answer.message : '')).toBe(true);
    expect(isNotValidatorError('health check service unavailable')).toBe(false);
  });

  it('info.isBootstrapped: a boolean, nothing else (api/info/service.go IsBootstrappedResponse)', () => {
    expect(value(parseIsBootstrapped({ isBootstrapped: false }))).toBe(false);
    expect(value(parseIsBootstrapped({ isBootstrapped: true }))).toBe(true);
    expect(error(parseIsBootstrapped({ isBootstrapped: 'false' }))).toBe('isBootstrapped "false" is not a boolean');
    expect(error(parseIsBootstrapped(null))).toContain('info.isBootstrapped result must be an object');
  });

  it('info.getNodeVersion', () => {
    expect(value(parseNodeVersion(result('info-getNodeVersion.json')))).toBe('avalanchego/1.14.2');
    expect(value(parseNodeVersion({ version: 'avalanchego/v1.15.0-fuji' }))).toBe('avalanchego/v1.15.0-fuji');
    expect(error(parseNodeVersion({ version: 'avalanche/1.14.2"} evil' }))).toContain('not a node version');
    expect(error(parseNodeVersion({ version: 'x'.repeat(500) }))).toContain('…');
  });

  it('info.upgrades: heliconTime in RFC 3339, absent on an older node (the 0.8 rule)', () => {
    expect(value(parseUpgrades(result('info-upgrades-v1.15.json')))).toEqual({ heliconTime: utc(2026, 9, 22, 15, 0, 0) });
    expect(value(parseUpgrades(result('info-upgrades-v1.14-no-helicon.json')))).toEqual({ heliconTime: null });
    expect(error(parseUpgrades({ heliconTime: 'next tuesday' }))).toContain('heliconTime "next tuesday"');
  });
});

describe('platform.*', () => {
  it('getCurrentValidators: the node\'s own Primary Network validation, strings for integers', () => {
    expect(value(parsePrimaryValidators(result('platform-getCurrentValidators.json'), NODE))).toEqual({
      txId: '2SBxkw61nH4DnYmPqAfi9wpsLHmiuiTSgnGM3DSt2kfzPTkH76',
      startTime: 1600368632,
      endTime: 1602960455,
      weightNAvax: 2_000_000_000_000,
      potentialRewardNAvax: 117_431_493_426,
      delegationFee: 10,
      delegatorCount: 1,
      delegatorWeightNAvax: 25_000_000_000,
      uptimeRatio: 0.995,
      connected: true,
    });
  });

  it('getCurrentValidators: not in the set, another node only, or an empty list is "no validation"', () => {
    expect(value(parsePrimaryValidators(result('platform-getCurrentValidators-empty.json'), NODE))).toBeNull();
    expect(value(parsePrimaryValidators(result('platform-getCurrentValidators.json'), OTHER))).toBeNull();
  });

  it('getCurrentValidators: missing startTime or endTime is a shape error for that part', () => {
    expect(error(parsePrimaryValidators(result('platform-getCurrentValidators-missing-endTime.json'), NODE))).toBe('endTime nothing is not a time');
    expect(error(parsePrimaryValidators({ validators: [{ nodeID: NODE, endTime: '1602960455' }] }, NODE))).toContain('startTime');
    expect(error(parsePrimaryValidators({ validators: [{ nodeID: NODE, startTime: '5', endTime: '4' }] }, NODE))).toContain('before');
    expect(error(parsePrimaryValidators({ validators: [{ nodeID: NODE, startTime: '1', endTime: '4', potentialReward: 'lots' }] }, NODE))).toContain('potentialReward "lots"');
    expect(error(parsePrimaryValidators({ validators: 'none' }, NODE))).toContain('"validators" must be an array');
  });

  it('getCurrentValidators with subnetID: L1 validations including inactive ones (balance "0")', () => {
    const all = value(parseL1Validators(result('platform-getCurrentValidators-l1.json'), SUBNET, undefined));
    expect(all.validations.map((v) => [v.validationId, v.balanceNAvax])).toEqual([
      ['241RYZbNatRSCM9f4c8bKCWgsPDNUCkhL64emFqYULMS5Xgzeg', 8_780_477_952],
      ['9ncVcWRHBm8WnCUirnqQTmAb1jnuLbNNURSHBYtgFjqH27yTK', 0],
    ]);
    const mine = value(parseL1Validators(result('platform-getCurrentValidators-l1.json'), SUBNET, NODE));
    expect(mine).toEqual({
      validations: [{ subnetId: SUBNET, validationId: '241RYZbNatRSCM9f4c8bKCWgsPDNUCkhL64emFqYULMS5Xgzeg', nodeId: NODE, weight: 20, startTime: 1732025492, balanceNAvax: 8_780_477_952 }],
      legacy: 0,
    });
    const inactive = value(parseL1Validators(result('platform-getCurrentValidators-l1-inactive.json'), SUBNET, NODE));
    expect(inactive.validations[0]?.balanceNAvax).toBe(0);
  });

  it('a permissioned subnet\'s validators (no validationID, no balance) are not L1 validations', () => {
    expect(value(parseL1Validators(result('platform-getCurrentValidators-permissioned-subnet.json'), SUBNET, NODE))).toEqual({ validations: [], legacy: 1 });
  });

  it('L1 entries with an unusable ID or balance are shape errors (IDs become labels)', () => {
    expect(error(parseL1Validators({ validators: [{ nodeID: NODE, validationID: 'a"b{c}', balance: '1' }] }, SUBNET, NODE))).toContain('validationID');
    expect(error(parseL1Validators({ validators: [{ nodeID: NODE, validationID: SUBNET, balance: '-5' }] }, SUBNET, NODE))).toContain('balance "-5"');
  });

  it('getL1Validator: one validation, not an array', () => {
    expect(value(parseL1Validator(result('platform-getL1Validator.json')))).toEqual({
      subnetId: SUBNET,
      validationId: '241RYZbNatRSCM9f4c8bKCWgsPDNUCkhL64emFqYULMS5Xgzeg',
      nodeId: NODE,
      weight: 20,
      startTime: 1732025492,
      balanceNAvax: 1_000_000_000,
    });
    expect(error(parseL1Validator({ validationID: SUBNET, balance: '1' }))).toContain('subnetID');
  });

  it('getValidatorFeeState: plain numbers; a missing price is a shape error', () => {
    expect(value(parseFeeState(result('platform-getValidatorFeeState.json')))).toEqual({ priceNAvaxPerSecond: 512, excess: 26956, timestamp: utc(2024, 12, 16, 17, 19, 7) });
    expect(value(parseFeeState({ price: '512' })).priceNAvaxPerSecond).toBe(512);
    expect(error(parseFeeState(result('platform-getValidatorFeeState-no-price.json')))).toBe('price nothing is not a fee price');
    expect(error(parseFeeState({ price: -1 }))).toContain('price -1');
  });
});

describe('JSON-RPC answers', () => {
  it('an error object with a 200 status is an error answer, not a result', () => {
    const body = JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message: 'couldn\'t unmarshal an argument', data: null }, id: 9 });
    expect(readRpcAnswer(200, body, 9)).toEqual({ kind: 'error', code: -32000, message: 'couldn\'t unmarshal an argument' });
  });

  it('method not found and a 404 mean a disabled API', () => {
    expect(readRpcAnswer(200, readFileSync(path('method-not-found.json'), 'utf8'), 4)).toEqual({ kind: 'disabled', detail: 'JSON-RPC error -32000: rpc: can\'t find method "info.Upgrades"' });
    expect(readRpcAnswer(200, JSON.stringify({ jsonrpc: '2.0', error: { code: -32601, message: 'Method not found' }, id: 1 }), 1).kind).toBe('disabled');
    expect(readRpcAnswer(404, '404 page not found\n', 1)).toEqual({ off: true, kind: 'disabled', detail: 'HTTP 404: 404 page not found' });
  });

  it('classifies the rest into probe failure reasons', () => {
    expect(readRpcAnswer(502, '<html><body>Bad Gateway</body></html>', 1)).toEqual({ kind: 'failure', reason: 'http_status', error: 'HTTP 502: Bad Gateway' });
    expect(readRpcAnswer(429, 'slow down', 1)).toMatchObject({ kind: 'failure', reason: 'rate_limited' });
    expect(readRpcAnswer(200, '', 1)).toMatchObject({ kind: 'failure', reason: 'bad_json' });
    expect(readRpcAnswer(200, '{"jsonrpc":"2.0","res', 1)).toMatchObject({ kind: 'failure', reason: 'bad_json' });
    expect(readRpcAnswer(200, '[1]', 1)).toMatchObject({ kind: 'failure', reason: 'bad_shape' });
    expect(readRpcAnswer(200, '{"jsonrpc":"2.0","result":{},"id":2}', 1)).toMatchObject({ kind: 'failure', reason: 'bad_shape', error: 'JSON-RPC id mismatch: sent 1, got 2' });
    expect(readRpcAnswer(200, '{"jsonrpc":"2.0","id":1}', 1)).toMatchObject({ kind: 'failure', reason: 'bad_shape' });
  });

  it('caps an untrusted error message', () => {
    const answer = readRpcAnswer(200, JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message: 'x'.repeat(100_000) }, id: 1 }), 1);
    expect(answer.kind === 'error' && answer.message.length).toBeLessThanOrEqual(301);
  });
});

describe('Data API', () => {
  it('stakingDistributionByVersion from the network details', () => {
    expect(value(parseStakingDistribution(readJson(path('data-api-network-details.json'))))).toEqual([
      { version: 'avalanchego/1.15.2', amountStakedNAvax: 131_400_000_000_000_000, validatorCount: 902 },
      { version: 'avalanchego/1.14.2', amountStakedNAvax: 65_700_000_000_000_000, validatorCount: 470 },
      { version: 'avalanchego/1.13.5', amountStakedNAvax: 21_900_000_000_000_000, validatorCount: 140 },
    ]);
    // Required in the published schema: missing or null is a bad shape, an empty list is none.
    expect(error(parseStakingDistribution({ validatorDetails: {} }))).toContain('stakingDistributionByVersion must be an array');
    expect(error(parseStakingDistribution({ validatorDetails: { stakingDistributionByVersion: null } }))).toContain('must be an array');
    expect(value(parseStakingDistribution({ validatorDetails: { stakingDistributionByVersion: [] } }))).toEqual([]);
    expect(error(parseStakingDistribution({ validatorDetails: { stakingDistributionByVersion: [{ version: 'avalanche/1.15.2', amountStaked: 'a lot' }] } }))).toContain('amountStaked');
  });

  it('the live validator record\'s uptimePerformance and validatorHealth, as ratios', () => {
    const record = {
      uptimePerformance: 99.8,
      avalancheGoVersion: 'avalanchego/1.14.2',
      validatorHealth: { reachabilityPercent: 100, benchedPChainRequestsPercent: 0, benchedXChainRequestsPercent: 2.5, benchedCChainRequestsPercent: 0 },
    };
    expect(parseValidatorRecordHealth(record)).toEqual({
      uptimePerformanceRatio: 0.998,
      reachabilityRatio: 1,
      avalancheGoVersion: 'avalanchego/1.14.2',
      benchedRequestsRatio: { P: 0, X: 0.025, C: 0 },
    });
    expect(parseValidatorRecordHealth({ validationStatus: 'completed' })).toEqual({ benchedRequestsRatio: {} });
    expect(parseValidatorRecordHealth({ uptimePerformance: 'n/a', validatorHealth: { reachabilityPercent: 400 } })).toEqual({ benchedRequestsRatio: {} });
  });
});

describe('issue 24: AvalancheGo v1.14/v1.15 shapes and hostile ones', () => {
  it('auto-renewed validators (ACP-236): nextPeriod, autoCompoundRewardShares, validatorAuthority (vms/platformvm/api/validator.go AutoRenewedConfig)', () => {
    const renewing = value(parsePrimaryValidators(result('platform-getCurrentValidators-auto-renewed.json'), NODE))!;
    // startTime/endTime are the current cycle
    expect(renewing).toMatchObject({ startTime: 1785250800, endTime: 1786460400, potentialRewardNAvax: 117431493426 });
    expect(renewing.autoRenewal).toEqual({ nextPeriodSeconds: 1_209_600, renews: true, autoCompoundRatio: 0.3, authorityAddresses: ['P-avax1gfpj30csekhwmf4mqkncelus5zl2ztqzvv7aww'] });
    // nextPeriod 0: stops at the end of the cycle (txs/set_auto_renewed_validator_config_tx.go, Period)
    const exiting = value(parsePrimaryValidators(result('platform-getCurrentValidators-auto-renewed-exiting.json'), NODE))!;
    expect(exiting.autoRenewal).toMatchObject({ nextPeriodSeconds: 0, renews: false });
    // a validator that is not auto-renewed has none of the three keys (the embedded pointer is nil)
    expect(value(parsePrimaryValidators(result('platform-getCurrentValidators.json'), NODE))!.autoRenewal).toBeUndefined();
    const entry = (extra: Record<string, unknown>) => ({ validators: [{ nodeID: NODE, startTime: '1', endTime: '2', validatorAuthority: { locktime: '0', threshold: '1', addresses: [] }, nextPeriod: '0', autoCompoundRewardShares: '0', ...extra }] });
    // AutoCompoundRewardShares > reward.PercentDenominator is refused by SyntacticVerify
    expect(error(parsePrimaryValidators(entry({ autoCompoundRewardShares: '1000001' }), NODE))).toContain('autoCompoundRewardShares');
    expect(error(parsePrimaryValidators(entry({ nextPeriod: '-5' }), NODE))).toContain('nextPeriod');
    expect(error(parsePrimaryValidators(entry({ validatorAuthority: 'me' }), NODE))).toContain('validatorAuthority');
  });

  it('auto-renewed validators (later v1.15 releases): restakedValidationRewards and restakedDelegateeRewards, what earlier cycles compounded', () => {
    const entry = (extra: Record<string, unknown>) => ({ validators: [{ nodeID: NODE, startTime: '1', endTime: '2', validatorAuthority: { locktime: '0', threshold: '1', addresses: [] }, nextPeriod: '1209600', autoCompoundRewardShares: '300000', ...extra }] });
    expect(value(parsePrimaryValidators(entry({ restakedValidationRewards: '35229448027', restakedDelegateeRewards: '740740740' }), NODE))!.autoRenewal).toMatchObject({ restakedValidationNAvax: 35_229_448_027, restakedDelegateeNAvax: 740_740_740 });
    // v1.15.0 sends neither key
    expect(value(parsePrimaryValidators(entry({}), NODE))!.autoRenewal).not.toHaveProperty('restakedValidationNAvax');
    expect(error(parsePrimaryValidators(entry({ restakedDelegateeRewards: 'lots' }), NODE))).toContain('restakedDelegateeRewards');
  });

  it('getCurrentValidators: delegatorWeight, so a validator\'s weight in the set is its stake plus delegations', () => {
    const list = { validators: [{ nodeID: NODE, startTime: '1', endTime: '2', weight: '2000000000000', delegatorWeight: '120000000000' }] };
    expect(value(parsePrimaryValidators(list, NODE))).toMatchObject({ weightNAvax: 2_000_000_000_000, delegatorWeightNAvax: 120_000_000_000 });
  });

  it('platform.getTotalStake (service.go GetTotalStake): the total weight, above 2^53 nAVAX on mainnet; `stake` as a fallback', () => {
    expect(value(parseTotalStake({ stake: '254000000000000000', weight: '254000000000000000' }))).toBeCloseTo(2.54e17, -3);
    expect(value(parseTotalStake({ stake: '9000' }))).toBe(9000);
    expect(error(parseTotalStake({ weight: '0' }))).toContain('weight');
    expect(error(parseTotalStake('x'))).toContain('not an object');
  });

  it('info.getNetworkID (api/info/service.go, json.Uint32): 1 mainnet, 5 fuji, else the number', () => {
    expect(value(parseNetworkId(result('info-getNetworkID.json')))).toBe('mainnet');
    expect(value(parseNetworkId({ networkID: '5' }))).toBe('fuji');
    expect(value(parseNetworkId({ networkID: 12345 }))).toBe('12345');
    expect(error(parseNetworkId({ networkID: '4294967296' }))).toContain('not a network ID');
    expect(error(parseNetworkId({ networkID: 'mainnet' }))).toContain('not a network ID');
  });

  it('info.upgrades of v1.14.1+ reads heliconTime 9999-12-01 while unscheduled (upgrade/upgrade.go UnscheduledActivationTime): no schedule', () => {
    expect(value(parseUpgrades(result('info-upgrades-v1.14.2-unscheduled.json')))).toEqual({ heliconTime: null });
  });

  it('a bare version in stakingDistributionByVersion (1.14.2) is read as avalanchego/1.14.2, not a bad shape', () => {
    const body = { validatorDetails: { stakingDistributionByVersion: [
      { version: 'avalanchego/1.15.2', amountStaked: '131400000000000000', validatorCount: 902 },
      { version: '1.14.2', amountStaked: '65700000000000000', validatorCount: 470 },
      { version: 'avalanche/1.10.17', amountStaked: '21900000000000000', validatorCount: 140 },
    ] } };
    expect(value(parseStakingDistribution(body)).map((r) => [r.version, r.amountStakedNAvax])).toEqual([
      ['avalanchego/1.15.2', 131400000000000000],
      ['avalanchego/1.14.2', 65700000000000000],
      ['avalanche/1.10.17', 21900000000000000],
    ]);
    // the live API's `offline` row (and anything else that is not a version) is left out, stake and all
    const offline = { validatorDetails: { stakingDistributionByVersion: [{ version: 'offline', amountStaked: '9000000000000000', validatorCount: 80 }, ...body.validatorDetails.stakingDistributionByVersion, { version: 'latest', amountStaked: '1' }] } };
    expect(value(parseStakingDistribution(offline)).map((r) => r.version)).toEqual(['avalanchego/1.15.2', 'avalanchego/1.14.2', 'avalanche/1.10.17']);
  });

  it('uint64 strings above 2^53 are refused as shapes (no 1e20 period, no 1e11 AVAX balance)', () => {
    expect(error(parseFeeState({ excess: 1, price: 1e20, timestamp: '2024-12-16T17:19:07Z' }))).toContain('not a fee price');
    expect(parseValidatorRecordHealth({ avalancheGoVersion: '1.14.2' }).avalancheGoVersion).toBe('avalanchego/1.14.2');
    expect(unsigned('9007199254740991')).toBe(Number.MAX_SAFE_INTEGER);
    expect(unsigned('9007199254740993')).toBeUndefined();
    expect(unsigned('100000000000000000000')).toBeUndefined();
    expect(error(parseL1Validators({ validators: [{ validationID: SUBNET, nodeID: NODE, balance: '100000000000000000000' }] }, SUBNET, NODE))).toContain('is not an amount');
    expect(error(parsePrimaryValidators({ validators: [{ nodeID: NODE, startTime: '1', endTime: '100000000000000000000' }] }, NODE))).toContain('endTime');
    expect(error(parsePrimaryValidators({ validators: [{ nodeID: NODE, startTime: '1', endTime: '2', potentialReward: '100000000000000000000' }] }, NODE))).toContain('potentialReward');
  });

  it('JSON nested 6,000 deep is classified bad_shape, never a RangeError', () => {
    const deep = `${'['.repeat(6000)}${']'.repeat(6000)}`;
    const body = `{"jsonrpc":"2.0","result":{"rewardingStakePercentage":${deep},"weightedAveragePercentage":"99.0000"},"id":2}`;
    expect(readRpcAnswer(200, body, 2)).toEqual({ kind: 'failure', reason: 'bad_shape', error: `JSON-RPC response nests deeper than ${MAX_JSON_DEPTH} levels` });
    // the parsers alone name an object by its kind, never stringify it
    const nested = JSON.parse(deep) as unknown;
    expect(error(parseUptime({ rewardingStakePercentage: nested, weightedAveragePercentage: '99.0000' }))).toBe('rewardingStakePercentage an array is not a percentage');
    // AvalancheGo's own answers stay well inside the cap: a delegator's reward owner's addresses
    expect(readRpcAnswer(200, readFileSync(path('platform-getCurrentValidators.json'), 'utf8'), 5).kind).toBe('result');
  });
});
