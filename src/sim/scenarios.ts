/** The behaviours a simulated node can be switched to at runtime. */
import { VALIDATOR_SCENARIOS } from './validator.js';

export const SCENARIOS = {
  healthy: 'every check passes; heights advance',
  bootstrapping: 'restarts into bootstrapping: `bootstrapped` fails, chains report `consensus: {}`, readiness is 503',
  'network-down': 'no peers: `network` fails and every chain loses its connected stake',
  'disk-low': '`diskspace` below the 10% warning threshold',
  flapping: 'the C-Chain check alternates between failing and passing every health period',
  slow: 'answers only after a delay longer than the usual probe timeout (8s; set delayMs)',
  'proxy-error': 'a reverse proxy in front answers an HTML 502',
  churn: 'checks fail and recover at random, and a temporary L1 chain comes and goes',
  lagging: 'healthy, but its chains are behind the network (120 blocks; set lagBlocks)',
  restarted: 'restarts: chain checks show "not yet run" until the next health period',
  'forbidden-host': '403 "invalid host specified" (Host not in --http-allowed-hosts)',
  'not-found': '404 "404 page not found" (health API disabled)',
  'rate-limited': '429 from a rate-limiting proxy',
  truncated: 'a 200 whose JSON body is cut off',
  'bad-shape': 'a 200 with JSON that is not a health report',
  'rpc-error': 'JSON-RPC answers with an error object (GET is unaffected)',
  'wrong-id': 'JSON-RPC echoes a different id (GET is unaffected)',
  huge: 'a body of several MiB (thousands of disconnected validators)',
  'upgrade-required':
    "most stake (71.25 %) advertises an upgrade in 5 days this node's build does not know (futureupgrade with AvalancheGo's escalation; set upgradeIn, upgradeStakePercent); past the time its upgraded peers drop it; switching to another scenario installs the build that knows it; an upgrade due before one the node's build already knows is refused (409: upgrades activate in order)",
  'inbound-closed':
    'its staking port is closed to inbound connections: it dials validators (they see it connected), nodes that are not validators cannot connect to it, and after the ingress grace (ingressGraceMs, 10 min) its network check fails with no inbound connections',
  'execution-stalled':
    "AvalancheGo v1.15's C-Chain keeps accepting blocks but executes none (SAE): eth_blockNumber (the last executed block) stands still while the C check's lastAcceptedHeight advances; every health check still passes",
  'lying-observer': 'a hostile or broken fleet node (not AvalancheGo behaviour): its getCurrentValidators says every other validator is disconnected',
  reset: 'the connection is reset before a response',
  ...VALIDATOR_SCENARIOS,
} as const;

export type ScenarioName = keyof typeof SCENARIOS;

export function isScenario(name: string): name is ScenarioName {
  return Object.hasOwn(SCENARIOS, name);
}
