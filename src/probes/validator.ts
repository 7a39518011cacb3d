/**
 * The validator poll of one node (`endpoint="validator"`): JSON-RPC 2.0 calls to /ext/info and
 * /ext/bc/P through the shared client, 3 per interval for a Primary Network validator plus the fee
 * state and one per L1 subnet; the NodeID and the upgrade schedule are asked once and again only
 * when the node's version changes (or every few hours). Each call is classified on its own: one
 * failing call costs its part, never the others, and never the node's health series.
 */
import { ProbeError, type HttpResponse } from '../transport/client.js';
import type { NodeTarget, ValidatorPoll } from '../config/load.js';
import type { EndpointObservation, TargetObservation } from '../model/observation.js';
import { economicsOf, type ValidatorProblem, type ValidatorReport } from '../model/validator.js';
import type { ParseOutcome } from '../parse/avalanchego.js';
import { readRpcAnswer, rpcRequest } from '../parse/jsonrpc.js';
import {
  isNotValidatorError,
  parseFeeState,
  parseL1Validators,
  parseNodeIdResult,
  parseNodeVersion,
  parsePrimaryValidators,
  parseUpgrades,
  parseUptime,
} from '../parse/validator.js';
import { redact } from '../util/text.js';
import { perTarget, type ProbeContext, type Prober } from './types.js';

export const VALIDATOR_ENDPOINT = 'validator';
/** The upgrade schedule changes only with the node's version; re-read it this often all the same. */
const UPGRADES_MAX_AGE_SECONDS = 6 * 3600;
const MAX_ERROR_TEXT = 1000;

export type ValidatorSettings = ValidatorPoll;

export type ValidatorProbeTarget = Pick<NodeTarget, 'name' | 'baseUrl' | 'headers' | 'timeoutMs' | 'tls' | 'secrets'>;

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
    const previous = ctx.store.get(target.name)?.jobs.get('validator')?.endpoints[0]?.validator;
    const endpoint = await probeValidator(target, target.validator!, ctx, memory, () => ctx.store.get(target.name)?.nodeId);
    for (const change of validatorChanges(previous, endpoint.validator!)) ctx.log[change.level]({ target: target.name, ...change.fields }, change.msg);
    const observation: TargetObservation = { target: target.name, kind: 'node', source: 'validator', network: target.network, at: endpoint.at, endpoints: [endpoint] };
    if (endpoint.nodeId) observation.nodeId = endpoint.nodeId;
    return { observation };
  },
};

/** What the poll remembers between rounds of one target (dropped with the target). */
export interface ValidatorMemory {
  nodeId?: string;
  version?: string;
  heliconTime?: number | null;
  upgradesReadAt?: number;
}

let nextId = 1;

type Call<T> = { ok: true; value: T } | { ok: false; problem: ValidatorProblem } | { ok: 'error'; message: string };

