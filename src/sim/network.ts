/**
 * The simulated network's chains: heights that advance with time, shared by the simulated nodes
 * (which report them, or lag behind) and the simulated Data API (which reports the latest block).
 */
import { SimValidatorSet } from './observed.js';
import { SIM_HELICON_TIME, SIM_NEXT_UPGRADE_KEY } from './validator-facts.js';

export interface SimChain {
  /** The node's check name: `C`, `P`, `X`, or an L1's blockchain ID. */
  check: string;
  evmChainId?: string;
  name: string;
  base: number;
  blockMs: number;
}

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
    return chain.base + Math.floor((now - this.startMs) / chain.blockMs);
  }

  byEvmChainId(id: string): SimChain | undefined {
    return [...this.chains.values()].find((c) => c.evmChainId === id);
  }
}
