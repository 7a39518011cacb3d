/**
 * The JSON-RPC results of info.* and platform.* that validator economics reads, and the Data API's
 * version distribution and validator health, parsed tolerantly: numbers arrive as strings
 * (`"72.5000"`, `"117431493426"`) or plain numbers; anything else is a shape error, never a NaN.
 * Every string that can become a label or reach a page is checked and capped here.
 * Shapes: docs/validators.md (from AvalancheGo's source).
 */
import { networkName, type AutoRenewal, type FeeState, type L1Validation, type PrimaryValidation, type ValidatorRecordHealth, type ValidatorUptime, type VersionStake } from '../model/validator.js';
import { describe, isObject, type ParseOutcome } from './avalanchego.js';
import { parseGoTime } from './time.js';
import { prefixWithin } from '../util/text.js';

type JsonObject = Record<string, unknown>;

const MAX_NUMBER_TEXT = 40;
const DECIMAL = /^-?\d{1,30}(?:\.\d{1,18})?$/;
const UNSIGNED = /^\d{1,20}$/;
const CB58 = /^[1-9A-HJ-NP-Za-km-z]{1,64}$/;
const NODE_ID = /^NodeID-[1-9A-HJ-NP-Za-km-z]{20,60}$/;
/** `avalanchego/1.14.2`, `avalanche/1.10.17`, `avalanchego/v1.15.0-fuji`: a name, a slash, a version; nothing a label cannot carry. */
const VERSION = /^[A-Za-z][\w.-]{0,31}\/v?\d{1,6}\.\d{1,6}\.\d{1,6}[\w.+-]{0,32}$/;
/** The Data API's stakingDistributionByVersion may carry a bare `1.14.2` (or `v1.14.2`). */
const BARE_VERSION = /^v?\d{1,6}\.\d{1,6}\.\d{1,6}[\w.+-]{0,32}$/;
/** AvalancheGo's UnscheduledActivationTime is 9999-12-01 (upgrade/upgrade.go): from year 9999 on, not scheduled. */
const UNSCHEDULED_FROM = Date.UTC(9999, 0, 1) / 1000;
/** reward.PercentDenominator: autoCompoundRewardShares are millionths. */
const PERCENT_DENOMINATOR = 1_000_000;
/** The most validator entries read from one answer (filtered by NodeID there are one or two). */
const MAX_ENTRIES = 10_000;

/** A float from a Go `json.Float64` string (`"99.0000"`) or a plain number. */
export function decimal(value: unknown): number | undefined {
  if (typeof value === 'number') return Number.isFinite(value) ? value : undefined;
  if (typeof value !== 'string' || value.length > MAX_NUMBER_TEXT || !DECIMAL.test(value)) return undefined;
  const n = Number(value);
  return Number.isFinite(n) ? n : undefined;
}

/**
 * A uint64 from a Go `json.Uint64` string (`"117431493426"`) or a plain non-negative integer, up
 * to 2^53 − 1: beyond that a number no longer holds it exactly (a node's amounts, times and
 * periods never get there; a larger one is a shape error, not a 1e20 series).
 */
export function unsigned(value: unknown): number | undefined {
  if (typeof value === 'number') return Number.isSafeInteger(value) && value >= 0 ? value : undefined;
  if (typeof value !== 'string' || !UNSIGNED.test(value)) return undefined;
  const n = Number(value);
  return Number.isSafeInteger(n) ? n : undefined;
}

/**
 * The last second of year 9999 (9999-12-31T23:59:59Z): the latest time Go's time.Time can write in
 * JSON (MarshalJSON refuses later years) and the latest a 4-digit RFC 3339 date holds. A staking
 * time or duration past it is no time AvalancheGo set (its staking periods last a year at most),
 * and past 8.64e12 s it is no time a Date can even hold.
 */
export const LATEST_TIME = Date.UTC(9999, 11, 31, 23, 59, 59) / 1000;

/** Unix seconds (a json.Uint64 or a plain number), within 1970 … LATEST_TIME; anything else is not a time. */
export function epochSeconds(value: unknown): number | undefined {
  const n = unsigned(value);
  return n !== undefined && n <= LATEST_TIME ? n : undefined;
}

/** A network-wide total in nAVAX (the Data API's amountStaked: above 2^53 on mainnet), as an approximate number. */
function total(value: unknown): number | undefined {
  if (typeof value === 'number') return Number.isFinite(value) && value >= 0 ? value : undefined;
  return typeof value === 'string' && UNSIGNED.test(value) ? Number(value) : undefined;
}

