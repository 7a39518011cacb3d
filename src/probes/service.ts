/**
 * Probes a hosted API (Data API, Metrics API): its health-check and live-check endpoints, and the
 * synthetic API probes configured on it, each response checked against the published schema.
 * Every request to a service passes its rate-limit gate: after a 429, nothing is sent until the
 * window resets.
 */
import { serviceEndpointPath, type ApiProbe, type ServiceTarget } from '../config/load.js';
import { ProbeError, type HttpResponse } from '../transport/client.js';
import type { EndpointObservation, TargetObservation } from '../model/observation.js';
import { ApiSpec } from '../openapi/spec.js';
import { parseErrorBody, parseServiceHealth } from '../parse/terminus.js';
import { snippet } from '../util/text.js';
import { keepRaw, observe, parseJson, readHealthBody, statusError } from './exchange.js';
import { perTarget, type ProbeContext, type Prober } from './types.js';

/** One job per hosted service: its health endpoints, then its API probes, one after another. */
export const serviceProber: Prober<ServiceTarget> = {
  jobs: (config) => perTarget(config.services, 'service', { deadlineMs: (s) => s.timeoutMs * (s.endpoints.length + s.probes.length) }),
  probe: async (target, ctx) => ({ observation: await probeService(target, ctx) }),
  decidesReachability: true,
};

export interface ServiceRequest {
  method?: 'GET' | 'POST';
  /** Path with query string. */
  path: string;
  body?: string;
}

/** One request to a service, through its rate-limit gate, with its API key. */
export async function callService(target: ServiceTarget, req: ServiceRequest, ctx: ProbeContext): Promise<HttpResponse> {
  const gate = ctx.gate(target.name);
  const until = gate.blockedUntil();
  if (until !== undefined) throw new ProbeError('rate_limited', `rate limited: no requests until ${new Date(until).toISOString()}`);
  const response = await ctx.limit(() =>
    ctx.http.request({
      url: `${target.baseUrl}${req.path}`,
      method: req.method ?? 'GET',
      headers: req.body !== undefined ? { ...target.headers, 'content-type': 'application/json' } : target.headers,
      ...(req.body !== undefined ? { body: req.body } : {}),
      timeoutMs: target.timeoutMs,
      tls: target.tls,
      secrets: target.secrets,
    }),
  );
  gate.observe(response.status, response.headers);
  return response;
}

/** A non-2xx answer as a failure, with the message of a documented error body when there is one. */
export function serviceError(response: HttpResponse): ProbeError {
  let detail: string | undefined;
  try {
    detail = parseErrorBody(JSON.parse(response.body));
  } catch {
    // not JSON: the snippet below says what it was
  }
  return statusError(response, detail ?? snippet(response.body, response.secrets));
}

export async function probeService(target: ServiceTarget, ctx: ProbeContext): Promise<TargetObservation> {
  const at = ctx.now() / 1000;
  const endpoints: EndpointObservation[] = [];
  // Sequential: a 429 on one request must stop the next from being sent.
  for (const endpoint of target.endpoints) endpoints.push(await probeHealth(target, endpoint, ctx));
  for (const probe of target.probes) endpoints.push(await probeApi(target, probe, ctx));
  const rateLimit = ctx.gate(target.name).info;
  if (rateLimit) for (const e of endpoints) e.rateLimit = rateLimit;
  return { target: target.name, kind: 'service', at, endpoints };
}

function probeHealth(target: ServiceTarget, endpoint: ServiceTarget['endpoints'][number], ctx: ProbeContext): Promise<EndpointObservation> {
  return observe(endpoint, 'all', target.secrets, async (observation) => {
    const response = await callService(target, { path: serviceEndpointPath(target, endpoint) }, ctx);
    observation.httpStatus = response.status;
    if (endpoint === 'health-check') keepRaw(observation, response);
    // Terminus reports and, on 503, the documented error body are both understood (parseServiceHealth).
    observation.service = readHealthBody(response, parseServiceHealth, serviceError);
  });
}

function probeApi(target: ServiceTarget, probe: ApiProbe, ctx: ProbeContext): Promise<EndpointObservation> {
  return observe(probe.name, 'all', target.secrets, async (observation) => {
    const response = await callService(target, { method: probe.method, path: probe.path, ...(probe.body !== undefined ? { body: probe.body } : {}) }, ctx);
    observation.httpStatus = response.status;
    if (!probe.expectStatus.includes(response.status)) throw serviceError(response);
    const spec = ApiSpec.load(target.service);
    const operation = spec.findOperation(probe.method, probe.path)!;
    const mismatch = spec.check(operation, response.status, parseJson(response));
    if (mismatch) throw new ProbeError('bad_shape', `response does not match ${operation.operationId}: ${mismatch}`);
  });
}
