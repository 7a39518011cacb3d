/**
 * The validator panel of a node (status page and JSON API): rewarding stake, requirement, downtime
 * budget, period, potential reward, L1 balances with their runway, the version against the network.
 */
import type { ChainDataSnapshot } from '../model/chaindata.js';
import type { EndpointObservation } from '../model/observation.js';
import { rewardOutlook } from '../model/reward-vote.js';
import { effectiveHeliconTime, isVersionBehind, nAvaxToAvax, VALIDATOR_ENDPOINT, validatorReport } from '../model/validator.js';
import { e, timeTag, type Panel } from './html.js';
import { isoTime } from '../util/time.js';

export interface ValidatorPanel {
  polledAt: number;
  nodeId?: string;
  version?: string;
  /** Versions newer than the node's hold most of its network's stake (with chain data). */
  versionBehind?: boolean;
  /** "node is not a validator": no Primary Network stake. */
  notValidator: boolean;
  /** Why no validation is attributed to the node (its NodeID is unknown). */
  nodeIdUnknown?: string;
  /** /ext/info answers HTTP 404 (the info API is switched off). */
  infoApiDisabled?: boolean;
  /** The node's network (info.getNetworkID): `mainnet`, `fuji` or the numeric ID. */
  network?: string;
  /** Helicon activation the requirement follows (epoch seconds, null = not scheduled), and whose schedule it is when not the node's own. */
  heliconTime?: number | null;
  scheduleFrom?: { target: string; version: string };
  /** Auto-renewed validator: the next cycle's length (0 = exits at the period end). */
  nextPeriodSeconds?: number;
  /** L1 validations beyond the 100 kept per node. */
  l1Dropped?: number;
  rewardingStakeRatio?: number;
  weightedAverageRatio?: number;
  /** info.uptime answered "still bootstrapping" (AvalancheGo v1.15 after a restart): its figures are not known yet. */
  uptimeBootstrapping?: boolean;
  /** The node's info.isBootstrapped said its P-Chain is still bootstrapping: its validations are not known yet. */
  pChainBootstrapping?: boolean;
  requirement?: number;
  /** Where the requirement comes from (ACP-267, the base 0.8, or the configured base). */
  requirementBasis?: 'acp-267' | 'base' | 'configured-base';
  downtimeAllowanceSeconds?: number;
  downtimeBudgetRemainingSeconds?: number;
  /**
   * Were the node up from now on, the share of stake that would see it at or above the requirement
   * at the period's end, the uptime the stake that sees it lowest would measure then
   * (model/reward-projection.ts), and whether the reward is in reach.
   */
  projectedRewardingStakeRatio?: number;
  projectedLowestUptimeRatio?: number;
  rewardInReach?: boolean;
  periodStart?: number;
  periodEnd?: number;
  potentialRewardAvax?: number;
  feePriceAvaxPerSecond?: number;
  l1: Array<{ subnetId: string; validationId: string; balanceAvax: number; active: boolean; runwaySeconds?: number }>;
  /** Calls that did not answer (disabled APIs included), with the reason. */
  problems: Array<{ call: string; reason: string; error: string }>;
}

export function validatorPanel(endpoints: readonly EndpointObservation[], network: string | undefined, chainData: ChainDataSnapshot | undefined): ValidatorPanel | undefined {
  const endpoint = endpoints.find((x) => x.endpoint === VALIDATOR_ENDPOINT);
  const report = validatorReport(endpoint);
  if (!endpoint || !report) return undefined;
  const panel: ValidatorPanel = { polledAt: endpoint.at, notValidator: report.notValidator === true, l1: [], problems: report.problems.map((p) => ({ ...p })) };
  const set = <K extends keyof ValidatorPanel>(key: K, value: ValidatorPanel[K] | undefined) => {
    if (value !== undefined) panel[key] = value;
  };
  set('nodeId', report.nodeId);
  set('nodeIdUnknown', report.nodeIdUnknown);
  if (report.infoApiDisabled) panel.infoApiDisabled = true;
  set('network', report.network);
  set('heliconTime', effectiveHeliconTime(report));
  if (report.networkSchedule) panel.scheduleFrom = { target: report.networkSchedule.from, version: report.networkSchedule.version };
  set('nextPeriodSeconds', report.primary?.autoRenewal?.nextPeriodSeconds);
  set('l1Dropped', report.l1Dropped);
  set('version', report.version);
  const stake = network ? chainData?.networks.get(network)?.versionStake : undefined;
  if (report.version && stake) set('versionBehind', isVersionBehind(report.version, stake));
  if (report.uptimeBootstrapping) panel.uptimeBootstrapping = true;
  if (report.pChainBootstrapping) panel.pChainBootstrapping = true;
  set('rewardingStakeRatio', report.uptime?.rewardingStakeRatio);
  set('weightedAverageRatio', report.uptime?.weightedAverageRatio);
  set('requirement', report.economics?.requirement);
  set('requirementBasis', report.economics?.requirementBasis);
  set('downtimeAllowanceSeconds', report.economics?.downtimeAllowanceSeconds);
  set('downtimeBudgetRemainingSeconds', report.economics?.downtimeBudgetRemainingSeconds);
  set('projectedRewardingStakeRatio', report.economics?.projection?.rewardingEndRatio);
  set('projectedLowestUptimeRatio', report.economics?.projection?.laggardsEndUptimeRatio);
  set('rewardInReach', report.economics?.projection?.inReach);
  set('periodStart', report.primary?.startTime);
  set('periodEnd', report.primary?.endTime);
  if (report.primary?.potentialRewardNAvax !== undefined) panel.potentialRewardAvax = nAvaxToAvax(report.primary.potentialRewardNAvax);
  if (report.feeState) panel.feePriceAvaxPerSecond = nAvaxToAvax(report.feeState.priceNAvaxPerSecond);
  panel.l1 = report.l1.map((v, i) => {
    const runway = report.economics?.l1RunwaySeconds[i];
    return { subnetId: v.subnetId, validationId: v.validationId, balanceAvax: nAvaxToAvax(v.balanceNAvax), active: v.balanceNAvax > 0, ...(runway !== undefined ? { runwaySeconds: runway } : {}) };
  });
  return panel;
}

