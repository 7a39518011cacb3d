/**
 * AvalancheGo health replies (`/ext/health*` bodies and JSON-RPC `result`s), parsed tolerantly:
 * open-ended check names, absent-vs-null fields, "not yet run" entries, legacy shapes.
 * See ../shared/reference/avalanchego-health.md for the wire format this follows.
 */
import type {
  ChainDetails,
  CheckResult,
  DiskDetails,
  HealthReport,
  NetworkDetails,
  RouterDetails,
  UpgradeDetails,
} from '../model/observation.js';
import { durationField } from '../util/go-duration.js';
import { oneLine, visibleControls } from '../util/visible.js';
import { prefixWithin } from '../util/text.js';
import { parseGoTime } from './time.js';

export type ParseOutcome<T> = { ok: true; value: T } | { ok: false; error: string };

type JsonObject = Record<string, unknown>;

export function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function num(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}

/** A Go int or uint64 that counts something (peers, blocks, bytes, failures): a non-negative integer a number holds exactly. */
function count(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0 ? value : undefined;
}

/** A float within [0, max] (a ratio or a percentage); anything else is no reading. */
function share(value: unknown, max: number): number | undefined {
  const n = num(value);
  return n !== undefined && n >= 0 && n <= max ? n : undefined;
}

const NOT_YET_RUN = 'not yet run';

/**
 * Caps on what one reply may make us keep, whatever a node sends under the body cap: a real node
 * has a few dozen checks and short messages; a hostile or broken one must not turn into hundreds of
 * megabytes of state, alerts and notifications.
 */
export const LIMITS = {
  checks: 500,
  checkName: 256,
  text: 2048,
} as const;

/** The name of the one entry that stands for the checks beyond LIMITS.checks. */
export const MORE_CHECKS = '(more checks)';

/** Untrusted `text` cut to `max` characters, saying how much was cut, its control characters made visible (util/visible.ts). */
export function capText(text: string, max: number = LIMITS.text): string {
  return visibleControls(text.length <= max ? text : `${prefixWithin(text, max)}… (${text.length - max} more characters)`);
}

/** An untrusted name (a check's, a component's): capped, on one line, every control character visible. */
export function capName(name: string): string {
  return oneLine(capText(name, LIMITS.checkName));
}

/** Parses an APIReply `{checks: {...}, healthy: bool}`. */
export function parseHealthReport(value: unknown): ParseOutcome<HealthReport> {
  if (!isObject(value)) return { ok: false, error: `expected a JSON object, got ${describe(value)}` };
  if (typeof value.healthy !== 'boolean') {
    return { ok: false, error: `"healthy" must be a boolean, got ${describe(value.healthy)}` };
  }
  // AvalancheGo always sends the map (`{}` when no check is registered): a missing or null one is a bad shape, not "no checks".
  const rawChecks = value.checks;
  if (!isObject(rawChecks)) return { ok: false, error: `"checks" must be an object, got ${describe(rawChecks)}` };
  const checks: CheckResult[] = [];
  let more = 0;
  let moreFailing = 0;
  for (const name in rawChecks) {
    if (checks.length < LIMITS.checks) {
      checks.push(parseCheck(name, rawChecks[name]));
      continue;
    }
    more++;
    const entry = rawChecks[name];
    if (!isObject(entry) || (entry.error !== undefined && entry.error !== null)) moreFailing++;
  }
  if (more > 0) checks.push(moreChecks(more, moreFailing));
  return { ok: true, value: { healthy: value.healthy, checks } };
}

/** One fact for the checks beyond the cap: failing when any of them fails. */
function moreChecks(count: number, failing: number): CheckResult {
  const text = `${count} more checks not shown (${failing} of them failing)`;
  return { name: MORE_CHECKS, passing: failing === 0, notYetRun: false, durationSeconds: 0, contiguousFailures: 0, ...(failing > 0 ? { error: text } : { message: text }) };
}

