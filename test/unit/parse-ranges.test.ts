/**
 * Values in range or refused at parse time (issue 45.3): every time a Date holds and plausible for
 * its field, every amount within its type, a missing or null list a bad shape, never an empty one.
 */
import { describe, expect, it } from 'vitest';
import { parseHealthReport } from '../../src/parse/avalanchego.js';
import { parsePeers } from '../../src/parse/peers.js';
import { encodeRewardUtxo, parseCompletedValidations, parseRewardUtxos } from '../../src/parse/rewards.js';
import { epochSeconds, LATEST_TIME, parseL1Validators, parsePrimaryValidators, parseValidatorRecordTimes } from '../../src/parse/validator.js';
import { parseGoDuration } from '../../src/util/go-duration.js';

const NODE = 'NodeID-Q4STe8P7iKKrZgDaTxY5yGdsUrCj1G4XY';
const SUBNET = 'csu12v5GV2hVy5gLTGap8zJNX2q6Ka4cKZ4Xfyq6sqh7GtpPB';
const VALIDATION = '2H7pEcXNnmKpYZ6VxNY2nRZ6Kx1BT2qgcM8J9o8zWLgqDTN5E8';
const START = Date.UTC(2026, 10, 13) / 1000;

describe('times', () => {
  it('unix seconds from 1970 to the end of year 9999 (what Go writes and a Date holds), nothing past', () => {
    expect(epochSeconds(String(START))).toBe(START);
    expect(epochSeconds(LATEST_TIME)).toBe(LATEST_TIME);
    expect(new Date(LATEST_TIME * 1000).toISOString()).toBe('9999-12-31T23:59:59.000Z');
    for (const bad of ['9007199254740991', 8.64e12 + 1, LATEST_TIME + 1, -1e13, -1, 1.5, '1e10', null]) expect(epochSeconds(bad), String(bad)).toBeUndefined();
  });

  it('a validation whose end time is past the Date range is a bad shape (no rule or page formats it)', () => {
    const answer = (v: Record<string, unknown>) => ({ validators: [{ nodeID: NODE, txID: VALIDATION, startTime: String(START), endTime: String(START + 86_400), ...v }] });
    expect(parsePrimaryValidators(answer({}), NODE)).toMatchObject({ ok: true });
    expect(parsePrimaryValidators(answer({ endTime: '9007199254740991' }), NODE)).toEqual({ ok: false, error: 'endTime "9007199254740991" is not a time' });
    expect(parsePrimaryValidators(answer({ startTime: '253402300800' }), NODE)).toMatchObject({ ok: false, error: expect.stringContaining('startTime') });
    const renewal = { validatorAuthority: { addresses: ['P-avax1x'] }, autoCompoundRewardShares: 0 };
    expect(parsePrimaryValidators(answer({ ...renewal, nextPeriod: '9007199254740991' }), NODE)).toMatchObject({ ok: false, error: expect.stringContaining('nextPeriod') });
    expect(parsePrimaryValidators(answer({ ...renewal, nextPeriod: '1209600' }), NODE)).toMatchObject({ ok: true });
  });

  it("an L1 validation's start time out of range is refused, not dropped silently", () => {
    const answer = (startTime: unknown) => ({ validators: [{ nodeID: NODE, validationID: VALIDATION, balance: '1000', weight: '20', startTime }] });
    expect(parseL1Validators(answer(String(START)), SUBNET, NODE)).toMatchObject({ ok: true, value: { validations: [{ startTime: START }] } });
    expect(parseL1Validators(answer('18446744073709551615'), SUBNET, NODE)).toMatchObject({ ok: false, error: expect.stringContaining('startTime') });
  });

  it('a Data API record: endTimestamp -1e13 or a negative delegator count is a bad shape', () => {
    expect(parseValidatorRecordTimes({ endTimestamp: START, delegatorCount: 3 })).toEqual({ ok: true, value: { endTimestamp: START, delegators: 3 } });
    expect(parseValidatorRecordTimes({})).toEqual({ ok: true, value: {} });
    expect(parseValidatorRecordTimes({ endTimestamp: -1e13 })).toEqual({ ok: false, error: 'endTimestamp -10000000000000 is not a time' });
    expect(parseValidatorRecordTimes({ endTimestamp: 1e300 })).toMatchObject({ ok: false });
    expect(parseValidatorRecordTimes({ endTimestamp: START, delegatorCount: -4 })).toMatchObject({ ok: false, error: expect.stringContaining('delegatorCount') });
  });

  it("completed validations with times out of range are left out, never sorted or shown", () => {
    const record = (endTimestamp: unknown) => ({ validationStatus: 'completed', startTimestamp: START, endTimestamp, rewards: { validationRewardAmount: '1' } });
    expect(parseCompletedValidations([record(START + 86_400), record(-1e13), record(9_007_199_254_740_991)])).toHaveLength(1);
  });

  it("a Go duration beyond time.Duration's int64 nanoseconds is no duration", () => {
    expect(parseGoDuration('2562047h47m16s')).toBeCloseTo(9_223_372_036, 0);
    expect(parseGoDuration('99999999999999999999h')).toBeUndefined();
  });
});

