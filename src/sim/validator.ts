/**
 * What a simulated node says about its money: `info.*` on /ext/info and `platform.*` on /ext/bc/P,
 * with AvalancheGo's real shapes (floats as "99.0000", uint64 as strings, RFC 3339 times, the
 * "node is not a validator" error, gorilla/rpc's "can't find method"). The validator scenarios
 * (reward-at-risk, l1-balance-low, l1-inactive, version-behind, not-validator, …) live here.
 */
import { blockchainIdFor } from './ids.js';
import { formatGoTime } from './go-format.js';
import { simPeers } from './peers.js';
import type { ObservedMember, SetFigures, SimValidatorSet } from './observed.js';
import { SimPeriods } from './periods.js';
import { l1Entries, type L1Entry } from './l1-entries.js';

export * from './validator-facts.js';
import { ACP267_UPTIME_REQUIREMENT, SIM_UPTIME_REQUIREMENT } from './observed.js';
import { DAY, knowsHelicon, REWARD_AT_RISK_FIGURES, rpcProtocolOf, SIM_CURRENT_VERSION, SIM_FEE_PRICE, SIM_HELICON_TIME, SIM_L1_BALANCE, SIM_OLD_VERSION, SIM_POPULAR_DELEGATORS, SIM_RESTART_SNAPSHOT_MS, SIM_UNSCHEDULED_TIME, UPGRADES_BEFORE_HELICON } from './validator-facts.js';

/** The node facts the validator APIs answer from (a SimNode provides them). */
export interface SimValidatorNode {
  readonly name: string;
  readonly nodeId: string;
  readonly scenario: string;
  /** The scenario and the conditions held besides it, as one name (`auto-renewing+disk-low`). */
  readonly conditions: string;
  /** Whether the node is in the scenario `name` (its own or one held besides it). */
  has(name: string): boolean;
  readonly validator: boolean;
  validationEndsAt: number;
  readonly l1SubnetId?: string;
  readonly l1ChainId?: string;
  /** The Primary Network's validators as each node sees them (shared by the nodes of one network). */
  readonly network: { readonly validators: SimValidatorSet };
  /** Its build's upgrade.Config (info.upgrades); without it, the schedule of its version alone. */
  upgradeSchedule?(): Record<string, unknown>;
}

/** info.getNetworkID's answer per node: 1 (mainnet) unless set through the control API (`networkId`). */
const DEFAULT_NETWORK_ID = 1;
const HUGE_UINT64 = '100000000000000000000';
const DEEP_LEVELS = 6_000;

/** `rawResult`: JSON text sent as the result as is (shapes goJson cannot write, e.g. 6,000 levels deep). */
export type RpcOutcome = { result: unknown } | { rawResult: string } | { error: { code: number; message: string } };

/** Per-node validator state that outlives a request: the period start and the L1 balance. */
export class SimValidator implements ObservedMember {
  /** Epoch seconds: ten days into the period when the simulator starts. */
  validationStartsAt: number;
  private rewardingSet?: number;
  private weightedSet?: number;
  /** info.getNetworkID's answer (1 mainnet, 5 fuji, else a local network). */
  networkId = DEFAULT_NETWORK_ID;
  /** The auto-renewing scenario's next cycle, seconds. */
  nextPeriodSeconds = 14 * DAY;
  /** Delegators of the popular-validator scenario. */
  delegators = SIM_POPULAR_DELEGATORS;
  /** How long info.uptime reads as a restart's snapshot after a restart (set with the restart). */
  restartSnapshotMs = SIM_RESTART_SNAPSHOT_MS;
  /** When the node last restarted (epoch ms), for the snapshot. */
  private restartedAt?: number;
  /**
   * How long after a restart info.uptime answers the bootstrap error (v1.15, #5734), as a share of
   * the snapshot: the network runs, peers connect and ping meanwhile, so the first answer lands
   * mid-climb. A restart may set it in ms.
   */
  restartBootstrapMs?: number;
  /**
   * The last restart began from an empty database (a resync): until its P-Chain is bootstrapped the
   * node's validator set and lists are of the height it has replayed, before this validation.
   */
  private resynced = false;
  /** The methods called, oldest first (the last 1000): tests count the cost of a poll. */
  readonly calls: string[] = [];
  /** The params of each call, beside `calls` (tests check what was asked). */
  readonly params: unknown[] = [];
  private balance = SIM_L1_BALANCE;
  private balanceAt = Date.now() / 1000;
  /** This node's further L1 validations (after the first), each draining like it: set with `l1Balances`. */
  private moreL1: Array<{ balance: number; at: number }> = [];

