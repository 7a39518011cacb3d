/**
 * One JSON-RPC 2.0 answer from an AvalancheGo API (gorilla/rpc json2): HTTP 200 for every outcome,
 * errors included. Classified into a result, an error object, a disabled API (404, or a method
 * the node does not have) or a failure with its probe reason.
 */
import type { FailureReason } from '../model/observation.js';
import { snippet } from '../util/text.js';
import { describe, isObject } from './avalanchego.js';

export type RpcAnswer =
  | { kind: 'result'; result: unknown }
  /** A JSON-RPC error object; `message` is capped and cleaned (it is untrusted text). */
  | { kind: 'error'; code?: number; message: string }
  /** The API is switched off (HTTP 404: `off`) or the node has no such method (older version). */
  | { kind: 'disabled'; detail: string; off?: true }
  | { kind: 'failure'; reason: FailureReason; error: string };

/** Deeper than any AvalancheGo answer (an owner's addresses inside a delegator inside a validator: 7). */
export const MAX_JSON_DEPTH = 64;

/** Whether a parsed JSON value nests deeper than `max` (walked without recursion: it may nest thousands deep). */
export function nestsDeeperThan(value: unknown, max: number): boolean {
  let level: unknown[] = [value];
  for (let depth = 0; level.length > 0; depth++) {
    if (depth > max) return true;
    const next: unknown[] = [];
    for (const v of level) if (typeof v === 'object' && v !== null) for (const child of Object.values(v)) if (typeof child === 'object' && child !== null) next.push(child);
    level = next;
  }
  return false;
}

/** gorilla/rpc: `rpc: can't find method "info.Upgrades"` / `can't find service`; -32601 from other servers. */
const METHOD_NOT_FOUND = /can't find (method|service)|method not found/i;

/** `secrets` are redacted from any text taken from the body before it is cut (`snippet`). */
export function readRpcAnswer(status: number, body: string, expectedId: number, secrets: readonly string[] = []): RpcAnswer {
  if (status === 404) return { kind: 'disabled', detail: `HTTP 404: ${snippet(body, secrets)}`, off: true };
  if (status === 429) return { kind: 'failure', reason: 'rate_limited', error: `HTTP 429: ${snippet(body, secrets)}` };
  if (status !== 200) return { kind: 'failure', reason: 'http_status', error: `HTTP ${status}: ${snippet(body, secrets)}` };
  if (body.trim() === '') return { kind: 'failure', reason: 'bad_json', error: 'empty JSON-RPC response body' };
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch {
    return { kind: 'failure', reason: 'bad_json', error: `body is not JSON: ${snippet(body, secrets)}` };
  }
  if (!isObject(json)) return { kind: 'failure', reason: 'bad_shape', error: `JSON-RPC response must be an object, got ${describe(json)}` };
  if (nestsDeeperThan(json, MAX_JSON_DEPTH)) return { kind: 'failure', reason: 'bad_shape', error: `JSON-RPC response nests deeper than ${MAX_JSON_DEPTH} levels` };
  if (json.error !== undefined && json.error !== null) {
    const err = json.error;
    const code = isObject(err) && typeof err.code === 'number' && Number.isInteger(err.code) ? err.code : undefined;
    const message = snippet(isObject(err) && typeof err.message === 'string' ? err.message : JSON.stringify(err), secrets);
    if (code === -32601 || METHOD_NOT_FOUND.test(message)) return { kind: 'disabled', detail: `JSON-RPC error ${code ?? ''}: ${message}`.replace(' :', ':') };
    return { kind: 'error', ...(code !== undefined ? { code } : {}), message };
  }
  if (json.id !== expectedId) {
    return { kind: 'failure', reason: 'bad_shape', error: `JSON-RPC id mismatch: sent ${expectedId}, got ${snippet(JSON.stringify(json.id) ?? 'none', secrets)}` };
  }
  if (!('result' in json)) return { kind: 'failure', reason: 'bad_shape', error: 'JSON-RPC response has neither result nor error' };
  return { kind: 'result', result: json.result };
}

/** The request body of one call (AvalancheGo's gorilla/rpc takes an object; the EVM's geth-style server, positional params). */
export function rpcRequest(method: string, params: Record<string, unknown> | readonly unknown[], id: number): string {
  return JSON.stringify({ jsonrpc: '2.0', id, method, params });
}

/** An Ethereum JSON-RPC quantity (`"0x4a817c8"`): a non-negative safe integer, else undefined. */
export function parseQuantity(value: unknown): number | undefined {
  if (typeof value !== 'string' || !/^0x(?:0|[1-9a-f][0-9a-f]{0,13})$/i.test(value)) return undefined;
  const n = Number.parseInt(value.slice(2), 16);
  return Number.isSafeInteger(n) ? n : undefined;
}
