/**
 * The validator poll of one node (`endpoint="validator"`): JSON-RPC 2.0 calls to /ext/info and
 * /ext/bc/P through the shared client, 4 per interval for a Primary Network validator plus the fee
 * state and one per L1 subnet; the NodeID and the upgrade schedule are asked once and again only
 * when the node's version changes (or every few hours). Each call is classified on its own: one
 * failing call costs its part, never the others, and never the node's health series.
 */
import { ProbeError } from '../transport/client.js';
import type { NodeTarget, ValidatorPoll } from '../config/load.js';
import type { EndpointObservation, TargetObservation } from '../model/observation.js';
import { BOOTSTRAPPING_PEERS_ASK, economicsOf, MAX_OWN_L1_VALIDATIONS, networkScheduleFor, newestPerNetwork, VALIDATOR_ENDPOINT, validatorReport, type ScheduleSource, type ValidatorProblem, type ValidatorReport } from '../model/validator.js';
import type { ParseOutcome } from '../parse/avalanchego.js';
import type { RpcAnswer } from '../parse/jsonrpc.js';
import {
  isBootstrappingError,
  isNotValidatorError,
  parseFeeState,
  parseIsBootstrapped,
  parseL1Validators,
  parseNetworkId,
  parseNodeIdResult,
  parseNodeIp,
  parseNodeVersion,
  parsePrimaryValidators,
  parseUpgrades,
  parseTotalStake,
  parseUptime,
  parseValidatorWeights,
} from '../parse/validator.js';
import { parseZeroReporters } from '../parse/peers.js';
import { parseRewardUtxos } from '../parse/rewards.js';
import { mayBeUnsettled, ownStakeRatio, settlingOf, TOTAL_WEIGHT_MAX_AGE_SECONDS, type SettlingMemory } from '../model/uptime-snapshot.js';
import { prefixWithin, redact } from '../util/text.js';
import { callNode } from './exchange.js';
import { followPeriods } from './periods.js';
import { perTarget, type ProbeContext, type Prober } from './types.js';

/** The upgrade schedule changes only with the node's version; re-read it this often all the same. */
const UPGRADES_MAX_AGE_SECONDS = 6 * 3600;
const MAX_ERROR_TEXT = 1000;
/**
 * ids.EmptyNodeID, never a validator. Asked beside the node's own NodeID, it keeps the answer small:
 * AvalancheGo lists a validator's whole `delegators` array (≈ 325 B each, 6.5 MB for 20,000) only
 * when exactly one NodeID is asked for (vms/platformvm/service.go, `numNodeIDs == 1`);
 * `delegatorCount` comes either way.
 */
export const EMPTY_NODE_ID = 'NodeID-111111111111111111116DBWJs';
/** constants.PrimaryNetworkID (ids.Empty in CB58). */
const PRIMARY_NETWORK_ID = '11111111111111111111111111111111LpoYY';
/** Why a P-Chain call has no answer while the node's P-Chain bootstraps. */
export const P_CHAIN_BOOTSTRAPPING = 'not known yet: the P-Chain is still bootstrapping (info.isBootstrapped), its lists of a past height';
export const NODE_ID_UNKNOWN = 'NodeID unknown (info API off, no node-id header, no node_id configured): no P-Chain validation is attributed to this node';

export type ValidatorSettings = ValidatorPoll;

/** `network`: the configured one, for the schedule lookup of a node that cannot say (info API off). */
export type ValidatorProbeTarget = Pick<NodeTarget, 'name' | 'baseUrl' | 'headers' | 'timeoutMs' | 'tls' | 'secrets'> & { network?: string };

/** Per target object: a reload builds new targets, and with them a fresh memory (one more getNodeID). */
const memories = new WeakMap<NodeTarget, ValidatorMemory>();

