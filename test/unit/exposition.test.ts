/**
 * The Exposition cache on its own: joined family by family in owner order, large fleets in slices,
 * compressed once per snapshot and shared, and the format headers.
 */
import { gunzipSync, inflateRawSync } from 'node:zlib';
import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { acceptsGzip, MetricsEndpoint, negotiateFormat } from '../../src/metrics/endpoint.js';
import { Exposition, familyHeader, type Family } from '../../src/metrics/exposition.js';

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

const inflate = (d: { chunks: Buffer[] } | undefined) => inflateRawSync(Buffer.concat(d!.chunks), { finishFlush: 2 }).toString();

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
    expect(Buffer.concat(await e.chunks('text')).toString()).toBe(expected(2));
    const w = e.writer();
    w.add(1, 'target="t9"', 7);
    e.set('t9', w.take());
    expect(Buffer.concat(await e.chunks('text')).toString()).toContain('x_failures_total{target="t1"} 1\nx_failures_total{target="t9"} 7\n');
    expect(Buffer.concat(await e.chunks('text')).toString()).not.toContain('x_up{target="t9"');
    // one family replaced, the others kept (a counter that moved between polls)
    e.setFamily('t1', 1, 'x_failures_total{target="t1"} 5\n');
    expect(e.render().toString()).toBe(expected(2).replace('x_failures_total{target="t1"} 1', 'x_failures_total{target="t1"} 5') + 'x_failures_total{target="t9"} 7\n');
    e.setFamily('new', 0, 'x_up{target="new"} 0\n');
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
    e.setFamily('head', 2, 'x_depth{o="head"} 7\n'); // now a range from family 0, like 'whole'
    // within a family, owners whose range starts earlier come first, each range's owners in owner order
    expect(Buffer.concat(await e.chunks('text')).toString()).toBe(
      `${header(0)}x_up{o="whole"} 1\nx_up{o="head"} 5\n${header(2)}x_depth{o="whole"} 3\nx_depth{o="head"} 7\nx_depth{o="tail"} 6\n`,
    );
  });

  it('assembles a large body of owners with different ranges the same way joined, rendered and deflated, pieces split across slices', async () => {
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
      expect(want.length).toBeGreaterThan(4 << 20); // more than one 4 MiB deflate slice
      expect(Buffer.concat(await e.chunks(format)).toString()).toBe(want);
      expect(inflate(await e.deflated(format))).toBe(want);
    }
    expect(e.render().toString()).toBe(lines.map((samples, f) => familyHeader(three[f]!, 'text') + samples.join('')).join(''));
  });

  it('rewrites an owner in place between scrapes, but never the bytes a scrape already took', async () => {
    const e = new Exposition(FAMILIES);
    const put = (value: number, extra = '') => {
      const w = e.writer();
      w.add(0, `target="a"${extra}`, value);
      e.set('a', w.take());
    };
    put(1);
    const taken = await e.chunks('text');
    const before = Buffer.concat(taken).toString();
    put(0.123456789, ',grown="with a label much longer than the room the buffer had left"'); // too long for its buffer: a new one
    put(2); // shorter: rewritten in place (no scrape since)
    put(3);
    expect(Buffer.concat(taken).toString()).toBe(before);
    expect(before).toContain('x_up{target="a"} 1\n');
    expect(e.render().toString()).toBe(`${familyHeader(FAMILIES[0]!, 'text')}x_up{target="a"} 3\n`);
    const second = await e.chunks('text');
    put(4);
    expect(Buffer.concat(second).toString()).toContain('x_up{target="a"} 3\n');
    expect(e.render().toString()).toContain('x_up{target="a"} 4\n');
  });

  it('lets go of an owner once the scrapes that read it are done: a gzip scrape every poll does not cost every owner a new buffer', async () => {
    const e = new Exposition(FAMILIES);
    const bytesOf = (owner: string) => (e as unknown as { owners: Map<string, { bytes: Buffer }> }).owners.get(owner)!.bytes;
    fill(e, 4000, 400); // large: compressed in steps, with the event loop served in between
    const scraped = bytesOf('t7');
    const compression = e.deflated('text');
    // polled while the compression runs: a new buffer, the compression still reads the old one
    fill(e, 4000, 400);
    expect(bytesOf('t7')).not.toBe(scraped);
    const first = await compression;
    expect(inflate(first)).toBe(expected(4000, 400));
    // the next scrape's compression is done: the poll after it rewrites the owners in place
    const current = bytesOf('t7');
    await e.chunks('text');
    let latest = await e.deflated('text');
    for (let tries = 0; tries < 200 && latest === first; tries++) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      latest = await e.deflated('text');
    }
    expect(inflate(latest)).toBe(expected(4000, 400));
    const w = e.writer();
    w.add(0, 'target="t7",pad="q"', 2);
    w.add(1, 'target="t7"', 7);
    e.set('t7', w.take());
    expect(bytesOf('t7')).toBe(current);
    expect(Buffer.concat(await e.chunks('text')).toString()).toContain('x_up{target="t7",pad="q"} 2\n');
  });

  it('joins a large fleet in slices with the same result; its gzip scrapes get the last finished compression meanwhile', async () => {
    const e = new Exposition(FAMILIES);
    fill(e, 4000, 400); // ≈ 1.7 MB: above the on-the-spot limit
    expect(Buffer.concat(await e.chunks('text')).toString()).toBe(expected(4000, 400));
    // no compression has finished yet: the scrape waits for the one it started and gets all of it
    const first = await e.deflated('text');
    expect(inflate(first)).toBe(expected(4000, 400));
    expect(first!.length).toBe(Buffer.byteLength(expected(4000, 400)));
    fill(e, 4001, 400);
    expect(Buffer.concat(await e.chunks('text')).toString()).toBe(expected(4001, 400));
    // the newer snapshot is being compressed: this scrape does not wait for it
    expect(await e.deflated('text')).toBe(first);
    let latest: typeof first = first;
    for (let tries = 0; tries < 200 && latest === first; tries++) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      latest = await e.deflated('text');
    }
    expect(inflate(latest)).toBe(expected(4001, 400));
  });

  it("compresses a large fleet's changed data within the freshness bound, however seldom it is scraped", async () => {
    const e = new Exposition(FAMILIES, 50);
    try {
      fill(e, 4000, 400);
      expect(inflate(await e.deflated('text'))).toBe(expected(4000, 400));
      fill(e, 4001, 400);
      // no scrape in between: the compression of the changed data ran on its own (its timer: 50 ms)
      await new Promise((resolve) => setTimeout(resolve, 1000));
      expect(inflate(await e.deflated('text'))).toBe(expected(4001, 400));
    } finally {
      e.stop();
    }
  });

  it('stops compressing ahead once no scraper has asked for a while', async () => {
    const e = new Exposition(FAMILIES, 20, 100);
    try {
      fill(e, 4000, 400);
      const first = await e.deflated('text');
      await new Promise((resolve) => setTimeout(resolve, 300)); // the scraper is gone (100 ms)
      fill(e, 4001, 400);
      await new Promise((resolve) => setTimeout(resolve, 500));
      // nothing compressed the changed data: the scrape that comes back gets the last compression
      expect(await e.deflated('text')).toBe(first);
    } finally {
      e.stop();
    }
  });

  it('compresses a large snapshot before the first scrape asks, and a scrape never sees a half-built one', async () => {
    const e = new Exposition(FAMILIES);
    fill(e, 4000, 400);
    e.prepare('openmetrics');
    // the data changes while the prepared compression runs: the scrape gets the snapshot taken at prepare, whole
    fill(e, 4002, 400);
    const prepared = await e.deflated('openmetrics');
    expect(inflate(prepared)).toBe(expected(4000, 400, 'openmetrics'));
    // prepare again for the newer snapshot, then once more: one compression per snapshot version
    e.prepare('openmetrics');
    e.prepare('openmetrics');
    let latest = prepared;
    for (let tries = 0; tries < 200 && latest === prepared; tries++) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      latest = await e.deflated('openmetrics');
    }
    expect(inflate(latest)).toBe(expected(4002, 400, 'openmetrics'));
    e.prepare('openmetrics'); // nothing changed since: nothing to compress
    expect(await e.deflated('openmetrics')).toBe(latest);
    // the other format was never prepared nor asked for
    expect(inflate(await e.deflated('text'))).toBe(expected(4002, 400));
  });

  it('compresses a small snapshot on demand only (prepare leaves it alone), never serving an older one', async () => {
    const e = new Exposition(FAMILIES);
    fill(e, 5);
    e.prepare('text');
    fill(e, 6);
    expect(inflate(await e.deflated('text'))).toBe(expected(6));
  });

  it('compresses a snapshot once per format and shares it between scrapers', async () => {
    const e = new Exposition(FAMILIES);
    fill(e, 50);
    const [a, b, c] = await Promise.all([e.deflated('text'), e.deflated('text'), e.deflated('openmetrics')]);
    expect(a).toBe(b);
    expect(c).not.toBe(a);
    expect(await e.deflated('text')).toBe(a);
    // a sync-flushed raw deflate stream: it inflates as is (more may follow it)
    expect(inflateRawSync(Buffer.concat(a!.chunks), { finishFlush: 2 }).toString()).toBe(expected(50));
    expect(a!.length).toBe(Buffer.byteLength(expected(50)));
    fill(e, 51);
    expect(await e.deflated('text')).not.toBe(a);
  });

  it('names counter families without _total and escapes quotes in help for OpenMetrics only', () => {
    expect(familyHeader(FAMILIES[1]!, 'openmetrics')).toBe('# HELP x_failures Failures with a \\"quoted\\" word and a \\\\ backslash.\n# TYPE x_failures counter\n');
    expect(familyHeader(FAMILIES[1]!, 'text')).toBe('# HELP x_failures_total Failures with a "quoted" word and a \\\\ backslash.\n# TYPE x_failures_total counter\n');
    expect(familyHeader(FAMILIES[0]!, 'openmetrics')).toBe('# HELP x_up Up.\n# TYPE x_up gauge\n');
  });
});

