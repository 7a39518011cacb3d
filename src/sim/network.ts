/**
 * The simulated network's chains: heights that advance with time, shared by the simulated nodes
 * (which report them, or lag behind) and the simulated Data API (which reports the latest block).
 */
import { SimValidatorSet } from './observed.js';
import { SIM_HELICON_TIME } from './validator-facts.js';

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
   * The next network upgrade once a release scheduled it (`upgrade-required` sets it to its node's
   * upgrade time; epoch seconds): the builds that know it list it in info.upgrades (SimNode.upgradeSchedule).
   */
  scheduledUpgradeAt?: number;

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
