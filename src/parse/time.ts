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
  const [year, month, day, hour, minute, second] = [1, 2, 3, 4, 5, 6].map((i) => Number(m[i]));
  if (year! <= 1) return undefined;
  if (month! < 1 || month! > 12 || day! < 1 || day! > 31 || hour! > 23 || minute! > 59 || second! > 60) return undefined;
  const wholeSeconds = Date.UTC(year!, month! - 1, day!, hour!, minute!, second!) / 1000;
  const fraction = m[7] ? Number(`0.${m[7]}`) : 0;
  const offsetSeconds = m[9] ? (m[9] === '-' ? -1 : 1) * (Number(m[10]) * 3600 + Number(m[11]) * 60) : 0;
  return wholeSeconds + fraction - offsetSeconds;
}
