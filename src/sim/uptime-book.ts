/**
 * Each simulated node's uptime manager: its account of each validator's connected time since that
 * validator's (current) validation started, as AvalancheGo keeps it (snow/uptime/manager.go):
 * `CalculateUptime` adds the time the observer has been connected to the validator since the last
 * update; `CalculateUptimePercentFrom(nodeID, startTime)` divides by the time since the start (1 when
 * no time has passed). A validation's measure starts at zero, and again with each cycle of an
 * auto-renewed validator (vms/platformvm/state/state.go, writeCurrentStakers: `UpDuration: 0`,
 * `LastUpdated = StartTime`).
 *
 * Validation time runs `factor` times as fast as real time (1 = real time, the default: a period's
 * times and its uptimes on one clock; a scenario may set 3,600, one real second an hour of
 * validation, to show in a minute what a day of downtime does). Each validator's clock reads its validation
 * time since its start; an account is the connected validation time as of a real instant. A pair
 * never disturbed has no entry: it reads its base uptime over the time before the book was created,
 * connected since (so a fleet of thousands keeps no account per pair).
 */

/** A validator's validation time: `seconds` at real instant `atMs`, running `factor` times real time since. */
interface Clock {
  atMs: number;
  seconds: number;
}

/** An observer's account of a validator: validation seconds connected, as of real instant `at` (ms). */
interface Account {
  up: number;
  at: number;
}

export class UptimeBook {
  private readonly accounts = new Map<string, Account>();
  private readonly clocks = new Map<string, Clock>();
  /** The clock of every validation not started anew since the book was created. */
  private defaultClock: Clock;

  constructor(
    createdAtMs: number,
    /** Validation time each validation has behind it when the book is created. */
    ageSeconds: number,
    public factor: number,
  ) {
    this.defaultClock = { atMs: createdAtMs, seconds: ageSeconds };
  }

  /** The validation time (seconds) behind `to`'s current validation at real instant `atMs`. */
  validationSeconds(to: string, atMs: number): number {
    const clock = this.clocks.get(to) ?? this.defaultClock;
    return Math.max(0, clock.seconds + ((atMs - clock.atMs) / 1000) * this.factor);
  }

  /**
   * `from`'s measure of `to`, percent (CalculateUptimePercentFrom × 100, not rounded): `linked`
   * whether they are connected now (and have been since the account's last update), `base` the
   * uptime of a pair never disturbed, percent.
   */
  percent(from: string, to: string, base: number, linked: boolean, nowMs: number): number {
    const account = this.accounts.get(key(from, to)) ?? this.untouched(to, base);
    const total = this.validationSeconds(to, nowMs);
    if (total <= 0) return 100;
    const up = account.up + (linked ? total - this.validationSeconds(to, account.at) : 0);
    return Math.min(100, Math.max(0, (100 * up) / total));
  }

  /** Brings `from`'s account of `to` up to `nowMs` under the connection as it was since its last update. */
  settle(from: string, to: string, base: number, linked: boolean, nowMs: number): void {
    const k = key(from, to);
    const account = this.accounts.get(k) ?? this.untouched(to, base);
    if (linked) account.up += this.validationSeconds(to, nowMs) - this.validationSeconds(to, account.at);
    account.at = nowMs;
    this.accounts.set(k, account);
  }

  /**
   * `to`'s validation starts anew (a new validation, or the next cycle of an auto-renewed one) at
   * `startSeconds` (epoch): every observer's measure starts at zero then. Call after settling its
   * accounts; `linked` says which observers have been connected since.
   */
  restart(to: string, startSeconds: number, nowMs: number, observers: Iterable<string>, linked: (from: string) => boolean): void {
    const since = Math.max(0, nowMs / 1000 - startSeconds);
    this.clocks.set(to, { atMs: nowMs, seconds: since * this.factor });
    const seconds = this.validationSeconds(to, nowMs);
    for (const from of observers) {
      if (from === to) continue;
      this.accounts.set(key(from, to), { up: linked(from) ? seconds : 0, at: nowMs });
    }
  }

  /** `from`'s measure of `to` set to `percent` now (its account then runs on from there). Call after settling. */
  pin(from: string, to: string, percent: number, nowMs: number): void {
    this.accounts.set(key(from, to), { up: (Math.min(100, Math.max(0, percent)) / 100) * this.validationSeconds(to, nowMs), at: nowMs });
  }

  /** `from`'s account of `to` dropped: the pair reads as one never disturbed again. */
  forget(from: string, to: string): void {
    this.accounts.delete(key(from, to));
  }

  /**
   * `to` was down for the last `realSeconds` (a node that was stopped and now restarts): every
   * observer lost that connected time. Call after settling its accounts.
   */
  debit(to: string, realSeconds: number, nowMs: number, observers: Iterable<string>, base: (from: string) => number): void {
    const lost = Math.min(realSeconds * this.factor, this.validationSeconds(to, nowMs));
    for (const from of observers) {
      if (from === to) continue;
      const account = this.accounts.get(key(from, to)) ?? this.untouched(to, base(from));
      account.up = Math.max(0, account.up - lost);
      this.accounts.set(key(from, to), account);
    }
  }

  /** A new factor from `nowMs` on: every account is brought up to now first (`linked` says which pairs are connected). */
  setFactor(factor: number, nowMs: number, linked: (from: string, to: string) => boolean): void {
    for (const [k, account] of this.accounts) {
      const [from, to] = k.split('>') as [string, string];
      if (linked(from, to)) account.up += this.validationSeconds(to, nowMs) - this.validationSeconds(to, account.at);
      account.at = nowMs;
    }
    for (const to of this.clocks.keys()) this.clocks.set(to, { atMs: nowMs, seconds: this.validationSeconds(to, nowMs) });
    this.defaultClock = { atMs: nowMs, seconds: this.defaultSeconds(nowMs) };
    this.factor = factor;
  }

  private defaultSeconds(nowMs: number): number {
    return Math.max(0, this.defaultClock.seconds + ((nowMs - this.defaultClock.atMs) / 1000) * this.factor);
  }

  /** The account of a pair never disturbed: its base uptime over the time before the clock's anchor, connected since. */
  private untouched(to: string, base: number): Account {
    const clock = this.clocks.get(to) ?? this.defaultClock;
    return { up: (Math.min(100, Math.max(0, base)) / 100) * clock.seconds, at: clock.atMs };
  }
}

function key(from: string, to: string): string {
  return `${from}>${to}`;
}
