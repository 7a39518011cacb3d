/**
 * The Exposition on its own: written family by family in owner order, as the owners were when the
 * scrape began; the endpoint's body (streamed in pieces with backpressure, plain or one gzip
 * member), the format headers and the content negotiation (Prometheus 2 and 3).
 */
import { inflateRawSync } from 'node:zlib';
import { Gauge, Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { acceptsGzip, bodyBytes, MetricsEndpoint, negotiateFormat, PIECE_BYTES, type ScrapeResponse } from '../../src/metrics/endpoint.js';
import { negotiate } from '../../src/metrics/negotiate.js';
import { Exposition, familyHeader, SampleWriter, type Family, type Format, type Part } from '../../src/metrics/exposition.js';

const FAMILIES: Family[] = [
  { name: 'x_up', type: 'gauge', help: 'Up.' },
  { name: 'x_failures_total', type: 'counter', help: 'Failures with a "quoted" word and a \\ backslash.' },
];

/** Owner `t<i>` of both families; `parts` keeps each owner's Part between fills (a poll of the same target). */
function fill(exposition: Exposition, owners: number, padding = 0, parts: Map<string, Part> = partsOf.get(exposition) ?? new Map()) {
  partsOf.set(exposition, parts);
  const pad = 'p'.repeat(padding);
  const w = exposition.writer();
  for (let i = 0; i < owners; i++) {
    w.reset();
    w.add(0, `target="t${i}",pad="${pad}"`, 1);
    w.add(1, `target="t${i}"`, i);
    exposition.set(partOf(exposition, `t${i}`), w);
  }
}

const partsOf = new WeakMap<Exposition, Map<string, Part>>();

/** The Part of owner `name`. */
function partOf(exposition: Exposition, name: string): Part {
  let parts = partsOf.get(exposition);
  if (!parts) partsOf.set(exposition, (parts = new Map()));
  let part = parts.get(name);
  if (!part) parts.set(name, (part = exposition.part()));
  return part;
}

/** Sets owner `name`'s families `first ..` to these texts (family `first + i` gets `texts[i]`, whole lines), as a collector does. */
function setTexts(exposition: Exposition, name: string, texts: string[], first = 0): void {
  const w = new SampleWriter(exposition.families.slice(first, first + texts.length));
  texts.forEach((text, i) => {
    for (const line of text.split('\n').filter(Boolean)) {
      const m = /^[^{]+\{(.*)\} (\S+)$/.exec(line)!;
      w.add(i, m[1]!, Number(m[2]));
    }
  });
  exposition.set(partOf(exposition, name), w, first);
}

function deleteOwner(exposition: Exposition, name: string): void {
  exposition.delete(partOf(exposition, name));
}

/** The text of a gzip body that must be exactly one member (curl and browsers read only the first). */
function gunzipOneMember(raw: Buffer): string {
  expect([...raw.subarray(0, 3)]).toEqual([0x1f, 0x8b, 8]);
  const { buffer, engine } = inflateRawSync(raw.subarray(10), { info: true }) as unknown as { buffer: Buffer; engine: { bytesWritten: number } };
  expect(10 + engine.bytesWritten + 8).toBe(raw.length);
  return buffer.toString();
}

/** The per-target part as a scrape copies it now, in pieces of `piece` bytes. */
async function bodyOf(e: Exposition, format: Format = 'text', piece = 7): Promise<Buffer> {
  const capture = e.capture(format);
  const pieces: Buffer[] = [];
  for (let at = piece; at === piece; ) {
    const b = Buffer.alloc(piece);
    at = capture.fill(b);
    pieces.push(b.subarray(0, at));
  }
  return Buffer.concat(pieces);
}

/** A gzip scrape's body, whole. */
function gzipBody(response: ScrapeResponse): Promise<Buffer> {
  expect(response.contentEncoding).toBe('gzip');
  return bodyBytes(response.body);
}

function expected(owners: number, padding = 0, format: 'text' | 'openmetrics' = 'text'): string {
  const pad = 'p'.repeat(padding);
  let out = familyHeader(FAMILIES[0]!, format);
  for (let i = 0; i < owners; i++) out += `x_up{target="t${i}",pad="${pad}"} 1\n`;
  out += familyHeader(FAMILIES[1]!, format);
  for (let i = 0; i < owners; i++) out += `x_failures_total{target="t${i}"} ${i}\n`;
  return out;
}

describe('Exposition', () => {
  it('joins the owners family by family, and forgets a deleted owner', async () => {
    const e = new Exposition(FAMILIES);
    fill(e, 3);
    expect(e.render().toString()).toBe(expected(3));
    deleteOwner(e, 't2');
    expect((await bodyOf(e)).toString()).toBe(expected(2));
    setTexts(e, 't9', ['', 'x_failures_total{target="t9"} 7\n']);
    expect((await bodyOf(e)).toString()).toContain('x_failures_total{target="t1"} 1\nx_failures_total{target="t9"} 7\n');
    expect((await bodyOf(e)).toString()).not.toContain('x_up{target="t9"');
    // an owner replaced with one family changed (a counter that moved between polls)
    setTexts(e, 't1', ['x_up{target="t1",pad=""} 1\n', 'x_failures_total{target="t1"} 5\n']);
    expect(e.render().toString()).toBe(expected(2).replace('x_failures_total{target="t1"} 1', 'x_failures_total{target="t1"} 5') + 'x_failures_total{target="t9"} 7\n');
    setTexts(e, 'new', ['x_up{target="new"} 0\n', '']);
    expect(e.render().toString()).toContain('x_up{target="t1",pad=""} 1\nx_up{target="new"} 0\n# HELP x_failures_total');
    // an owner with no samples leaves, and comes back after the owners listed meanwhile
    setTexts(e, 't0', ['', '']);
    expect(e.render().toString()).not.toContain('target="t0"');
    setTexts(e, 't0', ['x_up{target="t0"} 3\n', '']);
    expect(e.render().toString()).toContain('x_up{target="new"} 0\nx_up{target="t0"} 3\n');
  });

  it("replaces only the families a collector writes of an owner; the owner's other families stay", async () => {
    const three: Family[] = [...FAMILIES, { name: 'x_depth', type: 'gauge', help: 'Depth.' }];
    const e = new Exposition(three);
    setTexts(e, 'a', ['x_up{o="a"} 1\n', 'x_failures_total{o="a"} 2\n', 'x_depth{o="a"} 3\n']);
    setTexts(e, 'b', ['x_up{o="b"} 5\n']);
    const header = (i: number) => familyHeader(three[i]!, 'text');
    expect(e.render().toString()).toBe(`${header(0)}x_up{o="a"} 1\nx_up{o="b"} 5\n${header(1)}x_failures_total{o="a"} 2\n${header(2)}x_depth{o="a"} 3\n`);
    // the middle family only: longer, then gone; the families around it stay
    setTexts(e, 'a', ['x_failures_total{o="a",more="labels"} 20\n'], 1);
    setTexts(e, 'b', ['x_depth{o="b"} 7\n'], 2);
    expect((await bodyOf(e)).toString()).toBe(
      `${header(0)}x_up{o="a"} 1\nx_up{o="b"} 5\n${header(1)}x_failures_total{o="a",more="labels"} 20\n${header(2)}x_depth{o="a"} 3\nx_depth{o="b"} 7\n`,
    );
    setTexts(e, 'a', [''], 1);
    setTexts(e, 'a', ['x_up{o="a"} 100\n'], 0);
    expect(e.render().toString()).toBe(`${header(0)}x_up{o="a"} 100\nx_up{o="b"} 5\n${header(2)}x_depth{o="a"} 3\nx_depth{o="b"} 7\n`);
  });

  it('writes a large body the same way in pieces of any size and at once', async () => {
    const three: Family[] = [...FAMILIES, { name: 'x_depth', type: 'gauge', help: 'Depth.' }];
    const e = new Exposition(three);
    const lines: string[][] = [[], [], []];
    for (let i = 0; i < 20000; i++) {
      const pad = 'q'.repeat(i % 400); // fragments of every length: headers and samples end up split across pieces
      if (i % 3 === 0) {
        setTexts(e, `o${i}`, [`x_up{o="w${i}",p="${pad}"} 1\n`, '', `x_depth{o="w${i}"} ${i}\n`]);
        lines[0]!.push(`x_up{o="w${i}",p="${pad}"} 1\n`);
        lines[2]!.push(`x_depth{o="w${i}"} ${i}\n`);
      } else if (i % 3 === 1) {
        setTexts(e, `o${i}`, [`x_failures_total{o="t${i}",p="${pad}"} ${i}\n`, `x_depth{o="t${i}"} 2\n`], 1);
        lines[1]!.push(`x_failures_total{o="t${i}",p="${pad}"} ${i}\n`);
        lines[2]!.push(`x_depth{o="t${i}"} 2\n`);
      } else {
        setTexts(e, `o${i}`, [`x_up{o="h${i}",p="${pad}"} 0\n`], 0);
        lines[0]!.push(`x_up{o="h${i}",p="${pad}"} 0\n`);
      }
    }
    for (const format of ['text', 'openmetrics'] as const) {
      const want = lines.map((samples, f) => familyHeader(three[f]!, format) + samples.join('')).join('');
      expect(want.length).toBeGreaterThan(1 << 20);
      for (const piece of [97, 4096, 1 << 20]) expect((await bodyOf(e, format, piece)).toString()).toBe(want);
      expect(e.render(format).toString()).toBe(want);
    }
  });

  it("writes a poll's lines over the owner's buffer when they fit, and into a new one while a scrape holds it", async () => {
    const e = new Exposition(FAMILIES);
    fill(e, 3);
    const part = partOf(e, 't1');
    const before = part.bytes;
    fill(e, 3); // the same lengths
    expect(part.bytes).toBe(before);
    const capture = e.capture('text');
    fill(e, 4, 1); // every owner changes (and grows), one more
    expect(part.bytes).not.toBe(before);
    // copied once per capture: the copy is nobody else's, the next poll writes over it
    const copied = part.bytes;
    fill(e, 4, 1);
    expect(part.bytes).toBe(copied);
    deleteOwner(e, 't0');
    const taken = Buffer.alloc(capture.size);
    expect(taken.subarray(0, capture.fill(taken)).toString()).toBe(expected(3));
    capture.release();
    expect(e.render().toString()).not.toContain('target="t0"');
    // released: in place again (t0 comes back after the owners listed meanwhile)
    const now = part.bytes;
    fill(e, 4, 1);
    expect(part.bytes).toBe(now);
    expect(e.render().toString()).toContain('x_up{target="t3",pad="p"} 1\nx_up{target="t0",pad="p"} 1\n');
  });

  it('a scrape cut short lets the owners be written in place again', () => {
    const e = new Exposition(FAMILIES);
    fill(e, 3);
    const part = partOf(e, 't2');
    e.capture('text').release();
    const before = part.bytes;
    fill(e, 3);
    expect(part.bytes).toBe(before);
  });

  it('names counter families without _total and escapes quotes in help for OpenMetrics only', () => {
    expect(familyHeader(FAMILIES[1]!, 'openmetrics')).toBe('# HELP x_failures Failures with a \\"quoted\\" word and a \\\\ backslash.\n# TYPE x_failures counter\n');
    expect(familyHeader(FAMILIES[1]!, 'text')).toBe('# HELP x_failures_total Failures with a "quoted" word and a \\\\ backslash.\n# TYPE x_failures_total counter\n');
    expect(familyHeader(FAMILIES[0]!, 'openmetrics')).toBe('# HELP x_up Up.\n# TYPE x_up gauge\n');
  });
});

describe('MetricsEndpoint', () => {
  const OPENMETRICS = 'application/openmetrics-text; version=1.0.0';

  it('compresses the cached part and the registry into one gzip member ending in # EOF for OpenMetrics', async () => {
    const e = new Exposition(FAMILIES);
    fill(e, 5);
    const endpoint = new MetricsEndpoint(e, new Registry());
    const response = await endpoint.scrape({ accept: OPENMETRICS, acceptEncoding: 'gzip' });
    expect(gunzipOneMember(await gzipBody(response))).toBe(`${expected(5, 0, 'openmetrics')}# EOF\n`);
    const plain = await endpoint.scrape({});
    expect(plain.contentType).toBe('text/plain; version=0.0.4; charset=utf-8');
    expect((await bodyBytes(plain.body)).toString()).toBe(expected(5));
  });

  it("answers a large fleet's gzip scrape with one gzip member that decodes to the same exposition as a plain scrape", async () => {
    const e = new Exposition(FAMILIES);
    fill(e, 24000, 400); // ≈ 10.5 MB: three pieces compressed on their own, two at a time
    const endpoint = new MetricsEndpoint(e, new Registry());
    const gzip = await endpoint.scrape({ accept: OPENMETRICS, acceptEncoding: 'gzip' });
    const plain = await endpoint.scrape({ accept: OPENMETRICS });
    expect(plain.contentEncoding).toBeUndefined();
    const text = (await bodyBytes(plain.body)).toString();
    expect(gunzipOneMember(await gzipBody(gzip))).toBe(text);
    expect(text).toBe(`${expected(24000, 400, 'openmetrics')}# EOF\n`);
  });

  it('gzip scrapes of the same data share one compression of the per-target part; a change makes a new one', async () => {
    const e = new Exposition(FAMILIES);
    fill(e, 12000, 400);
    const endpoint = new MetricsEndpoint(e, new Registry());
    const pieces = async () => {
      const taken: Buffer[] = [];
      await (await endpoint.scrape({ acceptEncoding: 'gzip' })).body.write(async (piece) => void taken.push(piece));
      return taken;
    };
    const [first, second] = await Promise.all([pieces(), pieces()]);
    const third = await pieces();
    // the header, two runs of the per-target part, prom-client's part with the trailer
    expect(first).toHaveLength(4);
    for (const run of [1, 2]) {
      expect(second[run]).toBe(first[run]);
      expect(third[run]).toBe(first[run]);
    }
    fill(e, 12000, 401);
    const changed = await pieces();
    expect(changed[1]).not.toBe(first[1]);
    expect(gunzipOneMember(Buffer.concat(changed))).toBe(expected(12000, 401));
    expect(gunzipOneMember(Buffer.concat(third))).toBe(expected(12000, 400));
  });

  it("streams a large fleet's plain scrape in pieces of at most 64 KiB, the snapshot it started from", async () => {
    const e = new Exposition(FAMILIES);
    fill(e, 12000, 400); // ≈ 5.2 MB
    const endpoint = new MetricsEndpoint(e, new Registry());
    const plain = await endpoint.scrape({});
    const pieces: Buffer[] = [];
    let polled = false;
    await plain.body.write(async (piece) => {
      expect(piece.length).toBeLessThanOrEqual(PIECE_BYTES);
      pieces.push(Buffer.from(piece)); // the buffer is filled again once this take settled
      if (!polled) fill(e, 12001, 400); // every owner changes while the scrape is written
      polled = true;
    });
    expect(pieces.length).toBeGreaterThan(80);
    expect(Buffer.concat(pieces).toString()).toBe(expected(12000, 400));
  });

  it('hands a slow consumer the next piece only once it took the last, plain or gzip (backpressure)', async () => {
    const e = new Exposition(FAMILIES);
    fill(e, 12000, 400);
    const endpoint = new MetricsEndpoint(e, new Registry());
    for (const acceptEncoding of [undefined, 'gzip']) {
      const response = await endpoint.scrape({ acceptEncoding });
      const read: Buffer[] = [];
      let consuming = 0;
      await response.body.write(async (piece) => {
        expect(++consuming).toBe(1);
        await new Promise((resolve) => setTimeout(resolve, 2));
        read.push(Buffer.from(piece)); // read after the wait: a piece refilled meanwhile would show here
        consuming--;
      });
      expect(read.length).toBeGreaterThanOrEqual(acceptEncoding ? 4 : 80);
      expect(acceptEncoding ? gunzipOneMember(Buffer.concat(read)) : Buffer.concat(read).toString()).toBe(expected(12000, 400));
    }
  });

  it('a consumer that fails (the client went away) ends the writing with its error, gzip too', async () => {
    const e = new Exposition(FAMILIES);
    fill(e, 12000, 400);
    const endpoint = new MetricsEndpoint(e, new Registry());
    for (const acceptEncoding of [undefined, 'gzip']) {
      let taken = 0;
      const response = await endpoint.scrape({ acceptEncoding });
      await expect(response.body.write(async () => { if (++taken === 2) throw new Error('client gone'); })).rejects.toThrow();
      expect(taken).toBe(2);
    }
  });

  it('concurrent gzip scrapes of both formats, then again after a change, each decode to their whole body', async () => {
    const e = new Exposition(FAMILIES);
    const endpoint = new MetricsEndpoint(e, new Registry());
    const om = { accept: OPENMETRICS, acceptEncoding: 'gzip' };
    for (const n of [12000, 12001]) {
      fill(e, n, 400);
      const [text, again, openmetrics] = await Promise.all([endpoint.scrape({ acceptEncoding: 'gzip' }), endpoint.scrape({ acceptEncoding: 'gzip' }), endpoint.scrape(om)]);
      const bodies = await Promise.all([gzipBody(text), gzipBody(again), gzipBody(openmetrics)]);
      expect(gunzipOneMember(bodies[0])).toBe(expected(n, 400));
      expect(gunzipOneMember(bodies[1])).toBe(expected(n, 400));
      expect(gunzipOneMember(bodies[2])).toBe(`${expected(n, 400, 'openmetrics')}# EOF\n`);
    }
  });

  it('a scrape taken while the data changes gets the whole snapshot it started from', async () => {
    const e = new Exposition(FAMILIES);
    fill(e, 4000, 400);
    const endpoint = new MetricsEndpoint(e, new Registry());
    const during = await endpoint.scrape({ accept: OPENMETRICS, acceptEncoding: 'gzip' });
    fill(e, 4002, 400); // polled meanwhile: every owner changes
    expect(gunzipOneMember(await gzipBody(during))).toBe(`${expected(4000, 400, 'openmetrics')}# EOF\n`);
    expect((await bodyBytes((await endpoint.scrape({})).body)).toString()).toBe(expected(4002, 400));
  });

  it('a registry that fails to render fails the scrape before any byte is sent, gzip or plain', async () => {
    const e = new Exposition(FAMILIES);
    fill(e, 4000, 400);
    const registry = new Registry();
    new Gauge({ name: 'x_broken', help: 'Throws when collected.', registers: [registry], collect: () => { throw new Error('collect failed'); } });
    const endpoint = new MetricsEndpoint(e, registry);
    await expect(endpoint.scrape({ acceptEncoding: 'gzip' })).rejects.toThrow('collect failed');
    await expect(endpoint.scrape({})).rejects.toThrow('collect failed');
  });

  it('negotiates the format and the encoding from the request headers', () => {
    expect(negotiateFormat(undefined)).toBe('text');
    expect(negotiateFormat('text/plain;version=0.0.4;q=1,*/*;q=0.1')).toBe('text');
    expect(negotiateFormat('application/openmetrics-text;version=1.0.0,text/plain;version=0.0.4;q=0.5')).toBe('openmetrics');
    expect(negotiateFormat('application/openmetrics-text;q=0,text/plain')).toBe('text');
    // the higher q-value wins, not the first range named
    expect(negotiateFormat('text/plain;version=0.0.4;q=0.9,application/openmetrics-text;version=1.0.0;q=0.5')).toBe('text');
    // a protocol avahealth does not speak (protobuf only): Prometheus text, the last resort
    expect(negotiateFormat('application/vnd.google.protobuf;proto=io.prometheus.client.MetricFamily;encoding=delimited')).toBe('text');
    expect(acceptsGzip('gzip, deflate, br')).toBe(true);
    expect(acceptsGzip('br;q=1.0, gzip;q=0.8')).toBe(true);
    expect(acceptsGzip('gzip;q=0')).toBe(false);
    expect(acceptsGzip('identity')).toBe(false);
    expect(acceptsGzip(undefined)).toBe(false);
  });

  it("answers Prometheus 3's Accept (with escaping=) with OpenMetrics 1.0.0 naming the escaping back, and Prometheus 2's without", () => {
    // Prometheus 3.x's default scrape_protocols (scrape/scrape.go, acceptHeader)
    const prometheus3 = 'application/openmetrics-text;version=1.0.0;escaping=allow-utf-8;q=0.6,application/openmetrics-text;version=0.0.1;q=0.5,text/plain;version=1.0.0;escaping=allow-utf-8;q=0.4,text/plain;version=0.0.4;q=0.3,*/*;q=0.2';
    expect(negotiate(prometheus3)).toEqual({ format: 'openmetrics', contentType: 'application/openmetrics-text; version=1.0.0; charset=utf-8; escaping=allow-utf-8' });
    expect(negotiate(prometheus3.replaceAll('allow-utf-8', 'underscores')).contentType).toBe('application/openmetrics-text; version=1.0.0; charset=utf-8; escaping=underscores');
    // Prometheus 2.x
    const prometheus2 = 'application/openmetrics-text;version=1.0.0,application/openmetrics-text;version=0.0.1;q=0.75,text/plain;version=0.0.4;q=0.5,*/*;q=0.1';
    expect(negotiate(prometheus2).contentType).toBe('application/openmetrics-text; version=1.0.0; charset=utf-8');
    // an unknown scheme is not echoed
    expect(negotiate('application/openmetrics-text;version=1.0.0;escaping=<script>').contentType).toBe('application/openmetrics-text; version=1.0.0; charset=utf-8');
    // text/plain 1.0.0 first (scrape_protocols: [PrometheusText1.0.0]): Prometheus text, which it parses the same
    expect(negotiate('text/plain;version=1.0.0;escaping=allow-utf-8;q=0.6,*/*;q=0.5').contentType).toBe('text/plain; version=0.0.4; charset=utf-8');
  });
});
