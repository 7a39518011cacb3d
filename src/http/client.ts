/**
 * The one outbound HTTP client: a shared undici Agent with explicit connect/headers/body timeouts,
 * a per-request deadline and a response-size cap. Targets with their own TLS settings (CA,
 * skip-verify) share one Agent per distinct setting, so two targets on the same origin can differ.
 * No retries: a probe reports what happened on its one attempt.
 */
import { Agent, request, type Dispatcher } from 'undici';
import type { TlsSettings } from '../config/load.js';
import type { Logger } from '../log.js';
import type { FailureReason } from '../model/observation.js';
import { displayUrl, redact } from '../util/text.js';

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
}

export interface HttpRequest {
  url: string;
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: string;
  timeoutMs: number;
  tls?: TlsSettings;
  /** Values never to be logged (API keys, passwords, tokens in URLs). */
  secrets?: readonly string[];
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
  private readonly userAgent: string;

  constructor(private readonly options: HttpClientOptions) {
    this.userAgent = options.userAgent ?? 'avahealth';
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
    // A deadline cleared when the exchange ends (AbortSignal.timeout's timer would outlive it and
    // fire later for nothing, for every request).
    const deadline = new AbortController();
    const timer = setTimeout(() => deadline.abort(new DOMException(`no response within ${req.timeoutMs} ms`, 'TimeoutError')), req.timeoutMs);
    const log = this.options.log?.isLevelEnabled('trace') ? this.options.log : undefined;
    const started = log ? performance.now() : 0;
    try {
      const response = await this.exchange(req, deadline.signal);
      log?.trace({ ...requestFields(req), status: response.status, bytes: response.body.length, durationSeconds: (performance.now() - started) / 1000 }, 'http request');
      return response;
    } catch (err) {
      log?.trace({ ...requestFields(req), error: err instanceof ProbeError ? redact(err.message, req.secrets ?? []) : 'unexpected error' }, 'http request failed');
      throw err;
    } finally {
      clearTimeout(timer);
    }
  }

  private async exchange(req: HttpRequest, deadline: AbortSignal): Promise<HttpResponse> {
    let response: Dispatcher.ResponseData;
    try {
      response = await request(req.url, {
        dispatcher: this.agentFor(req.tls),
        method: req.method ?? 'GET',
        headers: { 'user-agent': this.userAgent, accept: 'application/json', ...req.headers },
        ...(req.body !== undefined ? { body: req.body } : {}),
        headersTimeout: req.timeoutMs,
        bodyTimeout: req.timeoutMs,
        signal: deadline,
      });
    } catch (err) {
      throw toProbeError(err, req.timeoutMs);
    }
    const declared = Number(response.headers['content-length']);
    if (declared > this.options.maxResponseBytes) {
      // Known too large from the headers: refused at once instead of read until the cap or the deadline.
      response.body.destroy();
      throw new ProbeError('too_large', `response body of ${declared} bytes exceeds the size limit`);
    }
    try {
      const body = await response.body.text();
      return { status: response.statusCode, headers: response.headers, body };
    } catch (err) {
      response.body.destroy();
      throw toProbeError(err, req.timeoutMs);
    }
  }

  async close(): Promise<void> {
    await Promise.all([...this.agents.values()].map((agent) => agent.close()));
    this.agents.clear();
  }
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
