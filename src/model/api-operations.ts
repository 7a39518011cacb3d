/**
 * The operations of the published Data API and Metrics API specs (shipped in `specs/`): which
 * operation a request path belongs to. The config checks API probes against this; openapi/ adds the
 * response-schema validation on top.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export const SERVICE_KINDS = ['data-api', 'metrics-api'] as const;
export type ServiceKind = (typeof SERVICE_KINDS)[number];

const SPEC_FILES: Record<ServiceKind, string> = {
  'data-api': 'data-api.openapi.json',
  'metrics-api': 'metrics-api.openapi.json',
};

export type JsonObject = Record<string, unknown>;

export interface Operation {
  operationId: string;
  method: string;
  path: string;
  /** Response schemas by status code (`200`, `503`, …, `default`). */
  responses: Record<string, unknown>;
  pattern: RegExp;
  params: number;
}

export interface SpecOperations {
  spec: JsonObject;
  /** Literal paths before templated ones (`/v2/chains/43114/btcb/…` before `/v2/chains/{chainId}/…`). */
  operations: Operation[];
}

const cache = new Map<ServiceKind, SpecOperations>();

export function specOperations(kind: ServiceKind): SpecOperations {
  let entry = cache.get(kind);
  if (!entry) {
    const file = fileURLToPath(new URL(`../../specs/${SPEC_FILES[kind]}`, import.meta.url));
    const spec = JSON.parse(readFileSync(file, 'utf8')) as JsonObject;
    entry = { spec, operations: operationsOf(spec) };
    cache.set(kind, entry);
  }
  return entry;
}

function operationsOf(spec: JsonObject): Operation[] {
  const operations: Operation[] = [];
  for (const [path, methods] of Object.entries(spec.paths as Record<string, JsonObject>)) {
    for (const [method, op] of Object.entries(methods)) {
      const operation = op as JsonObject;
      const responses: Record<string, unknown> = {};
      for (const [status, response] of Object.entries((operation.responses ?? {}) as Record<string, JsonObject>)) {
        responses[status] = ((response.content as JsonObject | undefined)?.['application/json'] as JsonObject | undefined)?.schema;
      }
      const params = (path.match(/\{[^}]+\}/g) ?? []).length;
      const source = path.split(/\{[^}]+\}/).map((part) => part.replace(/[.*+?^$()|[\]\\]/g, '\\$&')).join('[^/]+');
      operations.push({ operationId: String(operation.operationId), method: method.toUpperCase(), path, responses, pattern: new RegExp(`^${source}$`), params });
    }
  }
  return operations.sort((a, b) => a.params - b.params);
}

export function findOperation(kind: ServiceKind, method: string, path: string): Operation | undefined {
  const bare = path.split('?')[0]!;
  return specOperations(kind).operations.find((op) => op.method === method.toUpperCase() && op.pattern.test(bare));
}
