import { describe, expect, it } from 'vitest';
import { beat, heartbeatBuffer, lastBeat, livenessOf, STALE_AFTER_MS } from '../../src/http/heartbeat.js';

describe('the HTTP front worker\'s liveness decision', () => {
  it('is alive while the main loop beat within the threshold, and says why not after it', () => {
    const shared = heartbeatBuffer();
    beat(shared, 1_000_000);
    expect(lastBeat(shared)).toBe(1_000_000);
    expect(livenessOf(shared, 1_000_000)).toEqual({ alive: true });
    expect(livenessOf(shared, 1_000_000 + STALE_AFTER_MS)).toEqual({ alive: true });
    const stale = livenessOf(shared, 1_000_000 + STALE_AFTER_MS + 2_500);
    expect(stale).toEqual({ alive: false, reason: `the main event loop has not run for 12.5 s (limit ${STALE_AFTER_MS / 1000} s)` });
    beat(shared, 1_000_000 + STALE_AFTER_MS + 2_600);
    expect(livenessOf(shared, 1_000_000 + STALE_AFTER_MS + 2_700)).toEqual({ alive: true });
  });

  it('a buffer never beaten is not alive', () => {
    expect(livenessOf(heartbeatBuffer(), Date.now()).alive).toBe(false);
  });
});
