/**
 * One hostile node in the fleet, against the built daemon: 100,000 failing checks in a body under
 * the size cap, polled every second. The daemon must keep its state and notifications small, keep
 * answering /-/healthy and keep polling the neighbour. RSS is printed for the record (not asserted).
 */
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startCapture } from '../helpers/capture.js';
import { startCli } from '../helpers/cli.js';
import { get, sample, scrape, startFixtureServer, startSim, waitFor, writeConfig } from '../helpers/harness.js';

const CHECKS = 100_000;

function hostileBody(): string {
  const parts: string[] = [];
  for (let i = 0; i < CHECKS; i++) parts.push(`"c${i}":{"error":"boom"}`);
  return `{"healthy":false,"checks":{${parts.join(',')}}}`;
}

describe('a hostile target', () => {
  it('100,000 failing checks: state stays small, no notification over 1 MB, /-/healthy and the neighbour unaffected', { timeout: 120_000 }, async () => {
    const body = hostileBody();
    expect(body.length).toBeLessThan(4 * 1024 * 1024); // under the body cap: only the parse-time caps stand in the way
    const hostile = await startFixtureServer((_req, res) => {
      res.writeHead(503, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
      res.end(body);
    });
    const sim = await startSim([{ name: 'neighbour', scenario: 'healthy' }]);
    const capture = await startCapture();
    const file = writeConfig(`
listen: 127.0.0.1:0
state_dir: ./state
nodes:
  - {name: neighbour, url: "${sim.nodeUrl('neighbour')}", interval: 1s, endpoints: [health], validator: false}
alerts:
  for_polls: 1
  receivers:
    - {name: hook, webhook: {url: "${capture.url}/hook"}}
`);
    const stateDir = join(dirname(file), 'state');
    const daemon = startCli(['run', '--config', file]);
    try {
      const [, address] = await daemon.waitForOutput(/"address":"([^"]+)".*avahealth started/);
      const url = `http://${address}`;
      await daemon.waitForOutput(/first poll round complete/);
      const rssBefore = sample(await scrape(url), 'process_resident_memory_bytes')!;

      // add the hostile node by a reload (SIGHUP), so the RSS before is that of a normal fleet
      writeFileSync(file, readFileSync(file, 'utf8').replace('nodes:\n', `nodes:\n  - {name: hostile, url: "${hostile.url}", interval: 1s, endpoints: [health], validator: false}\n`));
      daemon.child.kill('SIGHUP');
      await waitFor('the hostile node’s alerts delivered', () => capture.on('/hook').some((r) => r.body.includes('"target":"hostile"')), 60_000);
      const neighbourSeen = sample(await scrape(url), 'avahealth_probe_last_success_timestamp_seconds', { target: 'neighbour', endpoint: 'health' })!;
      const lastHostile = async () => sample(await scrape(url), 'avahealth_probe_last_success_timestamp_seconds', { target: 'hostile', endpoint: 'health' }) ?? 0;
      const hostileSeen = await lastHostile();
      await waitFor('three more polls of 100,000 checks', async () => (await lastHostile()) >= hostileSeen + 3, 30_000);

      expect((await get(`${url}/-/healthy`)).status).toBe(200);
      const samples = await scrape(url);
      expect(sample(samples, 'avahealth_probe_success', { target: 'neighbour', endpoint: 'health' })).toBe(1);
      expect(sample(samples, 'avahealth_probe_last_success_timestamp_seconds', { target: 'neighbour', endpoint: 'health' })!).toBeGreaterThan(neighbourSeen);
      expect(sample(samples, 'avahealth_probe_success', { target: 'hostile', endpoint: 'health' })).toBe(1); // parsed, capped, not refused
      const alerts = JSON.parse((await get(`${url}/api/v1/alerts`)).body) as { alerts: Array<{ labels: Record<string, string> }> };
      const hostileAlerts = alerts.alerts.filter((a) => a.labels.target === 'hostile');
      expect(hostileAlerts.length).toBeGreaterThan(0);
      expect(hostileAlerts.length).toBeLessThanOrEqual(100);

      const sizes = Object.fromEntries(
        ['alerts.json', ...(existsSync(join(stateDir, 'outbox')) ? readdirSync(join(stateDir, 'outbox')).map((f) => join('outbox', f)) : [])].map((f) => [f, statSync(join(stateDir, f)).size]),
      );
      for (const [name, size] of Object.entries(sizes)) expect([name, size < 2 * 1024 * 1024]).toEqual([name, true]);
      const largest = Math.max(...capture.on('/hook').map((r) => Buffer.byteLength(r.body)));
      expect(largest).toBeLessThan(1024 * 1024);
      const rssAfter = sample(samples, 'process_resident_memory_bytes')!;
      process.stdout.write(`hostile target: RSS ${(rssBefore / 2 ** 20).toFixed(0)} MiB -> ${(rssAfter / 2 ** 20).toFixed(0)} MiB; state ${JSON.stringify(sizes)} bytes; largest notification ${largest} bytes\n`);
    } finally {
      daemon.child.kill('SIGKILL');
      await hostile.close();
      await sim.close();
      await capture.close();
    }
  });
});