/** One job per node with `validator` on (the default), key `<node>@validator`, on its own interval. */
export const validatorProber: Prober<NodeTarget> = {
  jobs: (config) =>
    perTarget(
      config.nodes.filter((n) => n.validator),
      'validator',
      { extra: true, intervalMs: (n) => n.validator!.intervalMs },
    ),
  probe: async (target, ctx) => {
    let memory = memories.get(target);
    if (!memory) memories.set(target, (memory = {}));
    // The NodeID the config names, or the one the node's health replies carried, saves a call.
    memory.nodeId ??= target.nodeId ?? ctx.store.get(target.name)?.nodeId;
    const previous = validatorReport(ctx.store.get(target.name)?.jobs.get('validator')?.endpoints[0]);
    // A restart's snapshot outlives our own restart, and `check` judges it with the daemon's readings.
    const settled = ctx.memory.settling.get(target.name);
    if (memory.settlingSince === undefined && memory.uptimeUnanswered === undefined && settled) Object.assign(memory, settled);
    memory.settlingBorrowed = ctx.memory.settling.readOnly;
    // The IP it advertised when last polled, by an earlier daemon too: a change while avahealth was stopped is told.
    const ips = ctx.memory.publicIps.get(target.name);
    if (memory.publicIp === undefined && ips) {
      memory.publicIp = ips.ip;
      if (ips.change) memory.publicIpChange = ips.change;
    }
    const endpoint = await probeValidator(target, target.validator!, ctx, memory, () => ctx.store.get(target.name)?.nodeId, (network) => fleetSchedules(ctx.store, ctx.now(), network));
    const report = validatorReport(endpoint)!;
    const settling = settlingMemoryOf(memory);
    if (JSON.stringify(settling) !== JSON.stringify(settled)) ctx.memory.settling.set(target.name, settling);
    if (memory.publicIp !== undefined && (memory.publicIp !== ips?.ip || memory.publicIpChange?.at !== ips?.change?.at)) {
      ctx.memory.publicIps.set(target.name, { ip: memory.publicIp, ...(memory.publicIpChange ? { change: memory.publicIpChange } : {}) });
    }
    if (report.nodeId) {
      const nodeId = report.nodeId;
      const { entry, decided } = await followPeriods(target.name, report, ctx.memory.periods, (txId) => askRewardUtxos(target, ctx, txId), ctx.store.chainData?.validators.get(nodeId)?.completed, endpoint.at);
      report.periods = entry;
      if (decided) ctx.log[decided.rewarded === false ? 'warn' : 'info']({ target: target.name, txId: decided.txId, rewarded: decided.rewarded, evidence: decided.evidence, ...(decided.disagreement ? { disagreement: decided.disagreement } : {}) }, 'validation period ended');
    }
    for (const change of validatorChanges(previous, report)) ctx.log[change.level]({ target: target.name, ...change.fields }, change.msg);
    const observation: TargetObservation = { target: target.name, kind: 'node', source: 'validator', network: target.network, at: endpoint.at, endpoints: [endpoint] };
    if (endpoint.nodeId) observation.nodeId = endpoint.nodeId;
    if (report.network) observation.nodeNetwork = report.network;
    return { observation };
  },
};

/** The fleet's newest node per network (what the requirement follows), per store, re-read at most this often. */
const FLEET_SCHEDULE_MAX_AGE_MS = 10_000;
const fleetCache = new WeakMap<object, { at: number; newest: ScheduleSource[] }>();

/** What the nodes' latest validator polls say about their network and schedule: the newest of each network. */
function fleetSchedules(store: ProbeContext['store'], now: number, network: string | undefined): ScheduleSource[] {
  const cached = fleetCache.get(store);
  // A network not in it yet (the fleet's first polls) is looked up again at once.
  if (cached && now - cached.at < FLEET_SCHEDULE_MAX_AGE_MS && cached.newest.some((n) => n.network === network)) return cached.newest;
  const all: ScheduleSource[] = [];
  for (const [target, state] of store.entries()) {
    const report = validatorReport(state.jobs.get('validator')?.endpoints[0]);
    if (report?.network && report.version && report.heliconTime !== undefined) all.push({ target, network: report.network, version: report.version, heliconTime: report.heliconTime });
  }
  const newest = [...newestPerNetwork(all).values()];
  fleetCache.set(store, { at: now, newest });
  return newest;
}

/** The settling part of a validator's memory, undefined when it holds none. */
function settlingMemoryOf(memory: ValidatorMemory): SettlingMemory | undefined {
  const { settlingSince, settlingLastAt, settlingWeighted, settlingRoseAt, settlingFirstAnswer, uptimeUnanswered } = memory;
  if (settlingSince === undefined && !uptimeUnanswered) return undefined;
  return {
    ...(settlingSince !== undefined ? { settlingSince } : {}),
    ...(settlingLastAt !== undefined ? { settlingLastAt } : {}),
    ...(settlingWeighted !== undefined ? { settlingWeighted } : {}),
    ...(settlingRoseAt !== undefined ? { settlingRoseAt } : {}),
    ...(settlingFirstAnswer ? { settlingFirstAnswer } : {}),
    ...(uptimeUnanswered ? { uptimeUnanswered } : {}),
  };
}

