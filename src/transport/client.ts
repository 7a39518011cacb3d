/**
 * The one outbound HTTP client: a shared undici Agent with explicit connect/headers/body timeouts,
 * a per-request deadline and a response-size cap. Targets with their own TLS settings (CA,
 * skip-verify) share one Agent per distinct setting, so two targets on the same origin can differ.
 * No retries: a probe reports what happened on its one attempt.
 */
import { createRequire } from 'node:module';
import type { Agent as UndiciAgent, Dispatcher } from 'undici';
import type { TlsSettings } from '../config/load.js';
import type { Logger } from '../log.js';
import type { FailureReason } from '../model/observation.js';
import { displayUrl, redact } from '../util/text.js';

/**
 * undici's Agent alone: the package's index also loads fetch, WebSocket, EventSource, the cache and
 * the mock agent, none of which the daemon uses (their cost in RSS: bench/RESULTS.md history).
 */
const Agent = createRequire(import.meta.url)('undici/lib/dispatcher/agent.js') as typeof UndiciAgent;
type Agent = UndiciAgent;

export class ProbeError extends Error {
  constructor(
    readonly reason: FailureReason,
    message: string,
  ) {
    super(message);
    this.name = 'ProbeError';
  }
}

export interface HttpResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
  /** The request's secrets, for redacting the body before any text is cut from it (`snippet`). */
  secrets?: readonly string[];
  /** The body's length in bytes, when read from the wire. */
  size?: number;
  /**
   * Whether the body is `text`, compared as bytes without decoding them (a response read from the
   * wire); false also when it cannot tell that way (then compare `body`).
   */
  sameAs?(text: string): boolean;
}

export interface HttpRequest {
  url: string;
  method?: 'GET' | 'POST' | 'DELETE';
  headers?: Record<string, string>;
  body?: string;
  timeoutMs: number;
  tls?: TlsSettings;
  /** Values never to be logged (API keys, passwords, tokens in URLs). */
  secrets?: readonly string[];
  /** Ends the exchange early (a long poll when the daemon stops); probes never pass one. */
  signal?: AbortSignal;
}

export interface HttpClientOptions {
  maxResponseBytes: number;
  connectTimeoutMs?: number;
  userAgent?: string;
  /** Request details at trace level: method, URL without credentials or query, header names, status, size. */
  log?: Logger;
}

export class HttpClient {
  /** One Agent per TLS profile: '' is the default every plain target shares. */
  private readonly agents = new Map<string, Agent>();
  private readonly baseHeaders: Record<string, string>;
  private readonly urls = new Map<string, { origin: string; path: string }>();

  constructor(private readonly options: HttpClientOptions) {
    this.baseHeaders = { 'user-agent': options.userAgent ?? 'avahealth', accept: 'application/json' };
  }

  private agentFor(tls: TlsSettings | undefined): Agent {
    const custom = tls && (tls.ca || tls.insecureSkipVerify);
    const key = custom ? `${tls.insecureSkipVerify ? 'skip' : 'verify'}:${tls.ca ?? ''}` : '';
    let agent = this.agents.get(key);
    if (!agent) {
      const connectTimeout = this.options.connectTimeoutMs ?? 5_000;
      agent = new Agent({
        connect: { timeout: connectTimeout, ...(custom && tls.ca ? { ca: tls.ca } : {}), ...(custom && tls.insecureSkipVerify ? { rejectUnauthorized: false } : {}) },
        headersTimeout: 10_000,
        bodyTimeout: 10_000,
        keepAliveTimeout: 30_000,
        keepAliveMaxTimeout: 120_000,
        maxResponseSize: this.options.maxResponseBytes,
      });
      this.agents.set(key, agent);
    }
    return agent;
  }

