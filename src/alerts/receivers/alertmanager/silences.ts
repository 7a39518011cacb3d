/**
 * The Alertmanager side of mirroring avahealth's silences (mirror.ts decides, the outbox delivers and
 * retries, this applies): each op of a batch against Alertmanager's v2 silences API. Every op can be
 * applied again after a failure or a crash without making anything twice.
 *
 * A silence made here ends its comment with a marker, `(avahealth <external_url> silence <id>
 * <hash>)`; the receiver's notes (`state_dir/receivers/<name>.json`) keep the Alertmanager id made
 * for each silence. `ensure`: the silence the notes name is read back (GET /api/v2/silence/{id}) and
 * kept while it is active or pending and carries the marker. Else the silences with the same
 * matchers are asked for (GET /api/v2/silences?filter=…: Alertmanager's own filter, never the list
 * of everyone's silences) and one whose marker names the same silence and content is taken (a
 * second one is expired; the external URL may have changed since, and a replica with the same
 * config silence made the same silence);
 * only when none does is it made (POST /api/v2/silences). So a create whose answer was lost (a crash
 * or a timeout after Alertmanager made it) is found by its retry, never made twice. `expire`: DELETE
 * /api/v2/silence/{id} of the one the notes name (already gone or expired: done).
 */
import { DeliveryError, type Notes, type OutgoingRequest, type SendContext } from '../receiver.js';
import type { ReceiverOf } from '../schemas.js';
import type { MirroredSilence, SilenceOp } from '../../types.js';
import { snippet } from '../../../util/text.js';

const MARKER = /\(avahealth (\S+) silence (\S+) ([0-9a-f]{12})\)$/;
/** Silences with the same matchers read at most (the rest of a larger answer is not looked at). */
const MAX_FOUND = 1000;

type Receiver = ReceiverOf<'alertmanager'>;

/** The note of a silence: the Alertmanager id made for it and its hash, or `refused` and the hash Alertmanager refused. */
export const noteKey = (id: string) => `silence ${id}`;

export function readNote(notes: Notes | undefined, id: string): { amId?: string; refused?: boolean; hash: string } | undefined {
  const [first, hash] = (notes?.get(noteKey(id)) ?? '').split(' ');
  if (!first || !hash) return undefined;
  return first === 'refused' ? { refused: true, hash } : { amId: first, hash };
}

/** Alertmanager's matchers: `~regex` is a regex matcher (both are anchored RE2), anything else equality. */
export function amMatchers(matchers: Record<string, string>) {
  return Object.entries(matchers).map(([name, value]) =>
    value.startsWith('~') ? { name, value: value.slice(1), isRegex: true, isEqual: true } : { name, value, isRegex: false, isEqual: true },
  );
}

/** The marker a silence made for `s` ends its comment with. */
export function markerOf(externalUrl: string, s: Pick<MirroredSilence, 'id' | 'hash'>): string {
  return `(avahealth ${externalUrl} silence ${s.id} ${s.hash})`;
}

