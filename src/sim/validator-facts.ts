/**
 * The simulated network's validator facts: versions, the upgrade schedule, amounts, and the
 * validator scenarios (what each makes a node say; src/sim/validator.ts answers from them).
 */
/** The reward-at-risk scenario's info.uptime (percent): rewarding stake above a half (the vote likely commits), below the 80 % warning. */
export const REWARD_AT_RISK_FIGURES = { rewarding: 72.5, weighted: 66 } as const;
/** Helicon activation on mainnet (AvalancheGo v1.15.0, ACP-267). */
export const SIM_HELICON_TIME = '2026-09-22T15:00:00Z';
/**
 * Nodes send `avalanchego/…` since v1.10.18 (`avalanche/…` before). info.getNodeVersion's
 * rpcProtocolVersion is version.RPCChainVMProtocol (version/constants.go): 44 in v1.14.1, 45 in
 * v1.14.2, 46 in v1.15.0 (this mirror has no later release: 46 is assumed for 1.15.2).
 */
export const SIM_CURRENT_VERSION = 'avalanchego/1.15.2';
/**
 * The `version-behind` build: behind the version most stake runs, yet one that knows every
 * activated upgrade. v1.15.0 is the first release with Helicon (releases/v1.15.0-fuji:
 * RPCChainVMProtocol 46 in version/constants.go, its RELEASES.md schedules ACP-194/236/267/273/283/285;
 * the Fuji build itself refuses mainnet, so the simulator takes v1.15.0 as the release that
 * schedules mainnet's activation), and its MinimumCompatibleVersion is 1.15.0: peers on 1.15.2 keep it
 * connected after the activation.
 */
export const SIM_OLD_VERSION = 'avalanchego/1.15.0';
/**
 * A build from before Helicon (v1.14.2: RPCChainVMProtocol 45, heliconTime unscheduled), only ever
 * given explicitly (SimNodeOptions.version, the control API's `version`). After the activation its
 * upgraded peers drop it (version.GetCompatibility: MinCompatibleAfterUpgrade 1.15.0 on v1.15,
 * version/constants.go; network/peer/peer.go shouldDisconnect), so its chains lose the stake and it
 * has missed the upgrade: no real node runs it connected past SIM_HELICON_TIME.
 */
export const SIM_PRE_HELICON_VERSION = 'avalanchego/1.14.2';

/** Whether a build of `version` (`avalanchego/1.15.0`) knows Helicon: v1.15.0 and later. */
export function knowsHelicon(version: string): boolean {
  const m = /(\d+)\.(\d+)\.(\d+)/.exec(version);
  if (!m) return true;
  const [major, minor] = [Number(m[1]), Number(m[2])];
  return major > 1 || minor >= 15;
}

/** version.RPCChainVMProtocol of a build (version/compatibility.json): 44 for v1.14.0–1, 45 for v1.14.2, 46 for v1.15. */
export function rpcProtocolOf(version: string): string {
  if (knowsHelicon(version)) return '46';
  return /1\.14\.[01]$/.test(version) ? '44' : '45';
}
/** AvalancheGo's UnscheduledActivationTime (upgrade/upgrade.go): v1.14.1+ reads heliconTime so until a release schedules it. */
export const SIM_UNSCHEDULED_TIME = '9999-12-01T00:00:00Z';
/** How long a restart's info.uptime snapshot lasts by default ("tens of seconds": the first Ping comes 22.5 s after connecting). */
export const SIM_RESTART_SNAPSHOT_MS = 30_000;
/** The delegators the popular-validator scenario has (≈ 6.5 MB asked for alone). */
export const SIM_POPULAR_DELEGATORS = 20_000;
/** nAVAX per second per active L1 validator (mainnet M). */
export const SIM_FEE_PRICE = 512;
export const SIM_L1_BALANCE = 8_780_477_952;
export const DAY = 86_400;

