/**
 * Every node's own upgrade schedule (RPC nodes too): `info.upgrades` (api/info/service.go Upgrades:
 * the build's upgrade.Config, upgrade/upgrade.go) and `info.getNetworkID`, read beside the node's
 * health poll. The schedule changes only with the build, and a new build means a restart: it is read
 * on the first poll, again on the first poll after one the node did not answer, at every poll while
 * the build lacks an upgrade the network schedules (until the build that knows it is installed), and
 * at least every hour, and at once when another node's schedule, read after this node's, has an
 * upgrade this one's reading lacks (probes/node.ts: a verdict rests on readings no older than the news). A failed or switched-off info API costs nothing but the schedule (kept as last read): it
 * never fails the node's poll. The comparison with the fleet is model/schedule.ts.
 */
import type { NodeTarget } from '../config/load.js';
import type { TargetObservation } from '../model/observation.js';
import type { NodeSchedule } from '../model/schedule.js';
import { parseNetworkId, parseUpgradeSchedule } from '../parse/validator.js';
import { callNode } from './exchange.js';
import type { ProbeContext } from './types.js';

/** The schedule changes only with the build (a restart); read it again this often all the same. */
export const SCHEDULE_MAX_AGE_SECONDS = 3600;

interface ScheduleMemory {
  network?: string;
  schedule?: NodeSchedule;
  /** Epoch seconds of the last attempt that got an answer (a schedule, or the API switched off). */
  answeredAt?: number;
}

/** Per target object: a reload builds new targets, and with them a fresh read. */
const memories = new WeakMap<NodeTarget, ScheduleMemory>();

/** Whether this poll reads the schedule again (`previous`: the node's last own poll). */
function due(memory: ScheduleMemory, previous: TargetObservation | undefined, at: number): boolean {
  if (memory.answeredAt === undefined || at - memory.answeredAt >= SCHEDULE_MAX_AGE_SECONDS) return true;
  // Behind the network's schedule: read every poll, as installing the build that knows the upgrade is what ends it.
  if ((previous?.unknownUpgrades?.length ?? 0) > 0) return true;
  // The node did not answer its last poll: it may have restarted on another build.
  return previous !== undefined && previous.endpoints.length > 0 && previous.endpoints.every((e) => !e.ok);
}

/** The node's schedule as last read (read now when due); undefined until its info API has answered. */
export async function readSchedule(target: NodeTarget, ctx: Pick<ProbeContext, 'http' | 'limit'>, previous: TargetObservation | undefined, at: number, { force = false } = {}): Promise<NodeSchedule | undefined> {
  let memory = memories.get(target);
  if (!memory) memories.set(target, (memory = {}));
  if (!force && !due(memory, previous, at)) return memory.schedule;
  const ask = async <T>(method: string, parse: (value: unknown) => { ok: true; value: T } | { ok: false; error: string }): Promise<{ value?: T; off?: boolean }> => {
    try {
      const { answer } = await callNode(target, '/ext/info', method, {}, ctx);
      if (answer.kind === 'disabled') return { off: true };
      if (answer.kind !== 'result') return {};
      const parsed = parse(answer.result);
      return parsed.ok ? { value: parsed.value } : {};
    } catch {
      return {};
    }
  };
  const [network, upgrades] = await Promise.all([memory.network ? undefined : ask('info.getNetworkID', parseNetworkId), ask('info.upgrades', parseUpgradeSchedule)]);
  if (network?.value) memory.network = network.value;
  if (upgrades.value) {
    const known = memory.network ?? target.network;
    memory.schedule = { ...(known ? { network: known } : {}), activations: upgrades.value, readAt: at };
    memory.answeredAt = at;
  } else if (upgrades.off) memory.answeredAt = at;
  return memory.schedule;
}