/** A percentage (0–100) as a 0–1 ratio. */
export function percentRatio(value: unknown): number | undefined {
  const n = decimal(value);
  return n !== undefined && n >= 0 && n <= 100 ? n / 100 : undefined;
}

export function isNodeId(value: unknown): value is string {
  return typeof value === 'string' && NODE_ID.test(value);
}

export function isCb58Id(value: unknown): value is string {
  return typeof value === 'string' && CB58.test(value);
}

export function isVersionText(value: unknown): value is string {
  return typeof value === 'string' && VERSION.test(value);
}

/** Quotes an untrusted value for an error message, capped; an object or array only by its kind (it may nest thousands deep). */
function shown(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (typeof value === 'object' && value !== null) return describe(value);
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 60 ? `${prefixWithin(text, 60)}…` : text;
}

const fail = <T>(error: string): ParseOutcome<T> => ({ ok: false, error });
const okay = <T>(value: T): ParseOutcome<T> => ({ ok: true, value });

function object(value: unknown, what: string): ParseOutcome<JsonObject> {
  return isObject(value) ? okay(value) : fail(`${what} must be an object, got ${describe(value)}`);
}

/** AvalancheGo's "node is not a validator" error of info.uptime (also for an L1-only validator). */
export function isNotValidatorError(message: string): boolean {
  return /node is not a validator/i.test(message);
}

/**
 * info.uptime before the P-Chain is bootstrapped (AvalancheGo v1.15): "couldn't get node uptime:
 * error while fetching local validator start time still bootstrapping" (api/info/service.go,
 * network/network.go NodeUptime, snow/uptime/locked_calculator.go errStillBootstrapping): not yet,
 * not a failure.
 */
export function isBootstrappingError(message: string): boolean {
  return /couldn't get node uptime:.*still bootstrapping/i.test(message);
}

/**
 * info.isBootstrapped {chain} → `{isBootstrapped}` (api/info/service.go IsBootstrapped: whether the
 * chain is in normal operation, chains/manager.go; false for a chain not created yet).
 */
export function parseIsBootstrapped(value: unknown): ParseOutcome<boolean> {
  const result = object(value, 'info.isBootstrapped result');
  if (!result.ok) return result;
  const flag = result.value.isBootstrapped;
  return typeof flag === 'boolean' ? okay(flag) : fail(`isBootstrapped ${shown(flag)} is not a boolean`);
}

/** info.getNodeID → `{nodeID, nodePOP}`. */
export function parseNodeIdResult(value: unknown): ParseOutcome<string> {
  const result = object(value, 'info.getNodeID result');
  if (!result.ok) return result;
  return isNodeId(result.value.nodeID) ? okay(result.value.nodeID) : fail(`nodeID ${shown(result.value.nodeID)} is not a NodeID`);
}

/** info.uptime → percent strings, each 0–100. */
export function parseUptime(value: unknown): ParseOutcome<ValidatorUptime> {
  const result = object(value, 'info.uptime result');
  if (!result.ok) return result;
  const rewarding = percentRatio(result.value.rewardingStakePercentage);
  const weighted = percentRatio(result.value.weightedAveragePercentage);
  if (rewarding === undefined) return fail(`rewardingStakePercentage ${shown(result.value.rewardingStakePercentage)} is not a percentage`);
  if (weighted === undefined) return fail(`weightedAveragePercentage ${shown(result.value.weightedAveragePercentage)} is not a percentage`);
  return okay({ rewardingStakeRatio: rewarding, weightedAverageRatio: weighted });
}

/** info.getNetworkID → `{networkID: "1"}` (json.Uint32) → `mainnet`, `fuji` or the numeric ID. */
export function parseNetworkId(value: unknown): ParseOutcome<string> {
  const result = object(value, 'info.getNetworkID result');
  if (!result.ok) return result;
  const id = unsigned(result.value.networkID);
  return id !== undefined && id <= 0xffff_ffff ? okay(networkName(id)) : fail(`networkID ${shown(result.value.networkID)} is not a network ID`);
}

