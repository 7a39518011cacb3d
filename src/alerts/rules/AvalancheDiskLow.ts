/**
 * Free disk low, or falling fast enough to reach AvalancheGo's own 10% warning soon. Keeps the last
 * hour of free-ratio readings per node (its own state) for the trend.
 */
import { formatBytes, formatDuration } from './format.js';
import { nodeFacts } from './node-facts.js';
import { defineRule, promAlert, thresholdTuning, UNKNOWN, type RuleDefaults } from './rule.js';

/** AvalancheGo's own warning threshold for free disk: DiskLow fires before it. */
const NODE_DISK_WARNING = 0.1;
const WINDOW_MS = 3600_000;
const MAX_SAMPLES = 240;

const defaults: RuleDefaults = { severity: 'warning', threshold: 0.15, criticalThreshold: 0.11 };

/** [epoch ms, free ratio] readings of the last hour. */
type Samples = Array<[number, number]>;

export default defineRule({
  name: 'AvalancheDiskLow',
  source: 'node',
  fires: "free disk ≤ 15%, or at the last hour's rate it reaches the node's own 10% warning within 24h",
  defaults,
  tuning: thresholdTuning('free-disk ratio (0–1)', defaults),
  phrases: { firing: 'disk low', resolved: 'disk space recovered' },
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
  newState: (): Samples => [],
  evaluate(observation, ctx, samples) {
    const facts = nodeFacts(observation);
    const reading = observation.endpoints.flatMap((e) => e.report?.checks ?? []).find((c) => c.disk?.availableRatio !== undefined)?.disk?.availableRatio;
    if (reading !== undefined) record(samples, ctx.now, reading);
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

/** Readings arrive in time order: the expired ones are at the front (trimmed in place, once a poll). */
function record(samples: Samples, now: number, ratio: number): void {
  while (samples.length > 0 && now - samples[0]![0] > WINDOW_MS) samples.shift();
  samples.push([now, ratio]);
  if (samples.length > MAX_SAMPLES) samples.splice(0, samples.length - MAX_SAMPLES);
}

/** Seconds until the free ratio reaches `floor` at the least-squares rate of the last hour (needs ≥ 10 minutes of samples). */
export function secondsUntil(samples: Samples, floor: number): number | undefined {
  if (samples.length < 5 || samples.at(-1)![0] - samples[0]![0] < 600_000) return undefined;
  const n = samples.length;
  const meanT = samples.reduce((a, [t]) => a + t, 0) / n;
  const meanR = samples.reduce((a, [, r]) => a + r, 0) / n;
  const num = samples.reduce((a, [t, r]) => a + (t - meanT) * (r - meanR), 0);
  const den = samples.reduce((a, [t]) => a + (t - meanT) ** 2, 0);
  const slopePerMs = den === 0 ? 0 : num / den;
  const current = samples.at(-1)![1];
  if (slopePerMs >= 0 || current <= floor) return current <= floor ? 0 : undefined;
  return (current - floor) / -slopePerMs / 1000;
}