export function parseCheck(rawName: string, entry: unknown): CheckResult {
  const name = capName(rawName);
  if (!isObject(entry)) {
    return { name, passing: false, notYetRun: false, error: `malformed check entry (${describe(entry)})`, durationSeconds: 0, contiguousFailures: 0 };
  }
  const error = errorText(entry.error);
  const lastRun = parseGoTime(entry.timestamp);
  const check: CheckResult = {
    name,
    passing: error === undefined,
    notYetRun: error === NOT_YET_RUN && lastRun === undefined,
    durationSeconds: checkDuration(entry.duration),
    contiguousFailures: count(entry.contiguousFailures) ?? 0,
  };
  if (error !== undefined) check.error = error;
  if ('message' in entry) check.message = capMessage(entry.message);
  if (lastRun !== undefined) check.lastRun = lastRun;
  const failingSince = parseGoTime(entry.timeOfFirstFailure);
  if (failingSince !== undefined) check.failingSince = failingSince;
  addDetails(check, entry.message);
  return check;
}

/** `error` is a plain string today; `{message}` before v1.5.2; anything else is shown as JSON. Capped. */
function errorText(value: unknown): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'string') return capText(value);
  if (isObject(value) && typeof value.message === 'string') return capText(value.message);
  return capText(JSON.stringify(value));
}

/** A check's `message` as sent when it is small (details are read from it), else its JSON cut to the cap. */
function capMessage(message: unknown): unknown {
  if (typeof message === 'string') return capText(message);
  if (message === null || typeof message !== 'object') return message;
  const json = JSON.stringify(message);
  return json.length <= LIMITS.text ? message : capText(json);
}

/** Go's time.Duration is an int64 of nanoseconds. */
const MAX_DURATION_NS = 2 ** 63;

/** The top-level `duration` is integer nanoseconds; tolerate a Go string from odd forks. */
function checkDuration(value: unknown): number {
  const ns = typeof value === 'number' ? share(value, MAX_DURATION_NS) : undefined;
  if (ns !== undefined) return ns / 1e9;
  const seconds = durationField(value);
  return seconds !== undefined && seconds >= 0 ? seconds : 0;
}

function addDetails(check: CheckResult, message: unknown): void {
  if (Array.isArray(message)) {
    if (check.name === 'bootstrapped') check.bootstrappingSubnets = message.filter((s): s is string => typeof s === 'string');
    return;
  }
  if (!isObject(message)) return;
  if ('engine' in message || 'consensus' in message || 'networking' in message) {
    check.chain = chainDetails(message);
  } else if ('connectedPeers' in message || 'sendFailRate' in message) {
    check.network = networkDetails(message);
  } else if ('outstandingRequests' in message || 'longestRunningRequest' in message) {
    check.router = routerDetails(message);
  } else if ('availableDiskBytes' in message) {
    check.disk = diskDetails(message);
  } else if ('modeUpgradeWeightPercentage' in message || 'numUpgradeTimes' in message) {
    check.upgrade = upgradeDetails(message);
  }
}

function chainDetails(message: JsonObject): ChainDetails {
  const engine = isObject(message.engine) ? message.engine : message; // pre-`engine` versions put consensus at the top
  const details: ChainDetails = {};
  if (isObject(engine.consensus)) {
    const consensus = engine.consensus;
    const height = count(consensus.lastAcceptedHeight);
    const processing = count(consensus.processingBlocks) ?? count(consensus.outstandingBlocks) ?? count(consensus.outstandingTransactions);
    const longest =
      durationField(consensus.longestProcessingBlock) ??
      durationField(consensus.longestRunningBlock) ??
      durationField(consensus.longestRunningTransaction);
    details.bootstrapping = height === undefined && processing === undefined && longest === undefined;
    if (height !== undefined) details.lastAcceptedHeight = height;
    if (processing !== undefined) details.processingBlocks = processing;
    if (longest !== undefined) details.longestProcessingBlockSeconds = longest;
  }
  const networking = isObject(message.networking) ? message.networking : {};
  const legacyVm = isObject(message.vm) ? message.vm : isObject(engine.vm) ? engine.vm : {};
  const connected = share(networking.percentConnected, 1) ?? share(legacyVm['primary-percentConnected'], 1);
  if (connected !== undefined) details.connectedStakeRatio = connected;
  if (Array.isArray(networking.disconnectedValidators)) details.disconnectedValidators = networking.disconnectedValidators.length;
  return details;
}

