/**
 * What the node rules share about one poll of a node: is it reachable, is it still bootstrapping,
 * which failing checks may page, where its disk reading is. Derived once per observation.
 */
import type { CheckResult, EndpointObservation, HealthReport, TargetObservation } from '../../model/observation.js';

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
  if (check.chain === undefined || !/^(?:networking: )?not connected to enough stake: /.test(check.error ?? '')) return false;
  if (observation.missedUpgrade !== undefined) return true;
  // Past the time, while peers are still dropping it, the check names the deadline yet.
  const deadline = nodeFacts(observation).report?.checks.find((c) => c.upgrade?.deadline !== undefined)?.upgrade?.deadline;
  return deadline !== undefined && deadline <= observation.at;
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

/** The Primary Network's chains, as AvalancheGo names their health checks. */
export const PRIMARY_CHAINS = ['C', 'P', 'X'] as const;
/** An L1 chain's check: its blockchain ID (CB58). */
export const BLOCKCHAIN_ID = '[1-9A-HJ-NP-Za-km-z]{49,50}';

function isChainName(name: string): boolean {
  return (PRIMARY_CHAINS as readonly string[]).includes(name) || new RegExp(`^${BLOCKCHAIN_ID}$`).test(name);
}
