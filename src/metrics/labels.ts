import { createHash } from 'node:crypto';
import type { Gauge } from 'prom-client';

export type Labels = Record<string, string>;

const SAFE = /^[A-Za-z0-9_.:\-/ ]*$/;
const UNSAFE_CHARS = /[^A-Za-z0-9_.:\-/ ]/g;

/**
 * Turns an untrusted string (a check name from a node) into a bounded label value. Safe, short
 * values pass unchanged; anything else has unsafe characters replaced and gets a short hash of the
 * original, so two different names never collapse into one series.
 */
export function sanitizeLabelValue(value: string, maxLength: number): string {
  if (value.length <= maxLength && SAFE.test(value)) return value;
  const hash = createHash('sha256').update(value).digest('hex').slice(0, 8);
  const cleaned = value.replace(UNSAFE_CHARS, '_').slice(0, Math.max(1, maxLength - hash.length - 1));
  return `${cleaned}~${hash}`;
}

/**
 * The gauge series one owner (a target) set in its last update. `commit()` removes every series
 * that was not set again, which is how a vanished check or a failed endpoint loses its series.
 */
export class SeriesTracker {
  private previous = new Map<string, [Gauge, Labels]>();
  private current = new Map<string, [Gauge, Labels]>();

  set(gauge: Gauge, labels: Labels, value: number): void {
    gauge.set(labels, value);
    let key = (gauge as unknown as { name: string }).name;
    for (const v of Object.values(labels)) key += `\u0000${v}`;
    this.current.set(key, [gauge, labels]);
  }

  commit(): void {
    for (const [key, [gauge, labels]] of this.previous) if (!this.current.has(key)) gauge.remove(labels);
    this.previous = this.current;
    this.current = new Map();
  }

  clear(): void {
    this.commit();
    this.commit();
  }
}
