/**
 * One simulated AvalancheGo node: a health worker that runs its checks once per health period
 * (results are cached in between, like the real node), with the real tag semantics, monotonic
 * readiness, "not yet run" entries and Go's wire formatting.
 */
import { blockchainIdFor, hashString, l1EvmChainIdFor, nodeIdFor, PRIMARY_SUBNET, prng } from './ids.js';
import { formatGoDuration, formatGoTime, GO_ZERO_TIME } from './go-format.js';
import type { ScenarioName } from './scenarios.js';
import { SimNetwork } from './network.js';
import { SIM_HELICON_TIME, SimValidator } from './validator.js';
import { SIM_UNSCHEDULED_TIME, UPGRADES_BEFORE_HELICON } from './validator-facts.js';
import { networkCheckResult, NO_INGRESS_GRACE_MS } from './network-check.js';
import { droppedByPeers, futureUpgradeResult, staleStakeRatio, type UpgradeFacts } from './upgrade.js';

export interface SimNodeOptions {
  name: string;
  scenario?: ScenarioName;
  /** Health-check period (AvalancheGo's --health-check-frequency, 30s on real nodes). */
  periodMs?: number;
  /** Local zone of the node's timestamps, in minutes east of UTC. */
  offsetMinutes?: number;
  /** Adds an L1 chain keyed by its blockchain ID, tagged with its own subnet ID. */
  l1?: boolean;
  /** Delay of the `slow` scenario. */
  slowDelayMs?: number;
  /** Blocks behind the network in the `lagging` scenario. */
  lagBlocks?: number;
  /** Whether the node has validations on record (the simulated Data API serves them). */
  validator?: boolean;
  /** Seconds from now until the current validation ends. */
  validationEndsIn?: number;
  /** Seconds since the current validation (an auto-renewed validator's cycle) started (default 10 days): every measure of it starts then. */
  validationStartedAgo?: number;
  /** Seconds from now until the stake majority's upgrade in the `upgrade-required` scenario (default 5 days). */
  upgradeIn?: number;
  /** --network-no-ingress-connections-grace-period (10 minutes, AvalancheGo's default). */
  ingressGraceMs?: number;
  /** How long the node has run when the simulator starts (a day: past the ingress grace); a restart starts it over. */
  startedAgoMs?: number;
  seed?: number;
  /**
   * The build it runs, when not its scenario's (`avalanchego/1.14.2`: a build from before Helicon,
   * which its upgraded peers drop past the activation; validator-facts.ts SIM_PRE_HELICON_VERSION).
   */
  version?: string;
  /** Shared chains; a node on its own gets a network of its own. */
  network?: SimNetwork;
}

interface CheckEntry {
  message?: unknown;
  error?: string;
  timestamp: string;
  duration: number;
  contiguousFailures?: number;
  timeOfFirstFailure?: string;
}

interface CheckState {
  tags: string[];
  result: { message?: unknown; error?: string };
  lastRunMs?: number;
  durationNs: number;
  contiguousFailures: number;
  firstFailureMs?: number;
}

export interface HealthReply {
  checks: Record<string, CheckEntry>;
  healthy: boolean;
}

const APPLICATION = 'application';
/** The newest upgrade a v1.14.x build knows (GraniteTime on mainnet; a v1.15.x build knows HeliconTime). */
const GRANITE_TIME = Date.parse('2025-11-19T16:00:00Z') / 1000;
const CHURN_CHAIN_SEED = 'churn-l1';

