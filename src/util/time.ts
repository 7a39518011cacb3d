/** Epoch seconds as an ISO 8601 time, or undefined for a value no Date holds (a time that slipped past a parser must not take a page down). */
export function isoTime(epochSeconds: number): string | undefined {
  const date = new Date(epochSeconds * 1000);
  return Number.isNaN(date.getTime()) ? undefined : date.toISOString();
}