/** The network the simulated Data API reports: most stake on the current version. */
export const SIM_STAKE_BY_VERSION = [
  { version: SIM_CURRENT_VERSION, amountStaked: '135780000000000000', validatorCount: 930 },
  // The Data API may send a version without the name.
  { version: '1.15.1', amountStaked: '54750000000000000', validatorCount: 350 },
  { version: SIM_OLD_VERSION, amountStaked: '28470000000000000', validatorCount: 120 },
  // Live answers for mainnet and Fuji carry a row for the validators whose version it cannot tell.
  { version: 'offline', amountStaked: '6120000000000000', validatorCount: 62 },
];

/**
 * The field of the upgrade after Helicon in the simulator's upgraded builds (`upgrade-required`):
 * each upgrade adds a `<name>Time` field to upgrade.Config (upgrade/new_upgrade_checklist.md), and
 * AvalancheGo's source names none after Helicon yet (upgrade/upgrade.go), so this name is the
 * simulator's own.
 */
export const SIM_NEXT_UPGRADE_KEY = 'nextUpgradeTime';

export const UPGRADES_BEFORE_HELICON = {
  apricotPhase1Time: '2021-03-31T14:00:00Z',
  apricotPhase2Time: '2021-05-10T11:00:00Z',
  apricotPhase3Time: '2021-08-24T14:00:00Z',
  apricotPhase4Time: '2021-09-22T21:00:00Z',
  apricotPhase4MinPChainHeight: 793005,
  apricotPhase5Time: '2021-12-02T18:00:00Z',
  apricotPhasePre6Time: '2022-09-05T01:30:00Z',
  apricotPhase6Time: '2022-09-06T20:00:00Z',
  apricotPhasePost6Time: '2022-09-07T03:00:00Z',
  banffTime: '2022-10-18T16:00:00Z',
  cortinaTime: '2023-04-25T15:00:00Z',
  cortinaXChainStopVertexID: 'jrGWDh5Po9FMj54depyunNixpia5PN4aAYxfmNzU8n752Rjga',
  durangoTime: '2024-03-06T16:00:00Z',
  etnaTime: '2024-12-16T17:00:00Z',
  fortunaTime: '2025-04-08T15:00:00Z',
  graniteTime: '2025-11-19T16:00:00Z',
  graniteEpochDuration: 300_000_000_000,
};

export const VALIDATOR_SCENARIOS = {
  'reward-at-risk': '72.5 % of stake sees its uptime at or above the requirement (reward still likely, below the 80 % warning); its downtime budget is low',
  'l1-balance-low': 'its L1 validation has 2.3 days of fee balance left (set l1BalanceNAvax)',
  'l1-inactive': 'its L1 validation ran out of balance (balance "0", inactive)',
  'version-behind': `runs ${SIM_OLD_VERSION} while most stake runs ${SIM_CURRENT_VERSION}: behind in version, yet it knows every activated upgrade (Helicon included), so its chains are fine (a build from before Helicon: set version)`,
  'not-validator': 'info.uptime answers "node is not a validator"; no current validation',
  'info-api-disabled': '/ext/info answers 404 (the info API is switched off); health is fine',
  'node-id-unknown': '/ext/info answers 404 and a proxy strips the node-id header: the NodeID cannot be learnt',
  'validator-bad-shape': 'info.uptime out of range, no endTime, a fee state without price',
  'unreachable-by-peers': "its own health passes, but its peers cannot reach it: every other node's getCurrentValidators shows it connected:false, its uptime falling as the disconnected time accumulates (info.uptime: its own stake only)",
  'auto-renewing': 'an auto-renewed validator (ACP-236) that renews at the end of its cycle (nextPeriod 14 days; set nextPeriodSeconds)',
  'auto-renew-exiting': 'an auto-renewed validator whose nextPeriod is 0: it exits at the end of its cycle',
  'popular-validator': `${SIM_POPULAR_DELEGATORS} delegators (set delegators): ≈ 6.5 MB when asked for with its NodeID alone`,
  'validator-deep-json': 'rewardingStakePercentage nested 6,000 levels deep',
  'l1-many-validations': '5,000 L1 validations of this node on its L1 (with l1)',
  'validator-huge-numbers': 'potentialReward and the L1 balance above 2^53 ("100000000000000000000")',
} as const;