/** At most this many peers reporting 0 % are weighed (one getCurrentValidators call); mainnet has about 1,600 validators. */
const MAX_ZERO_REPORTERS = 2_000;

/** Whether the figures are low enough for a verdict to be near (model/validator.ts, BOOTSTRAPPING_PEERS_ASK). */
function bootstrappingWorthAsking(report: ValidatorReport): boolean {
  const left = report.economics?.downtimeBudgetRemainingSeconds;
  const allowance = report.economics?.downtimeAllowanceSeconds;
  const budgetLow = left !== undefined && allowance !== undefined && allowance > 0 && left / allowance < BOOTSTRAPPING_PEERS_ASK.budgetShare;
  return report.uptime!.rewardingStakeRatio < BOOTSTRAPPING_PEERS_ASK.rewarding || budgetLow;
}

/** What the poll remembers between rounds of one target (dropped with the target). */
export interface ValidatorMemory {
  nodeId?: string;
  /** From info.getNetworkID (asked until answered). */
  network?: string;
  version?: string;
  heliconTime?: number | null;
  upgradesReadAt?: number;
  /** The first and latest info.uptime reading at the own stake share (model/uptime-snapshot.ts). */
  settlingSince?: number;
  settlingLastAt?: number;
  settlingWeighted?: number;
  settlingRoseAt?: number;
  settlingFirstAnswer?: boolean;
  /** The settling readings are the daemon's, read by `avahealth check` (model/uptime-snapshot.ts, settlingOf). */
  settlingBorrowed?: boolean;
  /** The last info.uptime was no answer: the node bootstrapping (v1.15) or down (connect, timeout); kept with the settling readings. */
  uptimeUnanswered?: boolean;
  /** This process has had an info.uptime answer from the node (not kept: a new daemon or shard owner starts without one). */
  uptimeAnswered?: boolean;
  /** The Primary Network's total weight (platform.getTotalStake), asked while the figures are low. */
  totalWeight?: { nAvax: number; at: number };
  /** The IP:port info.getNodeIP said last, and its last change. */
  publicIp?: string;
  publicIpChange?: { from: string; to: string; at: number };
}

type Call<T> = { ok: true; value: T } | { ok: false; problem: ValidatorProblem } | { ok: 'error'; message: string };

