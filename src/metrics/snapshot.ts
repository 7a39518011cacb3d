/**
 * One moment of the Exposition cache (exposition.ts) turned into a body: the owners' bytes, family
 * after family with each non-empty family's header first, joined for plain scrapes or deflated in
 * zlib's thread pool for gzip ones. The main thread's share is the assembly (a transposition: every
 * owner holds its families side by side, the body wants each family's samples of every owner side
 * by side), done in steps of at most STEP_MS with the event loop served in between.
 */
import { promisify } from 'node:util';
import { constants, crc32, deflateRaw } from 'node:zlib';

/**
 * One owner's samples as bytes. An owner has a range of families (a collector's own): family
 * `first + i` is `bytes[ends[i-1] .. ends[i])` (from 0 for i = 0; the buffer may be longer), and
 * it has nothing of the families outside its range. The ends are a small array of the range's
 * length, not one typed array of every family per owner: six owners per node each held a
 * 58-entry Uint32Array with its own off-heap backing store.
 * Rewritten in place by the next `set` of its owner while no snapshot holds it, replaced while one
 * does. A snapshot holds its owners while it may still read them: while it is the current one, and
 * after that until its assemblies in flight are done (a gzip scrape every second of a fleet polled
 * every second: the owners are free again once the compression is done, not replaced every poll).
 */
export interface Encoded {
  bytes: Buffer;
  first: number;
  ends: number[];
  /** How many snapshots may still read it: not changed while any does. */
  holds: number;
}

/** A raw deflate stream ending in a sync flush (byte-aligned, not final: more may follow), with the CRC-32 and length of its input. */
export interface Deflated {
  chunks: Buffer[];
  crc: number;
  length: number;
}

/**
 * zlib's fastest level: at 5,000 nodes (47 MiB of exposition) level 1 costs 61–97 ms of CPU for
 * 2.6 MiB, level 6 173–178 ms for 2.3 MiB; Prometheus only needs a valid gzip stream.
 */
export const GZIP_LEVEL = 1;
/** Snapshots larger than this are joined and compressed in steps, yielding to the event loop in between. */
const LARGE_BYTES = 1 << 20;
/** The buffers a plain (uncompressed) body is joined into. */
const SLICE_BYTES = 1 << 20;
/**
 * Input handed to zlib's thread pool in one go. Every slice costs a round trip through the event
 * loop, which is slow on a busy daemon (47 slices of 1 MiB, one after the other, took seconds at
 * 5,000 nodes), so fewer, larger ones.
 */
const DEFLATE_SLICE_BYTES = 4 << 20;
/**
 * Main-thread time one step of assembling a large snapshot may take before it yields. Assembling
 * costs ≈ 1 ms per MiB (5,000 nodes: ≈ 50 ms for 47 MiB), so a 1,000-node body (10 MiB) takes a
 * few steps and a 5,000-node one ≈ 20.
 */
const STEP_MS = 3;
/** Fragments copied between two looks at the clock. */
const FRAGMENTS_PER_CLOCK_CHECK = 256;

const nextTurn = () => new Promise((resolve) => setImmediate(resolve));
const deflateRawAsync = promisify(deflateRaw);

/** Owners whose range starts at the same family (in practice: one collector's owners), in owner order. */
interface Group {
  first: number;
  /** The last family of any of their ranges. */
  last: number;
  owners: Encoded[];
}

/**
 * Copies a snapshot's body into buffers the caller hands in, resumably: it stops when a buffer is
 * full, at the end, or once a step's time is spent. A family only visits the groups of owners whose
 * range covers it, and copies straight from their buffers: at 5,000 nodes ≈ 290,000 fragments, with
 * no view allocated per fragment (the walk over every owner for every family, each fragment cut out
 * as a Buffer view, cost ≈ 4× as much: 200–500 ms of main-thread time for 47 MiB).
 */
class Assembler {
  private family = 0;
  private group = 0;
  private member = 0;
  /** The current family's header has been copied (it comes before the family's first sample). */
  private headed = false;
  /** Bytes of the current piece (the header until headed, then the current fragment) already copied. */
  private offset = 0;

