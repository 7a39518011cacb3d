/**
 * /metrics over real HTTP: gzip when the scraper accepts it (one gzip member, decoded here and by
 * the system's gzip), OpenMetrics when asked for, the same bytes for concurrent scrapers, counters
 * present at 0 from the start, and `promtool check metrics` clean on the whole exposition.
 */
import { spawn } from 'node:child_process';
import { gunzipSync } from 'node:zlib';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SimServer } from '../../src/sim/server.js';
import { startDaemon, startSim, waitForRounds, type RunningDaemon } from '../helpers/harness.js';
import { requireTool } from '../helpers/tools.js';

const promtool = requireTool('promtool', 'promtool check metrics on the whole /metrics');
const gzipBin = requireTool('gzip', 'checking the gzip response with the system gzip');

/** What Prometheus 2.x sends. */
const PROMETHEUS_ACCEPT = 'application/openmetrics-text;version=1.0.0,application/openmetrics-text;version=0.0.1;q=0.75,text/plain;version=0.0.4;q=0.5,*/*;q=0.1';

async function fetchMetrics(url: string, headers: Record<string, string> = {}) {
  const res = await request(`${url}/metrics`, { headers });
  const raw = Buffer.from(await res.body.arrayBuffer());
  const encoding = res.headers['content-encoding'];
  return { status: res.statusCode, contentType: String(res.headers['content-type']), encoding, raw, text: (encoding === 'gzip' ? gunzipSync(raw) : raw).toString('utf8') };
}

/** The per-target families: everything before prom-client's part (which changes from scrape to scrape). */
function perTargetPart(text: string): string {
  const end = text.search(/^# HELP process_cpu_user_seconds/m);
  expect(end).toBeGreaterThan(0);
  return text.slice(0, end);
}

function run(binary: string, args: string[], input: Buffer | string): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve) => {
    const p = spawn(binary, args);
    let out = '';
    p.stdout.on('data', (c: Buffer) => (out += c.toString()));
    p.stderr.on('data', (c: Buffer) => (out += c.toString()));
    p.on('close', (code) => resolve({ code, out }));
    p.stdin.end(input);
  });
}

describe('/metrics exposition', () => {
  let sim: SimServer;
  let d: RunningDaemon;

  beforeAll(async () => {
    sim = await startSim([{ name: 'n1', scenario: 'healthy' }, { name: 'n2', scenario: 'bootstrapping' }]);
    // a long interval: the per-target data stays the same between the scrapes of a test
    d = await startDaemon(
      `state_dir: ./state\ndefaults: {interval: 1h, validator: false}\nnodes:\n  - {name: n1, url: "${sim.nodeUrl('n1')}"}\n  - {name: n2, url: "${sim.nodeUrl('n2')}"}\n` +
        `alerts:\n  receivers:\n    - {name: oncall, webhook: {url: "http://127.0.0.1:9/hook"}}\n    - {name: chat, webhook: {url: "http://127.0.0.1:9/chat"}}\n`,
    );
    await waitForRounds(d, 'n2', 1);
  });

  afterAll(async () => {
    await d?.stop();
    await sim?.close();
  });

  it('answers gzip with one gzip member that decodes to the plain exposition', async () => {
    const plain = await fetchMetrics(d.url);
    const zipped = await fetchMetrics(d.url, { 'accept-encoding': 'gzip, deflate, br' });
    expect(plain.encoding).toBeUndefined();
    expect(zipped.encoding).toBe('gzip');
    expect(zipped.raw.length).toBeLessThan(plain.raw.length / 4);
    expect(zipped.contentType).toBe('text/plain; version=0.0.4; charset=utf-8');
    expect(perTargetPart(zipped.text)).toBe(perTargetPart(plain.text));
    expect(zipped.text).toContain('avahealth_build_info{');
    expect(zipped.text.endsWith('\n')).toBe(true);
    if (gzipBin) {
      const decoded = await run(gzipBin, ['-dc'], zipped.raw);
      expect(decoded.code).toBe(0);
      expect(decoded.out).toBe(zipped.text);
    }
    const refused = await fetchMetrics(d.url, { 'accept-encoding': 'gzip;q=0, identity' });
    expect(refused.encoding).toBeUndefined();
  });

  it('concurrent scrapers get the same bytes for the per-target families', async () => {
    for (const headers of [{}, { 'accept-encoding': 'gzip' }, { accept: PROMETHEUS_ACCEPT, 'accept-encoding': 'gzip' }] as Array<Record<string, string>>) {
      const results = await Promise.all(Array.from({ length: 6 }, () => fetchMetrics(d.url, headers)));
      const parts = results.map((r) => perTargetPart(r.text));
      expect(new Set(parts).size).toBe(1);
      expect(parts[0]).toContain('avahealth_node_check_passing{target="n2"');
    }
  });

  it('serves OpenMetrics to a scraper that asks for it, as Prometheus does', async () => {
    const om = await fetchMetrics(d.url, { accept: PROMETHEUS_ACCEPT, 'accept-encoding': 'gzip' });
    expect(om.contentType).toBe('application/openmetrics-text; version=1.0.0; charset=utf-8');
    expect(om.text.endsWith('\n# EOF\n')).toBe(true);
    expect(om.text.indexOf('# EOF')).toBe(om.text.length - '# EOF\n'.length);
    expect(om.text).not.toMatch(/\n\n/);
    // counter families are named without _total, their samples keep it (as prom-client does)
    expect(om.text).toContain('# TYPE avahealth_scheduler_skipped_polls counter\navahealth_scheduler_skipped_polls_total{target="n1"} 0\n');
    expect(om.text).toContain('# TYPE avahealth_notifications_failed counter\n');
    expect(om.text).toContain('# TYPE process_cpu_seconds counter\nprocess_cpu_seconds_total ');
    const text = await fetchMetrics(d.url, { accept: 'text/plain;version=0.0.4' });
    expect(text.text).toContain('# TYPE avahealth_scheduler_skipped_polls_total counter\n');
    expect(text.text).not.toContain('# EOF');
    // the same series either way (prom-client's GC histogram may appear between two scrapes: ours only)
    const names = (body: string) => new Set(body.split('\n').filter((l) => l.startsWith('avahealth_')).map((l) => l.slice(0, l.search(/[ {]/))));
    expect([...names(om.text)].sort()).toEqual([...names(text.text)].sort());
  });

  it('has the counters dashboards rate() over at 0 from the start', async () => {
    const { text } = await fetchMetrics(d.url);
    for (const target of ['n1', 'n2']) expect(text).toContain(`avahealth_scheduler_skipped_polls_total{target="${target}"} 0\n`);
    for (const receiver of ['oncall', 'chat']) {
      expect(text).toContain(`avahealth_notifications_total{receiver="${receiver}"} 0\n`);
      for (const reason of ['timeout', 'network', 'rate_limited', 'http_5xx', 'http_4xx', 'queue_full']) {
        expect(text).toContain(`avahealth_notifications_failed_total{receiver="${receiver}",reason="${reason}"} 0\n`);
      }
    }
    expect(text).not.toContain('nodejs_active_handles_total');
  });

  it.skipIf(!promtool)('passes promtool check metrics, the whole exposition', async () => {
    for (const headers of [{}, { 'accept-encoding': 'gzip' }] as Array<Record<string, string>>) {
      const { text } = await fetchMetrics(d.url, headers);
      const result = await run(promtool!, ['check', 'metrics'], text);
      expect(result.out.trim(), result.out).toBe('');
      expect(result.code).toBe(0);
    }
  });
});
