/**
 * What the node rules share about one poll of a node: is it reachable, is it still bootstrapping,
 * which failing checks may page, where its disk reading is. Derived once per observation.
 */
import { baselinePredates, isPrimaryChainCheck, lostConnectedStake, PRIMARY_CHAINS, type CheckResult, type EndpointObservation, type HealthReport, type TargetObservation } from '../../model/observation.js';
import { CONNECTED_STAKE_NORMAL } from '../../model/observed.js';

export interface NodeFacts {
  /** The main health reply (`health`, view `all`), when the node was polled at all. */
  health?: EndpointObservation;
  /** The health report, when the node answered. */
  report?: HealthReport;
  /** Readiness false (or, without a readiness poll, `bootstrapped` failing). */
  notReady: boolean;
  bootstrapped?: CheckResult;
  /** Failing checks that may page: run at least once, and not a chain of a node still bootstrapping. */
  pageable: CheckResult[];
  /** The check carrying the free-disk ratio (AvalancheGo >= 1.14.1). */
  diskCheck?: CheckResult;
  /**
   * The `network` check when it fails only because a Primary Network validator has no inbound
   * connection after AvalancheGo's grace (network/no_ingress_conn_alert.go: ingressConnectionCount
   * 0) while its peers and messages are fine: its staking port is closed to the world.
   */
  noInbound?: CheckResult;
}

/**
 * A chain check failing only for the stake it lost when its upgraded peers dropped a node that missed
 * an upgrade (network/peer/peer.go): AvalancheNodeUpgradeRequired speaks for it (the root cause).
 */
export function missedUpgradeSymptom(check: CheckResult, observation: TargetObservation): boolean {
  if (check.chain === undefined || !lostConnectedStake(check)) return false;
  if (observation.missedUpgrade !== undefined) return true;
  // Past the time, while peers are still dropping it, the check names the deadline yet.
  const deadline = nodeFacts(observation).report?.checks.find((c) => c.upgrade?.deadline !== undefined)?.upgrade?.deadline;
  return deadline !== undefined && deadline <= observation.at;
}

/**
 * What a node rule remembers of its network's dips (its state per target): a chain check read inside
 * a dip reports the dip, even when the baseline that ended it was read before the check ran again.
 */
export interface DipMemory {
  /** Most of the baseline looked cut off at the last evaluation. */
  degraded?: boolean;
  /** The newest baseline reading of the evaluation that first saw the network normal again after a dip. */
  normalAgainAt?: number;
  /** Epoch milliseconds of the evaluation that first saw the node's own network check failing, while it does. */
  cutOffSince?: number;
  /** Per chain check losing connected stake, while it does: when (epoch seconds, our clock) an evaluation first saw it. */
  losingSince?: Map<string, number>;
}

/**
 * Whose a Primary Network chain's lost stake is: `network` (a dip, which AvalancheNetworkDegraded
 * speaks for: do not page), `settling` (not known yet: hold it pending), `cut-off` (the node's own
 * network check fails: the chain pages with it, its hold counted from the cut-off and by that
 * check's failures, so a chain held in a dip does not page ahead of its cause); undefined: the
 * node's own, as without a baseline.
 */
export type LostStake = { whose: 'network' } | { whose: 'settling' } | { whose: 'cut-off'; holdFrom: number; nodeFailures: number };

/**
 * Whose a Primary Network chain's lost stake is, as the network baseline beside the node tells it
 * (the node's own poll carries it, probes/observed.ts baselineBeside): the network's while most of
 * the fleet's baseline observers see the connected stake below 80 % too (or the check last ran
 * before the network was seen normal again), as every node's chains fail alike in a dip
 * (snow/networking/handler/health.go: below 80 % connected); settling while a baseline reading
 * predates the check's failure and that observer's next one is on its way (the onset of a dip: each
 * node's chains fail at their next health run, a baseline can be one interval old; a reading that
 * does not come ends the wait as the old one goes stale), or while the first
 * reading since a start is awaited (a start inside a dip); the node's own otherwise, and whenever
 * its own network check says it is cut off. Called once per evaluation at
 * `now` (epoch ms; it updates `memory`).
 */
export function networkLostStake(observation: TargetObservation, memory: DipMemory, now: number): (check: CheckResult) => LostStake | undefined {
  const network = ownNetworkFailing(nodeFacts(observation));
  if (!network) delete memory.cutOffSince;
  else memory.cutOffSince ??= now;
  const cutOff = (check: CheckResult): LostStake => ({ whose: 'cut-off', holdFrom: memory.cutOffSince!, nodeFailures: Math.min(check.contiguousFailures, network!.contiguousFailures) });
  noteLosing(observation, memory);
  const baseline = observation.networkBaseline;
  const views = baseline?.views ?? [];
  if (views.length === 0) {
    delete memory.degraded;
    delete memory.normalAgainAt;
    // Started inside a dip, the baseline's first reading on its way: not known yet.
    return (check) => (!isPrimaryChainCheck(check) || !lostConnectedStake(check) ? undefined : network ? cutOff(check) : baseline?.awaited ? { whose: 'settling' } : undefined);
  }
  const degraded = views.filter((v) => v.connectedStakeRatio < CONNECTED_STAKE_NORMAL).length * 2 > views.length;
  // Set as each dip ends; inside a dip it is not read.
  if (!degraded && memory.degraded) memory.normalAgainAt = Math.max(...views.map((v) => v.at));
  memory.degraded = degraded;
  return (check) => {
    if (!isPrimaryChainCheck(check) || !lostConnectedStake(check)) return undefined;
    if (network) return cutOff(check);
    if (degraded || (check.lastRun ?? observation.at) <= (memory.normalAgainAt ?? -Infinity)) return { whose: 'network' };
    // The node's timeOfFirstFailure (api/health/worker.go: its own time.Now()), never later than
    // the poll that first saw it: a node whose clock runs ahead does not hold its chains longer.
    const firstSeen = memory.losingSince?.get(check.name) ?? observation.at;
    if (baselinePredates(baseline, Math.min(firstSeen, check.failingSince ?? firstSeen))) return { whose: 'settling' };
    return undefined;
  };
}

