/**
 * Probes one AvalancheGo node: every configured endpoint (and tag-filtered view of /ext/health),
 * over plain GET or JSON-RPC 2.0, each exchange classified into success or one failure reason.
 */
import type { NodeTarget, NodeView } from '../config/load.js';
import { ProbeError, type HttpClient, type HttpResponse } from '../http/client.js';
import { type EndpointObservation, type HealthReport, type NodeEndpoint, type NodeObservation } from '../observation.js';
import { parseHealthReport, unwrapJsonRpc } from '../parse/avalanchego.js';

export interface ProbeContext {
  http: HttpClient;
  /** Runs a request under the global concurrency cap. */
  limit: <T>(fn: () => Promise<T>) => Promise<T>;
}

const GET_PATHS: Record<NodeEndpoint, string> = {
  health: '/ext/health',
  readiness: '/ext/health/readiness',
  liveness: '/ext/health/liveness',
};

const MAX_ERROR_TEXT = 300;
let nextRpcId = 1;

export async function probeNode(target: NodeTarget, ctx: ProbeContext): Promise<NodeObservation> {
  const at = Date.now() / 1000;
  const exchanges: Array<[NodeEndpoint, NodeView]> = [];
  for (const endpoint of target.endpoints) {
    // Tag views filter /ext/health; readiness and liveness are polled unfiltered.
    for (const view of endpoint === 'health' ? target.views : target.views.slice(0, 1)) exchanges.push([endpoint, view]);
  }
  const endpoints = await Promise.all(exchanges.map(([endpoint, view]) => ctx.limit(() => probeEndpoint(target, endpoint, view, ctx))));
  const nodeId = endpoints.find((e) => e.nodeId)?.nodeId;
  return { target: target.name, at, endpoints, ...(nodeId ? { nodeId } : {}) };
}

async function probeEndpoint(target: NodeTarget, endpoint: NodeEndpoint, view: NodeView, ctx: ProbeContext): Promise<EndpointObservation> {
  const at = Date.now() / 1000;
  const started = performance.now();
  const observation: EndpointObservation = { endpoint, view: view.name, ok: false, durationSeconds: 0, at };
  try {
    let response: HttpResponse;
    let report: HealthReport;
    if (target.protocol === 'jsonrpc') {
      const id = nextRpcId++;
      const body = JSON.stringify({ jsonrpc: '2.0', id, method: `health.${endpoint}`, params: view.tags.length > 0 ? { tags: view.tags } : {} });
      response = await ctx.http.request({
        url: `${target.baseUrl}/ext/health`,
        method: 'POST',
        headers: { ...target.headers, 'content-type': 'application/json' },
        body,
        timeoutMs: target.timeoutMs,
        tls: target.tls,
      });
      observation.httpStatus = response.status;
      report = readJsonRpc(response, id);
    } else {
      const query = view.tags.map((tag) => `tag=${encodeURIComponent(tag)}`).join('&');
      response = await ctx.http.request({
        url: `${target.baseUrl}${GET_PATHS[endpoint]}${query ? `?${query}` : ''}`,
        headers: target.headers,
        timeoutMs: target.timeoutMs,
        tls: target.tls,
      });
      observation.httpStatus = response.status;
      report = readGet(response);
    }
    const nodeId = headerNodeId(response.headers['node-id']);
    if (nodeId) observation.nodeId = nodeId;
    observation.ok = true;
    observation.report = report;
  } catch (err) {
    const failure = err instanceof ProbeError ? err : new ProbeError('connect', String(err));
    observation.reason = failure.reason;
    observation.error = redact(failure.message, target.secrets);
  }
  observation.durationSeconds = (performance.now() - started) / 1000;
  return observation;
}

/** GET bodies: 200 and 503 both carry the full report; `healthy` comes from the body, never the status. */
function readGet(response: HttpResponse): HealthReport {
  if (response.status !== 200 && response.status !== 503) throw statusError(response);
  let json: unknown;
  try {
    json = JSON.parse(response.body);
  } catch {
    // A 503 that is not JSON is a proxy's error page, not an unhealthy node.
    if (response.status === 503) throw statusError(response);
    throw new ProbeError('bad_json', `body is not JSON: ${snippet(response.body)}`);
  }
  const parsed = parseHealthReport(json);
  if (!parsed.ok) {
    if (response.status === 503) throw statusError(response);
    throw new ProbeError('bad_shape', `not a health report: ${parsed.error}`);
  }
  return parsed.value;
}

/** JSON-RPC answers 200 for everything, errors included: check `error`, then the echoed id, then `result`. */
function readJsonRpc(response: HttpResponse, id: number): HealthReport {
  if (response.status !== 200) throw statusError(response);
  if (response.body.trim() === '') throw new ProbeError('bad_json', 'empty JSON-RPC response body');
  let json: unknown;
  try {
    json = JSON.parse(response.body);
  } catch {
    throw new ProbeError('bad_json', `body is not JSON: ${snippet(response.body)}`);
  }
  const unwrapped = unwrapJsonRpc(json, id);
  if (!unwrapped.ok) throw new ProbeError(unwrapped.reason, unwrapped.error);
  const parsed = parseHealthReport(unwrapped.result);
  if (!parsed.ok) throw new ProbeError('bad_shape', `JSON-RPC result is not a health report: ${parsed.error}`);
  return parsed.value;
}

function statusError(response: HttpResponse): ProbeError {
  const reason = response.status === 429 ? 'rate_limited' : 'http_status';
  return new ProbeError(reason, `HTTP ${response.status}: ${snippet(response.body)}`);
}

/** First line-ish of an untrusted body, with HTML tags and control characters removed. */
function snippet(body: string): string {
  const text = body
    .slice(0, 4096)
    .replace(/<(script|style)[\s\S]*?<\/\1>/gi, ' ')
    .replace(/<[^>]*>/g, ' ')
    .replace(/[\u0000-\u001f\u007f\s]+/g, ' ')
    .trim();
  if (text === '') return '(empty body)';
  return text.length > MAX_ERROR_TEXT ? `${text.slice(0, MAX_ERROR_TEXT)}…` : text;
}

const NODE_ID = /^NodeID-[1-9A-HJ-NP-Za-km-z]{20,60}$/;
function headerNodeId(value: string | string[] | undefined): string | undefined {
  const text = Array.isArray(value) ? value[0] : value;
  return text && NODE_ID.test(text) ? text : undefined;
}

export function redact(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const secret of secrets) if (secret.length >= 4) out = out.split(secret).join('[REDACTED]');
  return out;
}
