/**
 * What each rule source hands its rules from one report (src/alerts/rules/sources.ts): the fields a
 * rule waits on or decides with (a scope still awaited, the fleet's view pending, version stake
 * unknown and why), when a source has nothing to evaluate (`undefined`: its incidents stay) and when
 * it stopped reporting (`null`: they resolve at once). The engine tests run these through whole
 * verdicts; here each derivation is read on its own, from the store's shapes.
 */
import { describe, expect, it } from 'vitest';
import { RULE_SOURCE_NAMES, RULE_SOURCES, type SourceUpdate } from '../../src/alerts/rules/sources.js';
import { emptySnapshot, type ChainDataSnapshot, type ValidatorInfo } from '../../src/model/chaindata.js';
import type { EndpointObservation, TargetObservation } from '../../src/model/observation.js';
import type { ObservedReport } from '../../src/model/observed.js';
import type { ValidatorReport } from '../../src/model/validator.js';

const endpoint = (name: string, detail?: unknown): EndpointObservation => ({ endpoint: name, view: 'all', ok: true, durationSeconds: 0, at: 0, ...(detail ? { detail } : {}) });
const observation = (source: string, ...endpoints: EndpointObservation[]): TargetObservation => ({ target: 'v1', kind: 'node', source, at: 0, endpoints });

const NODE = observation('node', endpoint('health'));
const PRIMARY = { startTime: 1_700_000_000, endTime: 1_800_000_000, autoRenewal: { nextPeriodSeconds: 1_209_600, renews: true } } as unknown as NonNullable<ValidatorReport['primary']>;
const validatorPoll = (report: Partial<ValidatorReport>) => observation('validator', endpoint('validator', report), endpoint('other'));
/** The fleet's view job: one `observed` endpoint, or none when it had nothing to ask (src/probes/observed.ts). */
const observedPoll = (report?: Partial<ObservedReport>) => (report ? observation('observed', endpoint('observed', report)) : observation('observed'));

function updateOf(extra: Omit<Partial<SourceUpdate>, 'jobs'> & { jobs?: Array<[string, TargetObservation]> } = {}): SourceUpdate {
  const { jobs = [], ...rest } = extra;
  return { source: 'validator', target: 'v1', kind: 'node', network: 'mainnet', jobs: new Map(jobs), lags: () => [], ...rest };
}

function chainData(changes: Partial<ChainDataSnapshot> = {}): ChainDataSnapshot {
  return { ...emptySnapshot(), ...changes };
}

