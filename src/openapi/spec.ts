/**
 * The published OpenAPI specs of the Data API and the Metrics API (shipped in `specs/`): find the
 * operation a request path belongs to, and check a response body against its documented schema.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import type { ValidateFunction } from 'ajv';

export type ServiceKind = 'data-api' | 'metrics-api';

const SPEC_FILES: Record<ServiceKind, string> = {
  'data-api': 'data-api.openapi.json',
  'metrics-api': 'metrics-api.openapi.json',
};

export interface Operation {
  operationId: string;
  method: string;
  path: string;
  /** Response schemas by status code (`200`, `503`, …, `default`). */
  responses: Record<string, unknown>;
  pattern: RegExp;
  params: number;
}

type JsonObject = Record<string, unknown>;
/** ajv (CommonJS) is loaded on first use: most deployments have no API probes. */
const loadAjv = () => (createRequire(import.meta.url)('ajv/dist/2020') as { default: new (opts: object) => AjvInstance }).default;
interface AjvInstance {
  addSchema(schema: object): void;
  compile(schema: object): ValidateFunction;
}

const cache = new Map<ServiceKind, ApiSpec>();

export class ApiSpec {
  readonly operations: Operation[] = [];
  private readonly ajv: AjvInstance;
  private readonly validators = new Map<string, ValidateFunction | null>();

  private constructor(
    readonly kind: ServiceKind,
    spec: JsonObject,
  ) {
    for (const [path, methods] of Object.entries(spec.paths as Record<string, JsonObject>)) {
      for (const [method, op] of Object.entries(methods)) {
        const operation = op as JsonObject;
        const responses: Record<string, unknown> = {};
        for (const [status, response] of Object.entries((operation.responses ?? {}) as Record<string, JsonObject>)) {
          responses[status] = ((response.content as JsonObject | undefined)?.['application/json'] as JsonObject | undefined)?.schema;
        }
        const params = (path.match(/\{[^}]+\}/g) ?? []).length;
        const source = path.split(/\{[^}]+\}/).map((part) => part.replace(/[.*+?^$()|[\]\\]/g, '\\$&')).join('[^/]+');
        this.operations.push({ operationId: String(operation.operationId), method: method.toUpperCase(), path, responses, pattern: new RegExp(`^${source}$`), params });
      }
    }
    // Literal paths win over templated ones (`/v2/chains/43114/btcb/…` before `/v2/chains/{chainId}/…`).
    this.operations.sort((a, b) => a.params - b.params);
    const Ajv2020 = loadAjv();
    this.ajv = new Ajv2020({ strict: false, allErrors: false, validateFormats: false, discriminator: true });
    this.ajv.addSchema({ $id: 'spec', components: normalize((spec as { components: unknown }).components) });
  }

  static load(kind: ServiceKind): ApiSpec {
    let spec = cache.get(kind);
    if (!spec) {
      const file = fileURLToPath(new URL(`../../specs/${SPEC_FILES[kind]}`, import.meta.url));
      spec = new ApiSpec(kind, JSON.parse(readFileSync(file, 'utf8')) as JsonObject);
      cache.set(kind, spec);
    }
    return spec;
  }

  findOperation(method: string, path: string): Operation | undefined {
    const bare = path.split('?')[0]!;
    return this.operations.find((op) => op.method === method.toUpperCase() && op.pattern.test(bare));
  }

  /** The first way `body` departs from the documented schema of `status`, or undefined when it conforms. */
  check(operation: Operation, status: number, body: unknown): string | undefined {
    const key = `${operation.method} ${operation.path} ${status}`;
    let validate = this.validators.get(key);
    if (validate === undefined) {
      const schema = operation.responses[String(status)] ?? operation.responses.default;
      validate = schema ? this.ajv.compile({ $ref: '#/$defs/response', $defs: { response: rewriteRefs(normalize(schema)) } }) : null;
      this.validators.set(key, validate);
    }
    if (!validate || validate(body)) return undefined;
    const error = validate.errors?.[0];
    if (!error) return 'does not match the documented schema';
    const where = error.instancePath === '' ? '(body)' : error.instancePath;
    const detail = error.keyword === 'enum' ? `${error.message}: ${JSON.stringify((error.params as { allowedValues?: unknown }).allowedValues)}` : error.message;
    return `${where} ${detail}`;
  }
}

/** OpenAPI-3.0 leftovers in these 3.1 specs: `nullable` (without a type) and `discriminator.mapping`. */
function normalize(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(normalize);
  if (node === null || typeof node !== 'object') return node;
  const out: JsonObject = {};
  for (const [key, value] of Object.entries(node as JsonObject)) {
    if (key === 'nullable' || key === 'example' || key === 'examples') continue;
    // Ajv picks the oneOf branch by discriminator (so errors name the right branch) but rejects `mapping`.
    out[key] = key === 'discriminator' ? { propertyName: (value as JsonObject).propertyName } : normalize(value);
  }
  if ((node as JsonObject).nullable === true) {
    if (typeof out.type === 'string') out.type = [out.type, 'null'];
    else return { anyOf: [out, { type: 'null' }] };
  }
  return out;
}

function rewriteRefs(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(rewriteRefs);
  if (node === null || typeof node !== 'object') return node;
  const out: JsonObject = {};
  for (const [key, value] of Object.entries(node as JsonObject)) {
    out[key] = key === '$ref' && typeof value === 'string' && value.startsWith('#/components/') ? `spec${value}` : rewriteRefs(value);
  }
  return out;
}
