/**
 * The latest observation of every target: the one source of truth that metrics, the status page
 * and alerts read. It also remembers what an observation alone cannot say (last success times).
 */
import type { EndpointObservation, TargetObservation } from './model/observation.js';

/** One change worth showing on the status page: "C failing: …", "network recovered", "unreachable: …". */
export interface Change {
  at: number;
  text: string;
  good: boolean;
}

const HISTORY = 20;

export interface TargetState {
  observation: TargetObservation;
  /** The last changes, newest first. */
  history: Change[];
  /** Epoch seconds of the last successful probe, per `endpoint/view`. */
  lastSuccessAt: Map<string, number>;
  /** Last NodeID seen in a `node-id` header (kept across failed polls). */
  nodeId?: string;
  rounds: number;
}

export type StoreListener = (target: string, state: TargetState) => void;

function mainEndpoint(o: TargetObservation): EndpointObservation | undefined {
  return o.endpoints.find((e) => (e.endpoint === 'health' || e.endpoint === 'health-check') && e.view === 'all') ?? o.endpoints[0];
}

/** What changed between two observations of a target, in words. */
function describeChanges(before: TargetObservation, after: TargetObservation): Change[] {
  const was = mainEndpoint(before);
  const now = mainEndpoint(after);
  if (!was || !now) return [];
  const at = after.at;
  if (was.ok && !now.ok) return [{ at, text: `unreachable: ${now.reason} (${now.error ?? ''})`, good: false }];
  if (!was.ok && now.ok) return [{ at, text: 'reachable again', good: true }];
  // The same report object means the same bytes as last time: nothing changed.
  if (was.report !== undefined && was.report === now.report) return [];
  const changes: Change[] = [];
  const previous = new Map((was.report?.checks ?? []).map((c) => [c.name, c]));
  for (const check of now.report?.checks ?? []) {
    const old = previous.get(check.name);
    if (old && old.passing && !check.passing && !check.notYetRun) changes.push({ at, text: `${check.name} failing: ${check.error ?? ''}`, good: false });
    if (old && !old.passing && check.passing) changes.push({ at, text: `${check.name} recovered`, good: true });
  }
  const wasHealthy = was.report?.healthy ?? was.service?.healthy;
  const isHealthy = now.report?.healthy ?? now.service?.healthy;
  if (wasHealthy !== undefined && isHealthy !== undefined && wasHealthy !== isHealthy) {
    changes.push({ at, text: isHealthy ? 'healthy' : `unhealthy${now.service?.message ? `: ${now.service.message}` : ''}`, good: isHealthy });
  }
  return changes;
}

export function endpointKey(e: Pick<EndpointObservation, 'endpoint' | 'view'>): string {
  return `${e.endpoint}/${e.view}`;
}

export class Store {
  private readonly targets = new Map<string, TargetState>();
  private readonly listeners: StoreListener[] = [];
  private readonly removeListeners: Array<(target: string) => void> = [];

  onUpdate(listener: StoreListener): void {
    this.listeners.push(listener);
  }

  onRemove(listener: (target: string) => void): void {
    this.removeListeners.push(listener);
  }

  record(observation: TargetObservation): TargetState {
    const previous = this.targets.get(observation.target);
    const lastSuccessAt = previous?.lastSuccessAt ?? new Map<string, number>();
    for (const e of observation.endpoints) if (e.ok) lastSuccessAt.set(endpointKey(e), e.at + e.durationSeconds);
    const changes = previous ? describeChanges(previous.observation, observation) : [];
    const history = [...changes, ...(previous?.history ?? [])].slice(0, HISTORY);
    const state: TargetState = { observation, lastSuccessAt, history, rounds: (previous?.rounds ?? 0) + 1 };
    const nodeId = observation.nodeId ?? previous?.nodeId;
    if (nodeId) state.nodeId = nodeId;
    this.targets.set(observation.target, state);
    for (const listener of this.listeners) listener(observation.target, state);
    return state;
  }

  get(target: string): TargetState | undefined {
    return this.targets.get(target);
  }

  entries(): IterableIterator<[string, TargetState]> {
    return this.targets.entries();
  }

  remove(target: string): void {
    if (!this.targets.delete(target)) return;
    for (const listener of this.removeListeners) listener(target);
  }
}
