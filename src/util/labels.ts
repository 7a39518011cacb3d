import { createHash } from 'node:crypto';

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