  /** The validation's periods: what happens at its end (sim/periods.ts). */
  readonly periods: SimPeriods;

  /** Its --uptime-requirement (the base; 0.8 on mainnet and Fuji, genesis/genesis_mainnet.go), settable as a custom network's. */
  uptimeRequirement = SIM_UPTIME_REQUIREMENT;
  /** The IP:port info.getNodeIP answers (documentation range, RFC 5737), per node. */
  publicIp: string;
  /**
   * The build it runs when given explicitly (`avalanchego/1.14.2`: a build from before Helicon,
   * validator-facts.ts SIM_PRE_HELICON_VERSION); else its scenario's (version-behind or current).
   */
  build?: string;

  constructor(private readonly node: SimValidatorNode, now = Date.now() / 1000) {
    this.validationStartsAt = Math.floor(now - 10 * DAY);
    this.publicIp = `203.0.113.${(Number.parseInt(node.nodeId.slice(-6).replace(/[^0-9a-f]/gi, '0'), 36) % 250) + 2}:9651`;
    this.periods = new SimPeriods(
      {
        name: node.name,
        // Each validator's own measure (sim/observed.ts), set figures played as those measures.
        commits: (now) => node.network.validators.voteCommits(this, now * 1000),
        nextPeriodSeconds: () => (node.has('auto-renewing') ? this.nextPeriodSeconds : node.has('auto-renew-exiting') ? 0 : undefined),
      },
      this.validationStartsAt,
      node.validationEndsAt,
    );
    node.network.validators.join(this);
  }

  /**
   * The period as it stands at `now` (its end played when due). A new end set through the control
   * API moves the current period's end, or, once the validation was removed, starts a new one.
   */
  settlePeriods(now = Date.now() / 1000): void {
    const periods = this.periods;
    const end = Math.floor(this.node.validationEndsAt);
    if (periods.current && periods.current.endTime !== end && end > now) periods.current.endTime = end;
    else if (!periods.current && end > now) periods.start(now, end);
    periods.settle(now);
    if (periods.current) {
      // A new validation, or an auto-renewed validator's next cycle: every measure of it starts at zero (state.go writeCurrentStakers).
      const restarted = periods.current.startTime !== this.validationStartsAt;
      this.validationStartsAt = periods.current.startTime;
      this.node.validationEndsAt = periods.current.endTime;
      if (restarted) this.node.network.validators.restartMeasure(this, periods.current.startTime, now * 1000);
    }
  }

  /** The current period (cycle) started `seconds` ago: its measure started then (control API `validationStartedAgo`). */
  startedAgo(seconds: number, now = Date.now() / 1000): void {
    const current = this.periods.current;
    if (!current) return;
    current.startTime = Math.floor(now - seconds);
    this.validationStartsAt = current.startTime;
    this.node.network.validators.restartMeasure(this, current.startTime, now * 1000);
  }

  /**
   * The requirement this node applies to a validation starting at `startTime`: its base, or 0.9 when
   * its build's schedule has Helicon active then (ACP-267: network/network.go and
   * vms/platformvm/block/executor/options.go use the node's own upgrade config); a v1.14 build has
   * Helicon unscheduled.
   */
  requirementFor(startTime: number): number {
    const helicon = this.knowsHelicon ? Date.parse(SIM_HELICON_TIME) / 1000 : undefined;
    return helicon !== undefined && startTime >= helicon ? ACP267_UPTIME_REQUIREMENT : this.uptimeRequirement;
  }

  /**
   * info.uptime's figures, percent, set through the control API (else the scenario's): played as its
   * peers' measures (sim/observed.ts playFigures), which the reward vote then follows.
   */
  get rewardingStakePercent(): number | undefined {
    return this.rewardingSet;
  }

