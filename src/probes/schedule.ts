/**
 * Every node's own upgrade schedule (RPC nodes too): `info.upgrades` (api/info/service.go Upgrades:
 * the build's upgrade.Config, upgrade/upgrade.go) and `info.getNetworkID`, read beside the node's
 * health poll. The schedule changes only with the build, and a new build means a restart: it is read
 * on the first poll, again after a poll the node did not answer (until it answers), while the build
 * lacks an upgrade the network schedules (until the build that knows it is installed), at least
 * every hour, and at once when another node's schedule, read after this node's, has an upgrade this
 * one's reading lacks, or its futureupgrade check stops naming its deadline (probes/node.ts: a
 * verdict rests on readings no older than the news). But for
 * the first read, that one and a build that missed an upgrade already (read at every poll), reads
 * are at most SCHEDULE_RETRY_SECONDS apart, so that a node polled every second does not cost a
 * request more per poll. A read that finds the values it read before keeps the schedule it had (the
 * fleet comparison has nothing to do then). A failed or switched-off info API costs nothing but the
 * schedule (kept as last read): it never fails the node's poll. The comparison with the fleet is
 * model/schedule.ts.
 */
import type { NodeTarget } from '../config/load.js';
import type { TargetObservation } from '../model/observation.js';
import type { NodeSchedule } from '../model/schedule.js';
import { parseNetworkId, parseUpgradeSchedule } from '../parse/validator.js';
import { callNode } from './exchange.js';
import type { ProbeContext } from './types.js';

/** The schedule changes only with the build (a restart); read it again this often all the same. */
export const SCHEDULE_MAX_AGE_SECONDS = 3600;
/** The shortest time between two reads, but for the first and the hourly one: behind the network, or after a poll the node did not answer. */
export const SCHEDULE_RETRY_SECONDS = 15;

interface ScheduleMemory {
  network?: string;
  schedule?: NodeSchedule;
  /** Epoch seconds of the last attempt that got an answer (a schedule, or the API switched off). */
  answeredAt?: number;
  /** Epoch seconds of the last attempt. */
  askedAt?: number;
  /** A poll went unanswered since the last answer: the node may have restarted on another build. */
  restarted?: boolean;
}

/** Per target object: a reload builds new targets, and with them a fresh read. */
/** The node whose schedule is read: its config. */
type NodeConfig = Pick<NodeTarget, 'baseUrl' | 'headers' | 'timeoutMs' | 'tls' | 'secrets' | 'network'>;

const memories = new WeakMap<NodeConfig, ScheduleMemory>();

/** Whether this poll reads the schedule again (`previous`: the node's last own poll). */
function due(memory: ScheduleMemory, previous: TargetObservation | undefined, at: number): boolean {
  // The node did not answer its last poll: it may have restarted on another build.
  if (previous !== undefined && previous.endpoints.length > 0 && previous.endpoints.every((e) => !e.ok)) memory.restarted = true;
  if (memory.askedAt === undefined) return true;
  // Past an activation its build lacks (a missed upgrade, rare and critical): every poll, so that the
  // build that knows it ends the missed upgrade (which its health may tell first) and the warning together.
  const unknown = previous?.unknownUpgrades;
  if (unknown !== undefined && unknown.length > 0 && unknown[0]!.at <= at) return true;
  if (at >= memory.askedAt && at - memory.askedAt < SCHEDULE_RETRY_SECONDS) return false;
  if (memory.answeredAt === undefined || at - memory.answeredAt >= SCHEDULE_MAX_AGE_SECONDS || memory.restarted) return true;
  // Behind the network's schedule: installing the build that knows the upgrade is what ends it.
  return unknown !== undefined && unknown.length > 0;
}

/** Whether two reads of the schedule say the same. */
function same(a: NodeSchedule, network: string | undefined, activations: NodeSchedule['activations']): boolean {
  if (a.network !== network) return false;
  let count = 0;
  for (const key in activations) {
    if (!Object.hasOwn(activations, key)) continue;
    count++;
    if (!Object.hasOwn(a.activations, key) || a.activations[key] !== activations[key]) return false;
  }
  for (const key in a.activations) if (Object.hasOwn(a.activations, key)) count--;
  return count === 0;
}

/** The node's schedule as last read (read now when due, or `force`d); undefined until its info API has answered. */
export async function readSchedule(target: NodeConfig, ctx: Pick<ProbeContext, 'http' | 'limit'>, previous: TargetObservation | undefined, at: number, options?: { force?: boolean }): Promise<NodeSchedule | undefined> {
  let memory = memories.get(target);
  if (!memory) memories.set(target, (memory = {}));
  if (options?.force !== true && !due(memory, previous, at)) return memory.schedule;
  memory.askedAt = at;
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
    // the same values: the schedule read before, answered now
    if (memory.schedule && same(memory.schedule, known, upgrades.value)) memory.schedule.readAt = at;
    else memory.schedule = { ...(known ? { network: known } : {}), activations: upgrades.value, readAt: at };
  }
  if (upgrades.value || upgrades.off) {
    memory.answeredAt = at;
    delete memory.restarted;
  }
  return memory.schedule;
}