  constructor(
    private readonly groups: Group[],
    private readonly headers: Buffer[],
  ) {}

  get done(): boolean {
    return this.family >= this.headers.length;
  }

  /** Fills `into` from `at`; returns the new fill position. Stops early once `until` (performance.now()) has passed. */
  fill(into: Buffer, at: number, until = Infinity): number {
    const { groups, headers } = this;
    let used = at;
    let sinceCheck = 0;
    for (; this.family < headers.length; this.family++, this.group = 0, this.headed = false) {
      const f = this.family;
      for (; this.group < groups.length; this.group++, this.member = 0) {
        const group = groups[this.group]!;
        if (group.first > f) break;
        if (group.last < f) continue;
        const owners = group.owners;
        for (; this.member < owners.length; this.member++) {
          const { bytes, ends } = owners[this.member]!;
          const i = f - group.first;
          if (i >= ends.length) continue;
          const from = i === 0 ? 0 : ends[i - 1]!;
          const end = ends[i]!;
          if (from >= end) continue;
          if (!this.headed) {
            const header = headers[f]!;
            const copied = header.copy(into, used, this.offset);
            used += copied;
            this.offset += copied;
            if (this.offset < header.length) return used;
            this.headed = true;
            this.offset = 0;
          }
          const start = from + this.offset;
          const copied = bytes.copy(into, used, start, end);
          used += copied;
          if (start + copied < end) {
            this.offset += copied;
            return used;
          }
          this.offset = 0;
          if (++sinceCheck === FRAGMENTS_PER_CLOCK_CHECK) {
            sinceCheck = 0;
            if (performance.now() >= until) {
              this.member++;
              return used;
            }
          }
        }
      }
    }
    return used;
  }
}

/** The owners' bytes at one moment (it holds them: see Encoded). */
export class Snapshot {
  /** Assemblies (joins, compressions) in flight. */
  private working = 0;
  private retired = false;
  /** The joined body per format (its headers): a plain OpenMetrics scrape must not get the text join of the same snapshot. */
  private readonly joined = new Map<Buffer[], Promise<Buffer[]>>();
  readonly deflated = new Map<string, Promise<Deflated>>();
  /** Sample bytes (headers not included). */
  readonly bytes: number;
  /** The owners grouped by the first family of their range, sorted by it; built when first assembled. */
  private groups?: Group[];
  /** Which families have samples. */
  private present?: boolean[];

  constructor(
    readonly version: number,
    private readonly owners: Encoded[],
    private readonly families: number,
  ) {
    let bytes = 0;
    for (const owner of owners) {
      owner.holds++;
      bytes += owner.ends[owner.ends.length - 1] ?? 0;
    }
    this.bytes = bytes;
  }

  /** No longer the current snapshot (something changed): lets go of its owners once nothing in flight reads them. */
  retire(): void {
    if (this.retired) return;
    this.retired = true;
    if (this.working === 0) this.letGo();
  }

  private letGo(): void {
    for (const owner of this.owners) owner.holds--;
  }

  /** Keeps the owners held until `work` is done. */
  private reading<T>(work: Promise<T>): Promise<T> {
    this.working++;
    const done = () => {
      if (--this.working === 0 && this.retired) this.letGo();
    };
    work.then(done, done);
    return work;
  }

  get large(): boolean {
    return this.bytes > LARGE_BYTES;
  }

  /** A fresh pass over the body with these headers. */
  private assembler(headers: Buffer[]): Assembler {
    if (!this.groups) {
      const byFirst = new Map<number, Group>();
      const present = new Array<boolean>(this.families).fill(false);
      for (const owner of this.owners) {
        const { first, ends } = owner;
        if (ends.length === 0) continue;
        let group = byFirst.get(first);
        if (!group) byFirst.set(first, (group = { first, last: first, owners: [] }));
        group.owners.push(owner);
        group.last = Math.max(group.last, first + ends.length - 1);
        for (let i = 0; i < ends.length; i++) if (ends[i]! > (i === 0 ? 0 : ends[i - 1]!)) present[first + i] = true;
      }
      this.groups = [...byFirst.values()].sort((a, b) => a.first - b.first);
      this.present = present;
    }
    return new Assembler(this.groups, headers);
  }

