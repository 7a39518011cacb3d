/**
 * One moment of the Exposition cache (exposition.ts) turned into a body: the owners' bytes, family
 * after family with each non-empty family's header first, written in pieces into buffers the
 * caller hands in. The assembly is a transposition (every owner holds its families side by side,
 * the body wants each family's samples of every owner side by side), done for a large body in
 * steps of at most STEP_MS with the event loop served in between.
 */

/**
 * One owner's samples as bytes. An owner has a range of families (a collector's own): family
 * `first + i` is `bytes[ends[i-1] .. ends[i])` (from 0 for i = 0; the buffer may be longer), and
 * it has nothing of the families outside its range.
 * Rewritten in place by the next `set` of its owner while no snapshot holds it, replaced while one
 * does. A snapshot holds its owners while it may still read them: while it is the current one, and
 * after that until its writes in flight are done.
 */
export interface Encoded {
  bytes: Buffer;
  first: number;
  ends: number[];
  /** How many snapshots may still read it: not changed while any does. */
  holds: number;
}

/** Snapshots larger than this are assembled in steps, yielding to the event loop in between. */
const LARGE_BYTES = 1 << 20;
/** Main-thread time one step of assembling a large snapshot may take before it yields. */
const STEP_MS = 3;
/** Fragments copied between two looks at the clock. */
const FRAGMENTS_PER_CLOCK_CHECK = 256;

const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

/** Owners whose range starts at the same family (in practice: one collector's owners), in owner order. */
interface Group {
  first: number;
  /** The last family of any of their ranges. */
  last: number;
  owners: Encoded[];
}

/**
 * Copies a snapshot's body into a buffer the caller hands in, resumably: it stops when the buffer
 * is full, at the end, or once a step's time is spent. A family only visits the groups of owners
 * whose range covers it, and copies straight from their buffers, with no view allocated per fragment.
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
  /** Assemblies (writes) in flight. */
  private working = 0;
  private retired = false;
  /** Sample bytes (headers not included). */
  readonly bytes: number;
  /** The owners grouped by the first family of their range, sorted by it; built when first assembled. */
  private groups?: Group[];
  /** Which families have samples. */
  private present?: boolean[];

  constructor(
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
  size(headers: Buffer[]): number {
    this.assembler(headers);
    let size = this.bytes;
    for (let f = 0; f < this.families; f++) if (this.present![f]) size += headers[f]!.length;
    return size;
  }

  /**
   * The body in pieces, each filled into one of `buffers` (in turn, at most its length) and handed
   * to `take` (a large body is assembled a step per event-loop turn). A buffer is filled again only
   * once the promise `take` returned for its last piece settled, so the consumer may read a piece
   * until then: with two buffers, one is filled while the consumer works on the other, and a
   * consumer such as zlib is handed its next piece before it finished the last. Nothing is
   * allocated per piece: the caller may keep its buffers for the next body.
   */
  write(headers: Buffer[], buffers: readonly Buffer[], take: (piece: Buffer) => Promise<void>): Promise<void> {
    return this.reading((async () => {
      const assembler = this.assembler(headers);
      const large = this.bytes > LARGE_BYTES;
      const taken: Array<Promise<void> | undefined> = [];
      for (let left = this.size(headers), turn = 0; left > 0; turn++) {
        const slot = turn % buffers.length;
        await taken[slot];
        const piece = buffers[slot]!.subarray(0, Math.min(left, buffers[slot]!.length));
        for (let used = 0; used < piece.length; ) {
          used = assembler.fill(piece, used, large ? performance.now() + STEP_MS : Infinity);
          if (large) await nextTurn();
        }
        left -= piece.length;
        const handed = take(piece);
        handed.catch(() => {}); // a failure is thrown where it is awaited, never left unhandled
        taken[slot] = handed;
      }
      await Promise.all(taken);
    })());
  }

  joinNow(headers: Buffer[]): Buffer {
    const body = Buffer.allocUnsafe(this.size(headers));
    this.assembler(headers).fill(body, 0);
    return body;
  }
}
