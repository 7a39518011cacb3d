/** What every probe shares: timing an exchange and turning its outcome into an EndpointObservation. */
import { createHash } from 'node:crypto';
import { ProbeError, type HttpClient, type HttpResponse } from '../transport/client.js';
import type { NodeTarget } from '../config/load.js';
import type { EndpointObservation } from '../model/observation.js';
import type { ParseOutcome } from '../parse/avalanchego.js';
import { readRpcAnswer, rpcRequest, type RpcAnswer } from '../parse/jsonrpc.js';
import { redact, redactDeep, snippet } from '../util/text.js';

/** Bodies kept for the status page (and compared whole by ParseCache) up to this size. */
const RAW_LIMIT = 32 * 1024;

/**
 * A node caches its health results for a whole health-check period (30 s), so consecutive polls
 * usually return the very same bytes. Same body and status, same report object: nothing is parsed
 * again, and everything keyed on the report object (rendered series, change history) is reused.
 * A body up to RAW_LIMIT is compared whole (the status page keeps the health body anyway); a
 * larger one by its SHA-1, so a hostile target's megabytes are not kept.
 */
export class ParseCache {
  private readonly entries = new Map<string, ParsedBody>();

  parse<T>(key: string, response: HttpResponse, parse: () => T): T {
    const last = this.entries.get(key);
    // an unchanged body read from the wire is compared as bytes, not decoded (HttpResponse.sameAs)
    if (last?.body !== undefined && last.status === response.status && response.sameAs?.(last.body)) {
      response.body = last.body;
      return last.value as T;
    }
    const small = response.body.length <= RAW_LIMIT;
    const hash = small ? undefined : createHash('sha1').update(response.body).digest('base64');
    if (last && last.status === response.status && (small ? last.body === response.body : last.hash === hash)) {
      // The string kept since last time stands for this body from now on: whatever the caller keeps
      // of it (the status page's raw body) is then long-lived already instead of a fresh copy per poll.
      if (last.body !== undefined) response.body = last.body;
      return last.value as T;
    }
    const value = parse();
    this.entries.set(key, new ParsedBody(small ? response.body : undefined, hash, response.status, value));
    return value;
  }

  forget(prefix: string): void {
    for (const key of this.entries.keys()) if (key.startsWith(prefix)) this.entries.delete(key);
  }
}

/**
 * One answer several jobs share for a while: a call whose answer serves more than the job that made
 * it (one observer asked about every own validator at once serves each validator's job). A job
 * within `maxAgeMs` of the call gets its answer, awaited if still in flight; a later one makes a new
 * call. `fetch` must not reject (classify a failure into the answer instead).
 */
export class SharedAnswers {
  private readonly entries = new Map<string, { at: number; answer: Promise<unknown> }>();

  get<T>(key: string, now: number, maxAgeMs: number, fetch: () => Promise<T>): Promise<T> {
    const last = this.entries.get(key);
    if (last && now - last.at < maxAgeMs) return last.answer as Promise<T>;
    const answer = fetch();
    this.entries.set(key, { at: now, answer });
    return answer;
  }

  forget(prefix: string): void {
    for (const key of this.entries.keys()) if (key.startsWith(prefix)) this.entries.delete(key);
  }
}

/**
 * One ParseCache entry (one per endpoint of every target, kept for the daemon's life). A class, not
 * a spread object literal: those were ≈ 130 bytes larger each, and in a 1,000-node daemon's heap
 * snapshot every one also had a hidden class and descriptor array of its own (≈ 160 bytes more).
 */
class ParsedBody {
  constructor(
    readonly body: string | undefined,
    readonly hash: string | undefined,
    readonly status: number,
    readonly value: unknown,
  ) {}
}

/**
 * An observation as `observe` starts it. Built by a constructor, not a literal, so that V8 sizes
 * its objects for the fields an exchange adds later (status, report, raw body, NodeID) instead of
 * giving every poll's observations an out-of-object property array as well.
 */
class Observed {
  endpoint: string;
  view: string;
  ok: boolean;
  durationSeconds: number;
  at: number;

