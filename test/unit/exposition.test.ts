/**
 * The Exposition cache on its own: written family by family in owner order (large fleets in steps)
 * into buffers handed in; the endpoint's plain body (streamed in pieces) and gzip (one member, on
 * demand, shared while it runs) and the format headers.
 */
import { inflateRawSync } from 'node:zlib';
import { Gauge, Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { acceptsGzip, bodyBytes, MetricsEndpoint, negotiateFormat, type ScrapeResponse } from '../../src/metrics/endpoint.js';
import { Exposition, familyHeader, type Family, type Format } from '../../src/metrics/exposition.js';

const FAMILIES: Family[] = [
  { name: 'x_up', type: 'gauge', help: 'Up.' },
  { name: 'x_failures_total', type: 'counter', help: 'Failures with a "quoted" word and a \\ backslash.' },
];

function fill(exposition: Exposition, owners: number, padding = 0) {
  const pad = 'p'.repeat(padding);
  for (let i = 0; i < owners; i++) {
    const w = exposition.writer();
    w.add(0, `target="t${i}",pad="${pad}"`, 1);
    w.add(1, `target="t${i}"`, i);
    exposition.set(`t${i}`, w.take());
  }
}

/** The text of a gzip body that must be exactly one member (curl and browsers read only the first). */
function gunzipOneMember(body: Buffer[]): string {
  const raw = Buffer.concat(body);
  expect([...raw.subarray(0, 3)]).toEqual([0x1f, 0x8b, 8]);
  const { buffer, engine } = inflateRawSync(raw.subarray(10), { info: true }) as unknown as { buffer: Buffer; engine: { bytesWritten: number } };
  expect(10 + engine.bytesWritten + 8).toBe(raw.length);
  return buffer.toString();
}

/** The per-target part as a scrape writes it now. */
function bodyOf(e: Exposition, format: Format = 'text'): Promise<Buffer> {
  return bodyBytes({ write: (take) => e.write(format, [Buffer.alloc(64 << 10), Buffer.alloc(64 << 10)], take) });
}

/** A gzip scrape's body (whole, as the endpoint hands it). */
function gzipBody(response: ScrapeResponse): Buffer[] {
  expect(Array.isArray(response.body)).toBe(true);
  return response.body as Buffer[];
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
    e.delete('t2');
    expect((await bodyOf(e)).toString()).toBe(expected(2));
    const w = e.writer();
    w.add(1, 'target="t9"', 7);
    e.set('t9', w.take());
    expect((await bodyOf(e)).toString()).toContain('x_failures_total{target="t1"} 1\nx_failures_total{target="t9"} 7\n');
    expect((await bodyOf(e)).toString()).not.toContain('x_up{target="t9"');
    // an owner replaced with one family changed (a counter that moved between polls)
    e.set('t1', ['x_up{target="t1",pad=""} 1\n', 'x_failures_total{target="t1"} 5\n']);
    expect(e.render().toString()).toBe(expected(2).replace('x_failures_total{target="t1"} 1', 'x_failures_total{target="t1"} 5') + 'x_failures_total{target="t9"} 7\n');
    e.set('new', ['x_up{target="new"} 0\n', '']);
    expect(e.render().toString()).toContain('x_up{target="t1",pad=""} 1\nx_up{target="new"} 0\n# HELP x_failures_total');
  });

  it("places an owner that holds a range of families (a collector's) among owners of every family, and moves it to another range", async () => {
    const three: Family[] = [...FAMILIES, { name: 'x_depth', type: 'gauge', help: 'Depth.' }];
    const e = new Exposition(three);
    e.set('whole', ['x_up{o="whole"} 1\n', '', 'x_depth{o="whole"} 3\n']);
    e.set('tail', ['x_failures_total{o="tail"} 2\n', 'x_depth{o="tail"} 4\n'], 1);
    e.set('head', ['x_up{o="head"} 5\n'], 0);
    const header = (i: number) => familyHeader(three[i]!, 'text');
    expect(e.render().toString()).toBe(
      `${header(0)}x_up{o="whole"} 1\nx_up{o="head"} 5\n${header(1)}x_failures_total{o="tail"} 2\n${header(2)}x_depth{o="whole"} 3\nx_depth{o="tail"} 4\n`,
    );
    e.set('tail', ['x_depth{o="tail"} 6\n'], 2); // a different range: the owner has nothing of family 1 any more
    e.set('head', ['x_up{o="head"} 5\n', '', 'x_depth{o="head"} 7\n']); // now a range from family 0, like 'whole'
    // within a family, owners whose range starts earlier come first, each range's owners in owner order
    expect((await bodyOf(e)).toString()).toBe(
      `${header(0)}x_up{o="whole"} 1\nx_up{o="head"} 5\n${header(2)}x_depth{o="whole"} 3\nx_depth{o="head"} 7\nx_depth{o="tail"} 6\n`,
    );
  });

  it('assembles a large body of owners with different ranges the same way joined (in steps) and rendered at once', async () => {
    const three: Family[] = [...FAMILIES, { name: 'x_depth', type: 'gauge', help: 'Depth.' }];
    const e = new Exposition(three);
    const lines: string[][] = [[], [], []];
    const tails: string[] = [];
    for (let i = 0; i < 20000; i++) {
      const pad = 'q'.repeat(i % 400); // fragments of every length: headers and samples end up split across buffers
      if (i % 3 === 0) {
        e.set(`w${i}`, [`x_up{o="w${i}",p="${pad}"} 1\n`, '', `x_depth{o="w${i}"} ${i}\n`]);
        lines[0]!.push(`x_up{o="w${i}",p="${pad}"} 1\n`);
        lines[2]!.push(`x_depth{o="w${i}"} ${i}\n`);
      } else if (i % 3 === 1) {
        e.set(`t${i}`, [`x_failures_total{o="t${i}",p="${pad}"} ${i}\n`, `x_depth{o="t${i}"} 2\n`], 1);
        lines[1]!.push(`x_failures_total{o="t${i}",p="${pad}"} ${i}\n`);
        tails.push(`x_depth{o="t${i}"} 2\n`);
      } else {
        e.set(`h${i}`, [`x_up{o="h${i}",p="${pad}"} 0\n`], 0);
        lines[0]!.push(`x_up{o="h${i}",p="${pad}"} 0\n`);
      }
    }
    lines[2]!.push(...tails); // owners whose range starts at family 1 come after those starting at 0
    for (const format of ['text', 'openmetrics'] as const) {
      const want = lines.map((samples, f) => familyHeader(three[f]!, format) + samples.join('')).join('');
      expect(want.length).toBeGreaterThan(1 << 20); // large: joined in steps
      expect((await bodyOf(e, format)).toString()).toBe(want);
    }
    expect(e.render().toString()).toBe(lines.map((samples, f) => familyHeader(three[f]!, 'text') + samples.join('')).join(''));
  });

  it('rewrites an owner in place between scrapes; one that outgrows its buffer gets a new one', async () => {
    const e = new Exposition(FAMILIES);
    const bytesOf = () => (e as unknown as { owners: Map<string, { bytes: Buffer }> }).owners.get('a')!.bytes;
    const put = (value: number, extra = '') => {
      const w = e.writer();
      w.add(0, `target="a"${extra}`, value);
      e.set('a', w.take());
    };
    put(1);
    expect((await bodyOf(e)).toString()).toContain('x_up{target="a"} 1\n');
    const first = bytesOf();
    put(0.123456789, ',grown="with a label much longer than the room the buffer had left"'); // too long for its buffer: a new one
    const grown = bytesOf();
    expect(grown).not.toBe(first);
    put(2); // shorter: rewritten in place (no scrape since)
    put(3);
    expect(bytesOf()).toBe(grown);
    expect(e.render().toString()).toBe(`${familyHeader(FAMILIES[0]!, 'text')}x_up{target="a"} 3\n`);
    expect((await bodyOf(e)).toString()).toContain('x_up{target="a"} 3\n');
    put(4);
    expect(bytesOf()).toBe(grown);
    expect(e.render().toString()).toContain('x_up{target="a"} 4\n');
  });

  it('lets go of an owner once the write that reads it is done: a scrape every poll does not cost every owner a new buffer', async () => {
    const e = new Exposition(FAMILIES);
    const bytesOf = (owner: string) => (e as unknown as { owners: Map<string, { bytes: Buffer }> }).owners.get(owner)!.bytes;
    fill(e, 4000, 400); // large: written in steps, with the event loop served in between
    const scraped = bytesOf('t7');
    const writing = bodyOf(e);
    // polled while the write runs: a new buffer, the write still reads the old one
    fill(e, 4000, 400);
    expect(bytesOf('t7')).not.toBe(scraped);
    expect((await writing).toString()).toBe(expected(4000, 400));
    // the next write is done: the poll after it rewrites the owners in place
    const current = bytesOf('t7');
    await bodyOf(e);
    const w = e.writer();
    w.add(0, 'target="t7",pad="q"', 2);
    w.add(1, 'target="t7"', 7);
    e.set('t7', w.take());
    expect(bytesOf('t7')).toBe(current);
    expect((await bodyOf(e)).toString()).toContain('x_up{target="t7",pad="q"} 2\n');
  });

  it('fills a large body into the two buffers handed in, neither refilled while the consumer still reads it', async () => {
    const e = new Exposition(FAMILIES);
    fill(e, 12000, 400); // ≈ 5.2 MB: six pieces of 1 MiB
    const buffers = [Buffer.alloc(1 << 20), Buffer.alloc(1 << 20)];
    const read: Buffer[] = [];
    let consuming = 0;
    let mostAtOnce = 0;
    await e.write('text', buffers, async (piece) => {
      expect(buffers.some((b) => b.buffer === piece.buffer && b.byteOffset === piece.byteOffset)).toBe(true);
      mostAtOnce = Math.max(mostAtOnce, ++consuming);
      await new Promise((resolve) => setTimeout(resolve, 5));
      read.push(Buffer.from(piece)); // read at the end: a buffer refilled meanwhile would show here
      consuming--;
    });
    expect(read.length).toBeGreaterThan(4);
    expect(mostAtOnce).toBe(2);
    expect(Buffer.concat(read).toString()).toBe(expected(12000, 400));
  });

  it('names counter families without _total and escapes quotes in help for OpenMetrics only', () => {
    expect(familyHeader(FAMILIES[1]!, 'openmetrics')).toBe('# HELP x_failures Failures with a \\"quoted\\" word and a \\\\ backslash.\n# TYPE x_failures counter\n');
    expect(familyHeader(FAMILIES[1]!, 'text')).toBe('# HELP x_failures_total Failures with a "quoted" word and a \\\\ backslash.\n# TYPE x_failures_total counter\n');
    expect(familyHeader(FAMILIES[0]!, 'openmetrics')).toBe('# HELP x_up Up.\n# TYPE x_up gauge\n');
  });
});