export class SimNode {
  readonly name: string;
  readonly nodeId: string;
  l1ChainId?: string;
  l1SubnetId?: string;
  scenario: ScenarioName;
  /** Conditions that hold besides the scenario (`also`: disk low while cut off, an upgrade due meanwhile…). */
  also: readonly ScenarioName[] = [];
  slowDelayMs: number;
  lagBlocks: number;
  readonly validator: boolean;
  validationEndsAt: number;
  /** `upgrade-required`: when the stake majority switches to an upgrade this node does not know (epoch seconds), and its share. */
  upgradeAt: number;
  /** Under `upgrade-required`: the first of the network's scheduled upgrades its build lacks. */
  private behindFrom?: number;
  upgradeStakePercent = 71.25;
  /** The newest upgrade its build knows (epoch seconds): leaving `upgrade-required` installs the build that knows upgradeAt. */
  localUpgradeAt?: number;
  /** When the node (re)started, epoch ms, and its ingress grace. */
  startedAtMs: number;
  ingressGraceMs: number;
  readonly network: SimNetwork;
  /** info.* and platform.* answers (validator economics). */
  readonly economics: SimValidator;
  /** Requests answered so far, being answered now, and the most there were at once (tests check a client's manners). */
  requests = 0;
  inFlight = 0;
  mostInFlight = 0;
  private readonly periodMs: number;
  private readonly offsetMinutes: number;
  private readonly random: () => number;
  private checks = new Map<string, CheckState>();
  private nextRunMs = 0;
  private period = 0;
  private readinessPassed = false;
  /** Heights as of the last health run, by check name (frozen while the node cannot follow the network). */
  private heights = new Map<string, number>();
  private hugeBody?: Buffer;
  /** When the check being run runs (epoch ms). */
  private runAtMs = Date.now();

  constructor(options: SimNodeOptions) {
    this.name = options.name;
    this.nodeId = nodeIdFor(options.name);
    this.scenario = options.scenario ?? 'healthy';
    this.periodMs = options.periodMs ?? 2_000;
    this.offsetMinutes = options.offsetMinutes ?? 0;
    this.slowDelayMs = options.slowDelayMs ?? 8_000;
    this.lagBlocks = options.lagBlocks ?? 120;
    this.validator = options.validator ?? true;
    this.validationEndsAt = Date.now() / 1000 + (options.validationEndsIn ?? 30 * 86400);
    this.upgradeAt = Math.floor(Date.now() / 1000 + (options.upgradeIn ?? 5 * 86400));
    this.network = options.network ?? new SimNetwork();
    this.ingressGraceMs = options.ingressGraceMs ?? NO_INGRESS_GRACE_MS;
    this.startedAtMs = Date.now() - (options.startedAgoMs ?? 86_400_000);
    this.random = prng(options.seed ?? hashString(options.name));
    if (options.l1) this.trackL1();
    this.economics = new SimValidator(this);
    if (options.version !== undefined) this.economics.build = options.version;
    if (options.validationStartedAgo !== undefined) this.economics.startedAgo(options.validationStartedAgo);
    this.economics.onScenario(this.scenario);
    this.noteScheduledUpgrade();
    this.noteExecution();
    this.restart(Date.now(), this.scenario === 'restarted');
    if (this.scenario === 'huge') this.hugeReply();
  }

  /** An operator restart, optionally adding or dropping the tracked L1 (its check appears or vanishes). */
  restartNode(options: { l1?: boolean; snapshotMs?: number; downSeconds?: number; bootstrapMs?: number; resync?: boolean } = {}, now = Date.now()): void {
    this.economics.onRestart(now, options.snapshotMs, options.downSeconds, options.bootstrapMs, options.resync);
    if (options.l1 === false) {
      delete this.l1ChainId;
      delete this.l1SubnetId;
    } else if (options.l1 === true) this.trackL1();
    this.restart(now, false);
  }

  private trackL1(): void {
    this.l1ChainId = blockchainIdFor(`${this.name}:l1`);
    this.l1SubnetId = blockchainIdFor(`${this.name}:l1-subnet`);
    if (!this.network.chains.has(this.l1ChainId)) {
      this.network.add({ check: this.l1ChainId, evmChainId: l1EvmChainIdFor(this.name), name: `${this.name} L1`, base: 4_410, blockMs: 1_000 });
    }
  }

  /** Whether the node is in `name`: its scenario, or one of the conditions held besides it. */
  has(name: ScenarioName): boolean {
    return this.scenario === name || this.also.includes(name);
  }

  /** The scenario and the conditions held besides it, as one name (`network-down+disk-low`). */
  get conditions(): string {
    return [this.scenario, ...this.also].join('+');
  }

