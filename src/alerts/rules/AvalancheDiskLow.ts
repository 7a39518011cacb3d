/**
 * Free disk low, or falling fast enough to reach AvalancheGo's own 10% warning soon. Keeps the last
 * hour of free-ratio readings per node (its own state) for the trend: at most one per
 * READING_SPACING_MS, so the hour fits in MAX_SAMPLES at any poll interval, in two fixed arrays of
 * numbers (no allocation per poll: a reading object per poll filled the old space of large fleets).
 */
import { formatBytes, formatDuration } from './format.js';
import { nodeFacts } from './node-facts.js';
import { defineRule, promAlert, thresholdTuning, UNKNOWN, type RuleDefaults } from './rule.js';

/** AvalancheGo's own warning threshold for free disk: DiskLow fires before it. */
const NODE_DISK_WARNING = 0.1;
const WINDOW_MS = 3600_000;
const MAX_SAMPLES = 240;
/** A reading sooner than this after the last one kept is not kept (nodes refresh their checks every 30 s anyway). */
const READING_SPACING_MS = WINDOW_MS / MAX_SAMPLES;

const defaults: RuleDefaults = { severity: 'warning', threshold: 0.15, criticalThreshold: 0.11 };

/**
 * [epoch ms, free ratio] readings of the last hour, oldest first, in a ring that grows (doubling)
 * up to MAX_SAMPLES: a node with a few readings holds a few, not MAX_SAMPLES from the start.
 */
export class Samples {
  private times = new Float64Array(8);
  private ratios = new Float64Array(8);
  private start = 0;
  length = 0;

  time(i: number): number {
    return this.times[(this.start + i) % this.times.length]!;
  }

  ratio(i: number): number {
    return this.ratios[(this.start + i) % this.ratios.length]!;
  }

  /** Drops the readings older than `window` before `now`, and the oldest when full. */
  record(now: number, ratio: number): void {
    while (this.length > 0 && now - this.time(0) > WINDOW_MS) this.dropOldest();
    if (this.length > 0 && now - this.time(this.length - 1) < READING_SPACING_MS) return;
    if (this.length === this.times.length) {
      if (this.length < MAX_SAMPLES) this.grow(Math.min(MAX_SAMPLES, this.length * 2));
      else this.dropOldest();
    }
    const at = (this.start + this.length) % this.times.length;
    this.times[at] = now;
    this.ratios[at] = ratio;
    this.length++;
  }

  private grow(capacity: number): void {
    const times = new Float64Array(capacity);
    const ratios = new Float64Array(capacity);
    for (let i = 0; i < this.length; i++) {
      times[i] = this.time(i);
      ratios[i] = this.ratio(i);
    }
    this.times = times;
    this.ratios = ratios;
    this.start = 0;
  }

  private dropOldest(): void {
    this.start = (this.start + 1) % this.times.length;
    this.length--;
  }
}

export default defineRule({
  name: 'AvalancheDiskLow',
  source: 'node',
  fires: "free disk ≤ 15%, or at the last hour's rate it reaches the node's own 10% warning within 24h",
  defaults,
  tuning: thresholdTuning('free-disk ratio (0–1)', defaults),
  phrases: { firing: 'disk low', resolved: 'disk space recovered' },
  // The node's own diskspace check only warns, and only below 10 %: the alert's severity is the sharper verdict.
  countsInState: true,
  // The node's diskspace check fails below 10 %, and with it the node's health: the disk is the problem.
  inhibits: [
    { alertname: 'AvalancheCheckFailing', labels: { check: 'diskspace' }, because: 'the diskspace check fails because the disk is low' },
    { alertname: 'AvalancheNodeUnhealthy', because: 'a node whose failing check is diskspace is unhealthy because the disk is low' },
  ],
  prometheus: [
    promAlert(
      'AvalancheDiskLow',
      'avahealth_node_disk_available_ratio <= 0.15 or avahealth:node_disk_available_ratio:predict24h < 0.10',
      '5m',
      'warning',
      '{{ $labels.target }}: disk {{ with query (printf "avahealth_node_disk_available_ratio{target=%q}" $labels.target) }}{{ . | first | value | humanizePercentage }}{{ end }} free',
      "Free disk is at most 15%, or at the last hour's rate it reaches the node's own 10% warning within a day. Below 3% AvalancheGo shuts down.",
    ),
    promAlert('AvalancheDiskLowCritical', 'avahealth_node_disk_available_ratio <= 0.11', '5m', 'critical', '{{ $labels.target }}: disk {{ $value | humanizePercentage }} free', 'Free disk is at most 11%; below 3% AvalancheGo shuts down.'),
  ],
  newState: (): Samples => new Samples(),
  recovered(observation) {
    const disk = nodeFacts(observation).diskCheck?.disk;
    if (disk?.availableRatio === undefined) return undefined;
    return `disk space recovered: ${(disk.availableRatio * 100).toFixed(0)}% free (${formatBytes(disk.availableBytes)})`;
  },
  evaluate(observation, ctx, samples) {
    const facts = nodeFacts(observation);
    const reading = observation.endpoints.flatMap((e) => e.report?.checks ?? []).find((c) => c.disk?.availableRatio !== undefined)?.disk?.availableRatio;
    if (reading !== undefined) samples.record(ctx.now, reading);
    if (facts.health && !facts.health.ok) return UNKNOWN;
    const disk = facts.diskCheck?.disk;
    if (disk?.availableRatio === undefined) return [];
    const ratio = disk.availableRatio;
    const untilNodeWarning = secondsUntil(samples, NODE_DISK_WARNING);
    const critical = ratio <= (ctx.settings.criticalThreshold ?? 0.11) || (untilNodeWarning !== undefined && untilNodeWarning < 6 * 3600);
    const warning = ratio <= (ctx.settings.threshold ?? 0.15) || (untilNodeWarning !== undefined && untilNodeWarning < 24 * 3600);
    if (!critical && !warning) return [];
    const runway = untilNodeWarning !== undefined ? `; at the current rate it reaches the node's 10% warning in ${formatDuration(untilNodeWarning)}` : '';
    return [
      {
        identity: {},
        severity: critical ? 'critical' : 'warning',
        summary: `${ctx.target}: disk ${(ratio * 100).toFixed(0)}% free`,
        description: `${formatBytes(disk.availableBytes)} free (${(ratio * 100).toFixed(1)}%)${runway}. Below 3% AvalancheGo shuts down.`,
      },
    ];
  },
});

/** Seconds until the free ratio reaches `floor` at the least-squares rate of the last hour (needs ≥ 10 minutes of samples). */
export function secondsUntil(samples: Samples, floor: number): number | undefined {
  const n = samples.length;
  if (n < 5 || samples.time(n - 1) - samples.time(0) < 600_000) return undefined;
  let sumT = 0;
  let sumR = 0;
  for (let i = 0; i < n; i++) {
    sumT += samples.time(i);
    sumR += samples.ratio(i);
  }
  const meanT = sumT / n;
  const meanR = sumR / n;
  let num = 0;
  let den = 0;
  for (let i = 0; i < n; i++) {
    const dt = samples.time(i) - meanT;
    num += dt * (samples.ratio(i) - meanR);
    den += dt * dt;
  }
  const slopePerMs = den === 0 ? 0 : num / den;
  const current = samples.ratio(n - 1);
  if (slopePerMs >= 0 || current <= floor) return current <= floor ? 0 : undefined;
  return (current - floor) / -slopePerMs / 1000;
}