  /** The body's length with these headers: every sample, and the headers of the families with samples. */
  private size(headers: Buffer[]): number {
    this.assembler(headers);
    let size = this.bytes;
    for (let f = 0; f < this.families; f++) if (this.present![f]) size += headers[f]!.length;
    return size;
  }

  /** Prometheus text or OpenMetrics, uncompressed, in buffers of at most SLICE_BYTES (a large body assembled a step per event-loop turn). */
  join(headers: Buffer[]): Promise<Buffer[]> {
    const existing = this.joined.get(headers);
    if (existing) return existing;
    const joined = this.reading((async () => {
      const parts: Buffer[] = [];
      const assembler = this.assembler(headers);
      for (let left = this.size(headers); left > 0; left -= parts.at(-1)!.length) {
        const part = Buffer.allocUnsafe(Math.min(left, SLICE_BYTES));
        for (let used = 0; used < part.length; ) {
          used = assembler.fill(part, used, this.large ? performance.now() + STEP_MS : Infinity);
          if (this.large) await nextTurn();
        }
        parts.push(part);
      }
      return parts;
    })());
    this.joined.set(headers, joined);
    return joined;
  }

  joinNow(headers: Buffer[]): Buffer {
    const body = Buffer.allocUnsafe(this.size(headers));
    this.assembler(headers).fill(body, 0);
    return body;
  }

  /**
   * Deflates in zlib's thread pool, keeping the running CRC-32 the gzip trailer needs. The body is
   * assembled into slices of DEFLATE_SLICE_BYTES, each deflated on its own (one thread-pool job per
   * slice; `atOnce` side by side, each holding its slice's buffer until done) and ending in a sync
   * flush, so the slices' outputs concatenate into one valid deflate stream (as pigz does).
   */
  deflate(headers: Buffer[], atOnce: number): Promise<Deflated> {
    return this.reading(this.deflating(headers, atOnce));
  }

  private async deflating(headers: Buffer[], atOnce: number): Promise<Deflated> {
    const options = { level: GZIP_LEVEL, finishFlush: constants.Z_SYNC_FLUSH, chunkSize: DEFLATE_SLICE_BYTES / 4 };
    const outputs: Array<Promise<Buffer>> = [];
    // slice buffers are reused once deflated: a compression allocates at most `atOnce`
    const free: Buffer[] = [];
    let allocated = 0;
    let waiting: (() => void) | undefined;
    let crc = 0;
    let length = 0;
    const take = async (): Promise<Buffer> => {
      while (free.length === 0 && allocated >= atOnce) await new Promise<void>((resolve) => (waiting = resolve));
      if (free.length > 0) return free.pop()!;
      allocated++;
      return Buffer.allocUnsafeSlow(DEFLATE_SLICE_BYTES);
    };
    const release = (buffer: Buffer) => {
      free.push(buffer);
      const wake = waiting;
      waiting = undefined;
      wake?.();
    };
    const deflate = (buffer: Buffer, used: number) => {
      const bytes = buffer.subarray(0, used);
      crc = crc32(bytes, crc);
      length += used;
      // copied out: zlib's result is a view of its whole output buffer, which would stay alive with it
      const output = deflateRawAsync(bytes, options).then((deflated) => Buffer.from(deflated));
      outputs.push(output);
      output.then(
        () => release(buffer),
        () => release(buffer),
      );
    };
    const assembler = this.assembler(headers);
    while (!assembler.done) {
      const slice = await take();
      let used = 0;
      for (let full = false; !full; ) {
        used = assembler.fill(slice, used, performance.now() + STEP_MS);
        full = used === slice.length || assembler.done;
        if (full && used > 0) deflate(slice, used);
        await nextTurn();
      }
      if (used === 0) release(slice);
    }
    return { chunks: await Promise.all(outputs), crc, length };
  }
}