  /**
   * Switches behaviour: to `scenario` with the conditions `also` besides it (none unless given).
   * `bootstrapping` and `restarted` are restarts: readiness starts over.
   */
  setScenario(scenario: ScenarioName, now = Date.now(), also: readonly ScenarioName[] = [], options: { forgotLocalUpgradeTime?: boolean } = {}): void {
    const next = [scenario, ...also];
    const restart = (next.includes('bootstrapping') && !this.has('bootstrapping')) || scenario === 'restarted';
    // The operator installed the build that knows the upgrade (a new version: localUpgradeTime moves on),
    // unless its release forgot to move that constant (node/node.go: edited by hand each release).
    if (this.has('upgrade-required') && !next.includes('upgrade-required')) this.localUpgradeAt = options.forgotLocalUpgradeTime ? this.knownUpgradeAt() : Math.max(this.knownUpgradeAt(), this.upgradeAt);
    this.scenario = scenario;
    this.also = also.filter((name) => name !== scenario);
    this.economics.onScenario(this.conditions);
    this.noteScheduledUpgrade();
    this.noteExecution();
    if (this.has('huge')) this.hugeReply();
    if (restart) {
      this.economics.onRestart(now);
      this.restart(now, true);
    } else {
      this.advance(now);
      this.runChecks(now); // a switch shows at once, as if the period just ended
    }
  }

  /** The registered checks, in the order they appear after a node start. */
  private restart(now: number, chainsNotYetRun: boolean): void {
    if (this.checks.size > 0) this.startedAtMs = now;
    this.checks = new Map();
    this.readinessPassed = false;
    this.period = 0;
    this.heights.clear();
    this.produceBlocks(now);
    const register = (name: string, tags: string[]) =>
      this.checks.set(name, { tags, result: { error: 'not yet run' }, durationNs: 0, contiguousFailures: 0 });
    for (const name of ['bls', 'bootstrapped', 'database', 'diskspace', 'futureupgrade', 'network', 'router']) register(name, [APPLICATION]);
    // Chains register after the health worker started: they stay "not yet run" until the next period.
    for (const chain of ['C', 'P', 'X']) register(chain, [PRIMARY_SUBNET]);
    if (this.l1ChainId) register(this.l1ChainId, [this.l1SubnetId!]);
    for (const [name, state] of this.checks) if (!chainsNotYetRun || state.tags[0] === APPLICATION) this.runCheck(name, state, now);
    this.nextRunMs = now + this.periodMs;
  }

  /** Runs the health worker for every period that has elapsed. */
  advance(now = Date.now()): void {
    let runs = 0;
    while (this.nextRunMs <= now && runs < 1000) {
      this.runChecks(this.nextRunMs);
      this.nextRunMs += this.periodMs;
      runs++;
    }
    if (this.nextRunMs <= now) this.nextRunMs = now + this.periodMs;
  }

  private runChecks(now: number): void {
    this.period++;
    this.produceBlocks(now);
    if (this.has('churn')) this.churnChains();
    for (const [name, state] of this.checks) this.runCheck(name, state, now);
  }

  private produceBlocks(now: number): void {
    if ((this.has('network-down') || this.has('bootstrapping')) && this.heights.size > 0) return;
    const behind = this.has('lagging') ? this.lagBlocks : 0;
    for (const check of ['C', 'P', 'X', ...(this.l1ChainId ? [this.l1ChainId] : [])]) {
      this.heights.set(check, Math.max(0, this.network.height(check, now) - behind));
    }
  }

  private churnChains(): void {
    const id = blockchainIdFor(`${this.name}:${CHURN_CHAIN_SEED}`);
    if (this.checks.has(id)) {
      if (this.random() < 0.3) this.checks.delete(id);
    } else if (this.random() < 0.3) {
      this.checks.set(id, { tags: [blockchainIdFor(`${id}:subnet`)], result: { error: 'not yet run' }, durationNs: 0, contiguousFailures: 0 });
    }
  }

  private runCheck(name: string, state: CheckState, now: number): void {
    this.runAtMs = now;
    state.result = this.evaluate(name);
    state.lastRunMs = now;
    state.durationNs = 1_000 + Math.floor(this.random() * 40_000);
    if (state.result.error !== undefined) {
      state.contiguousFailures++;
      state.firstFailureMs ??= now;
    } else {
      state.contiguousFailures = 0;
      delete state.firstFailureMs;
    }
    if (name === 'bootstrapped' && state.result.error === undefined) this.readinessPassed = true;
  }