describe('MetricsEndpoint', () => {
  it('compresses the cached part and the registry into one gzip member ending in # EOF for OpenMetrics', async () => {
    const e = new Exposition(FAMILIES);
    fill(e, 5);
    const endpoint = new MetricsEndpoint(e, new Registry());
    const response = await endpoint.scrape({ accept: 'application/openmetrics-text; version=1.0.0', acceptEncoding: 'gzip' });
    expect(response.contentEncoding).toBe('gzip');
    expect(gunzipOneMember(gzipBody(response))).toBe(`${expected(5, 0, 'openmetrics')}# EOF\n`);
    const plain = await endpoint.scrape({});
    expect(plain.contentType).toBe('text/plain; version=0.0.4; charset=utf-8');
    expect((await bodyBytes(plain.body)).toString()).toBe(expected(5));
  });

  it("answers a large fleet's gzip scrape with one gzip member that decodes to the same exposition as a plain scrape", async () => {
    const e = new Exposition(FAMILIES);
    fill(e, 12000, 400); // ≈ 5.2 MB: several of zlib's output chunks
    const endpoint = new MetricsEndpoint(e, new Registry());
    const gzip = await endpoint.scrape({ accept: 'application/openmetrics-text; version=1.0.0', acceptEncoding: 'gzip' });
    expect(gzip.contentEncoding).toBe('gzip');
    const plain = await endpoint.scrape({ accept: 'application/openmetrics-text; version=1.0.0' });
    expect(plain.contentEncoding).toBeUndefined();
    const text = (await bodyBytes(plain.body)).toString();
    expect(gunzipOneMember(gzipBody(gzip))).toBe(text);
    expect(text).toBe(`${expected(12000, 400, 'openmetrics')}# EOF\n`);
  });

  it("streams a large fleet's plain scrape in pieces of at most 64 KiB, the snapshot it started from", async () => {
    const e = new Exposition(FAMILIES);
    fill(e, 12000, 400); // ≈ 5.2 MB
    const endpoint = new MetricsEndpoint(e, new Registry());
    const plain = await endpoint.scrape({});
    expect(Array.isArray(plain.body)).toBe(false);
    const pieces: Buffer[] = [];
    let polled = false;
    await (plain.body as Exclude<ScrapeResponse['body'], Buffer[]>).write(async (piece) => {
      expect(piece.length).toBeLessThanOrEqual(64 << 10);
      pieces.push(Buffer.from(piece));
      if (!polled) fill(e, 12001, 400); // every owner changes while the scrape is written
      polled = true;
    });
    expect(pieces.length).toBeGreaterThan(80);
    expect(Buffer.concat(pieces).toString()).toBe(expected(12000, 400));
  });

  it('gzip scrapes that arrive while a compression runs share it; a later one compresses anew', async () => {
    const e = new Exposition(FAMILIES);
    fill(e, 4000, 400);
    const endpoint = new MetricsEndpoint(e, new Registry());
    const gzip = { acceptEncoding: 'gzip' };
    const [a, b] = await Promise.all([endpoint.scrape(gzip), endpoint.scrape(gzip)]);
    expect(a.body).toBe(b.body);
    const later = await endpoint.scrape(gzip);
    expect(later.body).not.toBe(a.body);
    expect(gunzipOneMember(gzipBody(later))).toBe(gunzipOneMember(gzipBody(a)));
  });

  it('large gzip scrapes of both formats at once, then again, each decode to their whole body (the kept buffers reused)', async () => {
    const e = new Exposition(FAMILIES);
    fill(e, 12000, 400);
    const endpoint = new MetricsEndpoint(e, new Registry());
    const om = { accept: 'application/openmetrics-text; version=1.0.0', acceptEncoding: 'gzip' };
    for (const n of [12000, 12001]) {
      fill(e, n, 400);
      const [text, openmetrics] = await Promise.all([endpoint.scrape({ acceptEncoding: 'gzip' }), endpoint.scrape(om)]);
      expect(gunzipOneMember(gzipBody(text))).toBe(expected(n, 400));
      expect(gunzipOneMember(gzipBody(openmetrics))).toBe(`${expected(n, 400, 'openmetrics')}# EOF\n`);
    }
  });

  it('a scrape taken while the data changes gets the whole snapshot it started from', async () => {
    const e = new Exposition(FAMILIES);
    fill(e, 4000, 400);
    const endpoint = new MetricsEndpoint(e, new Registry());
    const during = endpoint.scrape({ accept: 'application/openmetrics-text; version=1.0.0', acceptEncoding: 'gzip' });
    fill(e, 4002, 400); // polled meanwhile: every owner changes
    expect(gunzipOneMember(gzipBody(await during))).toBe(`${expected(4000, 400, 'openmetrics')}# EOF\n`);
    expect((await bodyBytes((await endpoint.scrape({})).body)).toString()).toBe(expected(4002, 400));
  });

  it('a registry that fails to render fails the scrape where it is awaited, gzip or plain, never as an unhandled rejection', async () => {
    const e = new Exposition(FAMILIES);
    fill(e, 4000, 400); // written over several turns: the registry's failure comes first
    const registry = new Registry();
    new Gauge({ name: 'x_broken', help: 'Throws when collected.', registers: [registry], collect: () => { throw new Error('collect failed'); } });
    const endpoint = new MetricsEndpoint(e, registry);
    await expect(endpoint.scrape({ acceptEncoding: 'gzip' })).rejects.toThrow('collect failed');
    const plain = await endpoint.scrape({});
    await expect(bodyBytes(plain.body)).rejects.toThrow('collect failed');
  });

  it('negotiates the format and the encoding from the request headers', () => {
    expect(negotiateFormat(undefined)).toBe('text');
    expect(negotiateFormat('text/plain;version=0.0.4;q=1,*/*;q=0.1')).toBe('text');
    expect(negotiateFormat('application/openmetrics-text;version=1.0.0,text/plain;version=0.0.4;q=0.5')).toBe('openmetrics');
    expect(negotiateFormat('application/openmetrics-text;q=0,text/plain')).toBe('text');
    expect(acceptsGzip('gzip, deflate, br')).toBe(true);
    expect(acceptsGzip('br;q=1.0, gzip;q=0.8')).toBe(true);
    expect(acceptsGzip('gzip;q=0')).toBe(false);
    expect(acceptsGzip('identity')).toBe(false);
    expect(acceptsGzip(undefined)).toBe(false);
  });
});
