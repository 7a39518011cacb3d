/**
 * The one gate every notification passes, whatever its kind (firing, severity change, reminder,
 * resolve, Alertmanager re-send) and whatever the receiver: silences, maintenance windows and
 * flap holds. Like Alertmanager's mute stage, it only says whether an alert may be told now; the
 * engine keeps what receivers were last told, so a held change is told once the hold ends.
 */
import type { Flaps } from './flaps.js';
import type { Silences } from './silences.js';

export interface Hold {
  /** `silenced`: by a silence or a maintenance window (`reason` says which); `flapping`: by the flap hold. */
  kind: 'silenced' | 'flapping';
  /** For logs and views: which silence, or which window. */
  reason: string;
}

export class NotificationGate {
  constructor(
    private readonly silences: Silences,
    private readonly flaps: Flaps,
  ) {}

  /**
   * Why notifications about this alert are held now (labels include `severity`), or undefined.
   * `gone: true` for an alert whose target left the config: nothing holds it. It can no longer
   * change (no flap hold), and no later evaluation would ever let a held resolve out; the resolve
   * only closes the page that was sent, so a silence or maintenance window does not hold it either.
   * `sustained`: a failure held long enough (or critical) that damping must not hide it: a flap
   * hold lets it through (silences and maintenance windows still hold it).
   */
  hold(alert: { key: string; labels: Record<string, string>; sustained?: boolean }, now: number, options: { gone?: boolean } = {}): Hold | undefined {
    if (options.gone) return undefined;
    const silenced = this.silences.holds(alert.labels, now);
    if (silenced) return { kind: 'silenced', reason: silenced };
    if (!alert.sustained && this.flaps.isFlapping(alert.key, now)) return { kind: 'flapping', reason: 'flapping' };
    return undefined;
  }
}