  async request(req: HttpRequest): Promise<HttpResponse> {
    const log = this.options.log?.isLevelEnabled('trace') ? this.options.log : undefined;
    const started = log ? performance.now() : 0;
    try {
      const response = await this.exchange(req);
      if (req.secrets) response.secrets = req.secrets;
      log?.trace({ ...requestFields(req), status: response.status, bytes: response.body.length, durationSeconds: (performance.now() - started) / 1000 }, 'http request');
      return response;
    } catch (err) {
      log?.trace({ ...requestFields(req), error: err instanceof ProbeError ? redact(err.message, req.secrets ?? []) : 'unexpected error' }, 'http request failed');
      throw err;
    }
  }

  /**
   * One exchange through the Agent's dispatch API: the body is collected straight from the socket
   * (no stream object or abort signal per request: half the CPU of undici's `request()` per poll,
   * bench/RESULTS.md), always read to its end or aborted.
   */
  private exchange(req: HttpRequest): Promise<HttpResponse> {
    const { origin, path } = this.target(req.url);
    const headers = req.headers ? { ...this.baseHeaders, ...req.headers } : this.baseHeaders;
    return new Promise<HttpResponse>((resolve, reject) => {
      const handler = new Exchange(this.options.maxResponseBytes, req.timeoutMs, resolve, reject, req.signal);
      this.agentFor(req.tls).dispatch(
        { origin, path, method: req.method ?? 'GET', headers, ...(req.body !== undefined ? { body: req.body } : {}), headersTimeout: req.timeoutMs, bodyTimeout: req.timeoutMs },
        handler,
      );
    });
  }

  /** Origin and path of a URL, parsed once (targets ask for the same few URLs every poll). */
  private target(url: string): { origin: string; path: string } {
    let found = this.urls.get(url);
    if (!found) {
      const parsed = new URL(url);
      found = { origin: parsed.origin, path: parsed.search ? `${parsed.pathname}${parsed.search}` : parsed.pathname };
      if (this.urls.size >= MAX_CACHED_URLS) this.urls.clear();
      this.urls.set(url, found);
    }
    return found;
  }

  async close(): Promise<void> {
    await Promise.all([...this.agents.values()].map((agent) => agent.close()));
    this.agents.clear();
  }
}

const MAX_CACHED_URLS = 100_000;

/**
 * Collects one response for HttpClient.exchange and settles its promise exactly once: with the
 * response, or with a ProbeError (timeout at the deadline, too large by header or by bytes read,
 * transport error). Whatever arrives after that is dropped and the exchange aborted.
 */
class Exchange implements Dispatcher.DispatchHandler {
  private controller?: Dispatcher.DispatchController;
  private readonly timer: NodeJS.Timeout;
  private settled = false;
  /** Set when the deadline passed before undici handed over the request (still connecting). */
  private reason?: Error;
  private status = 0;
  private headers: Record<string, string | string[] | undefined> = {};
  private chunks: Buffer[] = [];
  private bytes = 0;

  constructor(
    private readonly maxBytes: number,
    private readonly timeoutMs: number,
    private readonly resolve: (response: HttpResponse) => void,
    private readonly reject: (err: ProbeError) => void,
    private readonly signal?: AbortSignal,
  ) {
    this.timer = setTimeout(Exchange.expire, timeoutMs, this);
    if (!signal) return;
    this.cancel = () => this.fail(new ProbeError('timeout', 'cancelled'));
    if (signal.aborted) this.cancel();
    else signal.addEventListener('abort', this.cancel);
  }

  /** Only with a signal: its abort listener. */
  private cancel?: () => void;

  private done(): void {
    this.settled = true;
    clearTimeout(this.timer);
    if (this.cancel) this.signal!.removeEventListener('abort', this.cancel);
  }

  onRequestStart(controller: Dispatcher.DispatchController): void {
    this.controller = controller;
    if (this.reason) controller.abort(this.reason);
  }

