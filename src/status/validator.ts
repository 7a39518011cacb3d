/**
 * The validator panel of a node (status page and JSON API): rewarding stake, requirement, downtime
 * budget, period, potential reward, L1 balances with their runway, the version against the network.
 */
import type { ChainDataSnapshot } from '../model/chaindata.js';
import type { EndpointObservation } from '../model/observation.js';
import { isVersionBehind, nAvaxToAvax } from '../model/validator.js';

export interface ValidatorPanel {
  polledAt: number;
  nodeId?: string;
  version?: string;
  /** Versions newer than the node's hold most of its network's stake (with chain data). */
  versionBehind?: boolean;
  /** "node is not a validator": no Primary Network stake. */
  notValidator: boolean;
  rewardingStakeRatio?: number;
  weightedAverageRatio?: number;
  requirement?: number;
  downtimeAllowanceSeconds?: number;
  downtimeBudgetRemainingSeconds?: number;
  periodStart?: number;
  periodEnd?: number;
  potentialRewardAvax?: number;
  feePriceAvaxPerSecond?: number;
  l1: Array<{ subnetId: string; validationId: string; balanceAvax: number; active: boolean; runwaySeconds?: number }>;
  /** Calls that did not answer (disabled APIs included), with the reason. */
  problems: Array<{ call: string; reason: string; error: string }>;
}

export function validatorPanel(endpoints: readonly EndpointObservation[], network: string | undefined, chainData: ChainDataSnapshot | undefined): ValidatorPanel | undefined {
  const e = endpoints.find((x) => x.endpoint === 'validator' && x.validator);
  const report = e?.validator;
  if (!e || !report) return undefined;
  const panel: ValidatorPanel = { polledAt: e.at, notValidator: report.notValidator === true, l1: [], problems: report.problems.map((p) => ({ ...p })) };
  const set = <K extends keyof ValidatorPanel>(key: K, value: ValidatorPanel[K] | undefined) => {
    if (value !== undefined) panel[key] = value;
  };
  set('nodeId', report.nodeId);
  set('version', report.version);
  const stake = network ? chainData?.networks.get(network)?.versionStake : undefined;
  if (report.version && stake) set('versionBehind', isVersionBehind(report.version, stake));
  set('rewardingStakeRatio', report.uptime?.rewardingStakeRatio);
  set('weightedAverageRatio', report.uptime?.weightedAverageRatio);
  set('requirement', report.economics?.requirement);
  set('downtimeAllowanceSeconds', report.economics?.downtimeAllowanceSeconds);
  set('downtimeBudgetRemainingSeconds', report.economics?.downtimeBudgetRemainingSeconds);
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
