/**
 * What a hosted API says about its rate limit (`ratelimit-limit`, `ratelimit-remaining`,
 * `ratelimit-reset`, `Retry-After`), and the back-off it asks for: after a 429 no request is sent
 * to that service until the window resets.
 */
import type { RateLimitInfo } from '../model/observation.js';

type Headers = Record<string, string | string[] | undefined>;

const DEFAULT_BACKOFF_SECONDS = 60;
const MAX_BACKOFF_SECONDS = 3600;

function header(headers: Headers, ...names: string[]): string | undefined {
  for (const name of names) {
    const value = headers[name];
    if (value !== undefined) return Array.isArray(value) ? value[0] : value;
  }
  return undefined;
}

function integer(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const n = Number(text.split(/[,;]/)[0]!.trim());
  return Number.isFinite(n) && n >= 0 ? n : undefined;
}

export function readRateLimit(headers: Headers): RateLimitInfo | undefined {
  const limit = integer(header(headers, 'ratelimit-limit', 'x-ratelimit-limit'));
  const remaining = integer(header(headers, 'ratelimit-remaining', 'x-ratelimit-remaining'));
  if (limit === undefined && remaining === undefined) return undefined;
  return { ...(limit !== undefined ? { limit } : {}), ...(remaining !== undefined ? { remaining } : {}) };
}

/** Seconds to wait after a 429: Retry-After (seconds or HTTP date), else ratelimit-reset, else 60. */
export function backoffSeconds(headers: Headers, nowMs: number): number {
  const retryAfter = header(headers, 'retry-after');
  let seconds: number | undefined;
  if (retryAfter !== undefined) {
    seconds = integer(retryAfter);
    if (seconds === undefined) {
      const date = Date.parse(retryAfter);
      if (!Number.isNaN(date)) seconds = Math.max(0, (date - nowMs) / 1000);
    }
  }
  seconds ??= integer(header(headers, 'ratelimit-reset', 'x-ratelimit-reset'));
  return Math.min(seconds ?? DEFAULT_BACKOFF_SECONDS, MAX_BACKOFF_SECONDS);
}

/** One per service: every request to that service (health, API probes, chain data) goes through it. */
export class RateLimitGate {
  private blockedUntilMs = 0;
  info?: RateLimitInfo;

  /** Epoch ms until which requests must not be sent, or undefined when they may. */
  blockedUntil(nowMs = Date.now()): number | undefined {
    return nowMs < this.blockedUntilMs ? this.blockedUntilMs : undefined;
  }

  observe(status: number, headers: Headers, nowMs = Date.now()): void {
    const info = readRateLimit(headers);
    if (info) this.info = info;
    if (status === 429) this.blockedUntilMs = nowMs + backoffSeconds(headers, nowMs) * 1000;
  }
}