const pct = (ratio: number | undefined) => (ratio === undefined ? '–' : `${(ratio * 100).toFixed(1)} %`);
const hours = (seconds: number) => (Math.abs(seconds) >= 4 * 86400 ? `${(seconds / 86400).toFixed(1)} days` : `${(seconds / 3600).toFixed(1)} h`);
const day = (seconds: number | undefined) => (seconds === undefined ? '–' : (isoTime(seconds)?.slice(0, 10) ?? '–'));
/** To the minute, for a period shorter than four days (a 12- or 48-hour cycle). */
const minute = (seconds: number | undefined) => {
  const iso = seconds === undefined ? undefined : isoTime(seconds);
  return iso === undefined ? '–' : `${iso.slice(0, 16).replace('T', ' ')} UTC`;
};

/** Where the requirement comes from, in words (AvalancheGo vms/platformvm/block/executor/options.go). */
const REQUIREMENT_BASIS = {
  'acp-267': 'the period started at or after Helicon: 90 % whatever the base requirement (ACP-267)',
  base: "the base requirement (the network's --uptime-requirement, 80 % on mainnet and Fuji; no API exposes it: set validator.uptime_requirement for a custom network); 90 % for periods starting at or after Helicon",
  'configured-base': "the configured base (validator.uptime_requirement: the network's --uptime-requirement, which no API exposes); 90 % for periods starting at or after Helicon whatever the base",
} as const;

