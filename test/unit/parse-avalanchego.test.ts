import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { LIMITS, MORE_CHECKS, parseHealthReport, unwrapJsonRpc } from '../../src/parse/avalanchego.js';
import { check, OWN_FIXTURES, readJson, report, SHARED_FIXTURES, utc } from '../helpers/fixtures.js';

const shared = (name: string) => join(SHARED_FIXTURES, 'avalanchego', name);
const own = (name: string) => join(OWN_FIXTURES, 'avalanchego', name);

describe('shared fixtures', () => {
  it('healthy mainnet: every check passing with exact details', () => {
    const r = report(shared('health-healthy-mainnet.json'));
    expect(r.healthy).toBe(true);
    expect(r.checks.map((c) => c.name)).toEqual(['C', 'P', 'X', 'bls', 'bootstrapped', 'database', 'diskspace', 'futureupgrade', 'network', 'router']);
    expect(r.checks.every((c) => c.passing && !c.notYetRun && c.contiguousFailures === 0)).toBe(true);
    const c = check(r, 'C');
    expect(c.chain).toEqual({
      bootstrapping: false,
      lastAcceptedHeight: 71842516,
      processingBlocks: 0,
      longestProcessingBlockSeconds: 0,
      connectedStakeRatio: 0.9987312046551713,
      disconnectedValidators: 2,
    });
    expect(c.durationSeconds).toBeCloseTo(41208e-9, 15);
    expect(c.lastRun).toBeCloseTo(utc(2026, 8, 22, 14, 3, 41, 0.518273904), 6);
    expect(c.failingSince).toBeUndefined();
    expect(check(r, 'P').chain?.longestProcessingBlockSeconds).toBeCloseTo(0.41235, 9);
    expect(check(r, 'network').network).toEqual({
      connectedPeers: 1398,
      sendFailRatio: 0.0004187765498310943,
      lastMessageReceivedAgeSeconds: 0.002118,
      lastMessageSentAgeSeconds: expect.closeTo(163.82e-6, 12),
      ingressConnections: 702,
      primaryNetworkValidator: true,
    });
    expect(check(r, 'router').router).toEqual({ outstandingRequests: 6, longestRunningRequestSeconds: expect.closeTo(0.001873361, 12) });
    expect(check(r, 'diskspace').disk).toEqual({ availableBytes: 1184389120000, availableRatio: 0.38 });
    const granite = utc(2025, 11, 19, 16, 0, 0);
    expect(check(r, 'futureupgrade').upgrade).toEqual({ modeWeightRatio: expect.closeTo(0.9873164170922519, 12), localTime: granite, modeTime: granite });
    expect(check(r, 'bootstrapped').bootstrappingSubnets).toEqual([]);
    expect(check(r, 'bls').message).toBe('node has the correct BLS key');
    expect('message' in check(r, 'database')).toBe(false);
  });

  it('unhealthy bootstrapping: failures, counts and +02:00 times', () => {
    const r = report(shared('health-unhealthy-bootstrapping.json'));
    expect(r.healthy).toBe(false);
    expect(r.checks.filter((c) => !c.passing).map((c) => c.name)).toEqual(['C', 'P', 'X', 'bootstrapped', 'diskspace', 'network']);
    const p = check(r, 'P');
    expect(p.error).toBe('not connected to enough stake: connected to 0.000000%; required at least 80.000000%');
    expect(p.contiguousFailures).toBe(10);
    expect(p.failingSince).toBeCloseTo(utc(2026, 8, 22, 8, 16, 37, 0.2039), 6);
    expect(p.lastRun).toBeCloseTo(utc(2026, 8, 22, 8, 21, 7, 0.204121), 6);
    expect(p.chain).toEqual({ bootstrapping: true, connectedStakeRatio: 0, disconnectedValidators: 2 });
    expect(check(r, 'bootstrapped').bootstrappingSubnets).toEqual(['11111111111111111111111111111111LpoYY']);
    expect(check(r, 'diskspace').disk).toEqual({ availableBytes: 96636764160, availableRatio: 0.09 });
    expect(check(r, 'network').network).toEqual({
      connectedPeers: 0,
      sendFailRatio: 0.9734,
      lastMessageReceivedAgeSeconds: expect.closeTo(252.503118, 9),
      lastMessageSentAgeSeconds: expect.closeTo(252.503118, 9),
      ingressConnections: 0,
      primaryNetworkValidator: false,
    });
    expect(check(r, 'futureupgrade').upgrade).toEqual({ modeWeightRatio: 0, localTime: utc(2025, 11, 19, 16, 0, 0), modeTime: 0 });
  });

  it('JSON-RPC result with an L1 chain keyed by blockchain ID', () => {
    const envelope = readJson(shared('jsonrpc-health-l1-tag.json'));
    const unwrapped = unwrapJsonRpc(envelope, 7);
    expect(unwrapped.ok).toBe(true);
    const parsed = parseHealthReport((unwrapped as { result: unknown }).result);
    expect(parsed.ok).toBe(true);
    const r = (parsed as { value: import('../../src/model/observation.js').HealthReport }).value;
    const l1 = check(r, '28Xryn3P68DUKqKvaSsfNFg5NBSKnfSSPJE2VwEzsAvxVV3xUy');
    expect(l1.chain).toEqual({ bootstrapping: false, lastAcceptedHeight: 4410, processingBlocks: 0, longestProcessingBlockSeconds: 0, connectedStakeRatio: 1, disconnectedValidators: 0 });
    expect(check(r, 'network').network).toEqual({ connectedPeers: 1402, sendFailRatio: 0, lastMessageReceivedAgeSeconds: expect.closeTo(911.5e-6, 12), lastMessageSentAgeSeconds: expect.closeTo(911.5e-6, 12) });
  });

  it.each([
    ['jsonrpc-error-1.json', 1, 'JSON-RPC error -32000: rpc: can\'t find method "health.GetLiveness"'],
    ['jsonrpc-error-2.json', 2, 'JSON-RPC error -32000: couldn\'t unmarshal an argument. Ensure arguments are valid and properly formatted. See documentation for example calls'],
    ['jsonrpc-error-3.json', 3, "JSON-RPC error -32700: invalid character '}' looking for beginning of value"],
  ])('%s is an rpc_error, checked before the id', (file, id, error) => {
    expect(unwrapJsonRpc(readJson(shared(file)), id)).toEqual({ ok: false, reason: 'rpc_error', error });
  });
});