describe('amounts within their type', () => {
  const reply = (entry: Record<string, unknown>) => parseHealthReport({ healthy: false, checks: { network: { error: 'down', timestamp: '2026-11-22T12:00:00Z', duration: 1000, ...entry } } });
  const check = (entry: Record<string, unknown>) => {
    const parsed = reply(entry);
    if (!parsed.ok) throw new Error(parsed.error);
    return parsed.value.checks[0]!;
  };

  it('counts are non-negative integers a number holds; ratios within 0–1; percentages within 0–100', () => {
    expect(check({ contiguousFailures: 7 }).contiguousFailures).toBe(7);
    for (const bad of [-5, 1e300, 2.5]) expect(check({ contiguousFailures: bad }).contiguousFailures, String(bad)).toBe(0);
    expect(check({ duration: -1e30 }).durationSeconds).toBe(0);
    expect(check({ message: { connectedPeers: -3, sendFailRate: 7 } }).network).toEqual({});
    expect(check({ message: { connectedPeers: 3, sendFailRate: 0.25 } }).network).toEqual({ connectedPeers: 3, sendFailRatio: 0.25 });
    expect(check({ message: { availableDiskBytes: -1, availableDiskPercentage: 250 } }).disk).toEqual({});
    const chain = check({ message: { engine: { consensus: { lastAcceptedHeight: -9, processingBlocks: 1e300 } }, networking: { percentConnected: 42 } } }).chain;
    expect(chain?.lastAcceptedHeight).toBeUndefined();
    expect(chain?.processingBlocks).toBeUndefined();
    expect(chain?.connectedStakeRatio).toBeUndefined();
  });
});

describe('a missing or null list is a bad shape, not an empty one', () => {
  const utxo = encodeRewardUtxo(Buffer.alloc(32, 7), 2, 117_431_493_426);

  it('platform.getRewardUTXOs: `{}` and `utxos: null` are not "no reward"; `[]` is', () => {
    expect(parseRewardUtxos({})).toMatchObject({ ok: false, error: '"utxos" must be an array, got undefined' });
    expect(parseRewardUtxos({ numFetched: '0', utxos: null, encoding: 'hex' })).toMatchObject({ ok: false, error: '"utxos" must be an array, got null' });
    expect(parseRewardUtxos({ numFetched: '0', utxos: [], encoding: 'hex' })).toEqual({ ok: true, value: [] });
    expect(parseRewardUtxos({ numFetched: '1', utxos: [utxo], encoding: 'hex' })).toEqual({ ok: true, value: [117_431_493_426] });
    expect(parseRewardUtxos({ numFetched: '2', utxos: [utxo], encoding: 'hex' })).toMatchObject({ ok: false, error: expect.stringContaining('numFetched') });
  });

  it('a health reply without its checks map is a bad shape, not a healthy node with no checks', () => {
    expect(parseHealthReport({ healthy: true })).toMatchObject({ ok: false, error: '"checks" must be an object, got undefined' });
    expect(parseHealthReport({ healthy: true, checks: null })).toMatchObject({ ok: false });
    expect(parseHealthReport({ healthy: true, checks: {} })).toEqual({ ok: true, value: { healthy: true, checks: [] } });
  });

  it('info.peers: null only where numPeers says none (nodes before v1.7.7 sent a nil list)', () => {
    expect(parsePeers({ numPeers: '0', peers: null })).toMatchObject({ ok: true, value: { peers: 0 } });
    expect(parsePeers({ numPeers: '12', peers: null })).toMatchObject({ ok: false });
    expect(parsePeers({ numPeers: '12' })).toMatchObject({ ok: false });
  });
});
