/**
 * "Was it paid?": a node's last ended validation periods with their outcome, the evidence and the
 * period being followed now (status page and JSON API, under `periods`).
 */
import type { PeriodOutcome } from '../model/periods.js';
import { nAvaxToAvax, VALIDATOR_ENDPOINT, validatorReport } from '../model/validator.js';
import { e, type Panel } from './html.js';
import { isoTime } from '../util/time.js';

export interface PeriodsPanel {
  /** The period followed now: its start and end (epoch seconds). */
  current?: { startTime: number; endTime: number; autoRenewed: boolean };
  /** An ended period whose outcome is not known yet (the reward proposal not yet seen). */
  awaiting?: { startTime: number; endTime: number };
  /** Newest first. */
  periods: Array<{
    startTime: number;
    endTime: number;
    autoRenewed: boolean;
    /** true paid, false not, null unknown. */
    rewarded: boolean | null;
    validationRewardAvax?: number;
    /** Of a renewed cycle's validation reward, the part restaked into its stake and the part paid out. */
    restakedAvax?: number;
    paidOutAvax?: number;
    /** The split was computed from autoCompoundRewardShares and the cap, not read from the node. */
    restakedEstimated?: boolean;
    delegateeRewardAvax?: number;
    potentialRewardAvax?: number;
    uptimeRatio?: number;
    requirement?: number;
    evidence: string;
    disagreement?: string;
  }>;
}

function row(o: PeriodOutcome): PeriodsPanel['periods'][number] {
  const avax = (n: number | undefined) => (n === undefined ? undefined : nAvaxToAvax(n));
  const entry: PeriodsPanel['periods'][number] = { startTime: o.startTime, endTime: o.endTime, autoRenewed: o.autoRenewed, rewarded: o.rewarded, evidence: o.evidence };
  const paidOut = o.restakedNAvax !== undefined && o.validationRewardNAvax !== undefined ? o.validationRewardNAvax - o.restakedNAvax : undefined;
  const optional = { validationRewardAvax: avax(o.validationRewardNAvax), restakedAvax: avax(o.restakedNAvax), paidOutAvax: avax(paidOut), restakedEstimated: o.restakedEstimated, delegateeRewardAvax: avax(o.delegateeRewardNAvax), potentialRewardAvax: avax(o.potentialRewardNAvax), uptimeRatio: o.uptimeRatio, requirement: o.requirement, disagreement: o.disagreement };
  for (const [key, value] of Object.entries(optional)) if (value !== undefined) Object.assign(entry, { [key]: value });
  return entry;
}

const day = (seconds: number) => isoTime(seconds)?.slice(0, 10) ?? '–';
const pct = (ratio: number | undefined) => (ratio === undefined ? '–' : `${(ratio * 100).toFixed(1)} %`);

function periodsSection(p: PeriodsPanel): string {
  const outcome = (r: boolean | null) => (r === true ? '<span class="badge healthy">✔ paid</span>' : r === false ? '<span class="badge unhealthy">✖ not paid</span>' : '<span class="badge">? unknown</span>');
  const rows = p.periods
    .map(
      (x) =>
        `<tr><td data-label="Period">${day(x.startTime)} → ${day(x.endTime)}${x.autoRenewed ? ' <span class="muted">(cycle)</span>' : ''}</td><td data-label="Outcome">${outcome(x.rewarded)}</td><td data-label="Reward" class="num">${x.validationRewardAvax !== undefined ? `${x.validationRewardAvax.toFixed(2)} AVAX` : '–'}${x.restakedAvax !== undefined && x.paidOutAvax !== undefined ? ` <span class="muted">(${x.restakedEstimated ? 'about ' : ''}${x.restakedAvax.toFixed(2)} restaked, ${x.paidOutAvax.toFixed(2)} paid out)</span>` : ''}${x.rewarded === false && x.potentialRewardAvax !== undefined ? ` <span class="muted">(${x.potentialRewardAvax.toFixed(2)} forfeited)</span>` : ''}</td><td data-label="Uptime">${pct(x.uptimeRatio)}${x.requirement !== undefined ? ` <span class="muted">of ${pct(x.requirement)}</span>` : ''}</td><td data-label="Evidence">${e(x.evidence)}${x.disagreement ? ` <span class="bad">✖ ${e(x.disagreement)}</span>` : ''}</td></tr>`,
    )
    .join('');
  const now = p.current ? `<p>Following the ${p.current.autoRenewed ? 'cycle' : 'period'} ${day(p.current.startTime)} → ${day(p.current.endTime)}.</p>` : '';
  const awaiting = p.awaiting ? `<p class="muted">The period ${day(p.awaiting.startTime)} → ${day(p.awaiting.endTime)} ended; its outcome is not known yet.</p>` : '';
  const table = rows ? `<table class="cards"><thead><tr><th scope="col">Period</th><th scope="col">Outcome</th><th scope="col" class="num">Reward</th><th scope="col">Uptime</th><th scope="col">Evidence</th></tr></thead><tbody>${rows}</tbody></table>` : '<p class="muted">No period has ended since avahealth began following this node.</p>';
  return `<section aria-labelledby="periods"><h2 id="periods">Validation periods: was it paid?</h2>${now}${awaiting}${table}</section>`;
}

export default {
  model: (target, state) => {
    if (target.kind !== 'node') return undefined;
    const periods = validatorReport(state.observation.endpoints.find((x) => x.endpoint === VALIDATOR_ENDPOINT))?.periods;
    if (!periods || (!periods.tracking && periods.outcomes.length === 0 && !periods.ended)) return undefined;
    const panel: PeriodsPanel = { periods: periods.outcomes.map(row) };
    if (periods.tracking) panel.current = { startTime: periods.tracking.startTime, endTime: periods.tracking.endTime, autoRenewed: periods.tracking.autoRenewed };
    if (periods.ended) panel.awaiting = { startTime: periods.ended.startTime, endTime: periods.ended.endTime };
    return panel;
  },
  html: periodsSection,
} satisfies Panel<PeriodsPanel>;
