/**
 * RFC 3339 timestamps as Go writes them (RFC3339Nano: 0–9 fractional digits, any offset).
 * Returns epoch seconds (with sub-millisecond precision kept), or undefined for text that is not
 * a timestamp and for Go's zero time (year 1), which means "never" and must not become a date.
 */
const RFC3339 =
  /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(?:([Zz])|([+-])(\d{2}):(\d{2}))$/;

export function parseGoTime(text: unknown): number | undefined {
  if (typeof text !== 'string') return undefined;
  const m = RFC3339.exec(text);
  if (!m) return undefined;
  const year = Number(m[1]);
  if (year <= 1) return undefined;
  const wholeSeconds = Date.UTC(year, Number(m[2]) - 1, Number(m[3]), Number(m[4]), Number(m[5]), Number(m[6])) / 1000;
  if (Number.isNaN(wholeSeconds)) return undefined;
  const fraction = m[7] ? Number(`0.${m[7]}`) : 0;
  const offsetSeconds = m[9] ? (m[9] === '-' ? -1 : 1) * (Number(m[10]) * 3600 + Number(m[11]) * 60) : 0;
  return wholeSeconds + fraction - offsetSeconds;
}