function networkDetails(message: JsonObject): NetworkDetails {
  const details: NetworkDetails = {};
  setIfDefined(details, 'connectedPeers', count(message.connectedPeers));
  setIfDefined(details, 'sendFailRatio', share(message.sendFailRate, 1));
  setIfDefined(details, 'lastMessageReceivedAgeSeconds', durationField(message.timeSinceLastMsgReceived));
  setIfDefined(details, 'lastMessageSentAgeSeconds', durationField(message.timeSinceLastMsgSent));
  const validatorHealth = message['primary network validator health'];
  if (isObject(validatorHealth)) {
    setIfDefined(details, 'ingressConnections', count(validatorHealth.ingressConnectionCount));
    if (typeof validatorHealth.primaryNetworkValidator === 'boolean') details.primaryNetworkValidator = validatorHealth.primaryNetworkValidator;
  }
  return details;
}

function routerDetails(message: JsonObject): RouterDetails {
  const details: RouterDetails = {};
  setIfDefined(details, 'outstandingRequests', count(message.outstandingRequests));
  setIfDefined(details, 'longestRunningRequestSeconds', durationField(message.longestRunningRequest));
  return details;
}

function diskDetails(message: JsonObject): DiskDetails {
  const details: DiskDetails = {};
  setIfDefined(details, 'availableBytes', count(message.availableDiskBytes));
  const percentage = share(message.availableDiskPercentage, 100);
  if (percentage !== undefined) details.availableRatio = percentage / 100;
  return details;
}

function upgradeDetails(message: JsonObject): UpgradeDetails {
  const details: UpgradeDetails = {};
  const weight = share(message.modeUpgradeWeightPercentage, 100);
  if (weight !== undefined) details.modeWeightRatio = weight / 100;
  setIfDefined(details, 'timeUntilSeconds', durationField(message.timeUntilUpgrade));
  setIfDefined(details, 'localTime', parseGoTime(message.localUpgradeTime));
  setIfDefined(details, 'modeTime', parseGoTime(message.modeUpgradeTime));
  // The node's own test (node/node.go, futureUpgradeCheck): a later upgrade time held by >= half of the stake.
  if (details.localTime !== undefined && details.modeTime !== undefined && details.localTime < details.modeTime && (details.modeWeightRatio ?? 0) >= 0.5) {
    details.deadline = details.modeTime;
  }
  return details;
}

function setIfDefined<T extends object, K extends keyof T>(target: T, key: K, value: T[K] | undefined): void {
  if (value !== undefined) target[key] = value;
}

export function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'an object' : typeof value;
}

export interface JsonRpcFailure {
  reason: 'rpc_error' | 'bad_shape';
  error: string;
}

/** Unwraps a JSON-RPC 2.0 response: the error object is checked before `result`, and the id must echo ours. */
export function unwrapJsonRpc(value: unknown, expectedId: number): { ok: true; result: unknown } | ({ ok: false } & JsonRpcFailure) {
  if (!isObject(value)) return { ok: false, reason: 'bad_shape', error: `JSON-RPC response must be an object, got ${describe(value)}` };
  if (value.error !== undefined && value.error !== null) {
    const err = value.error;
    const text = isObject(err) ? `JSON-RPC error ${capText(String(err.code), 64)}: ${String(err.message)}` : `JSON-RPC error: ${JSON.stringify(err)}`;
    return { ok: false, reason: 'rpc_error', error: capText(text) };
  }
  if (value.id !== expectedId) {
    return { ok: false, reason: 'bad_shape', error: `JSON-RPC id mismatch: sent ${expectedId}, got ${JSON.stringify(value.id) ?? 'none'}` };
  }
  if (!('result' in value)) return { ok: false, reason: 'bad_shape', error: 'JSON-RPC response has neither result nor error' };
  return { ok: true, result: value.result };
}
