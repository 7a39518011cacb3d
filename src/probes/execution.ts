/**
 * The C-Chain's last executed block, read beside the node's health poll: `eth_blockNumber` on
 * /ext/bc/C/rpc. On AvalancheGo's SAE C-Chain (v1.15 after Helicon: node/node.go registers
 * transitionvm with saevm after coreth) blocks are accepted first and executed after
 * (vms/saevm/sae/consensus.go enqueues each accepted block for execution), and `latest` resolves to
 * the last executed block (vms/saevm/blocks/access.go ResolveRPCNumber); before, coreth executes as
 * it accepts and `latest` is the last accepted. SAE's own health check reports nothing
 * (vms/saevm/sae/health.go returns nil): the C check's `lastAcceptedHeight` against this height is
 * the only sign of a stalled execution an API gives (its /ext/metrics has
 * `avalanche_C_sae_last_executed_height` too).
 *
 * Asked only of a node whose health shows a C-Chain, at most every EXECUTION_READ_SECONDS (or the
 * rule's threshold / 8 when that is longer: the caller says): a stall is told after minutes, and a
 * poll a second must not cost a request more. The polls in between carry the last reading as it was.
 * An EVM API that is switched off (HTTP 404) is asked again hourly; a failure costs nothing but this
 * reading.
 */
import type { NodeTarget } from '../config/load.js';
import type { ChainExecution, TargetObservation } from '../model/observation.js';
import { parseQuantity } from '../parse/jsonrpc.js';
import { callNode } from './exchange.js';
import type { ProbeContext } from './types.js';

const C_RPC = '/ext/bc/C/rpc';
const OFF_RETRY_SECONDS = 3600;
/** The shortest time between two eth_blockNumber calls to one node, in seconds. */
export const EXECUTION_READ_SECONDS = 15;

interface ExecutionMemory {
  last?: ChainExecution;
  offAt?: number;
  /** Epoch seconds of the last call, and what it gave (the polls until the next call carry it). */
  askedAt?: number;
  result?: ChainExecution;
}

/** The node whose C-Chain is asked: its config (one memory per target object; a reload brings a fresh one). */
type NodeConfig = Pick<NodeTarget, 'baseUrl' | 'headers' | 'timeoutMs' | 'tls' | 'secrets'>;

const memories = new WeakMap<NodeConfig, ExecutionMemory>();

/** Whether the node's last health report shows a C-Chain with an accepted height. */
function hasCChain(previous: TargetObservation | undefined): boolean {
  if (!previous) return false;
  for (const e of previous.endpoints) {
    if (e.endpoint !== 'health' || !e.report) continue;
    for (const c of e.report.checks) if (c.name === 'C' && c.chain?.lastAcceptedHeight !== undefined) return true;
  }
  return false;
}

/** `everySeconds`: the shortest time between two calls (EXECUTION_READ_SECONDS, or longer for a longer threshold). */
export async function readExecution(target: NodeConfig, ctx: Pick<ProbeContext, 'http' | 'limit'>, previous: TargetObservation | undefined, at: number, everySeconds = EXECUTION_READ_SECONDS): Promise<ChainExecution | undefined> {
  let memory = memories.get(target);
  if (!memory) memories.set(target, (memory = {}));
  if (!hasCChain(previous)) return undefined;
  if (memory.offAt !== undefined && at - memory.offAt < OFF_RETRY_SECONDS) return undefined;
  if (memory.askedAt !== undefined && at >= memory.askedAt && at - memory.askedAt < everySeconds) return memory.result;
  memory.askedAt = at;
  return (memory.result = await ask(target, ctx, memory, at));
}

async function ask(target: NodeConfig, ctx: Pick<ProbeContext, 'http' | 'limit'>, memory: ExecutionMemory, at: number): Promise<ChainExecution | undefined> {
  try {
    const { answer } = await callNode(target, C_RPC, 'eth_blockNumber', [], ctx);
    if (answer.kind === 'disabled') {
      memory.offAt = at;
      delete memory.last;
      return undefined;
    }
    const height = answer.kind === 'result' ? parseQuantity(answer.result) : undefined;
    if (height === undefined) return unanswered(memory);
    delete memory.offAt;
    const since = memory.last && memory.last.executedHeight === height ? memory.last.since : at;
    memory.last = { executedHeight: height, since, at };
    return memory.last;
  } catch {
    return unanswered(memory);
  }
}

/** No answer this time: the last reading, marked so (its rule's alerts stay as they are). */
function unanswered(memory: ExecutionMemory): ChainExecution | undefined {
  return memory.last ? { ...memory.last, unanswered: true } : undefined;
}