  set rewardingStakePercent(percent: number | undefined) {
    this.rewardingSet = percent;
    this.playFigures();
  }

  get weightedAveragePercent(): number | undefined {
    return this.weightedSet;
  }

  set weightedAveragePercent(percent: number | undefined) {
    this.weightedSet = percent;
    this.playFigures();
  }

  /** The figures in force: those set, else the reward-at-risk scenario's. */
  private setFigures(): SetFigures | undefined {
    const atRisk = this.node.has('reward-at-risk');
    const rewarding = this.rewardingSet ?? (atRisk ? REWARD_AT_RISK_FIGURES.rewarding : undefined);
    const weighted = this.weightedSet ?? (atRisk ? REWARD_AT_RISK_FIGURES.weighted : undefined);
    return rewarding === undefined && weighted === undefined ? undefined : { ...(rewarding !== undefined ? { rewarding } : {}), ...(weighted !== undefined ? { weighted } : {}) };
  }

  private playFigures(now = Date.now()): void {
    this.node.network.validators.playFigures(this, this.setFigures(), now);
  }

  /** Own stake plus delegations (the entry's weight + delegatorWeight), nAVAX. */
  get weightNAvax(): number {
    return 2_000_000_000_000 + this.delegatorCount * 30_000_000_000;
  }

  get periodStart(): number {
    return this.validationStartsAt;
  }

  private get delegatorCount(): number {
    return this.node.has('popular-validator') ? this.delegators : 4;
  }

  get nodeName(): string {
    return this.node.name;
  }

  get nodeId(): string {
    return this.node.nodeId;
  }

  /** The node's scenario and the conditions held besides it (`network-down+disk-low`). */
  get scenario(): string {
    return this.node.conditions;
  }

  /** A scenario switch (to `conditions`: `a+b` when two hold) sets the balance the scenario is about. */
  onScenario(conditions: string, now = Date.now() / 1000): void {
    this.node.network.validators.onScenario(this, conditions, now * 1000);
    this.playFigures(now * 1000);
    const names = conditions.split('+');
    if (names.includes('l1-balance-low')) this.setL1Balance(Math.round(2.3 * DAY * SIM_FEE_PRICE), now);
    else if (names.includes('l1-inactive')) this.setL1Balance(0, now);
    else if (this.l1BalanceNAvax(now) === 0 || this.balance < SIM_L1_BALANCE / 2) this.setL1Balance(SIM_L1_BALANCE, now);
  }

  setL1Balance(nAvax: number, now = Date.now() / 1000): void {
    this.balance = Math.max(0, Math.floor(nAvax));
    this.balanceAt = now;
  }

  /** The balances of this node's L1 validations, first one first: more than one makes the node validate the L1 that many times. */
  setL1Balances(nAvax: number[], now = Date.now() / 1000): void {
    if (nAvax.length > 0) this.setL1Balance(nAvax[0]!, now);
    this.moreL1 = nAvax.slice(1).map((balance) => ({ balance: Math.max(0, Math.floor(balance)), at: now }));
  }

  /** The ID of this node's L1 validation number `i` (0: the first). */
  l1ValidationIdOf(i: number): string {
    return i === 0 ? this.l1ValidationId : blockchainIdFor(`${this.node.name}:l1-validation-${i}`);
  }

  /** The balance drains by the fee price every second while it is active. */
  l1BalanceNAvax(now = Date.now() / 1000): number {
    return Math.max(0, Math.floor(this.balance - SIM_FEE_PRICE * Math.max(0, now - this.balanceAt)));
  }

  get l1ValidationId(): string {
    return blockchainIdFor(`${this.node.name}:l1-validation`);
  }

  get version(): string {
    return this.build ?? (this.node.has('version-behind') ? SIM_OLD_VERSION : SIM_CURRENT_VERSION);
  }

  /** Whether its build knows Helicon (v1.15.0 and later): a v1.14 build reads it unscheduled (upgrade/upgrade.go). */
  get knowsHelicon(): boolean {
    return knowsHelicon(this.version);
  }

