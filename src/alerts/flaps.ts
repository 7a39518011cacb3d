/**
 * Flap detection: an alert that changed state (fired or resolved) more than `flap_threshold` times
 * within `flap_window` is flapping; its notifications are held until it has been stable for the
 * window. Only the last flap_threshold + 1 changes can matter, so no more are ever kept.
 */
export class Flaps {
  constructor(
    private threshold: number,
    private windowMs: number,
    private readonly times = new Map<string, number[]>(),
  ) {}

  setLimits(threshold: number, windowMs: number): void {
    [this.threshold, this.windowMs] = [threshold, windowMs];
  }

  record(key: string, now: number): void {
    this.times.set(key, [...(this.times.get(key) ?? []), now].slice(-(this.threshold + 1)));
  }

  isFlapping(key: string, now: number): boolean {
    const recent = (this.times.get(key) ?? []).filter((t) => now - t < this.windowMs);
    if (recent.length === 0) this.times.delete(key);
    else this.times.set(key, recent);
    return recent.length > this.threshold;
  }

  /** A target that is gone: its alerts' change times, and their flap holds in `held`, are let go (keys are `alertname|target|…`). */
  forgetTarget(target: string, held: Set<string>): void {
    for (const key of [...this.times.keys(), ...held]) {
      if (key.split('|')[1] !== target) continue;
      this.times.delete(key);
      held.delete(key);
    }
  }

  toJSON(): Record<string, number[]> {
    return Object.fromEntries(this.times);
  }
}