describe('the sources of the rules', () => {
  it('a node and a service hand their latest poll; nothing while not polled', () => {
    expect(RULE_SOURCES.node.input(updateOf({ observation: NODE }))).toBe(NODE);
    expect(RULE_SOURCES.node.input(updateOf())).toBeUndefined();
    expect(RULE_SOURCES.service.input(updateOf({ kind: 'service', observation: NODE }))).toBe(NODE);
    expect(RULE_SOURCE_NAMES).toEqual(['node', 'service', 'lag', 'chain', 'validator', 'observed', 'fleet']);
    // the fleet's input is the pipeline's, never a probe's
    expect(RULE_SOURCES.fleet.input(updateOf({ observation: NODE, chainData: chainData() }))).toBeUndefined();
  });

  it("height lag: the node's lags and poll, only with chain data and a poll", () => {
    const lags = [{ target: 'v1', chain: 'C', lagBlocks: 40 }];
    expect(RULE_SOURCES.lag.input(updateOf({ observation: NODE, chainData: chainData(), lags: () => lags }))).toEqual({ lags, node: NODE });
    expect(RULE_SOURCES.lag.input(updateOf({ observation: NODE, lags: () => lags }))).toBeUndefined();
    expect(RULE_SOURCES.lag.input(updateOf({ chainData: chainData(), lags: () => lags }))).toBeUndefined();
  });

  describe('chain data', () => {
    const mine = { target: 'v1', nodeId: 'NodeID-1' } as unknown as ValidatorInfo;
    const other = { target: 'v2', nodeId: 'NodeID-2' } as unknown as ValidatorInfo;
    const data = chainData({ validators: new Map([['NodeID-2', other], ['NodeID-1', mine]]) });

    it("hands this node's validator as chain data has it, its poll, and from its validator poll the validation and any doubt of its renewal", () => {
      const doubting = validatorPoll({ primary: PRIMARY, uptime: { rewardingStakeRatio: 0.5, weightedAverageRatio: 0.5 } as ValidatorReport['uptime'] });
      expect(RULE_SOURCES.chain.input(updateOf({ source: 'chaindata', chainData: data, observation: NODE, jobs: [['validator', doubting]] }))).toEqual({
        validator: mine,
        node: NODE,
        primary: PRIMARY,
        renewalDoubt: 'only 50 % of stake sees its uptime at or above the requirement: the reward vote may abort',
      });
      const sure = validatorPoll({ primary: PRIMARY, uptime: { rewardingStakeRatio: 1, weightedAverageRatio: 1 } as ValidatorReport['uptime'] });
      expect(RULE_SOURCES.chain.input(updateOf({ source: 'chaindata', chainData: data, jobs: [['validator', sure]] }))).toEqual({ validator: mine, primary: PRIMARY });
    });

    it('hands what it has: no validator of this node, no poll, no validator poll', () => {
      expect(RULE_SOURCES.chain.input(updateOf({ source: 'chaindata', chainData: chainData({ validators: new Map([['NodeID-2', other]]) }) }))).toEqual({});
    });

    it('waits for the first validator poll (whether the validation renews), and is nothing for a service or without chain data', () => {
      const awaitingValidator = (kind: string) => kind === 'validator';
      expect(RULE_SOURCES.chain.input(updateOf({ source: 'chaindata', chainData: data, awaits: awaitingValidator }))).toBeUndefined();
      expect(RULE_SOURCES.chain.input(updateOf({ source: 'chaindata', chainData: data, awaits: (kind) => kind === 'observed' }))).toEqual({ validator: mine });
      expect(RULE_SOURCES.chain.input(updateOf({ source: 'chaindata', kind: 'service', chainData: data }))).toBeUndefined();
      expect(RULE_SOURCES.chain.input(updateOf({ source: 'chaindata', observation: NODE }))).toBeUndefined();
    });
  });

  describe("a node's validator poll", () => {
    const report = { nodeId: 'NodeID-1', primary: PRIMARY };
    const poll = validatorPoll(report);
    const versionStake = [{ version: 'avalanchego/1.14.0', stakeNAvax: 10 }] as unknown as NonNullable<ChainDataSnapshot['networks'] extends Map<string, infer V> ? V : never>['versionStake'];

    it('hands the poll, the node poll, and the stake per version of its own network', () => {
      const data = chainData({ networks: new Map([['mainnet', { versionStake }], ['fuji', {}]]) });
      expect(RULE_SOURCES.validator.input(updateOf({ chainData: data, jobs: [['validator', poll], ['node', NODE]] }))).toEqual({ observation: poll.endpoints[0], node: NODE, versionStake });
      expect(RULE_SOURCES.validator.input(updateOf({ network: 'fuji', chainData: data, jobs: [['validator', poll]] }))).toEqual({ observation: poll.endpoints[0] });
    });

    it('says why the stake per version is unknown: the Data API failed for its network, or was not read yet', () => {
      const failed = chainData({ errors: ['network fuji: HTTP 500', 'network mainnet: rate limited (429)'] });
      expect(RULE_SOURCES.validator.input(updateOf({ chainData: failed, jobs: [['validator', poll]] }))).toMatchObject({ versionStakeUnknown: 'the Data API could not be read (rate limited (429))' });
      expect(RULE_SOURCES.validator.input(updateOf({ chainData: chainData(), jobs: [['validator', poll]] }))).toMatchObject({ versionStakeUnknown: 'the Data API has not been read yet' });
      // nothing to say without chain data configured, or without a network
      expect(RULE_SOURCES.validator.input(updateOf({ jobs: [['validator', poll]] }))).not.toHaveProperty('versionStakeUnknown');
      const { network: _, ...noNetwork } = updateOf({ chainData: chainData(), jobs: [['validator', poll]] });
      expect(RULE_SOURCES.validator.input(noNetwork)).not.toHaveProperty('versionStakeUnknown');
    });

    it('awaits its scope while the fleet view has not reported or the network baseline is awaited; not in one round', () => {
      const awaitingView = (kind: string) => kind === 'observed';
      expect(RULE_SOURCES.validator.input(updateOf({ awaits: awaitingView, jobs: [['validator', poll]] }))).toEqual({ observation: poll.endpoints[0], scopeAwaited: true });
      expect(RULE_SOURCES.validator.input(updateOf({ awaits: (kind) => kind === 'validator', jobs: [['validator', poll]] }))).toEqual({ observation: poll.endpoints[0] });
      const baselineAwaited = observedPoll({ nodeId: 'NodeID-1', views: [], baselineAwaited: true });
      expect(RULE_SOURCES.validator.input(updateOf({ jobs: [['validator', poll], ['observed', baselineAwaited]] }))).toEqual({
        observation: poll.endpoints[0],
        observed: baselineAwaited.endpoints[0]!.detail,
        scopeAwaited: true,
      });
      const baselineHere = observedPoll({ nodeId: 'NodeID-1', views: [] });
      expect(RULE_SOURCES.validator.input(updateOf({ jobs: [['validator', poll], ['observed', baselineHere]] }))).toEqual({ observation: poll.endpoints[0], observed: baselineHere.endpoints[0]!.detail });
      expect(RULE_SOURCES.validator.input(updateOf({ oneRound: true, awaits: awaitingView, jobs: [['validator', poll], ['observed', baselineAwaited]] }))).toEqual({
        observation: poll.endpoints[0],
        observed: baselineAwaited.endpoints[0]!.detail,
        oneRound: true,
      });
    });

    it("has the fleet's view pending when the view ran without a word on this validator, once its NodeID and validation are known", () => {
      const viewRanEmpty = observedPoll();
      const pending = RULE_SOURCES.validator.input(updateOf({ jobs: [['validator', poll], ['observed', viewRanEmpty]] }));
      expect(pending).toEqual({ observation: poll.endpoints[0], viewPending: true });
      // not before the view first ran, not with its word, not in one round, not while the scope is awaited
      expect(RULE_SOURCES.validator.input(updateOf({ jobs: [['validator', poll]] }))).toEqual({ observation: poll.endpoints[0] });
      expect(RULE_SOURCES.validator.input(updateOf({ oneRound: true, jobs: [['validator', poll], ['observed', viewRanEmpty]] }))).toEqual({ observation: poll.endpoints[0], oneRound: true });
      expect(RULE_SOURCES.validator.input(updateOf({ awaits: (kind) => kind === 'observed', jobs: [['validator', poll], ['observed', viewRanEmpty]] }))).toEqual({ observation: poll.endpoints[0], scopeAwaited: true });
      // not for a node whose NodeID or validation its poll did not learn
      for (const partial of [{ primary: PRIMARY }, { nodeId: 'NodeID-1' }]) {
        const unknown = validatorPoll(partial);
        expect(RULE_SOURCES.validator.input(updateOf({ jobs: [['validator', unknown], ['observed', viewRanEmpty]] }))).toEqual({ observation: unknown.endpoints[0] });
      }
    });

    it('is null once the validator poll stopped reporting (its alerts resolve), and counts in the target state', () => {
      expect(RULE_SOURCES.validator.input(updateOf({ jobs: [['node', NODE]] }))).toBeNull();
      expect(RULE_SOURCES.validator.input(updateOf({ jobs: [['validator', observation('validator', endpoint('other'))]] }))).toBeNull();
      expect([RULE_SOURCES.validator.countsInState, RULE_SOURCES.observed.countsInState, RULE_SOURCES.node.countsInState]).toEqual([true, true, undefined]);
    });
  });

  describe("the fleet's view of a validator", () => {
    const validator = validatorPoll({ nodeId: 'NodeID-1', primary: PRIMARY });
    const view = observedPoll({ nodeId: 'NodeID-1', views: [] });

    it('hands the view, the node poll and the validator poll', () => {
      expect(RULE_SOURCES.observed.input(updateOf({ source: 'observed', jobs: [['observed', view], ['node', NODE], ['validator', validator]] }))).toEqual({
        observation: view.endpoints[0],
        node: NODE,
        validator: validator.endpoints[0]!.detail,
      });
      expect(RULE_SOURCES.observed.input(updateOf({ source: 'observed', oneRound: true, jobs: [['observed', view]] }))).toEqual({ observation: view.endpoints[0], oneRound: true });
    });

    it('nothing asked: nothing known before the first validator poll, no validator to ask about after it', () => {
      expect(RULE_SOURCES.observed.input(updateOf({ source: 'observed', jobs: [['node', NODE]] }))).toBeUndefined();
      expect(RULE_SOURCES.observed.input(updateOf({ source: 'observed', jobs: [['validator', validator]] }))).toBeNull();
      expect(RULE_SOURCES.observed.input(updateOf({ source: 'observed', jobs: [['observed', observedPoll()], ['validator', validator]] }))).toBeNull();
    });
  });

  it('each source names the probe kind whose report feeds it', () => {
    expect(Object.fromEntries(RULE_SOURCE_NAMES.map((name) => [name, RULE_SOURCES[name].from]))).toEqual({
      node: 'node',
      service: 'service',
      lag: 'node',
      chain: 'chaindata',
      validator: 'validator',
      observed: 'observed',
      fleet: 'alert pipeline',
    });
  });
});