  /** The info API is switched off (HTTP 404). */
  get infoApiOff(): boolean {
    return this.node.has('info-api-disabled') || this.node.has('node-id-unknown');
  }

  /** isPrimaryValidator without settling a period that ended (settling asks the set for info.uptime). */
  get holdsStake(): boolean {
    return this.node.validator && !this.node.has('not-validator') && this.periods.current !== undefined;
  }

  get isPrimaryValidator(): boolean {
    if (this.node.validator && !this.node.has('not-validator')) this.settlePeriods();
    return this.holdsStake;
  }

  /**
   * A restart: info.uptime starts over as a snapshot (uptimeSnapshot). `downSeconds`: the node was
   * stopped that long before it started again, and its peers measured it down meanwhile.
   */
  onRestart(now = Date.now(), snapshotMs?: number, downSeconds?: number, bootstrapMs?: number, resync = false): void {
    this.restartedAt = now;
    if (snapshotMs !== undefined) this.restartSnapshotMs = snapshotMs;
    this.restartBootstrapMs = bootstrapMs;
    this.resynced = resync;
    if (downSeconds !== undefined && downSeconds > 0 && this.holdsStake) this.node.network.validators.stoppedFor(this, downSeconds, now);
  }

  /** Its weight's share of the Primary Network's (0–1). */
  ownStakeRatio(): number {
    return this.node.network.validators.ownStakePercent(this) / 100;
  }

  /**
   * Whether info.uptime still answers the bootstrap error: on AvalancheGo v1.15 the uptime
   * calculator is locked until the P-Chain is bootstrapped (snow/uptime/locked_calculator.go,
   * errStillBootstrapping), so NodeUptime fails fetching the node's own start time
   * (network/network.go) and info.uptime answers "couldn't get node uptime: …"
   * (api/info/service.go). By default for the first BOOTSTRAP_SHARE of the snapshot.
   */
  inRestartBootstrap(now = Date.now()): boolean {
    return this.bootstrapping(now) && !this.resynced;
  }

  /**
   * Whether its P-Chain is still bootstrapping after a restart (a v1.15 node, or any resync): its
   * Pings say 0 for everyone meanwhile (sim/observed.ts), and info.isBootstrapped says false.
   */
  bootstrapping(now = Date.now()): boolean {
    if (this.restartedAt === undefined || !(this.knowsHelicon || this.resynced)) return false;
    return now - this.restartedAt < (this.restartBootstrapMs ?? this.restartSnapshotMs * BOOTSTRAP_SHARE);
  }

  /** Resynced and still bootstrapping: the P-Chain it answers from is of a height before this validation. */
  private replaying(now = Date.now()): boolean {
    return this.resynced && this.bootstrapping(now);
  }

  /** Whether info.uptime still answers a restart's snapshot. */
  inRestartSnapshot(now = Date.now()): boolean {
    return this.restartedAt !== undefined && now - this.restartedAt < this.restartSnapshotMs;
  }

  /**
   * While peers reconnect after a restart, the window their first Pings arrive in: none for the
   * first half of the snapshot, then one per peer, at a moment drawn from the pair, until its end
   * (network/peer/peer.go: the first Ping one ping period, 22.5 s, after a peer connected).
   */
  firstPings(now = Date.now()): { from: number; spreadMs: number } | undefined {
    if (!this.inRestartSnapshot(now)) return undefined;
    return { from: this.restartedAt! + this.restartSnapshotMs / 2, spreadMs: this.restartSnapshotMs / 2 };
  }

  /**
   * info.uptime as AvalancheGo computes it (network/network.go, NodeUptime): own stake counted 100 %
   * and rewarding, each connected validator with the uptime of its last Ping (network/peer/peer.go,
   * handlePing), a validator not connected or not yet pinged 0 % and not rewarding. After a restart
   * the figures climb in steps, one per peer's first Ping (firstPings), from the own share back to
   * what the peers measure; figures set by a scenario climb by the share of stake that has pinged.
   */
  infoUptime(now = Date.now()): { rewarding: number; weighted: number } {
    return this.uptimePercents(now, true);
  }