  onResponseStart(_controller: Dispatcher.DispatchController, statusCode: number, headers: Record<string, string | string[] | undefined>): void {
    if (statusCode < 200) return; // 1xx: the real response follows
    this.status = statusCode;
    this.headers = headers;
    const declared = Number(headers['content-length']);
    // Known too large from the headers: refused at once instead of read until the cap or the deadline.
    if (declared > this.maxBytes) this.fail(new ProbeError('too_large', `response body of ${declared} bytes exceeds the size limit`));
  }

  onResponseData(_controller: Dispatcher.DispatchController, chunk: Buffer): void {
    if (this.settled) return;
    this.bytes += chunk.length;
    if (this.bytes > this.maxBytes) this.fail(new ProbeError('too_large', 'response body exceeds the size limit'));
    else this.chunks.push(chunk);
  }

  onResponseEnd(): void {
    if (this.settled) return;
    this.done();
    this.resolve(new Response(this.status, this.headers, this.chunks, this.bytes));
    this.chunks = NO_CHUNKS;
  }

  onResponseError(_controller: Dispatcher.DispatchController, err: Error): void {
    if (this.settled) return;
    this.done();
    this.chunks = [];
    this.reject(toProbeError(err, this.timeoutMs));
  }

  private static expire(exchange: Exchange): void {
    exchange.fail(new ProbeError('timeout', `no complete response within ${exchange.timeoutMs} ms`));
  }

  /** Settles with `err` now and aborts the exchange (at once, or as soon as undici starts it). */
  private fail(err: ProbeError): void {
    if (this.settled) return;
    this.done();
    this.chunks = [];
    this.reject(err);
    if (this.controller) this.controller.abort(err);
    else this.reason = err;
  }
}

const NO_CHUNKS: Buffer[] = [];

/**
 * A response as read: its text is decoded when first asked for. A node's health body is mostly the
 * same bytes as at its last poll; ParseCache compares them with the text it kept (`sameAs`) and
 * hands that text over, so an unchanged body is never decoded into a new string.
 */
class Response implements HttpResponse {
  secrets?: readonly string[];
  private text: string | undefined;

  constructor(
    readonly status: number,
    readonly headers: Record<string, string | string[] | undefined>,
    private chunks: Buffer[],
    readonly size: number,
  ) {}

  get body(): string {
    if (this.text === undefined) {
      this.text = decodeBody(this.chunks, this.size);
      this.chunks = NO_CHUNKS;
    }
    return this.text;
  }

  set body(text: string) {
    this.text = text;
    this.chunks = NO_CHUNKS;
  }

  /**
   * Byte for byte against `text` as UTF-8, encoded on the fly (nothing allocated); a body that starts
   * with a byte-order mark, text with a lone surrogate, or a body already decoded is told by `body`.
   */
  sameAs(text: string): boolean {
    if (this.text !== undefined) return this.text === text;
    if (this.size < text.length || this.size > 3 * text.length) return false;
    const first = this.chunks[0];
    if (first !== undefined && first[0] === 0xef) return false;
    this.chunk = 0;
    this.at = 0;
    for (let k = 0; k < text.length; k++) {
      const code = text.charCodeAt(k);
      if (code < 0x80) {
        if (this.next() !== code) return false;
      } else if (code < 0x800) {
        if (this.next() !== (0xc0 | (code >> 6)) || this.next() !== (0x80 | (code & 0x3f))) return false;
      } else if (code < 0xd800 || code > 0xdfff) {
        if (this.next() !== (0xe0 | (code >> 12)) || this.next() !== (0x80 | ((code >> 6) & 0x3f)) || this.next() !== (0x80 | (code & 0x3f))) return false;
      } else {
        const low = text.charCodeAt(k + 1);
        if (code > 0xdbff || !(low >= 0xdc00 && low <= 0xdfff)) return false;
        k++;
        const point = 0x10000 + ((code - 0xd800) << 10) + (low - 0xdc00);
        if (this.next() !== (0xf0 | (point >> 18)) || this.next() !== (0x80 | ((point >> 12) & 0x3f)) || this.next() !== (0x80 | ((point >> 6) & 0x3f)) || this.next() !== (0x80 | (point & 0x3f))) return false;
      }
    }
    return this.next() === -1;
  }