/** A netip.AddrPort as Go writes it: `203.0.113.7:9651`, `[2001:db8::1]:9651`. */
const ADDR_PORT = /^(?:\d{1,3}(?:\.\d{1,3}){3}|\[[0-9A-Fa-f:.]{2,45}(?:%[\w.-]{1,16})?\]):\d{1,5}$/;

/** info.getNodeIP → `{ip: "203.0.113.7:9651"}` (api/info/service.go GetNodeIP: the IP:port it advertises to peers). */
export function parseNodeIp(value: unknown): ParseOutcome<string> {
  const result = object(value, 'info.getNodeIP result');
  if (!result.ok) return result;
  const ip = result.value.ip;
  return typeof ip === 'string' && ADDR_PORT.test(ip) ? okay(ip) : fail(`ip ${shown(ip)} is not an IP:port`);
}

/** info.getNodeVersion → the `version` (`avalanchego/1.14.2`). */
export function parseNodeVersion(value: unknown): ParseOutcome<string> {
  const result = object(value, 'info.getNodeVersion result');
  if (!result.ok) return result;
  return isVersionText(result.value.version) ? okay(result.value.version) : fail(`version ${shown(result.value.version)} is not a node version`);
}

/**
 * info.upgrades → heliconTime in epoch seconds, or null for a node whose schedule has no
 * heliconTime (older than v1.14.1) or reads it unscheduled (`9999-12-01T00:00:00Z`, AvalancheGo's
 * UnscheduledActivationTime in upgrade/upgrade.go): the 0.8 rule applies as far as it knows.
 */
export function parseUpgrades(value: unknown): ParseOutcome<{ heliconTime: number | null }> {
  const result = object(value, 'info.upgrades result');
  if (!result.ok) return result;
  const raw = result.value.heliconTime;
  if (raw === undefined || raw === null) return okay({ heliconTime: null });
  const time = parseGoTime(raw);
  if (time === undefined) return fail(`heliconTime ${shown(raw)} is not an RFC 3339 time`);
  return okay({ heliconTime: time >= UNSCHEDULED_FROM ? null : time });
}

/** The most activation times read from one info.upgrades answer (AvalancheGo v1.15 has 15). */
const MAX_ACTIVATIONS = 64;
/** `heliconTime`, `graniteTime`: upgrade.Config's JSON names of activation times (upgrade/upgrade.go). */
const ACTIVATION_KEY = /^[a-z][A-Za-z0-9]{0,40}Time$/;

/**
 * info.upgrades (api/info/service.go Upgrades: the node's upgrade.Config) → every activation time
 * its build knows, by JSON name (`graniteTime`): epoch seconds, or `null` when unscheduled
 * (UnscheduledActivationTime, 9999-12-01: a build that has the upgrade's field but no date for it,
 * upgrade/upgrade.go). A build that predates an upgrade has no field for it at all
 * (upgrade/new_upgrade_checklist.md: each upgrade adds one). Other fields (heights, IDs, durations)
 * are not activations and are left out; an unreadable time is a shape error.
 */
export function parseUpgradeSchedule(value: unknown): ParseOutcome<Record<string, number | null>> {
  const result = object(value, 'info.upgrades result');
  if (!result.ok) return result;
  const activations: Record<string, number | null> = {};
  let count = 0;
  for (const [key, raw] of Object.entries(result.value)) {
    if (!ACTIVATION_KEY.test(key) || raw === null || raw === undefined) continue;
    if (++count > MAX_ACTIVATIONS) return fail(`more than ${MAX_ACTIVATIONS} activation times in one answer`);
    const time = parseGoTime(raw);
    if (time === undefined) return fail(`${key} ${shown(raw)} is not an RFC 3339 time`);
    activations[key] = time >= UNSCHEDULED_FROM ? null : time;
  }
  return okay(activations);
}

function validatorList(value: unknown, call: string): ParseOutcome<JsonObject[]> {
  const result = object(value, `${call} result`);
  if (!result.ok) return result;
  const list = result.value.validators;
  if (!Array.isArray(list)) return fail(`"validators" must be an array, got ${describe(list)}`);
  if (list.length > MAX_ENTRIES) return fail(`${list.length} validators in one answer (at most ${MAX_ENTRIES} are read)`);
  const entries: JsonObject[] = [];
  for (const [i, entry] of list.entries()) {
    if (!isObject(entry)) return fail(`validators[${i}] must be an object, got ${describe(entry)}`);
    entries.push(entry);
  }
  return okay(entries);
}

