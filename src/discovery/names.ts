import type { DiscoveredTarget } from './types.js';

/** Target names are label values and keys: letters, digits, `_ . : -`, at most 63 characters. */
export function targetName(text: string): string {
  const name = text.replace(/[^A-Za-z0-9_.:-]/g, '_').replace(/^[^A-Za-z0-9]+/, '');
  return name.slice(0, 63) || 'target';
}

/** `host:port`, `[ipv6]:port` or a full URL → a discovered target named after its host and port. */
export function targetFromAddress(address: string, scheme: string, labels: Record<string, string>): DiscoveredTarget | undefined {
  const text = address.includes('://') ? address : `${scheme}://${address}`;
  if (!URL.canParse(text)) return undefined;
  const url = new URL(text);
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return undefined;
  const port = url.port || (url.protocol === 'https:' ? '443' : '80');
  const host = url.hostname.replace(/^\[|\]$/g, '').replace(/:/g, '_');
  const path = url.pathname.replace(/^\/+|\/+$/g, '').replace(/\//g, '-');
  return { name: targetName(`${host}:${port}${path ? `-${path}` : ''}`), url: `${url.origin}${url.pathname.replace(/\/+$/, '')}`, labels };
}
