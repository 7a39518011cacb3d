/** How Go writes the values AvalancheGo puts on the wire: RFC3339Nano in a local zone, Duration.String(), HTML-escaped JSON. */

/** RFC3339Nano with trailing fractional zeros trimmed, in a zone `offsetMinutes` from UTC. */
export function formatGoTime(epochMs: number, offsetMinutes = 0, extraNanos = 0): string {
  const local = new Date(epochMs + offsetMinutes * 60_000);
  const iso = local.toISOString(); // 2026-08-22T14:03:41.518Z in "local" wall time
  const nanos = String((local.getUTCMilliseconds() * 1e6 + extraNanos) % 1e9).padStart(9, '0').replace(/0+$/, '');
  const zone =
    offsetMinutes === 0
      ? 'Z'
      : `${offsetMinutes < 0 ? '-' : '+'}${String(Math.floor(Math.abs(offsetMinutes) / 60)).padStart(2, '0')}:${String(Math.abs(offsetMinutes) % 60).padStart(2, '0')}`;
  return `${iso.slice(0, 19)}${nanos ? `.${nanos}` : ''}${zone}`;
}

export const GO_ZERO_TIME = '0001-01-01T00:00:00Z';

/** Go's time.Duration.String() for a number of seconds. */
export function formatGoDuration(seconds: number): string {
  if (seconds === 0) return '0s';
  const sign = seconds < 0 ? '-' : '';
  let s = Math.abs(seconds);
  if (s < 1e-6) return `${sign}${trim(s * 1e9)}ns`;
  if (s < 1e-3) return `${sign}${trim(s * 1e6)}µs`;
  if (s < 1) return `${sign}${trim(s * 1e3)}ms`;
  const h = Math.floor(s / 3600);
  s -= h * 3600;
  const m = Math.floor(s / 60);
  s -= m * 60;
  if (h > 0) return `${sign}${h}h${m}m${trim(s)}s`;
  if (m > 0) return `${sign}${m}m${trim(s)}s`;
  return `${sign}${trim(s)}s`;
}

function trim(value: number): string {
  return String(Number(value.toFixed(9)));
}

/** JSON as Go's encoder writes it: `<`, `>`, `&` (and U+2028/9) escaped inside strings. */
export function goJson(value: unknown): string {
  return JSON.stringify(value)
    .replace(/</g, '\\u003c')
    .replace(/>/g, '\\u003e')
    .replace(/&/g, '\\u0026')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');
}
