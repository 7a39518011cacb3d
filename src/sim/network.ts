/**
 * The simulated network's chains: heights that advance with time, shared by the simulated nodes
 * (which report them, or lag behind) and the simulated Data API (which reports the latest block).
 */
import { PRIMARY_CHAINS } from '../model/observation.js';
import { SimValidatorSet, type NetworkDip } from './observed.js';
import { SIM_HELICON_TIME, SIM_NEXT_UPGRADE_KEY } from './validator-facts.js';

export interface SimChain {
  /** The node's check name: `C`, `P`, `X`, or an L1's blockchain ID. */
  check: string;
  evmChainId?: string;
  name: string;
  base: number;
  blockMs: number;
}

/**
 * Below this share of connected stake a node's engine sends no query, so accepts nothing
 * (snow/engine/snowman/engine.go abortDueToInsufficientConnectedStake: AlphaConfidence ÷ K, 15 ÷ 20
 * on mainnet, snow/consensus/snowball/parameters.go).
 */
export const QUERY_MIN_CONNECTED_RATIO = 15 / 20;

export class SimNetwork {
  readonly startMs = Date.now();
  readonly chains = new Map<string, SimChain>();
  /** The Primary Network's validators as each node sees them (platform.getCurrentValidators). */
  readonly validators: SimValidatorSet;
  /**
   * The network upgrades releases scheduled after Helicon, in the order they were scheduled: each
   * `upgrade-required` node schedules one (its upgrade time, epoch seconds) under a field of its own
   * (`nextUpgradeTime`, then `nextUpgrade2Time`, …), and only that node's own scenario moves it (its
   * deadline drawing nearer). A release never moves another's activation, least of all one already
   * active (upgrade/upgrade.go: the times are constants of the build). The builds that know an
   * upgrade list it in info.upgrades (SimNode.upgradeSchedule).
   */
  readonly scheduledUpgrades: Array<{ key: string; at: number; by: string }> = [];
  /** Milliseconds the Primary Network's chains stood still in dips that ended, and when the current stall began. */
  private stalledMs = 0;
  private stalledSince?: number;

  /**
   * Starts (or, with undefined, ends) a network-wide dip (SimValidatorSet.setDip). Every node then
   * sees the connected stake at about `connectedPercent`: below AlphaConfidence ÷ K no node queries,
   * so the Primary Network's chains accept no block until the dip ends (heights stand still for
   * the fleet and the Data API alike), then go on from where they stood.
   */
  setDip(dip: NetworkDip | undefined, now = Date.now()): void {
    this.validators.setDip(dip, now);
    const stalls = dip !== undefined && dip.connectedPercent / 100 < QUERY_MIN_CONNECTED_RATIO;
    if (stalls && this.stalledSince === undefined) this.stalledSince = now;
    if (!stalls && this.stalledSince !== undefined) {
      this.stalledMs += now - this.stalledSince;
      delete this.stalledSince;
    }
  }

  /** Schedules (or, for the node whose upgrade it is, moves) the upgrade `by` is left behind by; returns its index. */
  scheduleUpgrade(by: string, at: number): number {
    const same = this.scheduledUpgrades.findIndex((u) => u.by === by && u.at === at);
    if (same >= 0) return same;
    const own = this.scheduledUpgrades.findIndex((u) => u.by === by && u.at > Date.now() / 1000);
    if (own >= 0) {
      this.scheduledUpgrades[own]!.at = at;
      return own;
    }
    const n = this.scheduledUpgrades.length;
    this.scheduledUpgrades.push({ key: n === 0 ? SIM_NEXT_UPGRADE_KEY : SIM_NEXT_UPGRADE_KEY.replace('Upgrade', `Upgrade${n + 1}`), at, by });
    return n;
  }

  constructor(
    readonly options: {
      blockMs?: number;
      /** Validators besides the fleet's (default 40; mainnet has ≈ 1,600). */
      otherValidators?: number;
      /** Validation time per real second in the uptime accounting (1 = real time; default 3,600: an hour a second). */
      uptimeClockFactor?: number;
    } = {},
  ) {
    this.validators = new SimValidatorSet(options.otherValidators, options.uptimeClockFactor);
    this.validators.heliconTime = Date.parse(SIM_HELICON_TIME) / 1000;
    const blockMs = options.blockMs ?? 2000;
    this.add({ check: 'C', evmChainId: '43114', name: 'Avalanche (C-Chain)', base: 71_842_516, blockMs });
    this.add({ check: 'P', name: 'P-Chain', base: 23_018_877, blockMs: blockMs * 3 });
    this.add({ check: 'X', name: 'X-Chain', base: 1_904_211, blockMs: blockMs * 10 });
  }

  add(chain: SimChain): SimChain {
    this.chains.set(chain.check, chain);
    return chain;
  }

  height(check: string, now = Date.now()): number {
    const chain = this.chains.get(check);
    if (!chain) return 0;
    // A dip stalls the Primary Network's chains; an L1's validators are its own.
    const stalled = (PRIMARY_CHAINS as readonly string[]).includes(check) ? this.stalledMs + (this.stalledSince !== undefined ? Math.max(0, now - this.stalledSince) : 0) : 0;
    return chain.base + Math.floor((now - this.startMs - stalled) / chain.blockMs);
  }

  byEvmChainId(id: string): SimChain | undefined {
    return [...this.chains.values()].find((c) => c.evmChainId === id);
  }
}
