/** What the rule sources hand their rules beyond a target's own observation (./sources.ts names which source hands which). */
import type { EndpointObservation, TargetObservation } from '../../model/observation.js';
import type { ObservedReport } from '../../model/observed.js';
import type { PrimaryValidation, ValidatorReport, VersionStake } from '../../model/validator.js';

export interface LagInput {
  /** Blocks behind the best-known height, per chain the node reports (computed once, by the store). */
  lags: Array<{ chain: string; lagBlocks: number }>;
  /** The node's latest poll (to know whether it is still bootstrapping). */
  node: TargetObservation;
}

export interface ChainInput {
  /** The node's validator record, when it is known. */
  validator?: { nodeId: string; status: string; endTimestamp?: number };
  /** The node's own latest poll (to know whether it is still bootstrapping). */
  node?: TargetObservation;
  /** The node's own validation as its validator poll last reported it (an auto-renewed one says whether it renews). */
  primary?: PrimaryValidation;
  /** Why an auto-renewed validator's renewal is in doubt (model/reward-vote.ts renewalDoubt), when it is. */
  renewalDoubt?: string;
}

export interface ValidatorInput {
  /** The `endpoint="validator"` observation; its `validator` report is absent when the poll failed outright. */
  observation: EndpointObservation;
  /** The node's own latest health poll (does its own node say it is cut off?), when it has one. */
  node?: TargetObservation;
  /** What the fleet's other nodes see of it and its network's baseline (`endpoint="observed"`), when known. */
  observed?: ObservedReport;
  /** Stake per node version on the node's network (Data API), when chain data has it. */
  versionStake?: readonly VersionStake[];
  /** With chain data configured, why the stake per version is not known (never read, or the Data API failed). */
  versionStakeUnknown?: string;
  /**
   * The alert's `scope` cannot be decided yet: the fleet's view of the validator has not come, or
   * its network's first baseline is awaited (bounded by one baseline interval, probes/observed.ts).
   */
  scopeAwaited?: boolean;
  /**
   * The validator's NodeID is known but the fleet's view of it has not been asked yet (the view job
   * ran before the NodeID was learnt): its next run will have it. Rules hold a new verdict a few
   * polls at most for it (validator-facts.ts, scopeWaits).
   */
  viewPending?: boolean;
  /**
   * The only round there is (`avahealth check`): nothing a later poll or baseline read would bring
   * comes, so no verdict waits for one; each is decided on what this round knows.
   */
  oneRound?: boolean;
}

export interface ObservedInput {
  /** The `endpoint="observed"` observation; its `observed` report is absent while the validator's NodeID is unknown. */
  observation: EndpointObservation;
  /** The validator's own latest health poll. */
  node?: TargetObservation;
  /** Its latest validator poll (for the uptime requirement). */
  validator?: ValidatorReport;
  /** `check`'s one round: no later baseline read comes, so nothing waits for one. */
  oneRound?: boolean;
}

/** The fleet's own validators of one network, as their latest verdicts say (fed by the alert pipeline, not by a probe). */
export interface FleetInput {
  /** `mainnet`, `fuji` or the network's ID. */
  network: string;
  /** How many of the network's validators this daemon watches. */
  validators: number;
  /** Those whose latest verdicts say every validator looks down from the fleet (`scope="network"`), with what each says. */
  affected: ReadonlyArray<{ target: string; summaries: readonly string[] }>;
  /** Whether every one of them has had a verdict since the start: until then an unaffected network is not known to be so. */
  complete: boolean;
  /**
   * Whether every one of them has had a verdict since the first was affected (or the longest
   * validator interval has passed): before that the notice could name only some of those it touches.
   */
  settled: boolean;
}
