import { isReservedLabelName } from '../util/labels.js';

/** Why a discovered target was left out. */
export const TARGET_DROP_REASONS = ['invalid_address', 'configured_name', 'duplicate_name', 'over_limit'] as const;
export type TargetDropReason = (typeof TARGET_DROP_REASONS)[number];

/**
 * What discovery left out, counted per source for avahealth_discovery_labels_dropped_total and
 * avahealth_discovery_targets_dropped_total. Owned by the daemon, so the counts survive a reload
 * that restarts discovery.
 */
export class DiscoveryTally {
  /** `source` → label name (or `invalid` for a name that is no label name) → count. */
  readonly labels = new Map<string, Map<string, number>>();
  /** `source` → reason → count; every reason of every declared source starts at 0. */
  readonly targets = new Map<string, Map<TargetDropReason, number>>();

  declare(sources: string[]): void {
    for (const source of sources) {
      const reasons = this.targets.get(source) ?? new Map<TargetDropReason, number>();
      for (const reason of TARGET_DROP_REASONS) reasons.set(reason, reasons.get(reason) ?? 0);
      this.targets.set(source, reasons);
    }
  }

  countTargets(source: string, reason: TargetDropReason, count: number): void {
    const reasons = this.targets.get(source) ?? new Map<TargetDropReason, number>();
    reasons.set(reason, (reasons.get(reason) ?? 0) + count);
    this.targets.set(source, reasons);
  }

  countLabel(source: string, name: string): void {
    const label = isReservedLabelName(name) ? name : 'invalid';
    const names = this.labels.get(source) ?? new Map<string, number>();
    names.set(label, (names.get(label) ?? 0) + 1);
    this.labels.set(source, names);
  }
}