describe('MetricsEndpoint', () => {
  it('stitches the cached part and the registry into one gzip member ending in # EOF for OpenMetrics', async () => {
    const e = new Exposition(FAMILIES);
    fill(e, 5);
    const endpoint = new MetricsEndpoint(e, new Registry());
    const response = await endpoint.scrape({ accept: 'application/openmetrics-text; version=1.0.0', acceptEncoding: 'gzip' });
    expect(response.contentEncoding).toBe('gzip');
    expect(gunzipSync(Buffer.concat(response.body)).toString()).toBe(`${expected(5, 0, 'openmetrics')}# EOF\n`);
    const plain = await endpoint.scrape({});
    expect(plain.contentType).toBe('text/plain; version=0.0.4; charset=utf-8');
    expect(Buffer.concat(plain.body).toString()).toBe(expected(5));
  });

  it("answers a large fleet's first gzip scrape with gzip that decodes to the same exposition as a plain scrape", async () => {
    const e = new Exposition(FAMILIES);
    fill(e, 12000, 400); // ≈ 5.2 MB: deflated in several slices whose streams are concatenated
    const endpoint = new MetricsEndpoint(e, new Registry());
    const gzip = await endpoint.scrape({ accept: 'application/openmetrics-text; version=1.0.0', acceptEncoding: 'gzip' });
    expect(gzip.contentEncoding).toBe('gzip');
    const plain = await endpoint.scrape({ accept: 'application/openmetrics-text; version=1.0.0' });
    expect(plain.contentEncoding).toBeUndefined();
    expect(gunzipSync(Buffer.concat(gzip.body)).toString()).toBe(Buffer.concat(plain.body).toString());
    expect(Buffer.concat(plain.body).toString()).toBe(`${expected(12000, 400, 'openmetrics')}# EOF\n`);
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