/** The entries of `nodeId`, or every entry when the NodeID is not known yet. */
function own(entries: JsonObject[], nodeId: string | undefined): JsonObject[] {
  return nodeId === undefined ? entries : entries.filter((e) => e.nodeID === nodeId);
}

/**
 * platform.getCurrentValidators (Primary Network, filtered by NodeID) → the node's validation, or
 * `null` when the node is not in the current set. Missing or unreadable startTime/endTime is a
 * shape error: without them no budget can be computed.
 */
export function parsePrimaryValidators(value: unknown, nodeId: string | undefined): ParseOutcome<PrimaryValidation | null> {
  const list = validatorList(value, 'platform.getCurrentValidators');
  if (!list.ok) return list;
  const entry = own(list.value, nodeId)[0];
  if (!entry) return okay(null);
  const startTime = epochSeconds(entry.startTime);
  const endTime = epochSeconds(entry.endTime);
  if (startTime === undefined) return fail(`startTime ${shown(entry.startTime)} is not a time`);
  if (endTime === undefined) return fail(`endTime ${shown(entry.endTime)} is not a time`);
  if (endTime < startTime) return fail(`endTime ${endTime} is before startTime ${startTime}`);
  const validation: PrimaryValidation = { startTime, endTime };
  if (isCb58Id(entry.txID)) validation.txId = entry.txID;
  const optional: Array<[keyof PrimaryValidation, string, (v: unknown) => number | undefined]> = [
    ['weightNAvax', 'weight', unsigned],
    ['potentialRewardNAvax', 'potentialReward', unsigned],
    ['delegationFee', 'delegationFee', decimal],
    ['delegatorCount', 'delegatorCount', unsigned],
    ['delegatorWeightNAvax', 'delegatorWeight', unsigned],
    ['uptimeRatio', 'uptime', percentRatio],
  ];
  for (const [key, wire, read] of optional) {
    const raw = entry[wire];
    if (raw === undefined || raw === null) continue;
    const n = read(raw);
    if (n === undefined) return fail(`${wire} ${shown(raw)} is not a number`);
    (validation as unknown as Record<string, number>)[key] = n;
  }
  if (typeof entry.connected === 'boolean') validation.connected = entry.connected;
  if (entry.nextPeriod !== undefined || entry.validatorAuthority !== undefined) {
    const renewal = autoRenewal(entry);
    if (!renewal.ok) return renewal;
    validation.autoRenewal = renewal.value;
  }
  return okay(validation);
}

/**
 * The AutoRenewedConfig of vms/platformvm/api/validator.go (all three keys, or none for a validator
 * that is not auto-renewed): `nextPeriod` json.Uint64 seconds (0 = exits at endTime,
 * txs/set_auto_renewed_validator_config_tx.go), `autoCompoundRewardShares` json.Uint32 millionths
 * (at most reward.PercentDenominator), `validatorAuthority` an Owner.
 */
function autoRenewal(entry: JsonObject): ParseOutcome<AutoRenewal> {
  const next = epochSeconds(entry.nextPeriod);
  if (next === undefined) return fail(`nextPeriod ${shown(entry.nextPeriod)} is not a period`);
  const shares = unsigned(entry.autoCompoundRewardShares);
  if (shares === undefined || shares > PERCENT_DENOMINATOR) return fail(`autoCompoundRewardShares ${shown(entry.autoCompoundRewardShares)} is not a share in millionths`);
  const authority = entry.validatorAuthority;
  const addresses = isObject(authority) && Array.isArray(authority.addresses) ? authority.addresses : undefined;
  if (!addresses || addresses.length > 100 || !addresses.every((a) => typeof a === 'string' && a.length <= 100)) {
    return fail(`validatorAuthority ${shown(authority)} is not an owner with addresses`);
  }
  const renewal: AutoRenewal = { nextPeriodSeconds: next, renews: next > 0, autoCompoundRatio: shares / PERCENT_DENOMINATOR, authorityAddresses: addresses as string[] };
  // later v1.15 releases: what earlier cycles compounded into the stake (json.Uint64 nAVAX); absent before.
  for (const [key, wire] of [['restakedValidationNAvax', 'restakedValidationRewards'], ['restakedDelegateeNAvax', 'restakedDelegateeRewards']] as const) {
    const raw = entry[wire];
    if (raw === undefined || raw === null) continue;
    const n = unsigned(raw);
    if (n === undefined) return fail(`${wire} ${shown(raw)} is not an amount`);
    renewal[key] = n;
  }
  return okay(renewal);
}

