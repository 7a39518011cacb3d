/**
 * The rule sources: which report feeds each source's rules, and what they are handed. When a probe
 * kind reports on a target (`SourceUpdate.source`: `node`, `service`, `validator`, … as in the probe
 * registry, or `chaindata` for every target when chain data refreshes), the engine evaluates the
 * rules of every source fed by it, in this order. A new source is one entry here (its input's
 * shape, when new, in ./inputs.ts): `RuleSource` and `RuleInputs` follow from this registry, and
 * the pipeline and the app know no source by name.
 */
import type { ChainDataSnapshot, ChainLag } from '../../model/chaindata.js';
import type { EndpointObservation, TargetObservation } from '../../model/observation.js';
import { OBSERVED_ENDPOINT, observedReport } from '../../model/observed.js';
import { renewalDoubt } from '../../model/reward-vote.js';
import { validatorReport } from '../../model/validator.js';
import type { ChainInput, FleetInput, LagInput, ObservedInput, ValidatorInput } from './inputs.js';

/** One report about one target, as the rules' inputs are derived from it. */
export interface SourceUpdate {
  /** The probe kind that reported (`chaindata` for a chain-data refresh). */
  source: string;
  target: string;
  kind: 'node' | 'service';
  /** A node's network. */
  network?: string;
  /** Every job's endpoints merged; absent while the target has not been polled. */
  observation?: TargetObservation;
  /** The latest observation of each job of the target, by probe kind. */
  jobs: ReadonlyMap<string, TargetObservation>;
  /** The target's height lag per chain (computed by the store when first asked). */
  lags: () => ChainLag[];
  /** The latest chain data, when chain data is configured. */
  chainData?: ChainDataSnapshot;
  /** Whether a probe kind configured for the target has not reported on it yet (e.g. its validator poll right after a start). */
  awaits?: (kind: string) => boolean;
  /**
   * The only round there is (`avahealth check`, the verdict stage's one-round mode): nothing
   * awaited will come, so the rules decide on what this round knows instead of waiting.
   */
  oneRound?: boolean;
}

/**
 * What a source's rules evaluate, derived from an update of the probe kind `from`: `undefined` when
 * there is nothing to evaluate now, `null` when the source stopped reporting on the target (its
 * job was turned off: its alerts resolve at once).
 */
export interface RuleFeed<Input> {
  from: string;
  input(update: SourceUpdate): Input | null | undefined;
  /**
   * While one of its alerts fires, the target is not healthy (warning, or unhealthy when critical:
   * status page, /api/v1, `check`): for facts the target's own health replies do not show.
   */
  countsInState?: boolean;
}

/** One source: what its rules are handed (`Input`) is fixed here. */
const feed = <Input>(source: RuleFeed<Input>): RuleFeed<Input> => source;

