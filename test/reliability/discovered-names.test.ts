/**
 * Discovered names are host names (issue 25, 5): an SRV answer or a file_sd target with a path,
 * query, fragment or user info is refused (never polled), two answers that reduce to one name are
 * logged and counted, and `defaults:` credentials reach discovered nodes only while
 * `discovery.send_default_credentials` says so.
 */
import type { Socket } from 'node:dgram';
import type { IncomingHttpHeaders } from 'node:http';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SimServer } from '../../src/sim/server.js';
import { startDns } from '../helpers/dns.js';
import { parseExposition, sample, scrape, startDaemon, startFixtureServer, waitFor, waitForRounds } from '../helpers/harness.js';

describe('discovered addresses', () => {
  let good: SimServer;
  let trap: Awaited<ReturnType<typeof startFixtureServer>>;
  const trapped: string[] = [];
  let dns: { server: Socket; address: string };

  beforeAll(async () => {
    good = new SimServer([{ name: 'good', scenario: 'healthy', periodMs: 3_600_000 }]);
    await good.listen(0);
    trap = await startFixtureServer((req, res) => {
      trapped.push(req.url ?? '');
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"checks":{},"healthy":true}');
    });
    const trapPort = Number(new URL(trap.url).port);
    dns = await startDns({
      srv: {
        'fleet.test.local': [
          { target: 'localhost', port: good.address!.port },
          // the attack: a "host name" that carries a port, a path and a query
          { target: `127.0.0.1:${trapPort}/n/x/ext/health?`, port: trapPort },
          // two loopback addresses whose first DNS label is the same: one name, two nodes
          { target: '127.0.0.1', port: trapPort },
          { target: '127.0.0.2', port: trapPort },
        ],
      },
      a: {},
    });
  });

  afterAll(async () => {
    await good?.close();
    await trap?.close();
    dns?.server.close();
  });

  it('refuses paths, queries and user info in SRV answers and file_sd targets; counts and logs name collisions', async () => {
    const trapHost = new URL(trap.url).host;
    const dir = mkdtempSync(join(tmpdir(), 'avahealth-sd-names-'));
    const refused = [`${trapHost}/n/x/ext/health?`, `user:pw@${trapHost}`, `http://${trapHost}/prefix`, `${trapHost}?q=1`, `${trapHost}#frag`, `ftp://${trapHost}`];
    writeFileSync(join(dir, 'fleet.json'), JSON.stringify([{ targets: [...refused, `127.0.0.1:${good.address!.port}`] }]));
    const d = await startDaemon(`
listen: 127.0.0.1:0
state_dir: ${join(dir, 'state')}
defaults: {interval: 1s, timeout: 900ms, validator: false, endpoints: [health]}
discovery:
  file_sd:
    - {files: ["${join(dir, 'fleet.json')}"], refresh_interval: 1s}
  dns:
    - {names: [fleet.test.local], type: SRV, servers: ["${dns.address}"], refresh_interval: 1s}
`);
    try {
      const [srvName, fileName, collided] = [`localhost:${good.address!.port}`, `127.0.0.1:${good.address!.port}`, `127:${new URL(trap.url).port}`];
      for (const name of [srvName, fileName, collided]) await waitForRounds(d, name, 2);
      await waitFor('two reads of each source', async () => {
        const m = parseExposition((await (await fetch(`${d.url}/metrics`)).text()));
        return (sample(m, 'avahealth_discovery_targets_dropped_total', { source: 'dns[0]', reason: 'duplicate_name' }) ?? 0) >= 2 && (sample(m, 'avahealth_discovery_targets_dropped_total', { source: 'file_sd[0]', reason: 'invalid_address' }) ?? 0) >= 2 * refused.length;
      });
      const m = await scrape(d.url);
      expect(sample(m, 'avahealth_discovery_targets_dropped_total', { source: 'dns[0]', reason: 'invalid_address' })).toBeGreaterThanOrEqual(2);
      expect(sample(m, 'avahealth_discovery_targets_dropped_total', { source: 'file_sd[0]', reason: 'duplicate_name' })).toBe(0);
      // only the kept one of the two colliding answers (127.0.0.1) is polled, at the root: its health,
      // and its info API for the upgrade schedule every node is read for (no prefix, no query)
      expect(trapped).toContain('/ext/health');
      expect([...new Set(trapped)].filter((path) => !['/ext/health', '/ext/info'].includes(path))).toEqual([]);
      const status = JSON.parse(await (await fetch(`${d.url}/api/v1/status`)).text()) as { targets: Array<{ name: string }> };
      expect(status.targets.map((t) => t.name).sort()).toEqual([collided, fileName, srvName].sort());
      const logs = d.logs();
      expect(logs).toContain('is not a host name and port');
      for (const address of refused) expect(logs).toContain(JSON.stringify(JSON.stringify(address)).slice(1, -1));
      const clashes = logs.split('\n').filter((l) => l.includes('discovered targets left out'));
      expect(clashes).toHaveLength(1);
      expect(clashes[0]).toContain('"reason":"duplicate_name"');
      expect(clashes[0]).toContain('http://127.0.0.2:');
    } finally {
      await d.stop();
    }
  });
});

describe('defaults: credentials and discovered nodes', () => {
  const seen: IncomingHttpHeaders[] = [];
  let node: Awaited<ReturnType<typeof startFixtureServer>>;
  beforeAll(async () => {
    node = await startFixtureServer((req, res) => {
      seen.push(req.headers);
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"checks":{},"healthy":true}');
    });
  });
  afterAll(() => node?.close());

  const run = async (sendDefaultCredentials: boolean | undefined): Promise<IncomingHttpHeaders> => {
    seen.length = 0;
    const dir = mkdtempSync(join(tmpdir(), 'avahealth-sd-creds-'));
    writeFileSync(join(dir, 'fleet.json'), JSON.stringify([{ targets: [new URL(node.url).host] }]));
    const d = await startDaemon(`
listen: 127.0.0.1:0
state_dir: ${join(dir, 'state')}
defaults: {interval: 1s, validator: false, endpoints: [health], bearer_token: defaults-token-1234, headers: {X-Api-Key: defaults-key-5678, User-Agent: fleet-probe}}
discovery:
  file_sd:
    - {files: ["${join(dir, 'fleet.json')}"]}
${sendDefaultCredentials === undefined ? '' : `  send_default_credentials: ${sendDefaultCredentials}\n`}`);
    try {
      await waitFor('a poll of the discovered node', () => seen.length > 0);
      return seen[0]!;
    } finally {
      await d.stop();
    }
  };

  it('receive them by default (as documented), none with send_default_credentials: false', async () => {
    const byDefault = await run(undefined);
    expect(byDefault.authorization).toBe('Bearer defaults-token-1234');
    expect(byDefault['x-api-key']).toBe('defaults-key-5678');
    const off = await run(false);
    expect(off.authorization).toBeUndefined();
    expect(off['x-api-key']).toBeUndefined();
    expect(off['user-agent']).toBe('fleet-probe');
  });
});
