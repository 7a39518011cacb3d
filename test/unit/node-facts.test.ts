/**
 * What the node rules share about one poll (src/alerts/rules/node-facts.ts), read from the shapes
 * AvalancheGo sends: api/health (the checks), network/network.go HealthCheck (the network check and
 * its "no inbound connections" reason), snow/networking/handler/health.go (a chain's connected stake).
 */
import { describe, expect, it } from 'vitest';
import type { CheckResult, EndpointObservation, TargetObservation } from '../../src/model/observation.js';
import { endpointName, inboundSpokenFor, missedUpgradeSymptom, NO_INBOUND_ERROR, nodeFacts, ownNetworkFailing, readinessFailing } from '../../src/alerts/rules/node-facts.js';

const L1 = '2q9e4r6Mu3U68nU1fYjgbR6JvwrRx36CohpAX5UQxse55x1Q5';
const LOST = 'not connected to enough stake: connected to 62.000000%; required at least 80.000000%';

const check = (name: string, fields: Partial<CheckResult> = {}): CheckResult => ({ name, passing: true, notYetRun: false, durationSeconds: 0, contiguousFailures: 0, ...fields });
const failing = (name: string, fields: Partial<CheckResult> = {}): CheckResult => check(name, { passing: false, contiguousFailures: 3, error: 'failing', ...fields });
const health = (checks: CheckResult[], fields: Partial<EndpointObservation> = {}): EndpointObservation => ({ endpoint: 'health', view: 'all', ok: true, durationSeconds: 0, at: 100, report: { healthy: checks.every((c) => c.passing), checks }, ...fields });
const readiness = (healthy: boolean): EndpointObservation => ({ endpoint: 'readiness', view: 'all', ok: true, durationSeconds: 0, at: 100, report: { healthy, checks: [] } });
const poll = (endpoints: EndpointObservation[], fields: Partial<TargetObservation> = {}): TargetObservation => ({ target: 'n1', kind: 'node', at: 100, endpoints, ...fields });
const names = (checks: readonly CheckResult[]) => checks.map((c) => c.name);

