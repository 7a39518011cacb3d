/**
 * Health reports of the hosted APIs: NestJS Terminus `{status, info, error, details}` (any of the
 * maps may be null, components may carry extra fields), or the documented error body
 * `{message: string | string[], statusCode, error}` that a 503 may carry instead.
 */
import type { ServiceReport } from '../model/observation.js';
import { capName, capText, describe, isObject, LIMITS, type ParseOutcome } from './avalanchego.js';

export function parseServiceHealth(value: unknown): ParseOutcome<ServiceReport> {
  if (!isObject(value)) return { ok: false, error: `expected a JSON object, got ${describe(value)}` };
  const errorBody = parseErrorBody(value);
  if (errorBody !== undefined) return { ok: true, value: { status: 'error', healthy: false, components: [], message: errorBody } };
  if (typeof value.status !== 'string') return { ok: false, error: `"status" must be a string, got ${describe(value.status)}` };
  for (const key of ['info', 'error', 'details'] as const) {
    if (value[key] !== undefined && value[key] !== null && !isObject(value[key])) return { ok: false, error: `"${key}" must be an object or null, got ${describe(value[key])}` };
  }
  // `details` holds every indicator; older or trimmed reports only have info (up) and error (down).
  const merged: Record<string, unknown> = { ...(value.info as object | null), ...(value.error as object | null), ...(value.details as object | null) };
  const components: ServiceReport['components'] = [];
  let more = 0;
  for (const [rawName, indicator] of Object.entries(merged)) {
    if (components.length >= LIMITS.checks) {
      more++;
      continue;
    }
    const name = capName(rawName);
    const status = isObject(indicator) && typeof indicator.status === 'string' ? capText(indicator.status, 64) : 'unknown';
    const component: ServiceReport['components'][number] = { name, up: status === 'up', status };
    const message = isObject(indicator) ? (indicator.message ?? indicator.error) : undefined;
    if (message !== undefined) component.message = capText(typeof message === 'string' ? message : JSON.stringify(message));
    components.push(component);
  }
  if (more > 0) components.push({ name: '(more components)', up: true, status: 'up', message: `${more} more components not shown` });
  const report: ServiceReport = { status: capText(value.status, 64), healthy: value.status === 'ok', components };
  const down = components.filter((c) => !c.up).map((c) => (c.message ? `${c.name}: ${c.message}` : c.name));
  if (down.length > 0) report.message = capText(`down: ${down.join('; ')}`);
  return { ok: true, value: report };
}

/** The message of an error body `{message, statusCode, error}`, or undefined when it is not one. */
export function parseErrorBody(value: unknown): string | undefined {
  if (!isObject(value) || typeof value.statusCode !== 'number' || !('message' in value)) return undefined;
  const message = Array.isArray(value.message) ? value.message.slice(0, 50).map(String).join('; ') : String(value.message);
  return capText(typeof value.error === 'string' && value.error !== message ? `${value.error}: ${message}` : message);
}
