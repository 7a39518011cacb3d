/**
 * platform.getCurrentValidators as an observer's view (vms/platformvm/service.go,
 * getPrimaryOrSubnetValidators): per validator its `nodeID`, `weight` and `delegatorWeight`
 * (json.Uint64 strings), `uptime` (json.Float32 percent string, as the answering node measured it)
 * and `connected` (whether it is connected now). A whole mainnet list is about 1,600 entries
 * (≈ 1.5 MB); entries beyond MAX_SEEN are not read. An entry whose fields cannot be read is
 * skipped, never made up.
 */
import type { SeenValidator } from '../model/observed.js';
import { describe, isObject, type ParseOutcome } from './avalanchego.js';
import { isNodeId, percentRatio, unsigned } from './validator.js';

export const MAX_SEEN = 20_000;

export function parseSeenValidators(value: unknown): ParseOutcome<{ seen: SeenValidator[]; unread: number }> {
  if (!isObject(value)) return { ok: false, error: `platform.getCurrentValidators result must be an object, got ${describe(value)}` };
  const list = value.validators;
  if (!Array.isArray(list)) return { ok: false, error: `"validators" must be an array, got ${describe(list)}` };
  const seen: SeenValidator[] = [];
  let unread = Math.max(0, list.length - MAX_SEEN);
  for (let i = 0; i < Math.min(list.length, MAX_SEEN); i++) {
    const entry: unknown = list[i];
    const weight = isObject(entry) ? unsigned(entry.weight) : undefined;
    if (!isObject(entry) || !isNodeId(entry.nodeID) || weight === undefined) {
      unread++;
      continue;
    }
    const v: SeenValidator = { nodeId: entry.nodeID, stake: weight + (unsigned(entry.delegatorWeight) ?? 0) };
    const uptime = percentRatio(entry.uptime);
    if (uptime !== undefined) v.uptimeRatio = uptime;
    if (typeof entry.connected === 'boolean') v.connected = entry.connected;
    seen.push(v);
  }
  return { ok: true, value: { seen, unread } };
}