export async function probeValidator(
  target: ValidatorProbeTarget,
  settings: ValidatorSettings,
  ctx: Pick<ProbeContext, 'http' | 'limit'>,
  memory: ValidatorMemory,
  /** The NodeID learnt elsewhere (the health replies' node-id header), should info.getNodeID fail. */
  nodeIdHint?: () => string | undefined,
  /** The fleet's nodes (this one included) of `network` and others: the network's schedule is the newest node's. */
  fleet?: (network: string | undefined) => Iterable<ScheduleSource>,
): Promise<EndpointObservation> {
  const at = Date.now() / 1000;
  const started = performance.now();
  const report: ValidatorReport = { l1: [], problems: [] };
  let lastStatus: number | undefined;

  /** One call: its answer parsed, an error object (for the caller to judge), or a problem. */
  const call = async <T>(path: '/ext/info' | '/ext/bc/P', method: string, params: Record<string, unknown>, parse: (result: unknown) => ParseOutcome<T>, name = method): Promise<Call<T>> => {
    let status: number;
    let answer: RpcAnswer;
    try {
      ({ status, answer } = await callNode(target, path, method, params, ctx));
    } catch (err) {
      const failure = err instanceof ProbeError ? err : new ProbeError('connect', String(err));
      return { ok: false, problem: { call: name, reason: failure.reason, error: failure.message } };
    }
    lastStatus = status;
    if (path === '/ext/info' && status !== 404) report.infoApiDisabled ??= false;
    switch (answer.kind) {
      case 'disabled':
        if (answer.off && path === '/ext/info') report.infoApiDisabled = true;
        return { ok: false, problem: { call: name, reason: 'disabled', error: answer.detail } };
      case 'failure':
        return { ok: false, problem: { call: name, reason: answer.reason, error: answer.error } };
      case 'error':
        return { ok: 'error', message: answer.message };
      case 'result': {
        let parsed: ParseOutcome<T>;
        try {
          parsed = parse(answer.result);
        } catch (err) {
          parsed = { ok: false, error: `unreadable answer (${err instanceof Error ? err.name : 'error'})` };
        }
        return parsed.ok ? { ok: true, value: parsed.value } : { ok: false, problem: { call: name, reason: 'bad_shape', error: parsed.error } };
      }
    }
  };
  const problem = (c: Call<unknown>, name: string): void => {
    if (c.ok === false) report.problems.push(c.problem);
    else if (c.ok === 'error') report.problems.push({ call: name, reason: 'rpc_error', error: `JSON-RPC error: ${c.message}` });
  };

  // Without the NodeID the P-Chain lists cannot be narrowed to this node: learn it first (once).
  const [learnt, network, uptime, version, feeState, ip] = await Promise.all([
    memory.nodeId ? undefined : call('/ext/info', 'info.getNodeID', {}, parseNodeIdResult),
    memory.network ? undefined : call('/ext/info', 'info.getNetworkID', {}, parseNetworkId),
    call('/ext/info', 'info.uptime', {}, parseUptime),
    call('/ext/info', 'info.getNodeVersion', {}, parseNodeVersion),
    settings.subnets.length > 0 ? call('/ext/bc/P', 'platform.getValidatorFeeState', {}, parseFeeState) : undefined,
    call('/ext/info', 'info.getNodeIP', {}, parseNodeIp),
  ]);
  // The IP it advertises to peers (api/info/service.go GetNodeIP; --public-ip-resolution-service moves it,
  // utils/dynamicip/updater.go). An extra: its failure fails nothing, and the last change is kept.
  if (ip.ok === true) {
    if (memory.publicIp !== undefined && memory.publicIp !== ip.value) memory.publicIpChange = { from: memory.publicIp, to: ip.value, at };
    memory.publicIp = ip.value;
  }
  if (ip.ok === true) report.publicIp = ip.value;
  if (memory.publicIpChange) report.publicIpChange = memory.publicIpChange;
  if (learnt?.ok === true) memory.nodeId = learnt.value;
  else if (learnt) {
    // The health poll may have seen it in a node-id header meanwhile.
    memory.nodeId = nodeIdHint?.();
    if (!memory.nodeId) problem(learnt, 'info.getNodeID');
  }
  if (network?.ok === true) memory.network = network.value;
  else if (network) problem(network, 'info.getNetworkID');
  if (memory.network) report.network = memory.network;
  const nodeId = memory.nodeId;
  const unlearnt = nodeId || !learnt ? undefined : learnt.ok === false ? learnt.problem : learnt.ok === 'error' ? { reason: 'rpc_error' as const, error: `JSON-RPC error: ${learnt.message}` } : undefined;
  if (nodeId) report.nodeId = nodeId;
  else if (unlearnt && unlearnt.reason !== 'disabled') {
    // Not learnt because the node did not answer (down, restarting, a call failed): its validations
    // are not known now, which is not "none" (a validation's alerts would resolve and page again).
    const notAsked = `not asked: the NodeID is not known yet (info.getNodeID: ${unlearnt.error})`;
    for (const call of ['platform.getCurrentValidators', ...settings.subnets.map((subnetId) => `platform.getCurrentValidators ${subnetId}`)]) report.problems.push({ call, reason: unlearnt.reason, error: notAsked });
  }
  // Never attribute by subnet alone: without nodeIDs the answer is every validator of the L1.
  else report.nodeIdUnknown = NODE_ID_UNKNOWN;
  // No figures from info.uptime: the node's P-Chain may still be bootstrapping (a restart, or a
  // resync from an empty database, which says "node is not a validator" meanwhile), its lists of a
  // past height. Its own info.isBootstrapped tells, whatever the error's words; an extra that fails nothing.
  const bootstrapped = uptime.ok === 'error' ? await call('/ext/info', 'info.isBootstrapped', { chain: 'P' }, parseIsBootstrapped) : undefined;
  const pChainBootstrapping = bootstrapped?.ok === true && !bootstrapped.value;
  if (pChainBootstrapping) {
    report.pChainBootstrapping = true;
    const waiting = [...(nodeId ? ['platform.getCurrentValidators', ...settings.subnets.map((subnetId) => `platform.getCurrentValidators ${subnetId}`)] : []), ...(feeState ? ['platform.getValidatorFeeState'] : [])];
    for (const call of waiting) report.problems.push({ call, reason: 'bootstrapping', error: P_CHAIN_BOOTSTRAPPING });
  }
  const [primary, ...subnets] = nodeId && !pChainBootstrapping
    ? await Promise.all([
        call('/ext/bc/P', 'platform.getCurrentValidators', { nodeIDs: [nodeId, EMPTY_NODE_ID] }, (r) => parsePrimaryValidators(r, nodeId)),
        ...settings.subnets.map((subnetId) =>
          call('/ext/bc/P', 'platform.getCurrentValidators', { subnetID: subnetId, nodeIDs: [nodeId] }, (r) => parseL1Validators(r, subnetId, nodeId), `platform.getCurrentValidators ${subnetId}`),
        ),
      ])
    : [];

  if (uptime.ok === true) report.uptime = uptime.value;
  else if (pChainBootstrapping) report.uptimeBootstrapping = true;
  else if (uptime.ok === 'error' && isNotValidatorError(uptime.message)) report.notValidator = true;
  else if (uptime.ok === 'error' && isBootstrappingError(uptime.message)) report.uptimeBootstrapping = true;
  else problem(uptime, 'info.uptime');
  // The first answer after none (the node bootstrapping, or down while it restarted) may land anywhere on the climb back.
  // So may this daemon's first answer (a fresh start, a new shard owner): nothing it saw says when
  // the node last started. Not `check`'s round, which reads the daemon's readings or has none.
  const afterGap = memory.uptimeUnanswered === true ? true : memory.uptimeAnswered !== true && memory.settlingBorrowed !== true ? 'first answer' : false;
  if (uptime.ok === true) memory.uptimeAnswered = true;
  memory.uptimeUnanswered = report.uptimeBootstrapping === true || (uptime.ok === false && (uptime.problem.reason === 'connect' || uptime.problem.reason === 'timeout'));

  if (version.ok === true) report.version = version.value;
  else problem(version, 'info.getNodeVersion');

  // The schedule (heliconTime) changes only with the node's version.
  const versionChanged = report.version !== undefined && report.version !== memory.version;
  if (versionChanged || memory.upgradesReadAt === undefined || at - memory.upgradesReadAt > UPGRADES_MAX_AGE_SECONDS) {
    const upgrades = await call('/ext/info', 'info.upgrades', {}, parseUpgrades);
    if (upgrades.ok === true) {
      memory.heliconTime = upgrades.value.heliconTime;
      memory.upgradesReadAt = at;
      if (report.version) memory.version = report.version;
    } else {
      problem(upgrades, 'info.upgrades');
      // A node without info.upgrades (older than v1.11.11) has no heliconTime either; ask again later.
      if (upgrades.ok === false && upgrades.problem.reason === 'disabled') [memory.heliconTime, memory.upgradesReadAt] = [null, at];
    }
  }
  if (memory.heliconTime !== undefined) report.heliconTime = memory.heliconTime;
  const ownNetwork = report.network ?? target.network;
  const own: ScheduleSource = { target: target.name, ...(ownNetwork ? { network: ownNetwork } : {}), ...(report.version ? { version: report.version } : {}), ...(report.heliconTime !== undefined ? { heliconTime: report.heliconTime } : {}) };
  const schedule = fleet ? networkScheduleFor(own, fleet(own.network)) : undefined;
  if (schedule) report.networkSchedule = schedule;

  if (primary) {
    if (primary.ok === true) {
      if (primary.value) report.primary = primary.value;
    } else problem(primary, 'platform.getCurrentValidators');
  }
  // Low figures may be the snapshot of a restart: the node's own share of the stake tells (a failure leaves it unknown, never the node's).
  if (report.uptime && report.primary && mayBeUnsettled(report.uptime)) {
    if (memory.totalWeight === undefined || at - memory.totalWeight.at > TOTAL_WEIGHT_MAX_AGE_SECONDS) {
      const total = await call('/ext/bc/P', 'platform.getTotalStake', { subnetID: PRIMARY_NETWORK_ID }, parseTotalStake);
      if (total.ok === true) memory.totalWeight = { nAvax: total.value, at };
    }
    if (memory.totalWeight) report.totalWeightNAvax = memory.totalWeight.nAvax;
  }
  const settling = settlingOf(memory, report.uptime, ownStakeRatio(report.primary, report.totalWeightNAvax), at, memory.settlingBorrowed, afterGap);
  if (settling) report.uptimeSettling = settling;
  if (feeState && !pChainBootstrapping) {
    if (feeState.ok === true) report.feeState = feeState.value;
    else problem(feeState, 'platform.getValidatorFeeState');
  }
  let dropped = 0;
  subnets.forEach((answer, i) => {
    if (answer.ok === true) {
      const room = Math.max(0, MAX_OWN_L1_VALIDATIONS - report.l1.length);
      report.l1.push(...answer.value.validations.slice(0, room));
      dropped += Math.max(0, answer.value.validations.length - room);
    } else problem(answer, `platform.getCurrentValidators ${settings.subnets[i]}`);
  });
  if (dropped > 0) report.l1Dropped = dropped;

  for (const p of report.problems) p.error = redact(p.error, target.secrets);
  report.economics = economicsOf(report, at, settings.uptimeRequirement);
  // Upgrade day: low figures may be peers bootstrapping, each Ping of theirs 0 % for everyone. An extra: its failure fails nothing.
  if (report.uptime && report.primary && !report.uptimeSettling && bootstrappingWorthAsking(report)) {
    const peers = await call('/ext/info', 'info.peers', {}, parseZeroReporters);
    if (peers.ok === true) {
      if (peers.value.zero.length === 0) report.bootstrappingPeers = { peers: 0, stakeRatio: 0 };
      else {
        const asked = peers.value.zero.slice(0, MAX_ZERO_REPORTERS);
        // A set of one NodeID brings back its whole delegators list (vms/platformvm/service.go): padded, as above.
        const [weights, total] = await Promise.all([
          call('/ext/bc/P', 'platform.getCurrentValidators', { nodeIDs: asked.length === 1 ? [...asked, EMPTY_NODE_ID] : asked }, parseValidatorWeights),
          memory.totalWeight === undefined || at - memory.totalWeight.at > TOTAL_WEIGHT_MAX_AGE_SECONDS ? call('/ext/bc/P', 'platform.getTotalStake', { subnetID: PRIMARY_NETWORK_ID }, parseTotalStake) : undefined,
        ]);
        if (total?.ok === true) memory.totalWeight = { nAvax: total.value, at };
        if (weights.ok === true && memory.totalWeight) {
          const validators = asked.filter((id) => weights.value.has(id));
          const stake = validators.reduce((sum, id) => sum + weights.value.get(id)!, 0);
          report.bootstrappingPeers = { peers: validators.length, stakeRatio: Math.min(1, stake / memory.totalWeight.nAvax) };
        }
      }
    }
  }
  // A switched-off info API is a failed exchange (HTTP 404), shown as its own state; an older node's missing method is not.
  const failures = report.problems.filter((p) => (p.reason !== 'disabled' && p.reason !== 'bootstrapping') || (report.infoApiDisabled && p.call.startsWith('info.')));
  const observation: EndpointObservation = {
    endpoint: VALIDATOR_ENDPOINT,
    view: 'all',
    ok: failures.length === 0,
    durationSeconds: (performance.now() - started) / 1000,
    at,
    detail: report,
    ...(nodeId ? { nodeId } : {}),
    ...(report.infoApiDisabled ? { httpStatus: 404 } : lastStatus !== undefined ? { httpStatus: lastStatus } : {}),
  };
  if (failures.length > 0) {
    const first = failures[0]!.reason;
    // Only a switched-off info API's calls fail as `disabled`; `bootstrapping` never fails (filtered above).
    observation.reason = first === 'disabled' || first === 'bootstrapping' ? 'http_status' : first;
    const text = failures.map((p) => `${p.call}: ${p.error}`).join('; ');
    observation.error = text.length > MAX_ERROR_TEXT ? `${prefixWithin(text, MAX_ERROR_TEXT)}…` : text;
  }
  return observation;
}