/** platform.getTotalStake (Primary Network) → the total validator weight, nAVAX (`weight`; `stake` before v1.11). */
export function parseTotalStake(value: unknown): ParseOutcome<number> {
  if (!isObject(value)) return fail('getTotalStake result is not an object');
  // Mainnet's total is above 2^53 nAVAX: read as an approximate number (a share needs no more).
  const weight = total(value.weight ?? value.stake);
  return weight !== undefined && weight > 0 ? okay(weight) : fail(`weight ${shown(value.weight ?? value.stake)} is not a total weight`);
}

function l1Validation(entry: JsonObject, subnetId: string): ParseOutcome<L1Validation> {
  if (!isCb58Id(entry.validationID)) return fail(`validationID ${shown(entry.validationID)} is not an ID`);
  const balance = unsigned(entry.balance);
  if (balance === undefined) return fail(`balance ${shown(entry.balance)} of ${entry.validationID} is not an amount`);
  const validation: L1Validation = { subnetId, validationId: entry.validationID, balanceNAvax: balance };
  if (isNodeId(entry.nodeID)) validation.nodeId = entry.nodeID;
  const weight = unsigned(entry.weight);
  if (weight !== undefined) validation.weight = weight;
  if (entry.startTime !== undefined && entry.startTime !== null) {
    const startTime = epochSeconds(entry.startTime);
    if (startTime === undefined) return fail(`startTime ${shown(entry.startTime)} of ${entry.validationID} is not a time`);
    validation.startTime = startTime;
  }
  return okay(validation);
}

/**
 * platform.getCurrentValidators with the subnetID of an L1 → the node's L1 validations, inactive
 * ones (balance "0") included. Entries without a validationID are a permissioned subnet's
 * validators (no fee, no balance): counted in `legacy`, not read as L1 validations.
 */
export function parseL1Validators(value: unknown, subnetId: string, nodeId: string | undefined): ParseOutcome<{ validations: L1Validation[]; legacy: number }> {
  const list = validatorList(value, 'platform.getCurrentValidators');
  if (!list.ok) return list;
  const validations: L1Validation[] = [];
  let legacy = 0;
  for (const entry of own(list.value, nodeId)) {
    if (entry.validationID === undefined && entry.balance === undefined) {
      legacy++;
      continue;
    }
    const parsed = l1Validation(entry, subnetId);
    if (!parsed.ok) return parsed;
    validations.push(parsed.value);
  }
  return okay({ validations, legacy });
}

/** platform.getL1Validator (v1.11.13+): one validation, not an array. */
export function parseL1Validator(value: unknown): ParseOutcome<L1Validation> {
  const result = object(value, 'platform.getL1Validator result');
  if (!result.ok) return result;
  if (!isCb58Id(result.value.subnetID)) return fail(`subnetID ${shown(result.value.subnetID)} is not an ID`);
  return l1Validation(result.value, result.value.subnetID);
}

/** platform.getValidatorFeeState → `{excess, price, timestamp}` (plain numbers; strings tolerated). */
export function parseFeeState(value: unknown): ParseOutcome<FeeState> {
  const result = object(value, 'platform.getValidatorFeeState result');
  if (!result.ok) return result;
  // gas.Price is a uint64 (a plain JSON number): above 2^53 it is no price a number holds
  const price = decimal(result.value.price);
  if (price === undefined || price < 0 || price > Number.MAX_SAFE_INTEGER) return fail(`price ${shown(result.value.price)} is not a fee price`);
  const state: FeeState = { priceNAvaxPerSecond: price };
  const excess = decimal(result.value.excess);
  if (excess !== undefined) state.excess = excess;
  const timestamp = parseGoTime(result.value.timestamp);
  if (timestamp !== undefined) state.timestamp = timestamp;
  return okay(state);
}

/**
 * Data API `GET /v1/networks/{network}` → validatorDetails.stakingDistributionByVersion. A row whose
 * `version` is not a node version at all (live answers carry `"version": "offline"`: validators whose
 * version it cannot tell) is left out, and so is its stake: every share is of the stake whose version
 * is known. A row that looks like a version but whose amount cannot be read is a shape error (a wrong
 * row would move every share).
 */