describe('node facts: one poll of a node, as the node rules read it', () => {
  it('an unanswered or shapeless health poll: no report, nothing pageable', () => {
    const down = health([], { ok: false, reason: 'timeout', error: 'no answer' });
    delete down.report;
    expect(nodeFacts(poll([down]))).toEqual({ health: down, notReady: false, pageable: [] });
    expect(nodeFacts(poll([]))).toEqual({ notReady: false, pageable: [] });
  });

  it('reads the `all` view of health, not a tag-filtered one or another endpoint listed first', () => {
    const tagged = health([failing('C')], { view: 'subnet-a' });
    const all = health([failing('P')]);
    expect(names(nodeFacts(poll([tagged, all])).pageable)).toEqual(['P']);
    // nor readiness, when listed before it
    expect(names(nodeFacts(poll([readiness(true), all])).pageable)).toEqual(['P']);
  });

  it('pages failing checks that ran; a check not yet run does not page', () => {
    const facts = nodeFacts(poll([health([failing('diskspace'), failing('database', { notYetRun: true }), check('network')])]));
    expect(names(facts.pageable)).toEqual(['diskspace']);
    expect(facts.notReady).toBe(false);
  });

  it("bootstrapping (readiness false): its chains and bootstrapped check are NodeNotReady's, any other failing check pages", () => {
    const checks = [failing('C'), failing(L1), failing('bootstrapped'), failing('subnet-chain', { chain: {} }), failing('diskspace')];
    const facts = nodeFacts(poll([health(checks), readiness(false)]));
    expect(facts.notReady).toBe(true);
    expect(names(facts.pageable)).toEqual(['diskspace']);
    // ready: every failing check pages
    expect(names(nodeFacts(poll([health(checks), readiness(true)])).pageable)).toEqual(['C', L1, 'bootstrapped', 'subnet-chain', 'diskspace']);
    // a name that only looks like a blockchain ID (too short) is not a chain's
    expect(names(nodeFacts(poll([health([failing(L1.slice(0, 40))]), readiness(false)])).pageable)).toEqual([L1.slice(0, 40)]);
  });

  it('without a readiness poll, a failing `bootstrapped` check says it is not ready; one not yet run does not', () => {
    expect(nodeFacts(poll([health([failing('bootstrapped'), failing('C')])])).notReady).toBe(true);
    expect(nodeFacts(poll([health([failing('bootstrapped', { notYetRun: true }), failing('C')])])).notReady).toBe(false);
    expect(nodeFacts(poll([health([check('bootstrapped'), failing('C')])])).notReady).toBe(false);
    expect(nodeFacts(poll([health([failing('C')])])).notReady).toBe(false);
    expect(nodeFacts(poll([health([failing('bootstrapped')])])).bootstrapped?.name).toBe('bootstrapped');
  });

  it('finds the check that carries the free-disk ratio', () => {
    const disk = check('diskspace', { disk: { availableRatio: 0.4 } });
    expect(nodeFacts(poll([health([check('database', { disk: { availableBytes: 10 } }), disk])])).diskCheck).toBe(disk);
    expect(nodeFacts(poll([health([check('database', { disk: { availableBytes: 10 } })])])).diskCheck).toBeUndefined();
  });

  describe('the network check failing for no inbound connection alone (network/no_ingress_conn_alert.go)', () => {
    const inbound = (fields: { validator?: boolean; ingress?: number; error?: string } = {}) =>
      failing('network', { error: fields.error ?? NO_INBOUND_ERROR, network: { primaryNetworkValidator: fields.validator ?? true, ingressConnections: fields.ingress ?? 0 } });

    it('is noInbound only for a Primary Network validator with 0 inbound connections and that one reason', () => {
      const closed = inbound();
      expect(nodeFacts(poll([health([check('C'), closed])])).noInbound).toBe(closed);
      expect(nodeFacts(poll([health([inbound({ validator: false })])])).noInbound).toBeUndefined();
      expect(nodeFacts(poll([health([inbound({ ingress: 2 })])])).noInbound).toBeUndefined();
      expect(nodeFacts(poll([health([inbound({ error: `${NO_INBOUND_ERROR}; not connected to a minimum of 1 peer(s) only 0` })])])).noInbound).toBeUndefined();
    });

    it('is not the node losing its own network; any other failure of the check is', () => {
      expect(ownNetworkFailing(nodeFacts(poll([health([inbound()])])))).toBeUndefined();
      const cutOff = failing('network', { error: 'network layer is unhealthy reason: not connected to a minimum of 1 peer(s) only 0' });
      expect(ownNetworkFailing(nodeFacts(poll([health([cutOff])])))).toBe(cutOff);
      expect(ownNetworkFailing(nodeFacts(poll([health([failing('network', { notYetRun: true })])])))).toBeUndefined();
      expect(ownNetworkFailing(nodeFacts(poll([health([check('network')])])))).toBeUndefined();
      expect(ownNetworkFailing(nodeFacts(poll([health([failing('C')])])))).toBeUndefined();
    });

    it('is spoken for by UnreachableByPeers only on a node the fleet observes', () => {
      const closed = inbound();
      const observe = (fields: Partial<TargetObservation>, extra: EndpointObservation[] = []) => {
        const observation = poll([health([closed]), ...extra], fields);
        return inboundSpokenFor(nodeFacts(observation), closed, observation);
      };
      expect(observe({})).toBe(false);
      expect(observe({ fleetObserves: true })).toBe(true);
      expect(observe({}, [{ endpoint: 'observed', view: 'all', ok: true, durationSeconds: 0, at: 100 }])).toBe(true);
      expect(observe({}, [{ endpoint: 'validator', view: 'all', ok: false, durationSeconds: 0, at: 100 }])).toBe(true);
      // another failing check is never spoken for
      const other = failing('diskspace');
      const observation = poll([health([closed, other])], { fleetObserves: true });
      expect(inboundSpokenFor(nodeFacts(observation), other, observation)).toBe(false);
    });
  });

  describe('a chain that lost the upgraded stake after a missed upgrade (network/peer/peer.go)', () => {
    const lost = failing('C', { error: LOST, chain: {} });
    it('is the upgrade\'s symptom once the upgrade is missed, or past the deadline a check still names', () => {
      expect(missedUpgradeSymptom(lost, poll([health([lost])], { missedUpgrade: { deadline: 50 } }))).toBe(true);
      const due = (deadline: number) => poll([health([lost, failing('futureupgrade', { upgrade: { deadline } })])]);
      expect(missedUpgradeSymptom(lost, due(100))).toBe(true);
      expect(missedUpgradeSymptom(lost, due(101))).toBe(false);
      expect(missedUpgradeSymptom(lost, poll([health([lost])]))).toBe(false);
    });

    it('is not for a check failing for another reason, nor for a check that is no chain', () => {
      const missed = { missedUpgrade: { deadline: 50 } };
      const other = failing('C', { error: 'chain is not bootstrapped', chain: {} });
      expect(missedUpgradeSymptom(other, poll([health([other])], missed))).toBe(false);
      const noChain = failing('C', { error: LOST });
      expect(missedUpgradeSymptom(noChain, poll([health([noChain])], missed))).toBe(false);
    });
  });

  it('readiness failing in the latest poll; an endpoint named with its view', () => {
    expect(readinessFailing(poll([health([]), readiness(false)]))).toBe(true);
    expect(readinessFailing(poll([health([]), readiness(true)]))).toBe(false);
    expect(readinessFailing(poll([health([])]))).toBe(false);
    expect(readinessFailing(undefined)).toBe(false);
    expect(endpointName(health([]))).toBe('health');
    expect(endpointName(health([], { view: 'subnet-a' }))).toBe('health[subnet-a]');
  });
});
