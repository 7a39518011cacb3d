/**
 * The value types of the config file, each a zod schema with its transform: durations, byte sizes,
 * listen addresses, label sets, matchers, `*_file` contents. Receiver config slices build on these.
 */
import { readFileSync } from 'node:fs';
import { isIPv6 } from 'node:net';
import { Cron } from 'croner';
import { z } from 'zod';
import { parseGoDuration } from '../util/go-duration.js';
import { isReservedLabelName, LABEL_NAME_PATTERN, RESERVED_LABEL_NAMES } from '../util/labels.js';

/**
 * An issue whose message is complete as written (it names its own subject), shown without the
 * `path: ` prefix the loader puts before zod's own messages.
 */
export const WHOLE_MESSAGE = { wholeMessage: true } as const;

type IssueSink = { addIssue: (issue: { code: 'custom'; message: string; path?: PropertyKey[]; params?: Record<string, unknown> }) => void };
export function report(ctx: IssueSink, path: PropertyKey[], message: string): void {
  ctx.addIssue({ code: 'custom', message, path, params: WHOLE_MESSAGE });
}

const DURATION_PATTERN = /^(?:0|(?:(?:\d+(?:\.\d*)?|\.\d+)(?:ns|us|µs|ms|s|m|h))+)$/;

/** A Go-style duration such as `15s`, `2m`, `1m30s` or `500ms`, resolved to milliseconds. */
export const duration = (min?: { ms: number; text: string }) =>
  z
    .string({ error: (issue) => (typeof issue.input === 'number' ? `must be a duration such as 15s: ${issue.input} has no unit (did you mean "${issue.input}s"?)` : undefined) })
    .regex(DURATION_PATTERN, 'must be a duration such as 500ms, 15s, 2m or 1h30m')
    .transform((text) => Math.round(parseGoDuration(text)! * 1000))
    .refine((ms) => min === undefined || ms >= min.ms, { message: `must be at least ${min?.text}` });

const SIZE_UNITS: Record<string, number> = { '': 1, b: 1, kb: 1e3, mb: 1e6, kib: 1024, mib: 1024 ** 2, gib: 1024 ** 3 };
/** A byte size: a number, or text like `4MiB`, `512KiB`, `100kB`. */
export const byteSize = z.union([
  z.number().int().positive(),
  z
    .string()
    .regex(/^\d+(?:\.\d+)?\s*(?:[kKmMgG]i?[bB]|[bB])?$/, 'must be a size such as 4MiB, 512KiB or 1048576')
    .transform((text) => {
      const m = /^(\d+(?:\.\d+)?)\s*([a-zA-Z]*)$/.exec(text)!;
      return Math.round(Number(m[1]) * SIZE_UNITS[m[2]!.toLowerCase()]!);
    }),
]);

export interface ListenAddress {
  host: string;
  port: number;
}

/** `HOST:PORT`, `[IPv6]:PORT` or `:PORT` (all interfaces) → host and port. */
export function parseListen(listen: string): ListenAddress {
  const i = listen.lastIndexOf(':');
  const host = listen.slice(0, i).replace(/^\[(.*)\]$/, '$1');
  return { host: host === '' ? '0.0.0.0' : host, port: Number(listen.slice(i + 1)) };
}

/**
 * The URL a listen address is reached at from this host: an unspecified address (`0.0.0.0`, `::`)
 * becomes loopback (`127.0.0.1`, `[::1]`), and an IPv6 address keeps its brackets.
 */
export function listenUrl({ host, port }: ListenAddress): string {
  const reachable = host === '0.0.0.0' ? '127.0.0.1' : isIPv6(host) && /^[0:]+$/.test(host) ? '::1' : host;
  return `http://${isIPv6(reachable) ? `[${reachable}]` : reachable}:${port}`;
}

export const LISTEN_PATTERN = /^(?:\[[0-9a-fA-F:.]+\]|[^:\s]*):\d{1,5}$/;
/** What is wrong with a listen address (`HOST:PORT`, `[IPv6]:PORT`, `:PORT`), or undefined. */
export function listenProblem(text: string): string | undefined {
  if (!LISTEN_PATTERN.test(text)) return 'must be HOST:PORT, [IPv6]:PORT or :PORT';
  const port = Number(text.slice(text.lastIndexOf(':') + 1));
  return port > 65_535 ? `port ${port} is out of range: a port is 0 to 65535 (0 picks a free one)` : undefined;
}

export const listen = z
  .string()
  .regex(LISTEN_PATTERN, 'must be HOST:PORT, [IPv6]:PORT or :PORT')
  .superRefine((text, ctx) => {
    const problem = LISTEN_PATTERN.test(text) ? listenProblem(text) : undefined;
    if (problem) ctx.addIssue({ code: 'custom', message: problem });
  })
  .transform(parseListen);

export function isCronPattern(pattern: string): boolean {
  try {
    new Cron(pattern, { paused: true }).stop();
    return true;
  } catch {
    return false;
  }
}

