import { describe, expect, it } from 'vitest';
import { parseGoDuration } from '../../src/util/go-duration.js';
import { parseGoTime } from '../../src/parse/time.js';
import { formatGoDuration, formatGoTime, goJson } from '../../src/sim/go-format.js';

describe('Go durations', () => {
  it.each([
    ['0s', 0],
    ['0', 0],
    ['20ns', 20e-9],
    ['163.82µs', 163.82e-6],
    ['163.82μs', 163.82e-6],
    ['3us', 3e-6],
    ['293.098ms', 0.293098],
    ['1m0s', 60],
    ['54m47.702163721s', 3287.702163721],
    ['1h2m3.5s', 3723.5],
    ['2562047h47m16.854775807s', 9223372036.854775807],
    ['-1.5s', -1.5],
    ['.5s', 0.5],
  ])('%s = %d s', (text, seconds) => {
    expect(parseGoDuration(text)).toBeCloseTo(seconds, 9);
  });

  it.each(['', '5', '1E-3s', '1.5', 'ms', '1d', '1 s', 'abc', '1h 2m'])('%j is not a Go duration', (text) => {
    expect(parseGoDuration(text)).toBeUndefined();
  });

  it('round-trips what the simulator writes', () => {
    for (const seconds of [0, 20e-9, 163.82e-6, 0.293098, 60, 252.503118, 3723.5]) {
      expect(parseGoDuration(formatGoDuration(seconds))).toBeCloseTo(seconds, 9);
    }
    expect(formatGoDuration(252.503118)).toBe('4m12.503118s');
    expect(formatGoDuration(163.82e-6)).toBe('163.82µs');
    expect(formatGoDuration(60)).toBe('1m0s');
  });
});

describe('Go timestamps', () => {
  it('reads offsets and 0–9 fractional digits as UTC epoch seconds', () => {
    const base = Date.UTC(2026, 7, 22, 14, 3, 41) / 1000;
    expect(parseGoTime('2026-08-22T14:03:41Z')).toBe(base);
    expect(parseGoTime('2026-08-22T16:03:41+02:00')).toBe(base);
    expect(parseGoTime('2026-08-22T10:03:41-04:00')).toBe(base);
    expect(parseGoTime('2026-08-22T22:03:41.5+08:00')).toBe(base + 0.5);
    expect(parseGoTime('2026-08-22T14:03:41.518273904Z')).toBeCloseTo(base + 0.518273904, 6);
  });

  it('Go zero time and non-timestamps are undefined, never a date', () => {
    expect(parseGoTime('0001-01-01T00:00:00Z')).toBeUndefined();
    expect(parseGoTime('yesterday')).toBeUndefined();
    expect(parseGoTime(12345)).toBeUndefined();
    expect(parseGoTime(undefined)).toBeUndefined();
    expect(parseGoTime('2026-13-45T99:99:99Z')).toBeUndefined();
  });

  it('the simulator formats like Go (trailing zeros trimmed, local zone)', () => {
    const ms = Date.UTC(2026, 7, 22, 14, 3, 41, 500);
    expect(formatGoTime(ms)).toBe('2026-08-22T14:03:41.5Z');
    expect(formatGoTime(ms, 120)).toBe('2026-08-22T16:03:41.5+02:00');
    expect(formatGoTime(Date.UTC(2026, 7, 22, 14, 3, 41), -240)).toBe('2026-08-22T10:03:41-04:00');
    expect(parseGoTime(formatGoTime(ms, -240, 123))).toBeCloseTo(ms / 1000, 6);
    expect(goJson({ error: 'a > b & c < d' })).toBe('{"error":"a \\u003e b \\u0026 c \\u003c d"}');
  });
});