/** Remembers when (our clock, the baseline readings' own) each Primary Network chain was first seen losing connected stake, while it is. */
function noteLosing(observation: TargetObservation, memory: DipMemory): void {
  let losing: Map<string, number> | undefined;
  for (const check of nodeFacts(observation).report?.checks ?? []) {
    if (isPrimaryChainCheck(check) && lostConnectedStake(check)) (losing ??= new Map()).set(check.name, memory.losingSince?.get(check.name) ?? observation.at);
  }
  if (losing) memory.losingSince = losing;
  else delete memory.losingSince;
}

/**
 * The node's own `network` check when it fails for its own connectivity (no peers, no messages
 * either way, sends failing: network/network.go HealthCheck), not only for a closed staking port.
 */
export function ownNetworkFailing(facts: NodeFacts): CheckResult | undefined {
  const network = facts.report?.checks.find((c) => c.name === 'network');
  return network && !network.passing && !network.notYetRun && network !== facts.noInbound ? network : undefined;
}

/** AvalancheGo's network check failing for no inbound connection alone (network/network.go HealthCheck). */
export const NO_INBOUND_ERROR = 'network layer is unhealthy reason: primary network validator has no inbound connections';

/**
 * Whether AvalancheValidatorUnreachableByPeers speaks for a failing check: the `network` check failing
 * for no inbound connection alone, on a node the fleet observes (a validator poll configured, whether
 * or not it has reported yet: else the check paged first and resolved as the validator poll's first
 * report came, a false resolve), so the generic alerts hold back.
 */
export function inboundSpokenFor(facts: NodeFacts, check: CheckResult, observation: TargetObservation): boolean {
  return check === facts.noInbound && (observation.fleetObserves === true || observation.endpoints.some((e) => e.endpoint === 'observed' || e.endpoint === 'validator'));
}

/**
 * The rules of one poll run one after the other: the facts of the last observation asked about are
 * all the cache needs (a WeakMap entry per poll kept each poll's facts alive until the next one).
 */
let lastObservation: TargetObservation | undefined;
let lastFacts: NodeFacts | undefined;

export function nodeFacts(observation: TargetObservation): NodeFacts {
  if (lastObservation !== observation || !lastFacts) {
    lastFacts = derive(observation);
    lastObservation = observation;
  }
  return lastFacts;
}

function derive(observation: TargetObservation): NodeFacts {
  const endpoints = observation.endpoints;
  const health = endpoints.find((e) => e.endpoint === 'health' && e.view === 'all') ?? endpoints[0];
  if (!health?.ok || !health.report) return { ...(health ? { health } : {}), notReady: false, pageable: [] };
  const report = health.report;
  const readiness = endpoints.find((e) => e.endpoint === 'readiness' && e.report);
  const bootstrapped = report.checks.find((c) => c.name === 'bootstrapped');
  const notReady = readiness ? !readiness.report!.healthy : bootstrapped !== undefined && !bootstrapped.passing && !bootstrapped.notYetRun;
  // A bootstrapping node's chains are expected to fail: only AvalancheNodeNotReady speaks for them.
  const pageable = report.checks.filter((c) => !c.passing && !c.notYetRun && !(notReady && (c.chain !== undefined || c.name === 'bootstrapped' || isChainName(c.name))));
  const diskCheck = report.checks.find((c) => c.disk?.availableRatio !== undefined);
  const network = report.checks.find((c) => c.name === 'network');
  // Only when that is its one reason: a node with no peers at all has no inbound connection either.
  const noInbound = network?.network?.primaryNetworkValidator === true && network.network.ingressConnections === 0 && network.error === NO_INBOUND_ERROR ? network : undefined;
  return { health, report, notReady, ...(bootstrapped ? { bootstrapped } : {}), pageable, ...(diskCheck ? { diskCheck } : {}), ...(noInbound ? { noInbound } : {}) };
}

/** Readiness false in the latest poll (for rules evaluated outside a poll, such as height lag). */
export function readinessFailing(observation: TargetObservation | undefined): boolean {
  const readiness = observation?.endpoints.find((e) => e.endpoint === 'readiness' && e.report);
  return readiness ? !readiness.report!.healthy : false;
}

export function endpointName(e: EndpointObservation): string {
  return e.view === 'all' ? e.endpoint : `${e.endpoint}[${e.view}]`;
}

export { PRIMARY_CHAINS } from '../../model/observation.js';
/** An L1 chain's check: its blockchain ID (CB58). */
export const BLOCKCHAIN_ID = '[1-9A-HJ-NP-Za-km-z]{49,50}';

function isChainName(name: string): boolean {
  return (PRIMARY_CHAINS as readonly string[]).includes(name) || new RegExp(`^${BLOCKCHAIN_ID}$`).test(name);
}
