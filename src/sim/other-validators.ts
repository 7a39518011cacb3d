/** The Primary Network's validators besides the simulated fleet: weights, uptimes and connectivity drawn once from their IDs. */
import { nodeIdFor, prng } from './ids.js';

export interface OtherValidator {
  nodeID: string;
  weight: number;
  delegatorWeight: number;
  /** Its uptime as the network saw it when the set was created. */
  uptime: number;
  connected: boolean;
  entry: Record<string, unknown>;
}

/** `count` validators: most up all the time, a few poor ones, a few not connected. */
export function drawOtherValidators(count: number): OtherValidator[] {
  const random = prng(count);
  const owner = { locktime: '0', threshold: '1', addresses: ['P-avax1gfpj30csekhwmf4mqkncelus5zl2ztqzvv7aww'] };
  const start = Math.floor(Date.now() / 1000) - 20 * 86_400;
  return Array.from({ length: count }, (_, i) => {
    const nodeID = nodeIdFor(`network-validator-${i}`);
    // one in twelve poor (below the requirement), one in twenty-five not connected now: a small one, as on
    // mainnet, where the nodes' chains see about 99.9 % of the stake connected
    const poor = i % 12 === 5;
    const connected = i % 25 !== 7;
    // 2,000 AVAX to 3M AVAX, most of them small
    const drawn = Math.round(2_000e9 + random() ** 4 * 3_000_000e9);
    const weight = connected ? drawn : 2_000e9;
    const delegated = random() < 0.5 ? Math.round(random() * weight) : 0;
    const delegatorWeight = connected ? delegated : 0;
    const uptime = poor ? 55 + random() * 35 : 98 + random() * 2;
    const entry = {
      txID: nodeIdFor(`network-validator-${i}:tx`).slice('NodeID-'.length),
      startTime: String(start - Math.floor(random() * 200 * 86_400)),
      endTime: String(start + Math.floor((30 + random() * 300) * 86_400)),
      weight: String(weight),
      nodeID,
      potentialReward: String(Math.round(weight * 0.03)),
      accruedDelegateeReward: '0',
      delegationFee: '2.0000',
      signer: { publicKey: `0x${'8f'.repeat(48)}`, proofOfPossession: `0x${'86'.repeat(96)}` },
      validationRewardOwner: owner,
      delegationRewardOwner: owner,
      delegatorCount: String(delegatorWeight > 0 ? 1 + Math.floor(random() * 40) : 0),
      delegatorWeight: String(delegatorWeight),
    };
    return { nodeID, weight, delegatorWeight, uptime, connected, entry };
  });
}