export function parseStakingDistribution(value: unknown): ParseOutcome<VersionStake[]> {
  const body = object(value, 'network details');
  if (!body.ok) return body;
  const details = body.value.validatorDetails;
  if (!isObject(details)) return fail(`validatorDetails must be an object, got ${describe(details)}`);
  // Required in the published schema (ValidatorsDetails): a missing or null list is a bad shape, not "no stake known".
  const rows = details.stakingDistributionByVersion;
  if (!Array.isArray(rows) || rows.length > 1000) return fail(`stakingDistributionByVersion must be an array (at most 1000 rows), got ${describe(rows)}`);
  const distribution: VersionStake[] = [];
  for (const row of rows) {
    if (!isObject(row)) return fail(`a row must be an object, got ${describe(row)}`);
    const version = distributionVersion(row.version);
    if (version === undefined) continue; // `offline` and the like: not a version

    const amount = total(row.amountStaked);
    if (amount === undefined) return fail(`amountStaked ${shown(row.amountStaked)} of ${row.version} is not an amount`);
    const stake: VersionStake = { version, amountStakedNAvax: amount };
    const count = unsigned(row.validatorCount);
    if (count !== undefined) stake.validatorCount = count;
    distribution.push(stake);
  }
  return okay(distribution);
}

/** A Data API version as nodes send it: a bare `1.14.2` is taken as `avalanchego/1.14.2`. */
function distributionVersion(value: unknown): string | undefined {
  if (isVersionText(value)) return value;
  return typeof value === 'string' && BARE_VERSION.test(value) ? `avalanchego/${value}` : undefined;
}

/**
 * A Data API validator record's end time (unix seconds) and delegator count: absent, or within range.
 * An end time outside 1970 … 9999 or a count that is not a count is a bad shape, never a date.
 */
export function parseValidatorRecordTimes(record: JsonObject): ParseOutcome<{ endTimestamp?: number; delegators?: number }> {
  const out: { endTimestamp?: number; delegators?: number } = {};
  if (record.endTimestamp !== undefined && record.endTimestamp !== null) {
    const end = epochSeconds(record.endTimestamp);
    if (end === undefined) return fail(`endTimestamp ${shown(record.endTimestamp)} is not a time`);
    out.endTimestamp = end;
  }
  if (record.delegatorCount !== undefined && record.delegatorCount !== null) {
    const delegators = unsigned(record.delegatorCount);
    if (delegators === undefined) return fail(`delegatorCount ${shown(record.delegatorCount)} is not a count`);
    out.delegators = delegators;
  }
  return okay(out);
}

/** The live API's validator record fields (uptimePerformance, validatorHealth), when present and readable. */
export function parseValidatorRecordHealth(record: unknown): ValidatorRecordHealth {
  const health: ValidatorRecordHealth = { benchedRequestsRatio: {} };
  if (!isObject(record)) return health;
  const uptime = percentRatio(record.uptimePerformance);
  if (uptime !== undefined) health.uptimePerformanceRatio = uptime;
  const version = distributionVersion(record.avalancheGoVersion);
  if (version) health.avalancheGoVersion = version;
  const vh = record.validatorHealth;
  if (isObject(vh)) {
    const reachability = percentRatio(vh.reachabilityPercent);
    if (reachability !== undefined) health.reachabilityRatio = reachability;
    for (const chain of ['P', 'X', 'C'] as const) {
      const benched = percentRatio(vh[`benched${chain}ChainRequestsPercent`]);
      if (benched !== undefined) health.benchedRequestsRatio[chain] = benched;
    }
  }
  return health;
}

/**
 * The weight (own stake plus delegations, nAVAX) of each validator in a platform.getCurrentValidators
 * answer, by NodeID: what info.uptime weighs a peer's Ping by (network/network.go, NodeUptime:
 * `Validators.GetWeight`). Entries without a readable NodeID or weight are left out.
 */
export function parseValidatorWeights(value: unknown): ParseOutcome<Map<string, number>> {
  const list = validatorList(value, 'platform.getCurrentValidators');
  if (!list.ok) return list;
  const weights = new Map<string, number>();
  for (const entry of list.value) {
    const weight = unsigned(entry.weight);
    if (!isNodeId(entry.nodeID) || weight === undefined) continue;
    weights.set(entry.nodeID, weight + (unsigned(entry.delegatorWeight) ?? 0));
  }
  return okay(weights);
}
