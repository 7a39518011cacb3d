/**
 * The `network` health check of a simulated node, as AvalancheGo writes it (network/network.go,
 * HealthCheck): connected peers, the send-fail rate, the time since the last message in each
 * direction and, once the node has run longer than --network-no-ingress-connections-grace-period
 * (10 minutes by default, utils/constants/networking.go), `primary network validator health`
 * (network/no_ingress_conn_alert.go): its inbound connection count and whether it is a Primary
 * Network validator; a validator with no inbound connection fails the check.
 *
 * A validator whose staking port is closed (`inbound-closed`) still dials every other validator, so
 * it has peers and messages both ways, but nobody can dial in: ingressConnectionCount 0.
 */
import { formatGoDuration } from './go-format.js';

/** constants.DefaultNoIngressValidatorConnectionGracePeriod */
export const NO_INGRESS_GRACE_MS = 10 * 60_000;
export const NO_INBOUND_CONNECTIONS = 'primary network validator has no inbound connections';

export interface NetworkFacts {
  /** No peers at all (network-down). */
  down: boolean;
  /** Its staking port is closed to inbound connections. */
  inboundClosed: boolean;
  primaryNetworkValidator: boolean;
  /** Time since the node started, and the grace before the ingress check applies. */
  upMs: number;
  graceMs: number;
  /** Health periods run since the start, and their length (how stale the last message is when down). */
  period: number;
  periodMs: number;
  random: () => number;
}

export function networkCheckResult(f: NetworkFacts): { message: unknown; error?: string } {
  const reasons: string[] = [];
  let message: Record<string, unknown>;
  if (f.down) {
    const since = formatGoDuration(60 + f.period * (f.periodMs / 1000));
    message = { connectedPeers: 0, sendFailRate: 0.9734, timeSinceLastMsgReceived: since, timeSinceLastMsgSent: since };
    reasons.push('not connected to a minimum of 1 peer(s) only 0', `no messages from network received in ${since} > 1m0s`, `no messages from network sent in ${since} > 1m0s`, 'messages failure send rate 0.9734 > 0.9');
  } else {
    message = {
      connectedPeers: 1390 + Math.floor(f.random() * 20),
      sendFailRate: 0.0004187765498310943,
      timeSinceLastMsgReceived: formatGoDuration(f.random() * 0.003),
      timeSinceLastMsgSent: formatGoDuration(f.random() * 0.0005),
    };
  }
  if (f.upMs > f.graceMs) {
    // Non-validators' addresses are not gossiped: nobody dials them (a validator dials validators).
    const ingress = f.down || f.inboundClosed || !f.primaryNetworkValidator ? 0 : 702;
    message['primary network validator health'] = { ingressConnectionCount: ingress, primaryNetworkValidator: f.primaryNetworkValidator };
    if (ingress === 0 && f.primaryNetworkValidator) reasons.push(NO_INBOUND_CONNECTIONS);
  }
  // Go's map keys in sorted order, as encoding/json writes them.
  const sorted = Object.fromEntries(Object.entries(message).sort(([a], [b]) => (a < b ? -1 : 1)));
  return reasons.length === 0 ? { message: sorted } : { message: sorted, error: `network layer is unhealthy reason: ${reasons.join(', ')}` };
}
