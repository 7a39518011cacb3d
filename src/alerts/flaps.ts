/**
 * Flap detection: an alert that changed state (fired or resolved) more than `flap_threshold` times
 * within `flap_window` is flapping; its notifications are held until it has been stable for the
 * window. Only the last flap_threshold + 1 changes within the window can matter, so no more are ever
 * kept (nor persisted).
 */
export class Flaps {
  constructor(
    private threshold: number,
    private windowMs: number,
    private readonly times = new Map<string, number[]>(),
  ) {}

  /** The latest change recorded: the persisted state is cut to the window before it (the engine's clock, not the wall's). */
  private latest = -Infinity;

  setLimits(threshold: number, windowMs: number): void {
    [this.threshold, this.windowMs] = [threshold, windowMs];
  }

  /** Only changes within the window can make an alert flap: older ones are let go here, or a large threshold keeps every change ever seen (and persists them all each save). */
  record(key: string, now: number): void {
    this.latest = Math.max(this.latest, now);
    const recent = (this.times.get(key) ?? []).filter((t) => now - t < this.windowMs);
    recent.push(now);
    this.times.set(key, recent.slice(-(this.threshold + 1)));
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

  /** What is persisted: the changes still within the window (keys with none left are let go). */
  toJSON(now = this.latest): Record<string, number[]> {
    for (const [key, times] of this.times) {
      const recent = times.filter((t) => now - t < this.windowMs);
      if (recent.length === 0) this.times.delete(key);
      else this.times.set(key, recent);
    }
    return Object.fromEntries(this.times);
  }
}