/**
 * What changed between two validator polls worth one log line: a call that started or stopped
 * failing (or was found disabled), and becoming or ceasing to be a validator. Once per change.
 */
export function validatorChanges(previous: ValidatorReport | undefined, next: ValidatorReport): Array<{ level: 'info' | 'warn'; msg: string; fields: Record<string, unknown> }> {
  const changes: Array<{ level: 'info' | 'warn'; msg: string; fields: Record<string, unknown> }> = [];
  const before = new Map(previous?.problems.map((p) => [p.call, p]));
  const now = new Map(next.problems.map((p) => [p.call, p]));
  for (const [name, p] of now) {
    const was = before.get(name);
    if ((was && was.reason === p.reason) || p.reason === 'bootstrapping') continue;
    if (p.reason === 'disabled') changes.push({ level: 'info', msg: 'validator API disabled on the node; its part is skipped', fields: { call: name, detail: p.error } });
    else changes.push({ level: 'warn', msg: 'validator call failed', fields: { call: name, reason: p.reason, error: p.error } });
  }
  for (const [name, was] of before) if (!now.has(name) && was.reason !== 'disabled' && was.reason !== 'bootstrapping') changes.push({ level: 'info', msg: 'validator call recovered', fields: { call: name } });
  if (Boolean(previous?.nodeIdUnknown) !== Boolean(next.nodeIdUnknown) && (previous || next.nodeIdUnknown)) {
    changes.push(next.nodeIdUnknown ? { level: 'warn', msg: 'no validation attributed to the node: its NodeID is unknown', fields: { detail: next.nodeIdUnknown } } : { level: 'info', msg: 'NodeID learnt; validations attributed again', fields: { nodeId: next.nodeId } });
  }
  if ((next.l1Dropped ?? 0) > 0 && !((previous?.l1Dropped ?? 0) > 0)) {
    changes.push({ level: 'warn', msg: `more L1 validations than kept per node (${MAX_OWN_L1_VALIDATIONS}); the rest are not exported`, fields: { kept: next.l1.length, dropped: next.l1Dropped } });
  }
  if (next.networkSchedule && next.networkSchedule.from !== previous?.networkSchedule?.from) {
    changes.push({ level: 'info', msg: "uptime requirement follows the network's schedule from a newer node", fields: { from: next.networkSchedule.from, version: next.networkSchedule.version, heliconTime: next.networkSchedule.heliconTime } });
  }
  if (next.publicIpChange && next.publicIpChange.at !== previous?.publicIpChange?.at) {
    changes.push({ level: 'warn', msg: 'public IP changed', fields: { from: next.publicIpChange.from, to: next.publicIpChange.to } });
  }
  if (Boolean(previous?.pChainBootstrapping) !== Boolean(next.pChainBootstrapping) && (previous || next.pChainBootstrapping)) {
    changes.push(next.pChainBootstrapping ? { level: 'info', msg: "node's P-Chain is bootstrapping; its validations are read once it is", fields: {} } : { level: 'info', msg: "node's P-Chain bootstrapped; its validations are read again", fields: {} });
  }
  if (previous && Boolean(previous.notValidator) !== Boolean(next.notValidator)) {
    changes.push({ level: 'info', msg: next.notValidator ? 'node is not a Primary Network validator' : 'node is a Primary Network validator', fields: {} });
  }
  return changes;
}

/** platform.getRewardUTXOs of an ended staking transaction (deprecated in AvalancheGo, still served): the amounts. */
async function askRewardUtxos(target: NodeTarget, ctx: ProbeContext, txId: string): Promise<{ ok: true; amounts: number[] } | { ok: false; error: string }> {
  try {
    const { answer } = await callNode(target, '/ext/bc/P', 'platform.getRewardUTXOs', { txID: txId, encoding: 'hex' }, ctx);
    if (answer.kind === 'result') {
      const parsed = parseRewardUtxos(answer.result);
      return parsed.ok ? { ok: true, amounts: parsed.value } : { ok: false, error: redact(parsed.error, target.secrets) };
    }
    const error = answer.kind === 'error' ? answer.message : answer.kind === 'disabled' ? answer.detail : answer.error;
    return { ok: false, error: redact(error, target.secrets) };
  } catch (err) {
    return { ok: false, error: redact(err instanceof Error ? err.message : String(err), target.secrets) };
  }
}
