/**
 * A validator the network cannot reach, as AvalancheGo itself knows it (docs/validators.md):
 *
 * - Its staking port is closed to the world. `connected` in getCurrentValidators is a p2p connection
 *   in either direction (vms/platformvm/service.go: Network.Peers().Has), and every node dials every
 *   validator: a validator whose port is closed still dials the other validators, so they see it
 *   connected and its uptime holds, but no non-validator can open a connection to it, and after a
 *   10-minute grace its own `network` check fails with "primary network validator has no inbound
 *   connections" (network/no_ingress_conn_alert.go; network/network.go, ingressConnectionCount 0).
 *   Told from its own ingress count, or from non-validator witnesses that see it disconnected while
 *   validator witnesses see it connected.
 * - Validator witnesses see it disconnected: then it cannot reach them either (its own dials fail
 *   too): a partition, an outbound firewall, or a node that is stuck. Its rewarding stake falls.
 *
 * Only witnesses count (probes/witness.ts: a failing, bootstrapping, cut-off or lying observer does
 * not), and a verdict from observers needs a strict majority of at least two of them.
 */
import { observedReport, scopeOf, type ObserverView } from '../../model/observed.js';
import { baselinePredates } from '../../model/observation.js';
import { nodeFacts } from './node-facts.js';
import { SCOPE_TEMPLATE } from './promql.js';
import { defineRule, NO_TUNING, promAlert, Unknown, UNKNOWN, type Finding } from './rule.js';
import { listNames } from './format.js';
import { percent } from './validator-facts.js';

/** Witnesses a verdict from observers needs at least. */
export const MIN_WITNESSES = 2;

type View = ObserverView & { connected: boolean };

/**
 * What this daemon last knew of the staking port: `open` from the node's own ingress count or from
 * non-validator witnesses that reach it, `closed` from either failing. Kept between evaluations
 * because inside AvalancheGo's ingress grace (a restart starts it over) the node does not report
 * the count, and a shard may have no fleet node that is not a validator to ask.
 */
interface PortMemory {
  port?: 'open' | 'closed';
  /** When most witnesses first saw it disconnected, while they still do (the baseline wait's start). */
  apartSince?: number;
  /**
   * What this rule last found: its port closed (cases 1 and 2) or witnesses that saw it
   * disconnected (case 3). An incident for the latter ends when they see it connected again, even
   * while the port cannot be judged: that incident never said anything of the port.
   */
  found?: 'port' | 'apart';
}

/** More than half of `views` say `connected` is `value` (and there is at least one). */
function most(views: readonly View[], value: boolean): boolean {
  return views.length > 0 && views.filter((v) => v.connected === value).length * 2 > views.length;
}

