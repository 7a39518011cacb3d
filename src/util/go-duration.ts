/**
 * Go `time.Duration.String()` values, as AvalancheGo writes them inside check messages
 * ("0s", "163.82µs", "1m0s", "54m47.702163721s"), and the same syntax for config durations.
 */
const UNIT_SECONDS: Record<string, number> = {
  ns: 1e-9,
  us: 1e-6,
  'µs': 1e-6, // U+00B5 MICRO SIGN, what Go writes
  'μs': 1e-6, // U+03BC GREEK SMALL LETTER MU, accepted by Go's parser too
  ms: 1e-3,
  s: 1,
  m: 60,
  h: 3600,
};

const WHOLE = /^([+-]?)((?:(?:\d+(?:\.\d*)?|\.\d+)(?:ns|us|µs|μs|ms|s|m|h))+)$/;
const PART = /(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|μs|ms|s|m|h)/g;

/** Go's time.Duration is an int64 of nanoseconds: about 292 years either way. */
const MAX_SECONDS = 2 ** 63 / 1e9;

/** Seconds, or undefined when the text is not a Go duration (or one beyond Go's range). "0" alone is valid, as in Go. */
export function parseGoDuration(text: string): number | undefined {
  if (text === '0' || text === '+0' || text === '-0') return 0;
  const whole = WHOLE.exec(text);
  if (!whole) return undefined;
  let seconds = 0;
  for (const [, value, unit] of whole[2]!.matchAll(PART)) {
    seconds += Number(value) * UNIT_SECONDS[unit!]!;
  }
  if (!(seconds <= MAX_SECONDS)) return undefined;
  return whole[1] === '-' ? -seconds : seconds;
}

/** Seconds from a value that should be a Go duration string; anything else is undefined. */
export function durationField(value: unknown): number | undefined {
  return typeof value === 'string' ? parseGoDuration(value) : undefined;
}