  private evaluate(name: string): { message?: unknown; error?: string } {
    const churnFails = this.has('churn') && this.random() < 0.15;
    switch (name) {
      case 'bls':
        return { message: 'node has the correct BLS key' };
      case 'bootstrapped':
        return this.has('bootstrapping')
          ? { message: [PRIMARY_SUBNET, ...(this.l1SubnetId ? [this.l1SubnetId] : [])], error: 'subnets not bootstrapped' }
          : { message: [] };
      case 'database':
        return churnFails ? { error: 'closed' } : {};
      case 'diskspace': {
        const low = this.has('disk-low') || churnFails;
        const percentage = low ? 9 : 38;
        const bytes = Math.round((percentage / 100) * 3_116_800_000_000);
        return low
          ? {
              message: { availableDiskBytes: bytes, availableDiskPercentage: percentage },
              error: `remaining available disk space percentage (${percentage}%) is below warning threshold available space percentage (10%)`,
            }
          : { message: { availableDiskBytes: bytes, availableDiskPercentage: percentage } };
      }
      case 'futureupgrade':
        return futureUpgradeResult(this.upgradeFacts(), this.runAtMs / 1000);
      case 'network':
        return networkCheckResult({
          down: this.has('network-down') || churnFails,
          inboundClosed: this.has('inbound-closed'),
          primaryNetworkValidator: this.economics.isPrimaryValidator,
          upMs: this.runAtMs - this.startedAtMs,
          graceMs: this.ingressGraceMs,
          period: this.period,
          periodMs: this.periodMs,
          random: this.random,
        });
      case 'router':
        return { message: { longestRunningRequest: formatGoDuration(this.random() * 0.005), outstandingRequests: Math.floor(this.random() * 12) } };
      default:
        return this.chainResult(name, churnFails);
    }
  }

  /** `execution-stalled`: the height execution stopped at (undefined while it keeps up). */
  private stalledExecutionAt?: number;

  private noteExecution(): void {
    if (!this.has('execution-stalled')) delete this.stalledExecutionAt;
    else this.stalledExecutionAt ??= this.heights.get('C') ?? this.network.height('C');
  }

  /**
   * What eth_blockNumber on /ext/bc/C/rpc answers: `latest`, the last executed block on the SAE
   * C-Chain (vms/saevm/blocks/access.go ResolveRPCNumber; vms/saevm/sae/consensus.go enqueues each
   * accepted block for execution). Executed as accepted, unless `execution-stalled` stopped it.
   */
  executedHeight(): number {
    this.advance();
    return this.stalledExecutionAt ?? this.heights.get('C') ?? this.network.height('C');
  }

  /**
   * `upgrade-required`: a release scheduled the upgrade this node's build does not know, for the
   * network's other builds (SimNetwork.scheduleUpgrade): its build lacks that one and every upgrade
   * that activates at or after it, and knows the earlier ones.
   */
  private noteScheduledUpgrade(): void {
    if (this.has('upgrade-required')) this.behindFrom = this.network.scheduleUpgrade(this.name, this.upgradeAt);
    else delete this.behindFrom;
  }

  /**
   * Its build's upgrade.Config, as info.upgrades answers it (api/info/service.go Upgrades,
   * upgrade/upgrade.go): a v1.14 build reads Helicon unscheduled (UnscheduledActivationTime); a build
   * that knows the network's next upgrade has a field for it (upgrade/new_upgrade_checklist.md),
   * one left behind (`upgrade-required`, a v1.14 build) has none. `version-behind` (v1.15.0) knows
   * what its release knew: Helicon, and an upgrade scheduled since by a later release it lacks only
   * when it is in `upgrade-required` too.
   */
  upgradeSchedule(): Record<string, unknown> {
    const old = !this.economics.knowsHelicon;
    const schedule: Record<string, unknown> = { ...UPGRADES_BEFORE_HELICON, heliconTime: old ? SIM_UNSCHEDULED_TIME : SIM_HELICON_TIME };
    if (old) return schedule;
    // Network upgrades activate in the order of their times, so a build that lacks one lacks every later one.
    const behindAt = this.behindAt();
    for (const upgrade of this.network.scheduledUpgrades) if (upgrade.at < behindAt) schedule[upgrade.key] = formatGoTime(upgrade.at * 1000);
    return schedule;
  }