  /**
   * info.uptime as its peers' measures give it (sim/observed.ts, nodeUptime: network/network.go),
   * unless figures are set (the reward-at-risk scenario's, or the control API's); never below the
   * node's own share of the stake, which it always counts at 100 % and rewarding. The Data API's
   * uptimePerformance follows the weighted figure. `asItSees`: as the node's own info.uptime reads
   * it (after a restart, only the peers that pinged since count).
   */
  uptimePercents(now = Date.now(), asItSees = false): { rewarding: number; weighted: number } {
    const set = this.node.network.validators;
    const measured = set.nodeUptime(this, now, asItSees) ?? { rewarding: 100, weighted: 100 };
    const own = set.ownStakePercent(this);
    const figures = this.setFigures();
    const rewardingSet = figures?.rewarding;
    const weightedSet = figures?.weighted;
    const pinged = asItSees && (rewardingSet !== undefined || weightedSet !== undefined) ? set.pingedShare(this, now) : 1;
    const climbed = (figure: number) => own + (figure - own) * pinged;
    return {
      rewarding: Math.max(own, rewardingSet !== undefined ? climbed(rewardingSet) : measured.rewarding),
      weighted: Math.max(own, weightedSet !== undefined ? climbed(weightedSet) : measured.weighted),
    };
  }

  /** One JSON-RPC call on /ext/info or /ext/bc/P; `not-found` when that API is switched off (HTTP 404). */
  answer(path: string, method: string, params: unknown, now = Date.now() / 1000): RpcOutcome | 'not-found' {
    this.calls.push(method);
    this.params.push(params);
    if (this.calls.length > 1000) this.calls.splice(0, this.calls.length - 1000);
    if (this.params.length > 1000) this.params.splice(0, this.params.length - 1000);
    if (path === '/ext/info' && this.infoApiOff) return 'not-found';
    this.settlePeriods(now);
    const [service, name = ''] = method.split('.');
    const p = (typeof params === 'object' && params !== null && !Array.isArray(params) ? params : {}) as Record<string, unknown>;
    const handler = path === '/ext/info' && service === 'info' ? this.info(name, p) : path === '/ext/bc/P' && service === 'platform' ? this.platform(name, p, now) : undefined;
    if (handler === undefined) return rpcError(`rpc: can't find method "${service}.${name.charAt(0).toUpperCase()}${name.slice(1)}"`);
    return handler;
  }

  private info(name: string, params: Record<string, unknown>): RpcOutcome | undefined {
    const badShape = this.node.has('validator-bad-shape');
    switch (name) {
      case 'isBootstrapped': {
        // api/info/service.go IsBootstrapped: the chain by alias or ID (chains/manager.go Lookup), in normal operation or not.
        const chain = typeof params.chain === 'string' ? params.chain : '';
        if (chain === '') return rpcError("argument 'chain' not given");
        if (!['P', 'X', 'C', this.node.l1ChainId].includes(chain)) return rpcError(`there is no chain with alias/ID '${chain}'`);
        return { result: { isBootstrapped: !this.bootstrapping() } };
      }
      case 'getNodeID':
        return { result: { nodeID: this.node.nodeId, nodePOP: { publicKey: `0x${'8f'.repeat(48)}`, proofOfPossession: `0x${'86'.repeat(96)}` } } };
      case 'uptime': {
        // A resync's validator set is the replayed height's: without this node, so NodeUptime stops at
        // errNotValidator before it reads its start time (network/network.go).
        if (this.replaying()) return rpcError('node is not a validator');
        if (this.inRestartBootstrap()) return rpcError(UPTIME_BOOTSTRAPPING_ERROR);
        if (!this.isPrimaryValidator) return rpcError('node is not a validator');
        const { rewarding, weighted } = this.infoUptime();
        if (this.node.has('validator-deep-json')) {
          return { rawResult: `{"rewardingStakePercentage":${'['.repeat(DEEP_LEVELS)}${']'.repeat(DEEP_LEVELS)},"weightedAveragePercentage":"${weighted.toFixed(4)}"}` };
        }
        return { result: { rewardingStakePercentage: badShape ? '172.5000' : rewarding.toFixed(4), weightedAveragePercentage: weighted.toFixed(4) } };
      }
      case 'getNodeVersion': {
        const v = this.version.split('/')[1]!;
        return { result: { version: this.version, databaseVersion: 'v1.4.5', rpcProtocolVersion: rpcProtocolOf(this.version), gitCommit: '6b2f3c1f4dfb5a9e1d0a1b6c5e3b8a7d9c0f1e2d', vmVersions: { avm: `v${v}`, evm: 'v0.15.2', platform: `v${v}` } } };
      }
      case 'upgrades':
        return { result: this.node.upgradeSchedule?.() ?? { ...UPGRADES_BEFORE_HELICON, heliconTime: this.knowsHelicon ? SIM_HELICON_TIME : SIM_UNSCHEDULED_TIME } };
      case 'getNetworkID':
        return { result: { networkID: String(this.networkId) } };
      case 'getNodeIP':
        // api/info/service.go GetNodeIP: the IP:port it advertises (netip.AddrPort as text); the control API's `publicIp` moves it, as
        // --public-ip-resolution-service does when the resolver reads a new address (utils/dynamicip/updater.go).
        return { result: { ip: this.publicIp } };
      case 'peers':
        return { result: simPeers(this.node, SIM_CURRENT_VERSION, SIM_OLD_VERSION, Date.now(), this.node.network.validators.validatorPeers(this)) };
      default:
        return undefined;
    }
  }