export async function probeValidator(
  target: ValidatorProbeTarget,
  settings: ValidatorSettings,
  ctx: Pick<ProbeContext, 'http' | 'limit'>,
  memory: ValidatorMemory,
  /** The NodeID learnt elsewhere (the health replies' node-id header), should info.getNodeID fail. */
  nodeIdHint?: () => string | undefined,
): Promise<EndpointObservation> {
  const at = Date.now() / 1000;
  const started = performance.now();
  const report: ValidatorReport = { l1: [], problems: [] };
  let lastStatus: number | undefined;

  /** One call: its answer parsed, an error object (for the caller to judge), or a problem. */
  const call = async <T>(path: '/ext/info' | '/ext/bc/P', method: string, params: Record<string, unknown>, parse: (result: unknown) => ParseOutcome<T>, name = method): Promise<Call<T>> => {
    const id = nextId++;
    let response: HttpResponse;
    try {
      response = await ctx.limit(() =>
        ctx.http.request({
          url: `${target.baseUrl}${path}`,
          method: 'POST',
          headers: { ...target.headers, 'content-type': 'application/json' },
          body: rpcRequest(method, params, id),
          timeoutMs: target.timeoutMs,
          tls: target.tls,
        }),
      );
    } catch (err) {
      const failure = err instanceof ProbeError ? err : new ProbeError('connect', String(err));
      return { ok: false, problem: { call: name, reason: failure.reason, error: failure.message } };
    }
    lastStatus = response.status;
    const answer = readRpcAnswer(response.status, response.body, id);
    switch (answer.kind) {
      case 'disabled':
        return { ok: false, problem: { call: name, reason: 'disabled', error: answer.detail } };
      case 'failure':
        return { ok: false, problem: { call: name, reason: answer.reason, error: answer.error } };
      case 'error':
        return { ok: 'error', message: answer.message };
      case 'result': {
        const parsed = parse(answer.result);
        return parsed.ok ? { ok: true, value: parsed.value } : { ok: false, problem: { call: name, reason: 'bad_shape', error: parsed.error } };
      }
    }
  };
  const problem = (c: Call<unknown>, name: string): void => {
    if (c.ok === false) report.problems.push(c.problem);
    else if (c.ok === 'error') report.problems.push({ call: name, reason: 'rpc_error', error: `JSON-RPC error: ${c.message}` });
  };

  // Without the NodeID the P-Chain lists cannot be narrowed to this node: learn it first (once).
  const [learnt, uptime, version, feeState] = await Promise.all([
    memory.nodeId ? undefined : call('/ext/info', 'info.getNodeID', {}, parseNodeIdResult),
    call('/ext/info', 'info.uptime', {}, parseUptime),
    call('/ext/info', 'info.getNodeVersion', {}, parseNodeVersion),
    settings.subnets.length > 0 ? call('/ext/bc/P', 'platform.getValidatorFeeState', {}, parseFeeState) : undefined,
  ]);
  if (learnt?.ok === true) memory.nodeId = learnt.value;
  else if (learnt) {
    // The health poll may have seen it in a node-id header meanwhile.
    memory.nodeId = nodeIdHint?.();
    if (!memory.nodeId) problem(learnt, 'info.getNodeID');
  }
  const nodeId = memory.nodeId;
  if (nodeId) report.nodeId = nodeId;
  const [primary, ...subnets] = await Promise.all([
    nodeId ? call('/ext/bc/P', 'platform.getCurrentValidators', { nodeIDs: [nodeId] }, (r) => parsePrimaryValidators(r, nodeId)) : undefined,
    ...settings.subnets.map((subnetId) =>
      call('/ext/bc/P', 'platform.getCurrentValidators', { subnetID: subnetId, ...(nodeId ? { nodeIDs: [nodeId] } : {}) }, (r) => parseL1Validators(r, subnetId, nodeId), `platform.getCurrentValidators ${subnetId}`),
    ),
  ]);

  if (uptime.ok === true) report.uptime = uptime.value;
  else if (uptime.ok === 'error' && isNotValidatorError(uptime.message)) report.notValidator = true;
  else problem(uptime, 'info.uptime');

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

  if (primary) {
    if (primary.ok === true) {
      if (primary.value) report.primary = primary.value;
    } else problem(primary, 'platform.getCurrentValidators');
  }
  if (feeState) {
    if (feeState.ok === true) report.feeState = feeState.value;
    else problem(feeState, 'platform.getValidatorFeeState');
  }
  subnets.forEach((answer, i) => {
    if (answer.ok === true) report.l1.push(...answer.value.validations);
    else problem(answer, `platform.getCurrentValidators ${settings.subnets[i]}`);
  });

  for (const p of report.problems) p.error = redact(p.error, target.secrets);
  report.economics = economicsOf(report, at, settings.uptimeRequirement);
  const failures = report.problems.filter((p) => p.reason !== 'disabled');
  const observation: EndpointObservation = {
    endpoint: VALIDATOR_ENDPOINT,
    view: 'all',
    ok: failures.length === 0,
    durationSeconds: (performance.now() - started) / 1000,
    at,
    validator: report,
    ...(nodeId ? { nodeId } : {}),
    ...(lastStatus !== undefined ? { httpStatus: lastStatus } : {}),
  };
  if (failures.length > 0) {
    observation.reason = failures[0]!.reason as Exclude<ValidatorProblem['reason'], 'disabled'>;
    const text = failures.map((p) => `${p.call}: ${p.error}`).join('; ');
    observation.error = text.length > MAX_ERROR_TEXT ? `${text.slice(0, MAX_ERROR_TEXT)}…` : text;
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
    if (was && was.reason === p.reason) continue;
    if (p.reason === 'disabled') changes.push({ level: 'info', msg: 'validator API disabled on the node; its part is skipped', fields: { call: name, detail: p.error } });
    else changes.push({ level: 'warn', msg: 'validator call failed', fields: { call: name, reason: p.reason, error: p.error } });
  }
  for (const [name, was] of before) if (!now.has(name) && was.reason !== 'disabled') changes.push({ level: 'info', msg: 'validator call recovered', fields: { call: name } });
  if (previous && Boolean(previous.notValidator) !== Boolean(next.notValidator)) {
    changes.push({ level: 'info', msg: next.notValidator ? 'node is not a Primary Network validator' : 'node is a Primary Network validator', fields: {} });
  }
  return changes;
}
