/**
 * Who may still try a password (gate.ts). Failed logins are counted per network, not per address
 * (an IPv4 /24, an IPv6 /64: one host holds a whole /64, and loopback a whole /8), and per user
 * name, made-up names alike (so a refusal does not tell which names exist). Past the limit within
 * the window, a login is refused (429) without a bcrypt check, except a user's from a network it
 * has logged in from before. A check counts as a failure while it runs, so a burst cannot start more
 * checks than the limit; a network may have only a few checks waiting; and networks without
 * failures are checked first (bcrypt.ts), so a flood from elsewhere does not hold up a real user.
 */
import { isIPv4, isIPv6 } from 'node:net';
import type { Lane } from './bcrypt.js';

/** Failed logins (running or done) a network, or a user name, may have within the window. */
export const MAX_FAILURES = 10;
export const FAILURE_WINDOW_MS = 60_000;
/** bcrypt checks one network may have waiting or running (the same credentials at once are one check). */
export const MAX_CHECKS_PER_NETWORK = 4;
/** Bounds on what is remembered, whatever the number of clients and names. */
const MAX_ENTRIES = 10_000;

/** The network an address belongs to, as far as throttling goes: its /24 (IPv4) or /64 (IPv6). */
export function networkOf(address: string): string {
  const v4 = /^(?:::ffff:)?(\d+\.\d+\.\d+)\.\d+$/i.exec(address);
  if (v4 && isIPv4(address.replace(/^::ffff:/i, ''))) return `${v4[1]}.0/24`;
  if (!isIPv6(address)) return address;
  const [head = '', tail = ''] = address.split('::');
  const left = head ? head.split(':') : [];
  const right = tail ? tail.split(':') : [];
  const groups = address.includes('::') ? [...left, ...Array<string>(8 - left.length - right.length).fill('0'), ...right] : left;
  return `${groups
    .slice(0, 4)
    .map((g) => g.replace(/^0+(?=.)/, '').toLowerCase())
    .join(':')}::/64`;
}

interface Window {
  count: number;
  since: number;
}

export class LoginLimits {
  private readonly failures = new Map<string, Window>();
  private readonly checks = new Map<string, number>();
  /** `user\0network` pairs that have logged in: the user-name limit does not hold them off. */
  private readonly trusted = new Set<string>();

  /** Why this login may not be checked now, or undefined; `retryAfter` in seconds. */
  refusal(network: string, user: string, now = Date.now()): { retryAfter: number } | undefined {
    const keys = [`n:${network}`, ...(this.trusted.has(`${user}\u0000${network}`) ? [] : [`u:${user}`])];
    for (const key of keys) {
      const entry = this.current(key, now);
      if (entry && entry.count >= MAX_FAILURES) return { retryAfter: Math.max(1, Math.ceil((entry.since + FAILURE_WINDOW_MS - now) / 1000)) };
    }
    return undefined;
  }

  /** Whether the network may start one more bcrypt check. */
  hasRoom(network: string): boolean {
    return (this.checks.get(network) ?? 0) < MAX_CHECKS_PER_NETWORK;
  }

  /** The lane of a network's next check: first when it has no failures in the window. */
  laneOf(network: string, now = Date.now()): Lane {
    return (this.current(`n:${network}`, now)?.count ?? 0) > 0 ? 1 : 0;
  }

  /** A check starts: counted as a failure of the network and the name until it succeeds. */
  begin(network: string, user: string, now = Date.now()): () => void {
    this.checks.set(network, (this.checks.get(network) ?? 0) + 1);
    const entries = [this.count(`n:${network}`, now), this.count(`u:${user}`, now)];
    return () => {
      for (const entry of entries) entry.count = Math.max(0, entry.count - 1);
      if (this.trusted.size >= MAX_ENTRIES) this.trusted.clear();
      this.trusted.add(`${user}\u0000${network}`);
    };
  }

  /** A check ended (either way). */
  end(network: string): void {
    const left = (this.checks.get(network) ?? 1) - 1;
    if (left > 0) this.checks.set(network, left);
    else this.checks.delete(network);
  }

  /** A failure known without a check (the same wrong password again). */
  fail(network: string, user: string, now = Date.now()): void {
    this.count(`n:${network}`, now);
    this.count(`u:${user}`, now);
  }

  private current(key: string, now: number): Window | undefined {
    const entry = this.failures.get(key);
    if (entry && now - entry.since > FAILURE_WINDOW_MS) {
      this.failures.delete(key);
      return undefined;
    }
    return entry;
  }

  private count(key: string, now: number): Window {
    let entry = this.current(key, now);
    if (!entry) {
      if (this.failures.size >= MAX_ENTRIES) this.failures.clear();
      this.failures.set(key, (entry = { count: 0, since: now }));
    }
    entry.count++;
    return entry;
  }
}