export const RULE_SOURCES = {
  /** A node's latest poll (health, readiness, liveness, tag views). */
  node: feed<TargetObservation>({ from: 'node', input: (u) => u.observation }),
  /** A hosted service's latest poll. */
  service: feed<TargetObservation>({ from: 'service', input: (u) => u.observation }),
  // Counted per poll of the node, so a fresh start waits for_polls real polls whatever chain data does meanwhile.
  lag: feed<LagInput>({ from: 'node', input: (u) => (u.chainData && u.observation ? { lags: u.lags(), node: u.observation } : undefined) }),
  /** What chain data says about one node (refreshed on its own schedule). */
  chain: feed<ChainInput>({
    from: 'chaindata',
    input: (u) => {
      // Whether the validation renews comes from the validator poll: wait for its first report.
      if (u.kind !== 'node' || !u.chainData || u.awaits?.('validator')) return undefined;
      const validator = [...u.chainData.validators.values()].find((v) => v.target === u.target);
      const report = validatorReport(validatorObservation(u));
      const primary = report?.primary;
      const doubt = report ? renewalDoubt(report) : undefined;
      return { ...(validator ? { validator } : {}), ...(u.observation ? { node: u.observation } : {}), ...(primary ? { primary } : {}), ...(doubt ? { renewalDoubt: doubt } : {}) };
    },
  }),
  /** A node's latest validator poll (info.* and platform.*; its own interval). */
  validator: feed<ValidatorInput>({
    from: 'validator',
    countsInState: true,
    input: (u) => {
      const observation = validatorObservation(u);
      if (!observation) return null;
      const versionStake = u.network ? u.chainData?.networks.get(u.network)?.versionStake : undefined;
      const versionStakeUnknown = !versionStake && u.network && u.chainData ? versionStakeProblem(u.chainData, u.network) : undefined;
      const observed = observedReport(u.jobs.get(OBSERVED_ENDPOINT)?.endpoints[0]);
      // Scope is decided before the first notification: wait for the fleet's view and the network's
      // first baseline (in one round, what came is all there is).
      const scopeAwaited = !u.oneRound && (u.awaits?.(OBSERVED_ENDPOINT) === true || observed?.baselineAwaited === true);
      const report = validatorReport(observation);
      const viewPending = !u.oneRound && !scopeAwaited && !observed && u.jobs.has(OBSERVED_ENDPOINT) && report?.nodeId !== undefined && report.primary !== undefined;
      const node = u.jobs.get('node');
      return {
        observation,
        ...(node ? { node } : {}),
        ...(versionStake ? { versionStake } : {}),
        ...(versionStakeUnknown ? { versionStakeUnknown } : {}),
        ...(observed ? { observed } : {}),
        ...(scopeAwaited ? { scopeAwaited } : {}),
        ...(viewPending ? { viewPending } : {}),
        ...(u.oneRound ? { oneRound: true } : {}),
      };
    },
  }),
  /** What the fleet's other nodes see of a validator (at its validator interval). */
  observed: feed<ObservedInput>({
    from: OBSERVED_ENDPOINT,
    countsInState: true,
    input: (u) => {
      const observation = u.jobs.get(OBSERVED_ENDPOINT)?.endpoints.find((e) => e.endpoint === OBSERVED_ENDPOINT);
      const validator = validatorReport(validatorObservation(u));
      // Nothing asked: before the validator poll's first report since a (re)start (the NodeID not
      // learnt yet) nothing is known, and its open incidents stay; after it, the node is no validator to ask about.
      if (!observation) return validator ? null : undefined;
      const node = u.jobs.get('node');
      return { observation, ...(node ? { node } : {}), ...(validator ? { validator } : {}), ...(u.oneRound ? { oneRound: true } : {}) };
    },
  }),
  /**
   * The fleet's validators of one network, from their latest verdicts: the alert pipeline feeds it
   * after each verdict of a `scoped` rule (no probe reports it: `from` names none), for a target that
   * is the network itself.
   */
  fleet: feed<FleetInput>({ from: 'alert pipeline', input: () => undefined }),
};

export type RuleSource = keyof typeof RULE_SOURCES;
/** What each source hands its rules, as its entry above says. */
export type RuleInputs = { [S in RuleSource]: (typeof RULE_SOURCES)[S] extends RuleFeed<infer Input> ? Input : never };

/**
 * Why chain data holds no stake per version for the network: its Data API read failed, or none was
 * made yet (undefined when the network was read and its answer has none: nothing to know).
 */
function versionStakeProblem(chainData: ChainDataSnapshot, network: string): string | undefined {
  const prefix = `network ${network}: `;
  const failed = chainData.errors.find((e) => e.startsWith(prefix));
  if (failed) return `the Data API could not be read (${failed.slice(prefix.length)})`;
  return chainData.networks.has(network) ? undefined : 'the Data API has not been read yet';
}

/** The `endpoint="validator"` observation of the target's validator job, when it has one. */
function validatorObservation(u: SourceUpdate): EndpointObservation | undefined {
  return u.jobs.get('validator')?.endpoints.find((e) => e.endpoint === 'validator');
}

export const RULE_SOURCE_NAMES = Object.keys(RULE_SOURCES) as RuleSource[];