/** Label names follow Prometheus rules; the ones avahealth sets itself are reserved. */
const labelName = z
  .string()
  .regex(LABEL_NAME_PATTERN, 'label names must match [a-zA-Z_][a-zA-Z0-9_]*')
  .refine((name) => !name.startsWith('__'), 'label names starting with __ are reserved')
  .refine((name) => !isReservedLabelName(name), `is set by avahealth itself; reserved: ${RESERVED_LABEL_NAMES.join(', ')}`);
export const labels = z.record(labelName, z.string().max(256));

export const targetName = z
  .string()
  .regex(/^[A-Za-z0-9][A-Za-z0-9_.:-]{0,62}$/, 'target names are 1–63 characters of letters, digits, _ . : - (starting with a letter or digit)');

export const isHttpUrl = (u: string) => /^https?:\/\//i.test(u) && URL.canParse(u);
/** `127.0.0.1:9650`, as AvalancheGo's docs write a node's address, gets the URL it means as a hint (never when it could carry a credential: user@, a query). */
const schemeHint = (input: unknown) =>
  typeof input === 'string' && input !== '' && !/:\/\/|[@?#]/.test(input) && URL.canParse(`http://${input}`) ? ` (did you mean "http://${input}"?)` : '';
export const httpUrl = z.string().refine(isHttpUrl, { error: (issue) => `must be an http:// or https:// URL${schemeHint(issue.input)}` });

/** Request headers, names lowercased (HTTP names are case-insensitive): a configured `Accept` replaces avahealth's own. */
export const headers = z
  .record(z.string(), z.string())
  .superRefine((h, ctx) => {
    const names = Object.keys(h).map((name) => name.toLowerCase());
    const twice = names.find((name, i) => names.indexOf(name) !== i);
    if (twice) ctx.addIssue({ code: 'custom', message: `header "${twice}" is given twice (header names are case-insensitive)` });
  })
  .transform((h) => Object.fromEntries(Object.entries(h).map(([name, value]) => [name.toLowerCase(), value])));

/**
 * Request headers whose values describe the request, never a credential: written out in the
 * config, their values are not secrets (redacting `application/json` everywhere helps no one).
 * Every other header's value is a secret, whatever its name, and so is any value from ${ENV}.
 */
const HARMLESS_HEADERS = new Set(['accept', 'accept-charset', 'accept-encoding', 'accept-language', 'cache-control', 'connection', 'content-type', 'pragma', 'user-agent']);

export function isHarmlessHeader(name: string): boolean {
  return HARMLESS_HEADERS.has(name.toLowerCase());
}

/** The values of headers that may carry a credential (all but the harmless ones). */
export function secretHeaderValues(headers: Record<string, string> | undefined): string[] {
  return Object.entries(headers ?? {}).flatMap(([name, value]) => (isHarmlessHeader(name) ? [] : [value]));
}

export interface Matcher {
  name: string;
  value: string | RegExp;
}

/** `~regex` values are anchored regular expressions; others match exactly. */
export function parseMatchers(record: Record<string, string> | undefined): Matcher[] {
  return Object.entries(record ?? {}).map(([name, value]) => ({ name, value: value.startsWith('~') ? new RegExp(`^(?:${value.slice(1)})$`) : value }));
}

/** A matcher's value as the config wrote it (`~regex` for a regular expression): `parseMatchers` undone. */
export const matcherText = ({ value }: Matcher): string => (typeof value === 'string' ? value : `~${value.source.slice('^(?:'.length, -')$'.length)}`);

export const matchers = z
  .record(z.string(), z.string())
  .describe('Label matchers: exact values, or a regular expression written as ~regex (e.g. target: "~validator-.*").')
  .superRefine((record, ctx) => {
    for (const [name, value] of Object.entries(record)) {
      if (!value.startsWith('~')) continue;
      try {
        new RegExp(value.slice(1));
      } catch (err) {
        report(ctx, [name], `invalid regular expression: ${(err as Error).message}`);
      }
    }
  })
  .transform(parseMatchers);

/**
 * The content of a `*_file` setting (one trailing newline trimmed). The YAML module has made the
 * path absolute (relative paths are relative to the config file); an unreadable file is located.
 */
export const fileContent = (key: string) =>
  z.string().transform((path, ctx) => {
    try {
      return readFileSync(path, 'utf8').replace(/\r?\n$/, '');
    } catch (err) {
      report(ctx, [], `cannot read ${key}: ${(err as Error).message}`);
      return z.NEVER;
    }
  });

/** `field` and `field_file`: a secret given inline or read from a file. */
export const secretField = <K extends string>(field: K) =>
  ({ [field]: z.string().optional(), [`${field}_file`]: fileContent(`${field}_file`).optional() }) as {
    [P in K | `${K}_file`]: z.ZodOptional<P extends K ? z.ZodString : ReturnType<typeof fileContent>>;
  };

/** The inline value when it is not empty, else the file's content. */
export function secretValue(settings: Record<string, unknown>, field: string): string | undefined {
  const inline = settings[field];
  if (typeof inline === 'string' && inline !== '') return inline;
  const fromFile = settings[`${field}_file`];
  return typeof fromFile === 'string' ? fromFile : undefined;
}
