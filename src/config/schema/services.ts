/** `services[]`: the hosted Data API and Metrics API, with their synthetic API probes. */
import { z } from 'zod';
import { findOperation, SERVICE_KINDS, type ServiceKind } from '../../model/api-operations.js';
import { duration, fileContent, headers, httpUrl, labels, report, secretHeaderValues, secretValue, targetName } from '../primitives.js';
import { urlBasicAuth, type TlsSettings } from './nodes.js';

export const SERVICE_ENDPOINTS = ['health-check', 'live-check'] as const;
export type ServiceEndpoint = (typeof SERVICE_ENDPOINTS)[number];

const httpStatus = z.number().int().min(100).max(599);

const apiProbe = z
  .strictObject({
    name: targetName
      .refine((n) => !(SERVICE_ENDPOINTS as readonly string[]).includes(n), 'health-check and live-check are the built-in endpoints')
      .describe('Name of the probe; becomes the `endpoint` label.'),
    method: z.enum(['GET', 'POST']).prefault('GET'),
    path: z.string().regex(/^\/[^?#\s]*$/, 'must be a path such as /v1/chains/43114/blocks (query parameters go under query:)').describe('An operation path of the service, with its parameters filled in.'),
    query: z.record(z.string(), z.union([z.string(), z.number(), z.boolean(), z.array(z.string())])).prefault({}),
    body: z.unknown().optional().describe('JSON request body (POST).'),
    expect_status: z
      .union([httpStatus.transform((status) => [status]), z.array(httpStatus).min(1)])
      .prefault(200)
      .describe('Accepted status codes.'),
  })
  .transform((probe) => {
    const query = new URLSearchParams();
    for (const [key, value] of Object.entries(probe.query)) {
      for (const item of Array.isArray(value) ? value : [value]) query.append(key, String(item));
    }
    const search = query.toString();
    return {
      name: probe.name,
      method: probe.method,
      /** Path and encoded query string. */
      path: `${probe.path}${search ? `?${search}` : ''}`,
      ...(probe.body !== undefined ? { body: JSON.stringify(probe.body) } : {}),
      expectStatus: probe.expect_status,
    };
  });

const SERVICE_HEALTH_PATHS: Record<ServiceKind, Record<ServiceEndpoint, string>> = {
  'data-api': { 'health-check': '/v1/health-check', 'live-check': '/v1/live-check' },
  'metrics-api': { 'health-check': '/v2/health-check', 'live-check': '/v2/live-check' },
};
const SERVICE_TITLES: Record<ServiceKind, string> = { 'data-api': 'Data API', 'metrics-api': 'Metrics API' };

export const serviceSchema = z
  .strictObject({
    name: targetName.describe('Unique target name; the `target` label of every series.'),
    kind: z.enum(SERVICE_KINDS).describe('data-api polls /v1/health-check and /v1/live-check; metrics-api polls /v2/health-check and /v2/live-check.'),
    url: httpUrl.describe('Base URL, e.g. https://data-api.avax.network or https://metrics.avax.network; user:password@ is sent as basic auth.'),
    api_key: z.string().optional().describe('Optional API key (raises rate limits).'),
    api_key_file: fileContent('api_key_file').optional().describe('Read the API key from this file.'),
    api_key_header: z.string().regex(/^[A-Za-z0-9-]+$/).prefault('x-glacier-api-key').describe('Header that carries the key.'),
    interval: duration({ ms: 1000, text: '1s' }).prefault('30s').describe('Poll interval.'),
    timeout: duration({ ms: 1, text: '1ms' }).prefault('10s').describe('Per-request deadline (never longer than the interval).'),
    endpoints: z.array(z.enum(SERVICE_ENDPOINTS)).prefault([...SERVICE_ENDPOINTS]).describe('Which of health-check, live-check to poll.'),
    headers: headers.prefault({}),
    labels: labels.prefault({}),
    ca_file: fileContent('ca_file').optional(),
    insecure_skip_verify: z.boolean().prefault(false),
    probes: z.array(apiProbe).prefault([]).describe('Synthetic API probes: operations of the service, checked against its published OpenAPI schema.'),
  })
  .superRefine((service, ctx) => {
    service.probes.forEach((probe, i) => {
      if (!findOperation(service.kind, probe.method, probe.path)) {
        report(ctx, ['probes', i, 'path'], `no ${probe.method} operation of the ${SERVICE_TITLES[service.kind]} spec matches ${probe.path.split('?')[0]}`);
      }
    });
    const credentials = urlBasicAuth(service.url);
    if (credentials.authorization && Object.keys(service.headers).some((name) => name.toLowerCase() === 'authorization')) {
      ctx.addIssue({ code: 'custom', path: ['url'], message: 'carries user:password@ and headers: sets authorization too; use one' });
    }
  })
  .transform((service) => {
    const headers: Record<string, string> = { ...service.headers };
    const secrets: string[] = secretHeaderValues(service.headers); // any but the harmless ones may carry a credential
    const apiKey = secretValue(service, 'api_key');
    if (apiKey) {
      headers[service.api_key_header.toLowerCase()] = apiKey;
      secrets.push(apiKey);
    }
    const credentials = urlBasicAuth(service.url);
    if (credentials.authorization) {
      headers.authorization = credentials.authorization;
      secrets.push(...credentials.secrets);
    }
    return {
      kind: 'service' as const,
      service: service.kind,
      name: service.name,
      baseUrl: credentials.url.replace(/\/+$/, ''),
      intervalMs: service.interval,
      timeoutMs: Math.min(service.timeout, service.interval),
      endpoints: [...new Set(service.endpoints)],
      headers,
      labels: service.labels,
      tls: { insecureSkipVerify: service.insecure_skip_verify, ...(service.ca_file !== undefined ? { ca: service.ca_file } : {}) } as TlsSettings,
      secrets,
      probes: service.probes,
    };
  });

export type ServiceTarget = z.output<typeof serviceSchema>;
export type ApiProbe = ServiceTarget['probes'][number];

export function serviceEndpointPath(target: ServiceTarget, endpoint: ServiceEndpoint): string {
  return SERVICE_HEALTH_PATHS[target.service][endpoint];
}
