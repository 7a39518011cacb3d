/**
 * A full scrape of `avahealth demo` (every kind of target: nodes, L1 nodes, validators, the hosted
 * APIs, chain data) as Prometheus 3 takes it and as promtool reads it: OpenMetrics 1.0.0 with the
 * escaping Prometheus asked for named back, gzip, and `promtool check metrics` reports nothing on
 * the whole Prometheus text exposition. CI installs promtool (.ci/run), so this runs there.
 */
import { spawn } from 'node:child_process';
import { gunzipSync } from 'node:zlib';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCli, type LongRunning } from '../helpers/cli.js';
import { waitFor } from '../helpers/harness.js';
import { requireTool } from '../helpers/tools.js';

const promtool = requireTool('promtool', 'promtool check metrics on a full scrape of the demo');

/** Prometheus 3.x's Accept with its default scrape_protocols (scrape/scrape.go, acceptHeader). */
const PROMETHEUS3_ACCEPT =
  'application/openmetrics-text;version=1.0.0;escaping=allow-utf-8;q=0.6,application/openmetrics-text;version=0.0.1;q=0.5,text/plain;version=1.0.0;escaping=allow-utf-8;q=0.4,text/plain;version=0.0.4;q=0.3,*/*;q=0.2';

async function scrape(url: string, headers: Record<string, string> = {}) {
  const res = await request(`${url}/metrics`, { headers });
  const raw = Buffer.from(await res.body.arrayBuffer());
  return { status: res.statusCode, contentType: String(res.headers['content-type']), text: (res.headers['content-encoding'] === 'gzip' ? gunzipSync(raw) : raw).toString('utf8') };
}

function promtoolCheck(text: string): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve) => {
    const p = spawn(promtool!, ['check', 'metrics']);
    let out = '';
    p.stdout.on('data', (c: Buffer) => (out += c.toString()));
    p.stderr.on('data', (c: Buffer) => (out += c.toString()));
    p.on('close', (code) => resolve({ code, out }));
    p.stdin.end(text);
  });
}

describe('a full scrape of the demo', () => {
  let demo: LongRunning;
  let url: string;

  beforeAll(async () => {
    demo = startCli(['demo', '--port', '0', '--listen', '127.0.0.1:0', '--period', '1s']);
    url = (await demo.waitForOutput(/metrics: +(\S+)\/metrics/, 60_000))[1]!;
    // every source has reported: node health, L1 chains, validators, the hosted APIs, chain data
    const families = ['avahealth_node_check_passing', 'avahealth_validator_uptime_rewarding_stake_ratio', 'avahealth_l1_validator_balance_avax', 'avahealth_service_healthy', 'avahealth_chain_latest_block_height'];
    await waitFor('every source in /metrics', async () => {
      const { text } = await scrape(url);
      return families.every((f) => text.includes(`\n${f}{`));
    }, 60_000);
  }, 130_000);

  afterAll(async () => {
    demo?.child.kill('SIGINT');
    await demo?.exit;
  });

  it("answers Prometheus 3's Accept with OpenMetrics 1.0.0 and the escaping it asked for, gzip", async () => {
    const om = await scrape(url, { accept: PROMETHEUS3_ACCEPT, 'accept-encoding': 'gzip' });
    expect(om.status).toBe(200);
    expect(om.contentType).toBe('application/openmetrics-text; version=1.0.0; charset=utf-8; escaping=allow-utf-8');
    expect(om.text.endsWith('\n# EOF\n')).toBe(true);
    expect(om.text).toContain('\navahealth_validator_uptime_rewarding_stake_ratio{');
  });

  it.skipIf(!promtool)('passes promtool check metrics with nothing to report', async () => {
    for (const headers of [{}, { 'accept-encoding': 'gzip' }] as Array<Record<string, string>>) {
      const { text } = await scrape(url, headers);
      const result = await promtoolCheck(text);
      expect(result.out.trim(), result.out).toBe('');
      expect(result.code).toBe(0);
    }
  });
});