  /** sameAs' place in the bytes: a chunk, and a byte in it. */
  private chunk = 0;
  private at = 0;

  private next(): number {
    let chunk = this.chunks[this.chunk];
    while (chunk !== undefined && this.at >= chunk.length) {
      chunk = this.chunks[++this.chunk];
      this.at = 0;
    }
    return chunk === undefined ? -1 : chunk[this.at++]!;
  }
}

/** The body as text, as undici's `body.text()` reads it: UTF-8, a leading byte-order mark skipped. */
function decodeBody(chunks: Buffer[], length: number): string {
  if (length === 0) return '';
  const buffer = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, length);
  const start = buffer.length > 2 && buffer[0] === 0xef && buffer[1] === 0xbb && buffer[2] === 0xbf ? 3 : 0;
  return buffer.toString('utf8', start);
}

/** What a trace line may say about a request: never header values, credentials or the query string. */
function requestFields(req: HttpRequest) {
  return {
    method: req.method ?? 'GET',
    url: redact(displayUrl(req.url), req.secrets ?? []),
    headers: Object.keys(req.headers ?? {}),
    ...(req.body !== undefined ? { requestBytes: req.body.length } : {}),
  };
}

const DNS_CODES = new Set(['ENOTFOUND', 'EAI_AGAIN', 'EAI_NONAME', 'EAI_FAIL', 'EAI_NODATA']);
const TIMEOUT_CODES = new Set(['UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT', 'ETIMEDOUT']);
const CONNECT_MESSAGES: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ECONNRESET: 'connection reset',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  EPIPE: 'connection closed while sending',
  UND_ERR_SOCKET: 'connection closed by the peer',
};

/** Maps a transport error to a failure reason and a short text that holds no URL or secret. */
export function toProbeError(err: unknown, timeoutMs: number): ProbeError {
  if (err instanceof ProbeError) return err;
  const chain: Array<{ name?: string; code?: string; message?: string }> = [];
  for (let e: unknown = err; e && chain.length < 5; e = (e as { cause?: unknown }).cause) chain.push(e as never);
  const codes = chain.map((e) => e.code ?? '');
  const has = (pred: (code: string) => boolean) => codes.find(pred);
  if (chain.some((e) => e.name === 'TimeoutError' || e.name === 'AbortError') || has((c) => TIMEOUT_CODES.has(c))) {
    return new ProbeError('timeout', `no complete response within ${timeoutMs} ms`);
  }
  if (has((c) => c === 'UND_ERR_RES_EXCEEDED_MAX_SIZE')) return new ProbeError('too_large', 'response body exceeds the size limit');
  const dns = has((c) => DNS_CODES.has(c));
  if (dns) return new ProbeError('dns', `DNS lookup failed (${dns})`);
  const tls = has((c) => /^(ERR_TLS_|ERR_SSL_|CERT_|EPROTO$|DEPTH_ZERO_SELF_SIGNED_CERT|SELF_SIGNED_CERT_IN_CHAIN|UNABLE_TO_|HOSTNAME_MISMATCH)/.test(c));
  if (tls) return new ProbeError('tls', `TLS handshake failed (${tls})`);
  const connect = has((c) => c in CONNECT_MESSAGES);
  if (connect) return new ProbeError('connect', `${CONNECT_MESSAGES[connect]} (${connect})`);
  const parser = has((c) => c.startsWith('HPE_'));
  if (parser) return new ProbeError('connect', `the peer did not speak HTTP (${parser})`);
  const first = chain[0];
  return new ProbeError('connect', `request failed: ${first?.code ?? first?.name ?? 'error'}`);
}
