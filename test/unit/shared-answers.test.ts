import { describe, expect, it } from 'vitest';
import { SharedAnswers } from '../../src/probes/exchange.js';

describe('SharedAnswers: one call serves every job for a while', () => {
  it('shares an answer (in flight or done) within its age, calls again after it, and forgets by target', async () => {
    const shared = new SharedAnswers();
    let calls = 0;
    const fetch = async () => ++calls;
    const first = shared.get('v1\u0000observed', 1_000, 60_000, fetch);
    expect(shared.get('v1\u0000observed', 1_001, 60_000, fetch)).toBe(first); // still in flight: the same promise
    expect(await first).toBe(1);
    expect(await shared.get('v1\u0000observed', 60_999, 60_000, fetch)).toBe(1);
    expect(await shared.get('v2\u0000observed', 60_999, 60_000, fetch)).toBe(2); // another key, its own call
    expect(await shared.get('v1\u0000observed', 61_000, 60_000, fetch)).toBe(3); // one interval on: a new call
    shared.forget('v1\u0000');
    expect(await shared.get('v1\u0000observed', 61_001, 60_000, fetch)).toBe(4);
    expect(await shared.get('v2\u0000observed', 61_001, 60_000, fetch)).toBe(2);
  });
});
