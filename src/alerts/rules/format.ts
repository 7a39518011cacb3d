/** Words and numbers as alerts say them. */

const DAY = 86_400;

/** "C", "C and P", "C, P, X and network". */
export function listNames(names: string[]): string {
  if (names.length <= 1) return names.join('');
  return `${names.slice(0, -1).join(', ')} and ${names.at(-1)}`;
}

export function formatDuration(seconds: number): string {
  if (seconds >= 2 * DAY) return `${Math.round(seconds / DAY)}d`;
  if (seconds >= 2 * 3600) return `${Math.round(seconds / 3600)}h`;
  if (seconds >= 120) return `${Math.round(seconds / 60)}m`;
  return `${Math.round(seconds)}s`;
}

export function formatBytes(bytes: number | undefined): string {
  if (bytes === undefined) return 'unknown';
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) [value, unit] = [value / 1024, unit + 1];
  return `${value.toFixed(1)} ${units[unit]}`;
}
