/**
 * Discovery and the config file are capped (issue 35, 9): one SRV answer or file_sd file adds at
 * most `discovery.max_targets_per_source` targets (the rest counted in
 * avahealth_discovery_targets_dropped_total{reason="over_limit"} and logged once), host names are
 * one target whatever their case (`LOCALHOST` is `localhost`), and a config file over 4 MiB is
 * refused with a clear error before it is parsed. A real DNS server on loopback, real simulated
 * nodes, the built CLI.
 */
import type { Socket } from 'node:dgram';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config/load.js';
import { SimServer } from '../../src/sim/server.js';
import { runCli } from '../helpers/cli.js';
import { startDns } from '../helpers/dns.js';
import { sample, scrape, series, startDaemon, waitFor, waitForRounds } from '../helpers/harness.js';

const OVER_LIMIT_LOG = 'discovered targets over discovery.max_targets_per_source';

describe('discovery caps', () => {
  const sims: SimServer[] = [];
  let dns: { server: Socket; address: string };
  const port = (i: number) => sims[i]!.address!.port;

  beforeAll(async () => {
    for (let i = 0; i < 4; i++) {
      const sim = new SimServer([{ name: `n${i}`, scenario: 'healthy', periodMs: 3_600_000 }]);
      await sim.listen(0);
      sims.push(sim);
    }
    dns = await startDns({
      srv: {
        // one node under two spellings, another in mixed case, then two more than the cap allows
        'fleet.caps.local': [
          { target: 'localhost', port: port(0) },
          { target: 'LOCALHOST', port: port(0) },
          { target: 'LocalHost', port: port(1) },
          { target: 'localhost', port: port(2) },
          { target: 'localhost', port: port(3) },
        ],
      },
      a: {},
    });
  });

  afterAll(async () => {
    dns?.server.close();
    await Promise.all(sims.map((s) => s.close()));
  });

  it('an SRV answer past max_targets_per_source adds only the first targets, one per host whatever its case; the rest counted at every read, logged once', { timeout: 60_000 }, async () => {
    const d = await startDaemon(`defaults: {interval: 1s, endpoints: [health], validator: false}\ndiscovery:\n  max_targets_per_source: 2\n  dns:\n    - {names: [fleet.caps.local], type: SRV, servers: ["${dns.address}"], refresh_interval: 1s}\n`);
    try {
      // the first two in name, then port order
      const kept = [0, 1, 2, 3].map(port).sort((a, b) => a - b).slice(0, 2).map((p) => `localhost:${p}`);
      for (const target of kept) await waitForRounds(d, target, 1);
      // three reads of the source, each leaving out the same two targets
      await waitFor('three reads over the cap', async () => (sample(await scrape(d.url), 'avahealth_discovery_targets_dropped_total', { source: 'dns[0]', reason: 'over_limit' }) ?? 0) >= 6, 20_000);
      const m = await scrape(d.url);
      const targets = series(m, 'avahealth_probe_success', { endpoint: 'health' }).map((s) => s.labels.target).sort();
      expect(targets).toEqual(kept.sort());
      expect(sample(m, 'avahealth_discovery_targets_dropped_total', { source: 'dns[0]', reason: 'duplicate_name' })).toBe(0);
      expect(d.logs().split(OVER_LIMIT_LOG).length - 1).toBe(1);
      expect(d.logs()).toMatch(/"found":4,"kept":2.*discovered targets over/);
    } finally {
      await d.stop();
    }
  });

  it('a file_sd file past the cap adds only its first targets; the default cap is 1,000', { timeout: 60_000 }, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'avahealth-sd-caps-'));
    const targets = [`LOCALHOST:${port(2)}`, `localhost:${port(2)}`, `127.0.0.1:${port(3)}`, ...Array.from({ length: 8 }, (_, i) => `127.0.0.1:${40_000 + i}`)];
    writeFileSync(join(dir, 'fleet.json'), JSON.stringify([{ targets }]));
    const d = await startDaemon(`defaults: {interval: 1s, endpoints: [health], validator: false}\ndiscovery:\n  max_targets_per_source: 2\n  file_sd:\n    - {files: ["${dir}/fleet.json"], refresh_interval: 1s}\n`);
    try {
      await waitForRounds(d, `localhost:${port(2)}`, 1);
      await waitForRounds(d, `127.0.0.1:${port(3)}`, 1);
      const m = await scrape(d.url);
      expect(series(m, 'avahealth_probe_success', { endpoint: 'health' }).map((s) => s.labels.target).sort()).toEqual([`127.0.0.1:${port(3)}`, `localhost:${port(2)}`]);
      expect(sample(m, 'avahealth_discovery_targets_dropped_total', { source: 'file_sd[0]', reason: 'over_limit' })).toBeGreaterThanOrEqual(8);
    } finally {
      await d.stop();
    }
    expect(parseConfig(`discovery:\n  file_sd:\n    - {files: [x.json]}\n`, 'cfg.yaml', {}).discovery?.maxTargetsPerSource).toBe(1000);
  });

  it('a config file over 4 MiB is refused before it is parsed, with a clear error', { timeout: 60_000 }, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'avahealth-big-config-'));
    const file = join(dir, 'config.yaml');
    const nodes = Array.from({ length: 20_000 }, (_, i) => `  - {name: node-${i}, url: "http://10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}:9650", labels: {team: operations, region: eu-west-1, note: ${"x".repeat(200)}}}`);
    writeFileSync(file, `nodes:\n${nodes.join('\n')}\n`);
    const result = await runCli(['validate', '--config', file]);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(new RegExp(`^${file.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}:1:1: config is \\d+\\.\\d MiB, more than the 4 MiB avahealth reads; list large fleets in file_sd files or DNS \\(discovery:\\) instead\\n$`));
  });
});