export default defineRule({
  name: 'AvalancheValidatorUnreachableByPeers',
  source: 'observed',
  fires:
    "its staking port is closed (its own network check: no inbound connections, or non-validator fleet nodes cannot connect while validators can), or most of at least two witnessing fleet validators see it disconnected while its own health passes",
  defaults: { severity: 'warning' },
  tuning: NO_TUNING,
  // After the grace its own network check fails ("no inbound connections"): the closed port is the problem.
  inhibits: [{ alertname: 'AvalancheCheckFailing', labels: { check: 'network' }, because: "the network check fails because no peer can connect to the validator's staking port" }],
  phrases: { firing: 'unreachable by peers', resolved: 'reachable by peers again' },
  // Its findings say whose problem it is (`scope`): AvalancheNetworkDegraded speaks for the network-wide ones.
  scoped: true,
  newState: (): PortMemory => ({}),
  prometheus: [
    promAlert(
      'AvalancheValidatorUnreachableByPeers',
      'sum by (target, node_id) ((1 - avahealth_validator_observed_connected) * avahealth_validator_observed_witness) / sum by (target, node_id) (avahealth_validator_observed_witness) > 0.5 and sum by (target, node_id) (avahealth_validator_observed_witness) >= 2 and on (target) (avahealth_node_healthy{endpoint="health",view="all"} == 1)',
      '5m',
      'warning',
      "{{ $labels.target }}: {{ $value | humanizePercentage }} of the fleet's witnessing nodes see it disconnected while its own health passes",
      'It cannot reach them either (a node dials every validator, and connected counts either direction): a partition, an outbound firewall, or a node that is stuck. Its rewarding stake falls while this lasts.',
      { scope: SCOPE_TEMPLATE },
    ),
    promAlert(
      'AvalancheValidatorUnreachableByPeersInboundClosed',
      'avahealth_node_network_ingress_connections == 0 and on (target) (avahealth_node_check_passing{check="network",endpoint="health",view="all"} == 0) and on (target) (avahealth_node_network_connected_peers > 0)',
      '5m',
      'warning',
      '{{ $labels.target }}: no inbound connections: its staking port is closed to peers',
      "AvalancheGo's own network check fails: a Primary Network validator with no inbound connection after the grace (network/no_ingress_conn_alert.go). It still dials out, so validators see it connected; nobody can dial in. Check that inbound TCP to its staking port (9651 unless --staking-port) reaches it: firewall, NAT, security group, --public-ip.",
    ),
  ],
  evaluate(input, ctx, memory) {
    // Kept only while most witnesses keep seeing it disconnected (case 3 below puts it back).
    const apartSince = memory.apartSince;
    delete memory.apartSince;
    const report = observedReport(input.observation);
    if (!report) return input.observation.ok ? [] : UNKNOWN;
    // Its own health not polled yet (a (re)start): nothing is known of it, its incident stays as it is.
    if (!input.node) return UNKNOWN;
    const facts = nodeFacts(input.node);
    if (!facts.report) return facts.health && !facts.health.ok ? UNKNOWN : [];
    const port = report.stakingPort;
    const answered = report.views.filter((v): v is View => v.connected !== undefined);
    const witnesses = answered.filter((v) => v.witness !== false);
    const validators = witnesses.filter((v) => v.validator === true);
    const others = witnesses.filter((v) => v.validator === false);
    const uptime = (v: View) => (v.uptimeRatio !== undefined ? ` (uptime ${percent(v.uptimeRatio)})` : '');
    const sees = (views: readonly View[]) => views.map((v) => `${v.observer}${v.validator === false ? ' (not a validator)' : ''} sees it ${v.connected ? 'connected' : 'disconnected'}${uptime(v)}`).join(', ');
    const ignored = answered.filter((v) => v.witness === false);
    const notCounted = ignored.length > 0 ? ` Not counted: ${ignored.map((v) => `${v.observer} (${v.notWitness ?? 'not a witness'})`).join(', ')}.` : '';
    const scope = scopeOf(report.baseline, input.validator?.economics?.requirement ?? 0.8);
    const finding = (summary: string, description: string): Finding[] => [{ identity: { scope: scope.scope }, severity: 'warning', summary, description: description + notCounted }];
    const portAdvice = `Check that inbound TCP ${port} reaches the node from the internet (firewall, NAT port forward, cloud security group, its --public-ip or --public-ip-resolution-service, --staking-port).`;

    const ingress = facts.report.checks.find((c) => c.name === 'network')?.network;
    if (ingress?.ingressConnections !== undefined && ingress.ingressConnections > 0) memory.port = 'open';

    // 1. Its own network check: no inbound connection after the grace (the node's own count).
    if (facts.noInbound) {
      memory.port = 'closed';
      memory.found = 'port';
      return finding(
        `${ctx.target}: no inbound connections: nobody can connect to its staking port ${port}`,
        `Its own network check fails: "${facts.noInbound.error ?? 'primary network validator has no inbound connections'}" (ingressConnectionCount 0 after AvalancheGo's grace). It still dials out, so validators see it connected and its uptime holds for now, but no peer can dial in. ${portAdvice}` +
          (witnesses.length > 0 ? ` Fleet nodes: ${sees(witnesses)}.` : ''),
      );
    }
    // Its own health fails for another reason: AvalancheNodeUnhealthy speaks.
    if (facts.pageable.length > 0) return [];
    // Right after a (re)start, observers whose own health is not polled yet are not judged: a verdict
    // from the others could resolve an open incident and page it again a poll later.
    if (answered.some((v) => v.pending)) return UNKNOWN;
    // Inside the ingress grace with no non-validator witness, nothing says whether the port is open:
    // a daemon that never learnt it (a restart of its own, a new shard owner) does not resolve what
    // it cannot judge, nor call it healthy. Whatever the port is, it is this node's own (witnesses
    // see it connected, or too few witness it): the network's alert does not wait for it.
    const portUnknown = others.length === 0 && ingress !== undefined && ingress.ingressConnections === undefined && memory.port !== 'open';
    const cannotJudgePort = () =>
      portUnknown
        ? new Unknown('whether its staking port is open', "inside AvalancheGo's ingress grace after a restart the node does not report its inbound connections, and no fleet node that is not a validator witnesses it", { ownOnly: true })
        : ([] as Finding[]);
    if (witnesses.length < MIN_WITNESSES) return cannotJudgePort();

    // 2. Non-validators cannot connect while validators can: the port is closed, before the node's own grace ends.
    if (most(others, false) && most(validators, true)) {
      memory.port = 'closed';
      memory.found = 'port';
      return finding(
        `${ctx.target}: non-validator fleet nodes cannot connect to it while validators can: its staking port ${port} looks closed to inbound connections`,
        `${sees([...others, ...validators])}. A node dials every validator, so validators see it connected over its own outbound connections; nodes that are not validators can only wait for it to accept theirs. ${portAdvice}`,
      );
    }
    if (most(others, true)) memory.port = 'open';
    // 3. Most witnesses see it disconnected.
    if (!most(witnesses, false)) return memory.found === 'apart' ? [] : cannotJudgePort();
    // In a network-wide dip the witnesses' answers change at once, while a baseline read before the
    // dip still shows the network normal: deciding then pages the validator as its own fault. Wait
    // for a baseline read after the onset (as scopeWaits does for the validator poll's rules; never in
    // one round, where no later read comes).
    const at = input.observation.at;
    memory.apartSince = apartSince ?? at;
    if (!input.oneRound && baselinePredates(report.baseline, memory.apartSince)) return UNKNOWN;
    const apart = witnesses.filter((v) => !v.connected);
    const together = witnesses.filter((v) => v.connected);
    const byValidators = most(validators, false);
    memory.found = 'apart';
    const lead = scope.scope === 'network' ? `${scope.words}; ` : '';
    return finding(
      `${ctx.target}: ${lead}${apart.length} of ${witnesses.length} witnessing fleet nodes (${listNames(apart.map((v) => v.observer))}) see it disconnected while its own health passes` +
        (byValidators ? ': it cannot reach them either' : ''),
      `${sees(apart)}${together.length > 0 ? `; ${sees(together)}` : ''}. ` +
        (byValidators
          ? 'A node dials every validator and connected counts either direction, so it cannot reach them either: look for a network partition, an outbound firewall or a node that is stuck (its own health passes, so it still answers). Its rewarding stake falls while this lasts.'
          : `Only nodes that are not validators see it disconnected; validators' view is not known. If its staking port is closed, its own network check fails after a 10-minute grace. ${portAdvice}`) +
        (scope.scope === 'network' ? ` Note: ${scope.words}, so this may be the fleet's own vantage point.` : ''),
    );
  },
});
