/**
 * The main thread's heartbeat, read by the HTTP front's worker (front-worker.ts) to answer
 * `/-/healthy` without waiting for the main thread: the main event loop stores the time every
 * HEARTBEAT_MS in a SharedArrayBuffer; the worker says healthy while that time is recent. A main
 * thread paused for a garbage collection misses a beat or two, far below the threshold; one wedged
 * in a loop (or starved for good) stops beating, and the liveness probe fails as it should.
 */

export const HEARTBEAT_MS = 500;
/** How long the main loop may go without a beat before `/-/healthy` says 503. */
export const STALE_AFTER_MS = 10_000;

/** One slot of 64 bits: the wall-clock milliseconds of the last beat. */
export function heartbeatBuffer(): SharedArrayBuffer {
  return new SharedArrayBuffer(BigInt64Array.BYTES_PER_ELEMENT);
}

export function beat(shared: SharedArrayBuffer, now = Date.now()): void {
  Atomics.store(new BigInt64Array(shared), 0, BigInt(now));
}

export function lastBeat(shared: SharedArrayBuffer): number {
  return Number(Atomics.load(new BigInt64Array(shared), 0));
}

/** Beats now and every HEARTBEAT_MS until stopped; never keeps the process alive by itself. */
export function startHeartbeat(shared: SharedArrayBuffer): () => void {
  beat(shared);
  const timer = setInterval(() => beat(shared), HEARTBEAT_MS);
  timer.unref();
  return () => clearInterval(timer);
}

export type Liveness = { alive: true } | { alive: false; reason: string };

/** What `/-/healthy` answers, from the last beat of the main loop. */
export function livenessOf(shared: SharedArrayBuffer, now = Date.now(), staleAfterMs = STALE_AFTER_MS): Liveness {
  const silentMs = now - lastBeat(shared);
  if (silentMs <= staleAfterMs) return { alive: true };
  return { alive: false, reason: `the main event loop has not run for ${(silentMs / 1000).toFixed(1)} s (limit ${staleAfterMs / 1000} s)` };
}
