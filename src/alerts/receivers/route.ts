/**
 * Routing, with the receivers: which alerts a receiver takes (its label matchers and minimum
 * severity). The notifier and the Alertmanager silence mirror route with it alike.
 */
import type { ReceiverConfig } from '../../config/load.js';
import { matches } from '../silences.js';
import type { AlertNotice } from '../types.js';

const SEVERITY_RANK = { warning: 1, critical: 2 };

/** The alerts of `alerts` the receiver takes. */
export function routeTo(receiver: ReceiverConfig, alerts: readonly AlertNotice[]): AlertNotice[] {
  return alerts.filter(
    (a) => SEVERITY_RANK[(a.labels.severity as 'warning' | 'critical') ?? 'warning'] >= SEVERITY_RANK[receiver.minSeverity] && matches(receiver.matchers, a.labels),
  );
}
