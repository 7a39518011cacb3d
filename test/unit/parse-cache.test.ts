import { describe, expect, it } from 'vitest';
import { ParseCache } from '../../src/probes/exchange.js';

const response = (body: string, status = 200) => ({ status, headers: {}, body });

describe('ParseCache', () => {
  it('parses a body once while the same bytes keep coming back, and again when they change', () => {
    const cache = new ParseCache();
    let parses = 0;
    const parse = (body: string) => () => (parses++, JSON.parse(body) as unknown);
    const a = cache.parse('n/health', response('{"healthy":true}'), parse('{"healthy":true}'));
    const b = cache.parse('n/health', response('{"healthy":true}'), parse('{"healthy":true}'));
    expect(b).toBe(a);
    expect(parses).toBe(1);
    expect(cache.parse('n/health', response('{"healthy":true}', 503), parse('{"healthy":true}'))).not.toBe(a); // another status
    expect(cache.parse('n/health', response('{"healthy":false}'), parse('{"healthy":false}'))).toEqual({ healthy: false });
    expect(cache.parse('m/health', response('{"healthy":false}'), parse('{"healthy":false}'))).toEqual({ healthy: false }); // per endpoint
    expect(parses).toBe(4);
  });

  it('hands an unchanged body read from the wire the text it kept, without decoding it', () => {
    const cache = new ParseCache();
    const kept = cache.parse('n/health', response('{"healthy":true}'), () => ({ healthy: true }));
    let text: string | undefined;
    const wire = {
      status: 200,
      headers: {},
      get body(): string {
        if (text === undefined) throw new Error('decoded');
        return text;
      },
      set body(value: string) {
        text = value;
      },
      sameAs: (other: string) => other === '{"healthy":true}',
    };
    expect(cache.parse('n/health', wire, () => ({ healthy: false }))).toBe(kept);
    expect(wire.body).toBe('{"healthy":true}');
    // another status is another answer, whatever its bytes
    const unavailable = {
      status: 503,
      headers: {},
      get body(): string {
        throw new Error('decoded');
      },
      sameAs: (other: string) => other === '{"healthy":true}',
    };
    expect(() => cache.parse('n/health', unavailable, () => ({}))).toThrow('decoded');
  });

  it('tells a large body (compared by hash) from one that differs in a single character', () => {
    const cache = new ParseCache();
    let parses = 0;
    const big = (flag: string) => JSON.stringify({ healthy: true, pad: 'x'.repeat(40_000), flag });
    const parse = (body: string) => () => (parses++, JSON.parse(body) as { flag: string });
    const a = cache.parse('n/health', response(big('a')), parse(big('a')));
    expect(cache.parse('n/health', response(big('a')), parse(big('a')))).toBe(a);
    expect(cache.parse('n/health', response(big('b')), parse(big('b'))).flag).toBe('b');
    expect(cache.parse('n/health', response('{"flag":"c"}'), parse('{"flag":"c"}')).flag).toBe('c'); // small again
    expect(parses).toBe(3);
  });

  it('never caches a failure, and forgets a removed target', () => {
    const cache = new ParseCache();
    let parses = 0;
    const failing = () => {
      parses++;
      throw new Error('bad');
    };
    expect(() => cache.parse('n/health', response('<html>'), failing)).toThrow('bad');
    expect(() => cache.parse('n/health', response('<html>'), failing)).toThrow('bad');
    expect(parses).toBe(2);
    const first = cache.parse('n\u0000health', response('{}'), () => ({}));
    cache.forget('n\u0000');
    expect(cache.parse('n\u0000health', response('{}'), () => ({}))).not.toBe(first);
  });
});
