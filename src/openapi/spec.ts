/**
 * The published OpenAPI specs of the Data API and the Metrics API (shipped in `specs/`): find the
 * operation a request path belongs to, and check a response body against its documented schema.
 */
import { createRequire } from 'node:module';
import type { ValidateFunction } from 'ajv';
import { findOperation, specOperations, type JsonObject, type Operation, type ServiceKind } from '../model/api-operations.js';

export type { Operation, ServiceKind } from '../model/api-operations.js';

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

  private constructor(readonly kind: ServiceKind) {
    const { spec, operations } = specOperations(kind);
    this.operations.push(...operations);
    const Ajv2020 = loadAjv();
    this.ajv = new Ajv2020({ strict: false, allErrors: false, validateFormats: false, discriminator: true });
    this.ajv.addSchema({ $id: 'spec', components: normalize((spec as { components: unknown }).components) });
  }

  static load(kind: ServiceKind): ApiSpec {
    let spec = cache.get(kind);
    if (!spec) {
      spec = new ApiSpec(kind);
      cache.set(kind, spec);
    }
    return spec;
  }

  findOperation(method: string, path: string): Operation | undefined {
    return findOperation(this.kind, method, path);
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
