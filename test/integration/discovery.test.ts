import type { Socket } from 'node:dgram';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config/load.js';
import { Daemon } from '../../src/app/daemon.js';
import { createLogger } from '../../src/log.js';
import { inShard, parseShard } from '../../src/shard.js';
import { SimServer } from '../../src/sim/server.js';
import { startDns } from '../helpers/dns.js';
import { sample, scrape, series, startDaemon, waitFor, waitForRounds } from '../helpers/harness.js';

/** One simulated node per server, answering at the root like a real node on host:port. */
async function singleNodeSims(names: string[]): Promise<Map<string, SimServer>> {
  const sims = new Map<string, SimServer>();
  for (const name of names) {
    const sim = new SimServer([{ name, scenario: 'healthy', periodMs: 3_600_000 }]);
    await sim.listen(0);
    sims.set(name, sim);
  }
  return sims;
}

describe('file_sd discovery', () => {
  let sims: Map<string, SimServer>;
  beforeAll(async () => {
    sims = await singleNodeSims(['a', 'b', 'c']);
  });
  afterAll(async () => Promise.all([...sims.values()].map((s) => s.close())));

  const hostPort = (name: string) => `127.0.0.1:${sims.get(name)!.address!.port}`;

  it('polls the targets of the files, with their labels, and follows changes', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'avahealth-sd-'));
    writeFileSync(join(dir, 'fleet-1.json'), JSON.stringify([{ targets: [hostPort('a'), hostPort('b')], labels: { env: 'fuji', __meta_ignored: 'x' } }]));
    writeFileSync(join(dir, 'ignored.txt'), 'not a target file');
    const d = await startDaemon(`defaults: {interval: 1s, labels: {team: ops}}\ndiscovery:\n  file_sd:\n    - {files: ["${dir}/fleet-*.json"], refresh_interval: 1s}\n`);
    try {
      const [a, b, c] = ['a', 'b', 'c'].map(hostPort);
      await waitForRounds(d, a!, 1);
      await waitForRounds(d, b!, 1);
      let m = await scrape(d.url);
      expect(sample(m, 'avahealth_node_healthy', { target: a!, endpoint: 'health', view: 'all', env: 'fuji', team: 'ops' })).toBe(1);
      expect(series(m, 'avahealth_probe_success', { __meta_ignored: 'x' })).toEqual([]);
      writeFileSync(join(dir, 'fleet-1.json'), JSON.stringify([{ targets: [hostPort('a')] }]));
      writeFileSync(join(dir, 'fleet-2.json'), JSON.stringify([{ targets: [`http://${hostPort('c')}`] }]));
      await waitForRounds(d, c!, 1);
      await waitFor('b removed', async () => series(await scrape(d.url), 'avahealth_probe_success', { target: b! }).length === 0, 10_000);
      m = await scrape(d.url);
      expect(sample(m, 'avahealth_node_healthy', { target: c!, endpoint: 'health', view: 'all' })).toBe(1);
    } finally {
      await d.stop();
    }
  });
});

