import { describe, expect, it } from 'vitest';
import { currentValidation } from '../../src/probes/chaindata.js';
import { backoffSeconds, RateLimitGate, readRateLimit } from '../../src/transport/rate-limit.js';

describe('rate-limit headers', () => {
  it('reads ratelimit-limit and -remaining (and the x- variants)', () => {
    expect(readRateLimit({ 'ratelimit-limit': '100', 'ratelimit-remaining': '7' })).toEqual({ limit: 100, remaining: 7 });
    expect(readRateLimit({ 'x-ratelimit-limit': '1000, 1000;w=60', 'x-ratelimit-remaining': '0' })).toEqual({ limit: 1000, remaining: 0 });
    expect(readRateLimit({ 'content-type': 'application/json' })).toBeUndefined();
  });

  it('backs off by Retry-After (seconds or date), else ratelimit-reset, else 60 s, at most an hour', () => {
    const now = Date.UTC(2026, 10, 22, 12, 0, 0);
    expect(backoffSeconds({ 'retry-after': '30' }, now)).toBe(30);
    expect(backoffSeconds({ 'retry-after': new Date(now + 90_000).toUTCString() }, now)).toBe(90);
    expect(backoffSeconds({ 'ratelimit-reset': '12' }, now)).toBe(12);
    expect(backoffSeconds({}, now)).toBe(60);
    expect(backoffSeconds({ 'retry-after': '86400' }, now)).toBe(3600);
  });

  it('the gate blocks after a 429 until the window ends', () => {
    const gate = new RateLimitGate();
    gate.observe(200, { 'ratelimit-limit': '100', 'ratelimit-remaining': '1' }, 0);
    expect(gate.blockedUntil(0)).toBeUndefined();
    gate.observe(429, { 'retry-after': '30', 'ratelimit-remaining': '0' }, 1_000);
    expect(gate.blockedUntil(1_001)).toBe(31_000);
    expect(gate.blockedUntil(31_000)).toBeUndefined();
    expect(gate.info).toEqual({ remaining: 0 });
  });
});

describe('the current validation of a node', () => {
  it('active before pending before the latest ended one', () => {
    const completed = (end: number) => ({ validationStatus: 'completed', endTimestamp: end });
    expect(currentValidation([completed(1), { validationStatus: 'active', endTimestamp: 9 }, completed(5)])?.validationStatus).toBe('active');
    expect(currentValidation([completed(1), { validationStatus: 'pending', endTimestamp: 9 }])?.validationStatus).toBe('pending');
    expect(currentValidation([completed(1), completed(5), { validationStatus: 'removed', endTimestamp: 3 }])).toEqual(completed(5));
    expect(currentValidation([])).toBeUndefined();
    expect(currentValidation([{ validationStatus: 'weird' }])).toBeUndefined();
  });
});