  private platform(name: string, params: Record<string, unknown>, now: number): RpcOutcome | undefined {
    switch (name) {
      case 'getCurrentValidators': {
        const nodeIds = Array.isArray(params.nodeIDs) ? params.nodeIDs : undefined;
        const wanted = (nodeId: string) => !nodeIds || nodeIds.includes(nodeId);
        const subnetId = typeof params.subnetID === 'string' ? params.subnetID : undefined;
        if (subnetId !== undefined && subnetId !== '11111111111111111111111111111111LpoYY') {
          if (subnetId !== this.node.l1SubnetId || this.replaying(now * 1000)) return { result: { validators: [] } };
          return { result: { validators: this.l1Entries(now).filter((e) => wanted(e.nodeID)) } };
        }
        const validators = this.node.network.validators.view(this, nodeIds, now * 1000);
        // Resyncing: the P-Chain state of a height before this validation (vms/platformvm/state/state.go).
        return { result: { validators: this.replaying(now * 1000) ? validators.filter((v) => v.nodeID !== this.node.nodeId) : validators } };
      }
      case 'getTotalStake': {
        // vms/platformvm/service.go GetTotalStake: the total weight, also sent as the deprecated `stake`.
        const weight = String(this.node.network.validators.totalWeight());
        return { result: { stake: weight, weight } };
      }
      case 'getL1Validator': {
        const entry = this.l1Entries(now).find((e) => e.validationID === params.validationID);
        if (!entry) return rpcError(`couldn't get L1 validator: not found`);
        return { result: { subnetID: this.node.l1SubnetId, ...entry, height: '3' } };
      }
      case 'getRewardUTXOs': {
        // vms/platformvm/service.go: numFetched, utxos (hex with checksum), encoding.
        if (typeof params.txID !== 'string') return { error: { code: -32000, message: "couldn't get reward UTXOs: invalid txID" } };
        const utxos = this.periods.rewardUtxos(params.txID);
        return { result: { numFetched: String(utxos.length), utxos, encoding: 'hex' } };
      }
      case 'getValidatorFeeState': {
        const state = { excess: 26956, price: SIM_FEE_PRICE, timestamp: formatGoTime(Math.floor(now) * 1000) };
        if (this.node.has('validator-bad-shape')) return { result: { excess: state.excess, timestamp: state.timestamp } };
        return { result: state };
      }
      default:
        return undefined;
    }
  }