/** Rewarding stake, requirement, downtime budget, period and reward; L1 balances with runway; version. */
function validatorSection(v: ValidatorPanel, now: number): string {
  const rows: Array<[string, string]> = [];
  if (v.notValidator) rows.push(['Primary Network', '<span class="muted">not a validator (no Primary Network stake)</span>']);
  if (v.infoApiDisabled) rows.push(['Info API', '<span class="bad">✖ switched off (/ext/info answers 404)</span>']);
  if (v.nodeIdUnknown) rows.push(['Validations', `<span class="bad">✖ ${e(v.nodeIdUnknown)}</span>`]);
  if (v.network) rows.push(['Network', e(v.network)]);
  if (v.pChainBootstrapping) rows.push(['Validations', '<span class="muted">not yet: the P-Chain is still bootstrapping, its lists of a past height (info.isBootstrapped); the validator verdicts hold meanwhile</span>']);
  if (v.uptimeBootstrapping) rows.push(['Rewarding stake', '<span class="muted">not yet: the node is still bootstrapping (info.uptime answers once its P-Chain is); the reward verdicts hold meanwhile</span>']);
  if (v.rewardingStakeRatio !== undefined) {
    // The mark says the outlook the reward alert judges by (model/reward-vote.ts), never a threshold of its own.
    const outlook = rewardOutlook(v.rewardingStakeRatio);
    const [mark, tone, words] = { likely: ['✔', 'good', 'reward likely'], uncertain: ['▲', 'warn', 'reward uncertain'], lost: ['✖', 'bad', 'reward likely lost'] }[outlook];
    rows.push(['Rewarding stake', `<span class="${tone}">${mark} ${pct(v.rewardingStakeRatio)}</span> <span class="muted">of stake sees its uptime at or above the requirement:</span> ${words} <span class="muted">were the period to end now (a stake majority decides)</span>`]);
    rows.push(['Weighted uptime', pct(v.weightedAverageRatio)]);
  }
  if (v.requirement !== undefined) {
    const helicon = v.heliconTime === undefined ? '' : v.heliconTime === null ? 'Helicon not scheduled' : `Helicon ${day(v.heliconTime)}`;
    const from = v.scheduleFrom ? `, schedule of ${e(v.scheduleFrom.target)} (${e(v.scheduleFrom.version)})` : '';
    const basis = v.requirementBasis === undefined ? '' : `<br><span class="muted">${REQUIREMENT_BASIS[v.requirementBasis]}</span>`;
    rows.push(['Requirement', `${pct(v.requirement)} uptime${helicon || from ? ` <span class="muted">(${helicon}${from})</span>` : ''}${basis}`]);
  }
  if (v.downtimeBudgetRemainingSeconds !== undefined && v.downtimeAllowanceSeconds) {
    const left = v.downtimeBudgetRemainingSeconds;
    const share = left / v.downtimeAllowanceSeconds;
    const until = v.periodEnd !== undefined ? ` until ${minute(v.periodEnd)}` : '';
    rows.push(['Downtime budget', `<span class="${share < 0.25 ? 'bad' : 'good'}">${left >= 0 ? `${hours(left)} left` : `overspent by ${hours(-left)}`}</span> <span class="muted">of ${hours(v.downtimeAllowanceSeconds)} this period${until}</span>`]);
  }
  if (v.projectedRewardingStakeRatio !== undefined && v.requirement !== undefined) {
    const words = v.rewardInReach ? '✔ the reward is in reach' : '✖ the reward is out of reach';
    // The lowest measure matters once the stake that sees it below the requirement is a share worth naming.
    const lowest = v.projectedLowestUptimeRatio !== undefined && (v.rewardingStakeRatio ?? 1) < 0.8 ? `; the stake that sees it lowest would measure ${pct(v.projectedLowestUptimeRatio)} against ${pct(v.requirement)}` : '';
    rows.push(['At the period end', `<span class="${v.rewardInReach ? 'good' : 'bad'}">${words}</span> <span class="muted">up from now on, ${pct(v.projectedRewardingStakeRatio)} of stake would see it at or above the requirement${lowest} (the vote is cast once, at the end, on each node's measure since the period started)</span>`]);
  }
  if (v.periodEnd !== undefined) {
    const short = v.periodStart !== undefined && v.periodEnd - v.periodStart < 4 * 86400;
    rows.push(['Period', short ? `${minute(v.periodStart)} → ${minute(v.periodEnd)}` : `${day(v.periodStart)} → ${day(v.periodEnd)}`]);
  }
  if (v.nextPeriodSeconds !== undefined) rows.push(['Auto-renewal', v.nextPeriodSeconds > 0 ? `renews at the period end for ${hours(v.nextPeriodSeconds)}` : '<span class="bad">exits at the period end</span> (next period 0)']);
  if (v.l1Dropped) rows.push(['L1 validations', `<span class="bad">${v.l1Dropped} more than the 100 kept per node (not exported)</span>`]);
  if (v.potentialRewardAvax !== undefined) rows.push(['Potential reward', `${v.potentialRewardAvax.toFixed(2)} AVAX`]);
  if (v.version) rows.push(['Version', `<code>${e(v.version)}</code>${v.versionBehind ? ' <span class="bad">✖ behind most of the network\'s stake</span>' : v.versionBehind === false ? ' <span class="good">✔ current</span>' : ''}`]);
  if (v.feePriceAvaxPerSecond !== undefined) rows.push(['L1 fee', `${(v.feePriceAvaxPerSecond * 1e9).toFixed(0)} nAVAX/s per validator`]);
  const l1 = v.l1.length
    ? `<table class="cards"><thead><tr><th scope="col">L1 validation</th><th scope="col">Subnet</th><th scope="col" class="num">Balance</th><th scope="col">Runway</th></tr></thead><tbody>${v.l1
        .map(
          (x) =>
            `<tr><td data-label="L1 validation"><code>${e(x.validationId)}</code></td><td data-label="Subnet"><code>${e(x.subnetId)}</code></td><td data-label="Balance" class="num">${x.balanceAvax.toFixed(4)} AVAX</td><td data-label="Runway">${!x.active ? '<span class="badge unhealthy">✖ inactive</span>' : x.runwaySeconds !== undefined ? `<span class="${x.runwaySeconds < 14 * 86400 ? 'bad' : 'good'}">${(x.runwaySeconds / 86400).toFixed(1)} days</span>` : '<span class="muted">–</span>'}</td></tr>`,
        )
        .join('')}</tbody></table>`
    : '';
  const problems = v.problems.length ? `<ul>${v.problems.map((p) => `<li><code>${e(p.call)}</code>: ${p.reason === 'disabled' ? '<span class="muted">API disabled</span>' : p.reason === 'bootstrapping' ? '<span class="muted">not yet (P-Chain bootstrapping)</span>' : `<span class="error">${e(p.reason)}: ${e(p.error)}</span>`}</li>`).join('')}</ul>` : '';
  return `<section aria-labelledby="validator"><h2 id="validator">Validator</h2>
<dl class="facts">${rows.map(([k, val]) => `<dt>${e(k)}</dt><dd>${val}</dd>`).join('')}</dl>
${l1}${problems}<p class="muted">polled ${timeTag(v.polledAt, now)}</p></section>`;
}

export default {
  model: (target, state, store) => (target.kind === 'node' ? validatorPanel(state.observation.endpoints, target.network, store.chainData) : undefined),
  html: validatorSection,
} satisfies Panel<ValidatorPanel>;
