import { createHash } from 'node:crypto';

/**
 * Every label name avahealth sets on a series or an alert, and Prometheus' own: a config or
 * discovery label of one of these names would repeat a label on a series (Prometheus rejects the
 * whole scrape) or rename an alert, so config refuses them and discovery drops them.
 */
export const RESERVED_LABEL_NAMES: readonly string[] = [
  'target', 'endpoint', 'view', 'check', 'chain', 'component', 'node_id', 'subnet_id', 'validation_id', 'version',
  'network', 'observer', 'quantile', 'kind', 'alertname', 'severity', 'scope', 'reason', 'receiver', 'status', 'job', 'instance',
];

export const LABEL_NAME_PATTERN = /^[a-zA-Z_][a-zA-Z0-9_]*$/;

/** Reserved: set by avahealth (RESERVED_LABEL_NAMES) or by Prometheus (`__…`). */
export function isReservedLabelName(name: string): boolean {
  return name.startsWith('__') || RESERVED_LABEL_NAMES.includes(name);
}

const SAFE = /^[A-Za-z0-9_.:\-/ ]*$/;
const UNSAFE_CHARS = /[^A-Za-z0-9_.:\-/ ]/g;

/**
 * Turns an untrusted string (a check name from a node) into a bounded label value. Safe, short
 * values pass unchanged; anything else has unsafe characters replaced and gets a short hash of the
 * original, so two different names never collapse into one series.
 */
export function sanitizeLabelValue(value: string, maxLength: number): string {
  if (value.length <= maxLength && SAFE.test(value)) return value;
  const hash = createHash('sha256').update(value).digest('hex').slice(0, 8);
  const cleaned = value.replace(UNSAFE_CHARS, '_').slice(0, Math.max(1, maxLength - hash.length - 1));
  return `${cleaned}~${hash}`;
}
