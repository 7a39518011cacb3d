/**
 * What every part of the status page is written with: escaping (every value from a node, a service
 * or the config), times, and what a source's panel is (see panels.ts).
 */
import type { Target } from '../config/load.js';
import type { Store, TargetState } from '../store.js';
import { isoTime } from '../util/time.js';
import { visibleControls } from '../util/visible.js';

/** A source's part of its target's status: `model` for the JSON API, `html` for the target's page. */
export interface Panel<M> {
  /** What the panel shows of a target, or undefined when its source has nothing (yet). */
  model(target: Target, state: TargetState, store: Store): M | undefined;
  html(model: M, now: number): string;
}

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
/** Untrusted text inside the page: `& < > " '` as entities, control characters visible (a terminal `curl`ing the page obeys none). */
export function escapeHtml(text: string): string {
  return visibleControls(text).replace(/[&<>"']/g, (c) => ESCAPES[c]!);
}
export const e = (value: unknown) => escapeHtml(String(value ?? ''));

export function age(seconds: number | undefined, now: number): string {
  if (seconds === undefined) return 'never';
  const s = Math.max(0, Math.round(now - seconds));
  if (s < 120) return `${s}s ago`;
  if (s < 7200) return `${Math.round(s / 60)}m ago`;
  if (s < 172800) return `${Math.round(s / 3600)}h ago`;
  return `${Math.round(s / 86400)}d ago`;
}

export const when = (seconds: number | undefined) => (seconds === undefined ? '' : (isoTime(seconds)?.replace('.000Z', 'Z') ?? ''));
export const timeTag = (seconds: number | undefined, now: number) => (seconds === undefined ? '<span class="muted">never</span>' : `<time datetime="${when(seconds)}" title="${when(seconds)}">${age(seconds, now)}</time>`);