  constructor(endpoint: string, view: string, at: number) {
    this.endpoint = endpoint;
    this.view = view;
    this.ok = false;
    this.durationSeconds = 0;
    this.at = at;
  }
}

/**
 * Runs `exchange` and records it: on success it fills the observation (status, report…); a thrown
 * ProbeError becomes the failure reason and (redacted) error text. Anything else is a bug in
 * parsing code; it is reported, never allowed to crash the daemon.
 */
export async function observe(
  endpoint: string,
  view: string,
  secrets: readonly string[],
  exchange: (observation: EndpointObservation) => Promise<void>,
): Promise<EndpointObservation> {
  const observation: EndpointObservation = new Observed(endpoint, view, Date.now() / 1000);
  const started = performance.now();
  try {
    await exchange(observation);
    observation.ok = true;
  } catch (err) {
    const failure = err instanceof ProbeError ? err : new ProbeError('bad_shape', `unexpected error reading the response: ${String(err)}`);
    observation.reason = failure.reason;
    observation.error = redact(failure.message, secrets);
  }
  observation.durationSeconds = (performance.now() - started) / 1000;
  // A target may echo what it was sent (headers, keys) in any text of its reply: check errors and
  // messages, component messages, the raw body. Nothing leaves the probe with a secret in it.
  return redactDeep(observation, secrets);
}

let nextRpcId = 1;

/** One JSON-RPC call to a node's API (`/ext/info`, `/ext/bc/P`), its answer classified; a failed exchange throws a ProbeError. */
export async function callNode(
  node: Pick<NodeTarget, 'baseUrl' | 'headers' | 'timeoutMs' | 'tls' | 'secrets'>,
  path: string,
  method: string,
  params: Record<string, unknown> | readonly unknown[],
  ctx: { http: HttpClient; limit: <T>(fn: () => Promise<T>) => Promise<T> },
): Promise<{ status: number; answer: RpcAnswer }> {
  const id = nextRpcId++;
  const response = await ctx.limit(() =>
    ctx.http.request({ url: `${node.baseUrl}${path}`, method: 'POST', headers: { ...node.headers, 'content-type': 'application/json' }, body: rpcRequest(method, params, id), timeoutMs: node.timeoutMs, tls: node.tls, secrets: node.secrets }),
  );
  return { status: response.status, answer: readRpcAnswer(response.status, response.body, id, node.secrets) };
}

/** Keeps the body for the status page: capped, and copied so it never pins a larger string. */
export function keepRaw(observation: EndpointObservation, response: HttpResponse): void {
  const body = response.body;
  observation.raw = body.length <= RAW_LIMIT ? body : `${Buffer.from(body.slice(0, RAW_LIMIT)).toString('utf8')}\n… (${body.length - RAW_LIMIT} more characters)`;
}

export function parseJson(response: HttpResponse): unknown {
  try {
    return JSON.parse(response.body);
  } catch {
    throw new ProbeError('bad_json', `body is not JSON: ${snippet(response.body, response.secrets)}`);
  }
}

export function statusError(response: HttpResponse, detail = snippet(response.body, response.secrets)): ProbeError {
  return new ProbeError(response.status === 429 ? 'rate_limited' : 'http_status', `HTTP ${response.status}: ${detail}`);
}

/**
 * A health endpoint's body: 200 and 503 both carry a report, and health comes from the body, never
 * the status. A 503 that is not a report is a proxy's (or gateway's) error page: http_status.
 */
export function readHealthBody<T>(response: HttpResponse, parse: (json: unknown) => ParseOutcome<T>, otherStatus: (r: HttpResponse) => ProbeError = statusError): T {
  if (response.status !== 200 && response.status !== 503) throw otherStatus(response);
  let json: unknown;
  try {
    json = parseJson(response);
  } catch (err) {
    throw response.status === 503 ? statusError(response) : err;
  }
  const parsed = parse(json);
  if (!parsed.ok) throw response.status === 503 ? statusError(response) : new ProbeError('bad_shape', `not a health report: ${parsed.error}`);
  return parsed.value;
}