  /**
   * Why this node's build cannot lack a network upgrade at `at` (epoch seconds), or undefined.
   * AvalancheGo's upgrades activate in the order releases schedule them (upgrade/upgrade.go), so a
   * build that knows an upgrade knows every earlier one, and a running build's schedule changes only
   * with a new version (a restart): a node whose build knows an upgrade after `at` cannot be left
   * behind by one at `at` (one at the same time is the same release's).
   */
  cannotLackUpgradeAt(at: number): string | undefined {
    const behindAt = this.behindAt();
    // Its own scheduled upgrade is the one it lacks while left behind, and one its build knows once it left.
    const known = this.economics.knowsHelicon ? this.network.scheduledUpgrades.filter((u) => u.at < behindAt && (u.by !== this.name || this.behindFrom === undefined)).map((u) => u.at) : [];
    if (this.localUpgradeAt !== undefined) known.push(this.localUpgradeAt);
    const later = known.filter((t) => t > at);
    if (later.length === 0) return undefined;
    return `${this.name}'s build knows a network upgrade at ${formatGoTime(Math.max(...later) * 1000)}, so it knows every earlier one: it cannot lack one at ${formatGoTime(at * 1000)} (AvalancheGo schedules upgrades in order; a build changes only with a restart onto a new version)`;
  }

  /** When the first scheduled upgrade its build lacks activates (Infinity: it lacks none). */
  private behindAt(): number {
    return this.behindFrom !== undefined ? this.network.scheduledUpgrades[this.behindFrom]!.at : Infinity;
  }

  /** The newest upgrade its build knows: HeliconTime for a v1.15 build (node/node.go), GraniteTime for v1.14. */
  private knownUpgradeAt(): number {
    return this.localUpgradeAt ?? (this.economics.knowsHelicon ? Date.parse(SIM_HELICON_TIME) / 1000 : GRANITE_TIME);
  }

  /**
   * What its futureupgrade check and its peers go by: `upgrade-required`'s upgrade; else, for a build
   * from before Helicon, Helicon itself, which most stake's builds know (past its time its upgraded
   * peers drop it: version/constants.go MinimumCompatibleVersion 1.15.0 on v1.15, network/peer/peer.go).
   */
  private upgradeFacts(): UpgradeFacts {
    const requiredAt = this.has('upgrade-required') ? this.upgradeAt : this.economics.knowsHelicon || this.localUpgradeAt !== undefined ? undefined : Date.parse(SIM_HELICON_TIME) / 1000;
    return { localAt: this.knownUpgradeAt(), ...(requiredAt !== undefined ? { requiredAt } : {}), stakePercent: this.upgradeStakePercent, alone: this.has('network-down') };
  }

  private chainResult(name: string, churnFails: boolean): { message: unknown; error?: string } {
    const isL1 = name !== 'C' && name !== 'P' && name !== 'X';
    const height = this.heights.get(name) ?? this.network.height(name);
    // A node its upgraded peers dropped (./upgrade.ts) is connected to the stale stake only.
    const facts = this.upgradeFacts();
    const dropped = droppedByPeers(facts, this.runAtMs / 1000) ? staleStakeRatio(facts) : undefined;
    // With no peer, a node still counts itself connected (snow/networking/router/chain_router.go "Mark myself as
    // connected"; snow/engine/common/tracker/peers.go): a validator's percentConnected is its own share, never 0.
    const alone = () => (this.economics.holdsStake ? this.economics.ownStakeRatio() : 0);
    // In a network-wide dip its chains see what it is still connected to (sim/observed.ts), at the next health run.
    const dip = isL1 ? undefined : this.network.validators.dipConnectedRatio({ nodeName: this.name, nodeId: this.nodeId });
    const stake = this.has('network-down') ? (isL1 ? 0 : alone()) : isL1 ? 1 : Math.min(dropped ?? 0.9987312046551713, dip ?? 1);
    const disconnected = stake === 1 ? [] : ['NodeID-74WBanSkJPoyUFEaZZH5Su79HUuiPTNx', 'NodeID-9MmzdcZ3rPJgrf5LkHJjzKRfTdeTTyhod'];
    const slowBlock = (this.has('flapping') && name === 'C' && this.period % 2 === 1) || (churnFails && name === 'C');
    const consensus =
      this.has('bootstrapping')
        ? {}
        : {
            lastAcceptedHeight: height,
            lastAcceptedID: blockchainIdFor(`${name}:${height}`),
            longestProcessingBlock: slowBlock ? '31.204118s' : formatGoDuration(this.random() < 0.7 ? 0 : this.random() * 0.5),
            processingBlocks: slowBlock ? 3 : Math.floor(this.random() * 2),
          };
    const message = {
      engine: { consensus, vm: isL1 ? { database: null, health: null } : null },
      networking: { disconnectedValidators: disconnected, percentConnected: stake },
    };
    const errors: string[] = [];
    if (slowBlock) errors.push('engine: block processing too long: 31.204118s > 30s');
    if (stake < 0.8) errors.push(`networking: not connected to enough stake: connected to ${(stake * 100).toFixed(6)}%; required at least 80.000000%`);
    if (errors.length === 0) return { message };
    // A single failing part is reported bare, both parts as "engine: …; networking: …".
    return { message, error: errors.length === 1 ? errors[0]!.replace(/^(engine|networking): /, '') : errors.join('; ') };
  }