  primaryEntry(withDelegators = true): Record<string, unknown> {
    const owner = { locktime: '0', threshold: '1', addresses: ['P-avax1gfpj30csekhwmf4mqkncelus5zl2ztqzvv7aww'] };
    const is = (name: string) => this.node.has(name);
    const delegators = this.delegatorCount;
    const entry: Record<string, unknown> = {
      txID: this.periods.current?.txId ?? blockchainIdFor(`${this.node.name}:validation-tx`),
      startTime: String(this.validationStartsAt),
      endTime: String(Math.floor(this.node.validationEndsAt)),
      weight: String(this.weightNAvax - delegators * 30_000_000_000),
      nodeID: this.node.nodeId,
      potentialReward: is('validator-huge-numbers') ? HUGE_UINT64 : '117431493426',
      accruedDelegateeReward: '0',
      delegationFee: '2.0000',
      uptime: '', // the observer's part, with `connected` (sim/observed.ts fills both in)
      connected: false,
      signer: { publicKey: `0x${'8f'.repeat(48)}`, proofOfPossession: `0x${'86'.repeat(96)}` },
      validationRewardOwner: owner,
      delegationRewardOwner: owner,
      delegatorCount: String(delegators),
      delegatorWeight: String(delegators * 30_000_000_000),
    };
    // The AutoRenewedConfig of vms/platformvm/api/validator.go, after the signer as Go embeds it.
    if (is('auto-renewing') || is('auto-renew-exiting')) {
      entry.validatorAuthority = owner;
      entry.nextPeriod = String(is('auto-renewing') ? this.nextPeriodSeconds : 0);
      entry.autoCompoundRewardShares = '300000';
      // later v1.15 releases: what earlier cycles compounded into the weight.
      entry.restakedValidationRewards = String(this.periods.restakedValidation);
      entry.restakedDelegateeRewards = String(this.periods.restakedDelegatee);
    }
    if (withDelegators) entry.delegators = this.delegatorEntries(delegators);
    if (is('validator-bad-shape')) delete entry.endTime;
    return entry;
  }

  private delegatorCache?: { key: string; entries: Array<Record<string, unknown>> };

  /** PrimaryDelegator entries (≈ 325 bytes each, as AvalancheGo writes them), made once per count and period. */
  private delegatorEntries(count: number): Array<Record<string, unknown>> {
    const key = `${count}:${this.validationStartsAt}:${Math.floor(this.node.validationEndsAt)}`;
    if (this.delegatorCache?.key === key) return this.delegatorCache.entries;
    const start = String(this.validationStartsAt + 3600);
    const end = String(Math.floor(this.node.validationEndsAt) - 3600);
    const entries = Array.from({ length: count }, (_, i) => ({
      txID: blockchainIdFor(`${this.node.name}:delegation-${i}`),
      startTime: start,
      endTime: end,
      weight: '30000000000',
      nodeID: this.node.nodeId,
      rewardOwner: { locktime: '0', threshold: '1', addresses: ['P-avax1gfpj30csekhwmf4mqkncelus5zl2ztqzvv7aww'] },
      potentialReward: '123456789',
    }));
    this.delegatorCache = { key, entries };
    return entries;
  }

  /** The L1's current validators: this node's validation and an inactive one of another node (./l1-entries.ts). */
  private l1Entries(now: number): L1Entry[] {
    if (!this.node.l1SubnetId) return [];
    const huge = this.node.has('validator-huge-numbers');
    return l1Entries({
      name: this.node.name,
      nodeId: this.node.nodeId,
      validationId: this.l1ValidationId,
      balance: huge ? HUGE_UINT64 : this.l1BalanceNAvax(now),
      more: this.moreL1.map(({ balance, at }, i) => ({ validationId: this.l1ValidationIdOf(i + 1), balance: Math.max(0, Math.floor(balance - SIM_FEE_PRICE * Math.max(0, now - at))) })),
      startTime: this.validationStartsAt,
      many: this.node.has('l1-many-validations'),
    });
  }
}

/** What AvalancheGo v1.15's info.uptime answers before the P-Chain is bootstrapped (api/info/service.go, network/network.go, snow/uptime/locked_calculator.go). */
export const UPTIME_BOOTSTRAPPING_ERROR = "couldn't get node uptime: error while fetching local validator start time still bootstrapping";
/** By default the bootstrap error lasts this share of a restart's snapshot: the first answer comes mid-climb. */
const BOOTSTRAP_SHARE = 0.6;

function rpcError(message: string): RpcOutcome {
  return { error: { code: -32000, message } };
}