describe('own fixtures: the reference edge cases', () => {
  it('"not yet run" checks fail but carry no year-1 timestamp', () => {
    const r = report(own('not-yet-run-after-start.json'));
    const c = check(r, 'C');
    expect(c).toEqual({ name: 'C', passing: false, notYetRun: true, error: 'not yet run', durationSeconds: 0, contiguousFailures: 0 });
    expect(check(r, 'X').notYetRun).toBe(true);
    expect(check(r, 'P')).toMatchObject({ passing: true, notYetRun: false, chain: { bootstrapping: true, connectedStakeRatio: 0.91, disconnectedValidators: 0 } });
    expect(check(r, 'bootstrapped')).toMatchObject({ passing: false, notYetRun: false, contiguousFailures: 1 });
  });

  it('timestamps with local offsets and 0–9 fractional digits compare in UTC', () => {
    const r = report(own('local-offsets-and-fractions.json'));
    expect(check(r, 'database').lastRun).toBe(utc(2026, 8, 22, 14, 3, 41));
    expect(check(r, 'router').lastRun).toBe(utc(2026, 8, 22, 14, 3, 41, 0.5));
    expect(check(r, 'bls').lastRun).toBeCloseTo(utc(2026, 8, 22, 14, 3, 41, 0.123456789), 6);
    const disk = check(r, 'diskspace');
    expect(disk.lastRun).toBeCloseTo(utc(2026, 8, 22, 14, 3, 41, 0.2), 6);
    expect(disk.failingSince).toBeCloseTo(utc(2026, 8, 22, 14, 2, 41, 0.2041), 6);
    expect(disk.contiguousFailures).toBe(3);
  });

  it('legacy error objects {message} (v1.5) become the error text', () => {
    const n = check(report(own('legacy-error-object-v1.5.json')), 'network');
    expect(n.passing).toBe(false);
    expect(n.error).toBe('network layer is unhealthy reason: not connected to a minimum of 1 peer(s) only 0');
    expect(n.contiguousFailures).toBe(12);
    expect(n.network?.lastMessageReceivedAgeSeconds).toBeCloseTo(2562047 * 3600 + 47 * 60 + 16.854775807, 3);
  });

  it('legacy consensus field names and vm.primary-percentConnected', () => {
    const r = report(own('legacy-consensus-names.json'));
    expect(check(r, 'C').chain).toEqual({ bootstrapping: false, processingBlocks: 4, longestProcessingBlockSeconds: 1.5, connectedStakeRatio: 0.97 });
    expect(check(r, 'X').chain).toEqual({ bootstrapping: false, processingBlocks: 7, longestProcessingBlockSeconds: 0.25, connectedStakeRatio: 0.88 });
  });

  it('message of any JSON type is kept as is; absent stays absent', () => {
    const r = report(own('message-of-every-type.json'));
    expect(check(r, 'bls').message).toBe("validator doesn't have a BLS key");
    expect(check(r, 'bootstrapped').bootstrappingSubnets).toEqual([]);
    expect('message' in check(r, 'database')).toBe(false);
    expect(check(r, 'custom-number').message).toBe(42);
    expect(check(r, 'custom-bool').message).toBe(true);
    const nested = check(r, 'nested');
    expect(nested.message).toEqual({ vm: null, consensus: {}, list: [1, null, {}] });
    // An object with `consensus: {}` is read as a bootstrapping chain, never a crash.
    expect(nested.chain).toEqual({ bootstrapping: true });
    expect(r.checks.every((c) => c.passing)).toBe(true);
  });

  it('L1 chains keyed by CB58 blockchain ID and by alias', () => {
    const r = report(own('l1-chains-by-id-and-alias.json'));
    expect(check(r, '2oYMBNV4eNHyqk2fjjV5nVQLDbtmNJzq5s3qs3Lo6ftnC6FByM').chain?.lastAcceptedHeight).toBe(993311);
    expect(check(r, 'dfk')).toMatchObject({
      passing: false,
      contiguousFailures: 2,
      chain: { bootstrapping: false, lastAcceptedHeight: 55, processingBlocks: 2, longestProcessingBlockSeconds: 0.012, connectedStakeRatio: 0.75, disconnectedValidators: 1 },
    });
  });

  it('network check without timeSince* keys (sybil protection off)', () => {
    expect(check(report(own('network-sybil-off-no-timesince.json')), 'network').network).toEqual({ connectedPeers: 4, sendFailRatio: 0 });
  });

  it('network check failing for every reason, with the key that has spaces', () => {
    const n = check(report(own('network-unhealthy-all-reasons.json')), 'network');
    expect(n.network).toEqual({
      connectedPeers: 0,
      sendFailRatio: 0.9734,
      lastMessageReceivedAgeSeconds: expect.closeTo(252.503118, 9),
      lastMessageSentAgeSeconds: 3723.5,
      ingressConnections: 0,
      primaryNetworkValidator: true,
    });
    expect(n.error).toContain('4m12.503118s > 1m0s');
  });

  it('escaped (\\u003e, \\u0026) and multi-line errors decode to plain text', () => {
    const c = check(report(own('escaped-multiline-error.json')), 'C');
    expect(c.error).toBe('engine: block processing too long: 54m47.702163721s > 2m0s\ntoo many processing blocks: 300 > 256 & rising');
    expect(c.chain?.longestProcessingBlockSeconds).toBeCloseTo(3287.702163721, 9);
    expect(c.chain?.processingBlocks).toBe(300);
    expect(c.contiguousFailures).toBe(110);
  });

  it('engine and networking failing together', () => {
    const p = check(report(own('engine-and-networking-error.json')), 'P');
    expect(p.error).toBe('engine: block processing too long: 31.2s > 30s; networking: not connected to enough stake: connected to 50.000000%; required at least 80.000000%');
    expect(p.chain).toMatchObject({ longestProcessingBlockSeconds: 31.2, connectedStakeRatio: 0.5, disconnectedValidators: 1 });
  });

  it('a chain that could not be created has no message and no chain details', () => {
    const c = check(report(own('chain-create-failed.json')), '2R7XPcHo4MrMDQ7qMAzXun4nrXdxHoqX7UB5QcWjcN4rt8uceG');
    expect(c.passing).toBe(false);
    expect(c.chain).toBeUndefined();
    expect(c.contiguousFailures).toBe(20);
    expect(c.failingSince).toBe(utc(2026, 8, 22, 13, 53, 41));
  });

  // The check is AvalancheGo's futureUpgradeCheck (node/node.go): a deadline only when the mode
  // upgrade time is later than the node's own (localUpgradeTime) and holds >= 50 % of the stake.
  it('futureupgrade: scheduled upgrade, unknown upgrade, no validators (no message)', () => {
    const scheduled = check(report(own('futureupgrade-scheduled.json')), 'futureupgrade').upgrade;
    // the node knows this upgrade: no timeUntilUpgrade (node.go adds it only when the mode is later than its own), nothing to do
    expect(scheduled).toEqual({ modeWeightRatio: 0.645, localTime: utc(2026, 12, 1, 16, 0, 0), modeTime: utc(2026, 12, 1, 16, 0, 0) });
    const unknown = check(report(own('futureupgrade-unknown-upgrade.json')), 'futureupgrade');
    expect(unknown).toMatchObject({ passing: false, error: 'unknown network upgrade detected - update as soon as possible', upgrade: { modeWeightRatio: 0.7125, timeUntilSeconds: 12 * 3600 + 2700 } });
    expect(unknown.upgrade).toMatchObject({ localTime: utc(2025, 11, 19, 16, 0, 0), modeTime: utc(2026, 11, 22, 20, 0, 0), deadline: utc(2026, 11, 22, 20, 0, 0) });
    const none = check(report(own('futureupgrade-no-validators.json')), 'futureupgrade');
    // errNoValidators comes with a nil result: no message at all
    expect(none).toMatchObject({ passing: false, error: 'no validators in the current validator set' });
    expect(none.upgrade).toBeUndefined();
  });

  it('futureupgrade: a later upgrade held by under half of the stake is no deadline (node/node.go: modeUpgradeWeightPortion < .5)', () => {
    const minority = parseHealthReport({
      healthy: true,
      checks: { futureupgrade: { message: { localUpgradeTime: '2025-11-19T16:00:00Z', modeUpgradeTime: '2026-11-22T20:00:00Z', modeUpgradeWeightPercentage: 49.9, numUpgradeTimes: 2 }, timestamp: '2026-11-20T00:00:00Z', duration: 1000 } },
    });
    expect(minority.ok && minority.value.checks[0]!.upgrade).toEqual({ modeWeightRatio: 0.499, localTime: utc(2025, 11, 19, 16, 0, 0), modeTime: utc(2026, 11, 22, 20, 0, 0) });
  });

  it('floats in exponent form, zero and one; "us" and µs; exponent durations are not Go durations', () => {
    const r = report(own('exponent-and-edge-floats.json'));
    expect(check(r, 'network').network).toEqual({ connectedPeers: 12, sendFailRatio: 4.5e-7, lastMessageReceivedAgeSeconds: expect.closeTo(911.5e-6, 12), lastMessageSentAgeSeconds: expect.closeTo(3e-6, 12) });
    expect(check(r, 'C').chain).toEqual({ bootstrapping: false, lastAcceptedHeight: 0, processingBlocks: 0, longestProcessingBlockSeconds: 0, connectedStakeRatio: 1, disconnectedValidators: 0 });
    expect(check(r, 'P').chain).toEqual({ bootstrapping: false, lastAcceptedHeight: 1, processingBlocks: 0, connectedStakeRatio: 0, disconnectedValidators: 0 });
  });

  it('disk before v1.14.1: bytes only, no ratio', () => {
    expect(check(report(own('disk-before-v1.14.1-bytes-only.json')), 'diskspace').disk).toEqual({ availableBytes: 858993459 });
  });

  it('shutdown: shuttingDown "not yet run", then its real failure', () => {
    expect(check(report(own('shutting-down.json')), 'shuttingDown')).toMatchObject({ passing: false, notYetRun: true });
    expect(check(report(own('shutting-down-ran.json')), 'shuttingDown')).toMatchObject({ passing: false, notYetRun: false, error: 'server shutting down', message: { isShuttingDown: true } });
  });

  it('bls mismatch and partial-sync validation: string messages with errors', () => {
    expect(check(report(own('bls-key-mismatch.json')), 'bls')).toMatchObject({ passing: false, contiguousFailures: 30 });
    expect(check(report(own('partial-sync-validation.json')), 'validation')).toMatchObject({ passing: false, message: 'node is a primary network validator while partial syncing' });
  });

  it('readiness while bootstrapping lists the subnets; liveness has no checks', () => {
    expect(check(report(own('readiness-bootstrapping.json')), 'bootstrapped').bootstrappingSubnets).toEqual([
      '11111111111111111111111111111111LpoYY',
      '2R7XPcHo4MrMDQ7qMAzXun4nrXdxHoqX7UB5QcWjcN4rt8uceG',
    ]);
    expect(report(own('liveness.json'))).toEqual({ healthy: true, checks: [] });
  });

  it('v1.14.2 avgAcceptanceTime is tolerated', () => {
    expect(check(report(own('v1.14.2-avg-acceptance-time.json')), 'C').chain).toEqual({ bootstrapping: false, lastAcceptedHeight: 71842600, processingBlocks: 1, longestProcessingBlockSeconds: 0.02, connectedStakeRatio: 0.99, disconnectedValidators: 0 });
  });

  it('hostile check names are kept by the parser up to a length cap, on one line (labels sanitize later)', () => {
    const r = report(own('hostile-check-names.json'));
    expect(r.checks.map((c) => c.name)).toEqual(['a"b', 'line␊break', '{brace}', '<script>alert(1)</script>', `${'x'.repeat(256)}… (44 more characters)`]);
    expect(check(r, '<script>alert(1)</script>').error).toBe('<script>alert(2)</script>');
  });

  it('caps what one reply can make us keep: checks beyond the cap become one fact, untrusted text is cut', () => {
    const checks: Record<string, unknown> = {};
    for (let i = 0; i < 100_000; i++) checks[`c${i}`] = i % 2 ? { error: 'e'.repeat(10_000), message: { blob: 'm'.repeat(10_000) } } : { message: 'ok' };
    const parsed = parseHealthReport({ healthy: false, checks });
    if (!parsed.ok) throw new Error(parsed.error);
    expect(parsed.value.checks).toHaveLength(LIMITS.checks + 1);
    const more = parsed.value.checks.at(-1)!;
    expect(more).toMatchObject({ name: MORE_CHECKS, passing: false, error: `${100_000 - LIMITS.checks} more checks not shown (${(100_000 - LIMITS.checks) / 2} of them failing)` });
    const failing = parsed.value.checks[1]!;
    expect(failing.error).toBe(`${'e'.repeat(LIMITS.text)}… (${10_000 - LIMITS.text} more characters)`);
    expect(typeof failing.message === 'string' && failing.message.length < LIMITS.text + 40).toBe(true);
    const rpc = unwrapJsonRpc({ jsonrpc: '2.0', id: 1, error: { code: -32000, message: 'x'.repeat(1_000_000) } }, 1);
    expect(rpc.ok === false && rpc.error.length < LIMITS.text + 40).toBe(true);
  });

  it('odd values are tolerated: null error, numeric error, bad timestamp, string duration, non-object entry', () => {
    const r = report(own('tolerated-oddities.json'));
    expect(check(r, 'null-error')).toMatchObject({ passing: true, durationSeconds: 1e-9 });
    expect(check(r, 'number-error')).toEqual({ name: 'number-error', passing: false, notYetRun: false, error: '500', durationSeconds: 0.015, contiguousFailures: 0 });
    expect(check(r, 'not-an-object')).toEqual({ name: 'not-an-object', passing: false, notYetRun: false, error: 'malformed check entry (string)', durationSeconds: 0, contiguousFailures: 0 });
    expect(check(r, 'no-fields')).toEqual({ name: 'no-fields', passing: true, notYetRun: false, durationSeconds: 0, contiguousFailures: 0 });
  });

  it('a tag-filtered reply with an unknown tag holds only application checks and can say healthy', () => {
    const r = report(own('tag-filtered-unknown-tag.json'));
    expect(r.healthy).toBe(true);
    expect(r.checks.map((c) => c.name)).toEqual(['bootstrapped', 'database', 'network']);
  });

  it('JSON-RPC envelopes: wrong id, invalid request, capitalized method, no result, result not a report', () => {
    expect(unwrapJsonRpc(readJson(own('jsonrpc-wrong-id.json')), 7)).toEqual({ ok: false, reason: 'bad_shape', error: 'JSON-RPC id mismatch: sent 7, got 99' });
    expect(unwrapJsonRpc(readJson(own('jsonrpc-invalid-request.json')), 3)).toEqual({ ok: false, reason: 'rpc_error', error: 'JSON-RPC error -32600: jsonrpc must be 2.0' });
    expect(unwrapJsonRpc(readJson(own('jsonrpc-capitalized-method.json')), 4)).toEqual({ ok: false, reason: 'rpc_error', error: 'JSON-RPC error -32000: method must start with a non-uppercase letter' });
    expect(unwrapJsonRpc(readJson(own('jsonrpc-no-result.json')), 5)).toEqual({ ok: false, reason: 'bad_shape', error: 'JSON-RPC response has neither result nor error' });
    const result = unwrapJsonRpc(readJson(own('jsonrpc-result-not-report.json')), 6);
    expect(result.ok).toBe(true);
    expect(parseHealthReport((result as { result: unknown }).result)).toEqual({ ok: false, error: '"healthy" must be a boolean, got string' });
  });

  it('every own fixture parses without throwing', () => {
    const files = readdirSync(join(OWN_FIXTURES, 'avalanchego')).filter((f) => f.endsWith('.json'));
    expect(files.length).toBeGreaterThanOrEqual(20);
    for (const file of files) {
      const value = readJson(own(file));
      const body = file.startsWith('jsonrpc-') ? (value as { result?: unknown }).result : value;
      expect(() => parseHealthReport(body), file).not.toThrow();
    }
  });
});

describe('shapes that are not health reports', () => {
  it.each([
    [null, 'expected a JSON object, got null'],
    [[], 'expected a JSON object, got an array'],
    ['ok', 'expected a JSON object, got string'],
    [{ checks: {} }, '"healthy" must be a boolean, got undefined'],
    [{ status: 'ok' }, '"healthy" must be a boolean, got undefined'],
    [{ checks: [], healthy: true }, '"checks" must be an object, got an array'],
  ])('%j → %s', (value, error) => {
    expect(parseHealthReport(value)).toEqual({ ok: false, error });
  });
});