/** Applies the ops in order. A silence Alertmanager refuses (4xx) is noted and the rest applied; the batch then ends as rejected. */
export async function applySilenceOps(ops: readonly SilenceOp[], receiver: Receiver, ctx: SendContext): Promise<void> {
  const request = ctx.request;
  if (!request) throw new DeliveryError('silences cannot be mirrored from here (no request function)', false, 'http_4xx');
  const call = (method: NonNullable<OutgoingRequest['method']>, path: string, body?: unknown) =>
    request({ method, url: `${receiver.settings.url}${path}`, headers: body === undefined ? {} : { 'content-type': 'application/json' }, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
  const refused: string[] = [];
  for (const op of ops) {
    if ('adopt' in op) {
      await adopt(call, op.adopt.amId, ctx);
      continue;
    }
    if ('expire' in op) {
      const note = readNote(ctx.notes, op.expire.id);
      if (note?.amId && note.hash === op.expire.hash) {
        await expire(call, note.amId);
        await ctx.notes?.update({ [noteKey(op.expire.id)]: undefined });
      } else if (note?.refused && note.hash === op.expire.hash) await ctx.notes?.update({ [noteKey(op.expire.id)]: undefined });
      continue;
    }
    try {
      await ensure(call, op.ensure, ctx);
    } catch (err) {
      if (!(err instanceof DeliveryError) || err.retryable) throw err;
      await ctx.notes?.update({ [noteKey(op.ensure.id)]: `refused ${op.ensure.hash}` });
      refused.push(`silence ${op.ensure.id} (${JSON.stringify(op.ensure.matchers)}): ${err.message}`);
    }
  }
  if (refused.length > 0) throw new DeliveryError(`Alertmanager refused ${refused.join('; ')}; its alerts are not sent to it while the silence lasts`, false, 'http_4xx');
}

type Call = (method: NonNullable<OutgoingRequest['method']>, path: string, body?: unknown) => Promise<string>;

async function ensure(call: Call, s: MirroredSilence, ctx: SendContext): Promise<void> {
  const note = readNote(ctx.notes, s.id);
  if (note?.amId && note.hash === s.hash && (await held(call, note.amId, s))) return;
  const [kept, ...extra] = await withMarker(call, s);
  for (const duplicate of extra) await expire(call, duplicate);
  let amId = kept;
  if (!amId) {
    const body = {
      matchers: amMatchers(s.matchers),
      startsAt: new Date(s.startsAt).toISOString(),
      endsAt: new Date(s.endsAt).toISOString(),
      createdBy: s.createdBy || 'avahealth',
      comment: `${s.comment || 'silenced in avahealth'} ${markerOf(ctx.externalUrl, s)}`,
    };
    const answer = parse(await call('POST', '/api/v2/silences', body)) as { silenceID?: unknown } | undefined;
    if (typeof answer?.silenceID !== 'string' || answer.silenceID.length > 256) throw new Error('POST /api/v2/silences answered no silenceID');
    amId = answer.silenceID;
  }
  await ctx.notes?.update({ [noteKey(s.id)]: `${amId} ${s.hash}` });
}

/** Whether Alertmanager still holds the silence made for `s` under `amId` (active or pending, with its marker). */
async function held(call: Call, amId: string, s: MirroredSilence): Promise<boolean> {
  let item: unknown;
  try {
    item = parse(await call('GET', `/api/v2/silence/${encodeURIComponent(amId)}`));
  } catch (err) {
    if (err instanceof DeliveryError && !err.retryable) return false; // gone (404), or not readable: looked for again
    throw err;
  }
  return ours(item, (id, hash) => id === s.id && hash === s.hash);
}

/** The active or pending silences with `s`'s matchers whose marker names `s` (its id and content). */
async function withMarker(call: Call, s: MirroredSilence): Promise<string[]> {
  const filter = amMatchers(s.matchers).map((m) => `filter=${encodeURIComponent(`${m.name}${m.isRegex ? '=~' : '='}"${m.value.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n')}"`)}`);
  let list: unknown;
  try {
    list = parse(await call('GET', `/api/v2/silences?${filter.join('&')}`));
  } catch (err) {
    // A filter Alertmanager cannot parse (a matcher it would refuse anyway): nothing found.
    if (err instanceof DeliveryError && !err.retryable) return [];
    throw err;
  }
  if (!Array.isArray(list)) throw new Error('GET /api/v2/silences answered no list');
  return list
    .slice(0, MAX_FOUND)
    .filter((item) => ours(item, (id, hash) => id === s.id && hash === s.hash))
    .map((item) => (item as { id: unknown }).id)
    .filter((id): id is string => typeof id === 'string' && id.length <= 256);
}

/** Whether an Alertmanager silence is active or pending and carries a marker `accept`s. */
function ours(item: unknown, accept: (id: string, hash: string) => boolean): boolean {
  const silence = item as { comment?: unknown; status?: { state?: unknown } } | undefined;
  if (typeof silence?.comment !== 'string' || silence.status?.state === 'expired') return false;
  const marker = MARKER.exec(silence.comment);
  return marker !== null && accept(marker[2]!, marker[3]!);
}

/** A silence an earlier version made: noted under its avahealth silence, or expired when another is noted there. */
async function adopt(call: Call, amId: string, ctx: SendContext): Promise<void> {
  let item: unknown;
  try {
    item = parse(await call('GET', `/api/v2/silence/${encodeURIComponent(amId)}`));
  } catch (err) {
    if (err instanceof DeliveryError && !err.retryable) return; // gone
    throw err;
  }
  let found: { id: string; hash: string } | undefined;
  if (!ours(item, (id, hash) => ((found = { id, hash }), true)) || !found) return;
  const { id, hash } = found;
  const note = readNote(ctx.notes, id);
  if (note?.amId === amId) return;
  if (note?.amId) await expire(call, amId);
  else await ctx.notes?.update({ [noteKey(id)]: `${amId} ${hash}` });
}

async function expire(call: Call, amId: string): Promise<void> {
  try {
    await call('DELETE', `/api/v2/silence/${encodeURIComponent(amId)}`);
  } catch (err) {
    // Expiring a silence that is gone or already expired is done.
    if (err instanceof DeliveryError && (err.status === 404 || /expired|not found/i.test(err.body ?? ''))) return;
    throw err;
  }
}

function parse(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new Error(`Alertmanager answered no JSON: ${snippet(text)}`);
  }
}
