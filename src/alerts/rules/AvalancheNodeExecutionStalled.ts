/**
 * The C-Chain accepts blocks but no longer executes them. On AvalancheGo's SAE C-Chain (v1.15 after
 * Helicon; node/node.go registers transitionvm with saevm after coreth) consensus accepts a block
 * and enqueues it for execution without waiting (vms/saevm/sae/consensus.go), and `latest` on the
 * EVM RPC is the last executed block (vms/saevm/blocks/access.go ResolveRPCNumber). SAE's own health
 * check reports nothing (vms/saevm/sae/health.go returns nil), so the node stays healthy: the C check's
 * `lastAcceptedHeight` ahead of `eth_blockNumber`, which has not moved for `threshold` seconds, is
 * the sign (probes/execution.ts). Before Helicon, coreth executes as it accepts: `latest` is the last
 * accepted block, and this never fires.
 */
import { validatorReport, VALIDATOR_ENDPOINT } from '../../model/validator.js';
import { formatDuration } from './format.js';
import { nodeFacts } from './node-facts.js';
import { defineRule, promAlert, thresholdTuning, UNKNOWN, type RuleDefaults } from './rule.js';

const defaults: RuleDefaults = { severity: 'warning', forPolls: 1, threshold: 120, criticalAfterMs: 15 * 60_000 };

export default defineRule({
  name: 'AvalancheNodeExecutionStalled',
  source: 'node',
  fires: "the C-Chain's last executed block (eth_blockNumber) has not moved for 2 minutes while accepted blocks wait (AvalancheGo v1.15 async execution; its health check does not tell)",
  defaults,
  tuning: thresholdTuning('number of seconds the executed height stands still with accepted blocks waiting', defaults),
  phrases: { subject: 'chain', firing: 'execution stalled', resolved: 'executes again' },
  prometheus: [
    promAlert(
      'AvalancheNodeExecutionStalled',
      '(avahealth_node_chain_last_accepted_height{chain="C"} - on (target, chain) avahealth_node_chain_last_executed_height > 0) and on (target, chain) (changes(avahealth_node_chain_last_executed_height[2m]) == 0)',
      '0s',
      'warning',
      '{{ $labels.target }}: C-Chain execution stalled, {{ $value }} accepted blocks not executed',
      "The C-Chain's last executed block (eth_blockNumber) has not moved for 2 minutes while the node keeps accepting blocks. Since v1.15 AvalancheGo executes blocks after accepting them and its health check does not report it: state read at \"latest\" is stale, and a validator whose execution stays stuck cannot follow the chain.",
    ),
  ],
  recovered(observation) {
    const executed = observation.cChainExecution?.executedHeight;
    return executed !== undefined ? `C executes again: block ${executed}` : undefined;
  },
  evaluate(observation, ctx) {
    const facts = nodeFacts(observation);
    if (!facts.report) return facts.health ? UNKNOWN : [];
    const accepted = facts.report.checks.find((c) => c.name === 'C')?.chain?.lastAcceptedHeight;
    if (accepted === undefined) return [];
    const execution = observation.cChainExecution;
    // Not read (no EVM API, or not asked yet): nothing to say; read before but unanswered now: nothing known.
    if (!execution) return [];
    if (execution.unanswered) return UNKNOWN;
    const behind = accepted - execution.executedHeight;
    const still = execution.at - execution.since;
    if (behind <= 0 || still < (ctx.settings.threshold ?? defaults.threshold!)) return [];
    const validates = validatorReport(observation.endpoints.find((e) => e.endpoint === VALIDATOR_ENDPOINT))?.primary !== undefined;
    const head = `${ctx.target}: C-Chain execution stalled at block ${execution.executedHeight} for ${formatDuration(still)}, ${behind} accepted blocks not executed`;
    const why = "AvalancheGo v1.15 accepts C-Chain blocks and executes them after (SAE, vms/saevm): eth_blockNumber answers the last executed block, the C health check the last accepted one. Its health passes: SAE's health check reports nothing about execution.";
    return [
      validates
        ? {
            identity: { chain: 'C' },
            severity: 'warning',
            summary: `${head}: it cannot follow the chain for long`,
            description: `${why} Consensus keeps accepting blocks without waiting for their execution, but AvalancheGo warns that verification fails once acceptance runs too far ahead of it (vms/saevm/sae/consensus.go): a validator whose execution stays stuck stops following the C-Chain and loses uptime. Check its logs and disk (execution writes the state); avalanche_C_sae_execution_queue_blocks on its /ext/metrics shows the queue. A restart re-executes from the last committed state.`,
          }
        : {
            identity: { chain: 'C' },
            severity: 'warning',
            summary: `${head}: its RPC answers for "latest" are ${behind} blocks old`,
            description: `${why} Users of this RPC node read balances, eth_call results, receipts and gas estimates at block ${execution.executedHeight}; transactions sent through it are accepted by the network, but their receipts do not appear here. Check its logs and disk; avalanche_C_sae_execution_queue_blocks on its /ext/metrics shows the queue. Take it out of the load balancer until it executes again.`,
          },
    ];
  },
});
