/**
 * Who is a witness (docs/validators.md): what another fleet node says of a validator counts for a
 * verdict only while that node's own health answers and passes (a failing `diskspace` aside: a
 * warning about its own disk), its `network` check passes, it is not bootstrapping, and it sees most
 * of the network connected: the connected stake its own chains report (AvalancheGo's chain checks
 * fail below 80 %, snow/engine/common/tracker/peers.go) and at least half of the other fleet
 * validators it was asked about in the same answer. A failing, bootstrapping, cut-off or lying node
 * (one that answers every validator disconnected) is not a witness. Read from the store: the
 * observer's own latest health and validator polls.
 */
import { CONNECTED_STAKE_NORMAL } from '../model/observed.js';
import type { TargetObservation } from '../model/observation.js';
import { validatorReport } from '../model/validator.js';
import type { ProbeContext } from './types.js';

export interface Witness {
  witness: boolean;
  notWitness?: string;
  validator?: boolean;
  /** Not judged yet: its own health has not been polled since the daemon started. */
  pending?: boolean;
}

/** What an observer said of each NodeID: connected or not (a Map, or a view of one). */
export interface SaidOf {
  get(nodeId: string): { connected?: boolean } | undefined;
  values(): Iterable<{ connected?: boolean }>;
}

export function witnessOf(observer: string, subject: string, said: SaidOf, ctx: Pick<ProbeContext, 'store'>): Witness {
  const state = ctx.store.get(observer);
  const validator = isValidator(state?.jobs.get('validator'), state?.jobs.get('node'));
  const result = (notWitness?: string): Witness => ({ witness: notWitness === undefined, ...(notWitness ? { notWitness } : {}), ...(validator !== undefined ? { validator } : {}) });
  const health = state?.jobs.get('node')?.endpoints.find((e) => e.endpoint === 'health' && e.view === 'all');
  if (!health) return { ...result('its own health is not known yet'), pending: true };
  if (!health.ok || !health.report) return result('its own health API does not answer');
  const checks = health.report.checks;
  const network = checks.find((c) => c.name === 'network');
  if (network && !network.passing) return result('its own network check fails');
  const bootstrapped = checks.find((c) => c.name === 'bootstrapped');
  if (bootstrapped && !bootstrapped.passing) return result('it is bootstrapping');
  const failing = checks.filter((c) => !c.passing && c.name !== 'diskspace');
  if (failing.length > 0) return result(`its own ${failing[0]!.name} check fails`);
  const cutOff = checks.find((c) => c.chain?.connectedStakeRatio !== undefined && c.chain.connectedStakeRatio < CONNECTED_STAKE_NORMAL);
  if (cutOff) return result(`it is connected to ${Math.round(cutOff.chain!.connectedStakeRatio! * 100)} % of the stake only`);
  let { others, connected } = tallyOf(said);
  const own = said.get(subject)?.connected;
  if (own !== undefined) {
    others--;
    if (own) connected--;
  }
  if (others > 0 && connected * 2 < others) return result(`it sees only ${connected} of ${others} other fleet validators connected`);
  return result();
}

/** How many NodeIDs an answer says connected or not, and how many of them connected: counted once per answer (it serves every validator asked). */
const tallies = new WeakMap<SaidOf, { others: number; connected: number }>();
function tallyOf(said: SaidOf): { others: number; connected: number } {
  let tally = tallies.get(said);
  if (!tally) {
    tally = { others: 0, connected: 0 };
    for (const seen of said.values()) {
      if (seen.connected === undefined) continue;
      tally.others++;
      if (seen.connected) tally.connected++;
    }
    tallies.set(said, tally);
  }
  return tally;
}

/** The observer's own validator poll says whether it validates the Primary Network; else its network check does. */
function isValidator(validatorJob: TargetObservation | undefined, nodeJob: TargetObservation | undefined): boolean | undefined {
  const report = validatorReport(validatorJob?.endpoints.find((e) => e.endpoint === 'validator'));
  if (report?.primary) return true;
  if (report && !report.problems.some((p) => p.call === 'platform.getCurrentValidators' || p.call === 'info.getNodeID')) return false;
  const network = nodeJob?.endpoints.find((e) => e.endpoint === 'health' && e.view === 'all')?.report?.checks.find((c) => c.name === 'network')?.network;
  return network?.primaryNetworkValidator;
}
