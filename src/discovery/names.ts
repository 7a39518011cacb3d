import { createHash } from 'node:crypto';
import { isIP } from 'node:net';
import { isReservedLabelName, LABEL_NAME_PATTERN } from '../util/labels.js';
import { oneLine } from '../util/visible.js';
import type { DiscoveredTarget } from './types.js';

const MAX_NAME = 63;

/**
 * Target names are label values and keys: letters, digits, `_ . : -`, at most 63 characters. A
 * longer one ends in a hash of the whole text, so two long host names alike in their first 63
 * characters stay two targets instead of one hiding the other.
 */
export function targetName(text: string): string {
  const name = text.replace(/[^A-Za-z0-9_.:-]/g, '_').replace(/^[^A-Za-z0-9]+/, '');
  if (name.length <= MAX_NAME) return name || 'target';
  const hash = createHash('sha256').update(text).digest('hex').slice(0, 8);
  return `${name.slice(0, MAX_NAME - hash.length - 1)}-${hash}`;
}

/** At most this many labels per discovered target, each value at most this long (as config's `labels:`): a file_sd group cannot put megabytes on every series. */
export const MAX_DISCOVERED_LABELS = 64;
export const MAX_DISCOVERED_LABEL_VALUE = 256;

const HOST_LABEL = '[A-Za-z0-9_](?:[A-Za-z0-9_-]{0,61}[A-Za-z0-9_])?';
const HOST_NAME = new RegExp(`^(?=.{1,253}$)${HOST_LABEL}(?:\\.${HOST_LABEL})*$`);

/** A DNS host name (letters, digits, `-`, `_`, dots) or an IPv4 address: nothing that can carry a path, query or credentials. */
export function isHostName(host: string): boolean {
  return isIP(host) === 4 || HOST_NAME.test(host);
}

/** `[scheme://]host[:port]`, an optional `/` at the end and nothing else. */
const ADDRESS = /^(?:(https?):\/\/)?(\[[0-9A-Fa-f:.]+\]|[^/?#@[\]:\s]+)(?::(\d{1,5}))?\/?$/i;

/**
 * `host:port`, `[ipv6]:port` or `http(s)://host:port` → a discovered target named after its host
 * and port; undefined for anything with a path, query, fragment or user info.
 */
export function targetFromAddress(address: string, scheme: string, labels: Record<string, string>): DiscoveredTarget | undefined {
  const m = ADDRESS.exec(address);
  if (!m) return undefined;
  const protocol = (m[1] ?? scheme).toLowerCase();
  const bracketed = m[2]!.startsWith('[');
  const host = (bracketed ? m[2]!.slice(1, -1) : m[2]!).toLowerCase();
  if (bracketed ? isIP(host) !== 6 : !isHostName(host)) return undefined;
  const port = m[3] ? Number(m[3]) : protocol === 'https' ? 443 : 80;
  if (port < 1 || port > 65535) return undefined;
  return { name: targetName(`${host.replace(/:/g, '_')}:${port}`), url: `${protocol}://${bracketed ? `[${host}]` : host}:${port}`, labels };
}

/**
 * A discovered group's labels: Prometheus' meta labels (`__…`) are not ours to export; a name
 * avahealth sets itself (or one that is no label name) is left out and named in `dropped`.
 */
export function discoveredLabels(raw: Record<string, unknown>, into: Record<string, string>, dropped: string[]): Record<string, string> {
  const labels = { ...into };
  for (const [name, value] of Object.entries(raw)) {
    if (name.startsWith('__') || typeof value !== 'string') continue;
    if (!LABEL_NAME_PATTERN.test(name) || isReservedLabelName(name) || (!(name in labels) && Object.keys(labels).length >= MAX_DISCOVERED_LABELS)) dropped.push(name);
    else labels[name] = discoveredValue(value);
  }
  return labels;
}

/** An untrusted label value: on one line with its control characters visible, cut at MAX_DISCOVERED_LABEL_VALUE characters. */
function discoveredValue(value: string): string {
  const line = oneLine(value);
  return line.length <= MAX_DISCOVERED_LABEL_VALUE ? line : `${line.slice(0, MAX_DISCOVERED_LABEL_VALUE - 1)}…`;
}
