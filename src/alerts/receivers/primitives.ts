/**
 * What every receiver kind's config slice (`<kind>/schema.ts`) is made of: the slice itself, the
 * checks its shape cannot express, and the secret resolution that turns it into the settings its
 * `send.ts` uses plus the values that must never be shown. Loaded by config/, so it imports only
 * zod, util/ and config/primitives.ts.
 */
import type { z } from 'zod';

/** A problem at one of the kind's fields (or at the kind's object when the field is not written). */
export interface Problem {
  field: string;
  message: string;
}

export interface ReceiverSchema<Kind extends string, Slice extends z.ZodObject, Settings> {
  kind: Kind;
  /** The kind's config slice, `*_file` secrets included (read by config/primitives.ts's secretField). */
  slice: Slice;
  /** What the shape cannot say (a URL that must be there, from one field or its `_file`). */
  check(input: z.output<Slice>): Problem[];
  /** Secret resolution: the settings `send.ts` uses, and every value to redact from logs and pages. */
  resolve(input: z.output<Slice>): { settings: Settings; secrets: string[] };
  /** The credential these settings would send where anyone on the path can read it (no TLS), in words, for `validate`'s warning; undefined when none. */
  cleartext?(settings: Settings): { field: string; what: string } | undefined;
}

export function defineReceiverSchema<const Kind extends string, Slice extends z.ZodObject, Settings>(schema: ReceiverSchema<Kind, Slice, Settings>): ReceiverSchema<Kind, Slice, Settings> {
  return schema;
}

export const isHttpUrl = (u: string | undefined): u is string => u !== undefined && /^https?:\/\//i.test(u) && URL.canParse(u);

/** A host whose traffic never leaves the machine (or the pod): localhost, 127.0.0.0/8, ::1. */
export function isLoopbackHost(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, '').toLowerCase();
  return h === 'localhost' || h.endsWith('.localhost') || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(h) || h === '::1';
}

/** Whether a request to `url` goes out without TLS to another machine. */
export function isCleartextUrl(url: string): boolean {
  if (!URL.canParse(url)) return false;
  const u = new URL(url);
  return u.protocol === 'http:' && !isLoopbackHost(u.hostname);
}

/** A secret URL, and its path and query on their own (where webhook tokens live; receivers echo paths). */
export function urlSecrets(url: string): string[] {
  const { pathname, search } = new URL(url);
  const tail = `${pathname}${search}`;
  return tail.length >= 8 ? [url, tail] : [url];
}

/** The problem of a required http(s) URL, if any. */
export function urlProblem(kind: string, url: string | undefined, hasFile: boolean): Problem[] {
  return isHttpUrl(url) ? [] : [{ field: 'url', message: `${kind} needs an http(s) url${hasFile ? ' (url or url_file)' : ''}` }];
}