describe('DNS discovery', () => {
  let sims: Map<string, SimServer>;
  let dns: { server: Socket; address: string };
  beforeAll(async () => {
    sims = await singleNodeSims(['n0', 'n1']);
    dns = await startDns({
      srv: {
        'avalanchego.avalanche.svc.cluster.local': [
          { target: 'localhost', port: sims.get('n0')!.address!.port },
          { target: 'localhost', port: sims.get('n1')!.address!.port },
        ],
      },
      a: { 'avalanchego-headless.local': ['127.0.0.1'] },
    });
  });
  afterAll(async () => {
    dns.server.close();
    await Promise.all([...sims.values()].map((s) => s.close()));
  });

  it('SRV answers become targets (a headless Service), re-resolved periodically', async () => {
    const d = await startDaemon(`defaults: {interval: 1s}\ndiscovery:\n  dns:\n    - {names: [avalanchego.avalanche.svc.cluster.local], type: SRV, servers: ["${dns.address}"], refresh_interval: 1s}\n`);
    try {
      const names = [...sims.values()].map((s) => `localhost:${s.address!.port}`);
      for (const name of names) await waitForRounds(d, name, 1);
      const m = await scrape(d.url);
      for (const name of names) expect(sample(m, 'avahealth_node_healthy', { target: name, endpoint: 'health', view: 'all' })).toBe(1);
    } finally {
      await d.stop();
    }
  });

  it('A answers with the configured port', async () => {
    const port = sims.get('n0')!.address!.port;
    const d = await startDaemon(`defaults: {interval: 1s}\ndiscovery:\n  dns:\n    - {names: [avalanchego-headless.local], type: A, port: ${port}, servers: ["${dns.address}"]}\n`);
    try {
      await waitForRounds(d, `127.0.0.1:${port}`, 1);
      expect(sample(await scrape(d.url), 'avahealth_probe_success', { target: `127.0.0.1:${port}`, endpoint: 'health', view: 'all' })).toBe(1);
    } finally {
      await d.stop();
    }
  });

  it('a name that does not resolve is reported, not fatal', async () => {
    const d = await startDaemon(`discovery:\n  dns:\n    - {names: [nothing-here.invalid], type: A, port: 9650, servers: ["${dns.address}"]}\n`);
    try {
      await waitFor('the problem logged', () => d.logs().includes('discovery problems'), 10_000);
      expect(d.logs()).toMatch(/"problems":\["A nothing-here\.invalid: E[A-Z]+"\]/);
      const m = await scrape(d.url);
      expect(sample(m, 'avahealth_build_info', {})).toBe(1);
      expect(series(m, 'avahealth_probe_success')).toEqual([]);
    } finally {
      await d.stop();
    }
  });
});

describe('sharding', () => {
  it('I/N splits a fleet: every target in exactly one shard, stably', () => {
    const names = Array.from({ length: 300 }, (_, i) => `node-${i}`);
    const shards = [0, 1, 2].map((index) => names.filter((n) => inShard(n, { index, count: 3 })));
    expect(shards.flat().sort()).toEqual([...names].sort());
    expect(shards.every((s) => s.length > 70 && s.length < 130)).toBe(true);
    expect(names.filter((n) => inShard(n, { index: 1, count: 3 }))).toEqual(shards[1]);
  });

  it('parses I/N and auto/N from a StatefulSet hostname', () => {
    expect(parseShard('1/3')).toEqual({ index: 1, count: 3 });
    expect(parseShard('auto/3', 'avahealth-2')).toEqual({ index: 2, count: 3 });
    expect(() => parseShard('3/3')).toThrow('I must be below N');
    expect(() => parseShard('auto/2', 'laptop')).toThrow('needs a hostname ending in -<ordinal>');
  });

  it('a daemon with --shard polls only its part', async () => {
    const config = parseConfig(`nodes:\n${Array.from({ length: 12 }, (_, i) => `  - {name: n${i}, url: "http://127.0.0.1:9"}`).join('\n')}\n`, join(mkdtempSync(join(tmpdir(), 'avahealth-shard-')), 'c.yaml'));
    const shard0 = new Daemon(config, { logger: createLogger({ level: 'silent', format: 'json' }), shard: { index: 0, count: 2 }, listen: { host: '127.0.0.1', port: 0 } });
    await shard0.start();
    try {
      const status = JSON.parse(await (await fetch(`http://127.0.0.1:${shard0.address!.port}/api/v1/status`)).text());
      const mine = status.targets.map((t: { name: string }) => t.name);
      expect(mine).toEqual(config.nodes.map((n) => n.name).filter((n) => inShard(n, { index: 0, count: 2 })));
      expect(mine.length).toBeGreaterThan(0);
      expect(mine.length).toBeLessThan(12);
    } finally {
      await shard0.stop();
    }
  });
});