  /** The reply of /ext/health (and health.health) for the given tags: union of tags plus application checks. */
  health(tags: string[] | undefined, now = Date.now()): HealthReply {
    this.advance(now);
    const selected = [...this.checks].filter(([, state]) => !tags || tags.length === 0 || state.tags.includes(APPLICATION) || state.tags.some((t) => tags.includes(t)));
    return this.reply(selected);
  }

  /** Only `bootstrapped`, and monotonic: once it passed it stays passing with the cached `[]`. */
  readiness(now = Date.now()): HealthReply {
    this.advance(now);
    const state = this.checks.get('bootstrapped')!;
    const cached: CheckState = this.readinessPassed ? { ...state, result: { message: [] }, contiguousFailures: 0 } : state;
    if (this.readinessPassed) delete cached.firstFailureMs;
    return this.reply([['bootstrapped', cached]]);
  }

  liveness(): HealthReply {
    return { checks: {}, healthy: true };
  }

  /**
   * A multi-MiB reply for the `huge` scenario, built once as bytes when the scenario is set: building
   * it takes the event loop for a while (long on a loaded machine), which must not happen while the
   * monitor's probes are waiting on this process for their answers.
   */
  hugeReply(): Buffer {
    if (this.hugeBody) return this.hugeBody;
    const ids = Array.from({ length: 512 }, (_, i) => nodeIdFor(`v${i}`));
    this.hugeBody = Buffer.from(JSON.stringify({
      checks: {
        C: {
          message: {
            engine: { consensus: { lastAcceptedHeight: 1, lastAcceptedID: 'x', longestProcessingBlock: '0s', processingBlocks: 0 }, vm: null },
            networking: { disconnectedValidators: Array.from({ length: 150_000 }, (_, i) => ids[i % ids.length]), percentConnected: 0.5 },
          },
          timestamp: formatGoTime(Date.now()),
          duration: 1,
        },
      },
      healthy: false,
    }));
    return this.hugeBody;
  }

  private reply(selected: Array<[string, CheckState]>): HealthReply {
    const checks: Record<string, CheckEntry> = {};
    let healthy = true;
    for (const [name, state] of selected.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
      const entry: CheckEntry = {} as CheckEntry;
      if (state.result.message !== undefined) entry.message = state.result.message;
      if (state.result.error !== undefined) {
        entry.error = state.result.error;
        healthy = false;
      }
      entry.timestamp = state.lastRunMs === undefined ? GO_ZERO_TIME : formatGoTime(state.lastRunMs, this.offsetMinutes, state.durationNs % 1_000_000);
      entry.duration = state.durationNs;
      if (state.contiguousFailures > 0 && state.lastRunMs !== undefined) entry.contiguousFailures = state.contiguousFailures;
      if (state.firstFailureMs !== undefined) entry.timeOfFirstFailure = formatGoTime(state.firstFailureMs, this.offsetMinutes);
      checks[name] = entry;
    }
    return { checks, healthy };
  }
}
