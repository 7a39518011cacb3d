/**
 * The latest observation of every target: the one source of truth that metrics, the status page
 * and alerts read. It also remembers what an observation alone cannot say (last success times).
 */
import type { EndpointObservation, TargetObservation } from './observation.js';

export interface TargetState {
  observation: TargetObservation;
  /** Epoch seconds of the last successful probe, per `endpoint/view`. */
  lastSuccessAt: Map<string, number>;
  /** Last NodeID seen in a `node-id` header (kept across failed polls). */
  nodeId?: string;
  rounds: number;
}

export type StoreListener = (target: string, state: TargetState) => void;

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
    const state: TargetState = { observation, lastSuccessAt, rounds: (previous?.rounds ?? 0) + 1 };
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
