/**
 * Labels cannot collide (issue 25, 2): a config label of a name avahealth sets itself is refused
 * with FILE:LINE:COL; a discovered one (file_sd) is dropped, logged once and counted; a discovered
 * target never takes a configured target's name; and a real /metrics of every kind of source
 * (nodes with views and validator economics, services, chain data, file_sd, DNS SRV), with labels
 * from defaults, nodes, services and discovery, never repeats a label name on a line and passes
 * `promtool check metrics`.
 */
import { spawnSync } from 'node:child_process';
import type { Socket } from 'node:dgram';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RULES } from '../../src/alerts/rules/index.js';
import { ConfigError } from '../../src/config/errors.js';
import { loadConfigFile } from '../../src/config/load.js';
import { SimServer } from '../../src/sim/server.js';
import { RESERVED_LABEL_NAMES } from '../../src/util/labels.js';
import { startDns } from '../helpers/dns.js';
import { get, parseExposition, sample, startDaemon, startFixtureServer, startSim, waitFor, waitForRounds, type RunningDaemon } from '../helpers/harness.js';
import { requireTool } from '../helpers/tools.js';

const promtool = requireTool('promtool', 'promtool check metrics on a /metrics with labels of every kind');

/** Every sample line's metric name and label names in order (repeats kept: the harness' parser folds them). */
function labelNamesPerLine(text: string): Array<{ line: string; names: string[] }> {
  const lines: Array<{ line: string; names: string[] }> = [];
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const open = line.indexOf('{');
    const names: string[] = [];
    if (open >= 0 && open < line.indexOf(' ')) {
      const pair = /([a-zA-Z_][a-zA-Z0-9_]*)="(?:[^"\\]|\\.)*"(,|\})/y;
      pair.lastIndex = open + 1;
      for (let m = pair.exec(line); m; m = m[2] === '}' ? null : pair.exec(line)) names.push(m[1]!);
      expect(names.length, line).toBeGreaterThan(0);
    }
    lines.push({ line, names });
  }
  return lines;
}

async function metricsText(url: string, accept?: string): Promise<string> {
  const res = await request(`${url}/metrics`, accept ? { headers: { accept } } : {});
  expect(res.statusCode).toBe(200);
  return res.body.text();
}

describe('a config label avahealth sets itself', () => {
  it('is refused at load with FILE:LINE:COL, wherever labels are set', () => {
    const dir = mkdtempSync(join(tmpdir(), 'avahealth-labels-'));
    const file = join(dir, 'c.yaml');
    writeFileSync(
      file,
      [
        'defaults:',
        '  labels: {alertname: oops}',
        'nodes:',
        '  - name: a',
        '    url: http://127.0.0.1:9',
        '    labels:',
        '      network: mainnet',
        '      version: prod',
        'services:',
        '  - {name: d, kind: data-api, url: "http://127.0.0.1:9", labels: {subnet_id: x}}',
        'discovery:',
        '  file_sd:',
        '    - {files: [x.json], labels: {endpoint: e}}',
        '',
      ].join('\n'),
    );
    let error: unknown;
    try {
      loadConfigFile(file);
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const lines = (error as ConfigError).message.split('\n');
    expect(lines.find((l) => l.includes('labels.alertname:'))).toMatch(new RegExp(`^${file}:2:\\d+: .*is set by avahealth itself`));
    expect(lines.find((l) => l.includes('labels.version:'))).toMatch(new RegExp(`^${file}:8:\\d+: .*is set by avahealth itself`));
    expect(lines.find((l) => l.includes('labels.subnet_id:'))).toMatch(new RegExp(`^${file}:10:\\d+: `));
    expect(lines.find((l) => l.includes('labels.endpoint:'))).toMatch(new RegExp(`^${file}:13:\\d+: `));
    expect(lines.find((l) => l.includes('labels.network:'))).toMatch(new RegExp(`^${file}:7:\\d+: .*is set by avahealth itself`));
  });
});

describe('every kind of source, labels of every kind', () => {
  let sim: SimServer;
  let discovered: SimServer[];
  let dns: { server: Socket; address: string };
  let d: RunningDaemon;
  let fileSdTarget: string;
  let srvTarget: string;

  beforeAll(async () => {
    sim = await startSim([
      { name: 'v1', scenario: 'healthy' },
      { name: 'l1', scenario: 'healthy', l1: true },
      { name: 'boot', scenario: 'bootstrapping' },
    ]);
    // Discovered nodes answer at their root, like a real node on host:port.
    discovered = [new SimServer([{ name: 'd1', scenario: 'bootstrapping', periodMs: 3_600_000 }]), new SimServer([{ name: 'd2', scenario: 'healthy', periodMs: 3_600_000 }])];
    for (const s of discovered) await s.listen(0);
    fileSdTarget = `127.0.0.1:${discovered[0]!.address!.port}`;
    srvTarget = `localhost:${discovered[1]!.address!.port}`;
    dns = await startDns({ srv: { 'avalanchego.test.local': [{ target: 'localhost', port: discovered[1]!.address!.port }] }, a: {} });
    const dir = mkdtempSync(join(tmpdir(), 'avahealth-labels-'));
    // Every reserved name, a name that is no label name, and a meta label, beside a good one.
    const hostile = Object.fromEntries([...RESERVED_LABEL_NAMES.map((n) => [n, `from-file-${n}`]), ['bad-name', 'x'], ['__meta_zone', 'z'], ['team', 'sd']]);
    hostile.target = 'v1'; // would impersonate the configured v1
    hostile.alertname = 'oops';
    writeFileSync(join(dir, 'fleet.json'), JSON.stringify([{ targets: [fileSdTarget], labels: hostile }]));
    const l1Subnet = sim.nodes.get('l1')!.l1SubnetId!;
    d = await startDaemon(`
listen: 127.0.0.1:0
state_dir: ${join(dir, 'state')}
defaults: {interval: 1s, timeout: 900ms, labels: {team: ops}, validator: {interval: 1s}}
nodes:
  - {name: v1, url: "${sim.nodeUrl('v1')}", labels: {env: mainnet, role: validator}}
  - name: l1
    url: "${sim.nodeUrl('l1')}"
    labels: {env: mainnet, role: l1}
    validator: {subnets: [${l1Subnet}]}
    views: [{name: my-l1, tags: ["${l1Subnet}"]}]
  - {name: boot, url: "${sim.nodeUrl('boot')}", labels: {role: rpc}}
services:
  - {name: data-api, kind: data-api, url: "${sim.serviceUrl('data-api')}", labels: {role: api}}
  - {name: metrics-api, kind: metrics-api, url: "${sim.serviceUrl('metrics-api')}", labels: {role: api}}
chain_data: {interval: 10s}
discovery:
  file_sd:
    - {files: ["${join(dir, 'fleet.json')}"], refresh_interval: 1s, labels: {origin: file}}
  dns:
    - {names: [avalanchego.test.local], type: SRV, servers: ["${dns.address}"], refresh_interval: 1s, labels: {origin: dns}}
alerts:
  for_polls: 1
`);
    for (const target of ['v1', 'l1', 'boot', 'data-api', 'metrics-api', fileSdTarget, srvTarget]) await waitForRounds(d, target, 1);
    await waitFor(
      'validator, chain data and alert series',
      async () => {
        const m = parseExposition(await metricsText(d.url));
        return (
          sample(m, 'avahealth_probe_success', { target: 'l1', endpoint: 'validator' }) === 1 &&
          m.some((s) => s.name === 'avahealth_l1_validator_balance_avax') &&
          m.some((s) => s.name === 'avahealth_validator_status') &&
          m.some((s) => s.name === 'avahealth_node_chain_height_lag_blocks') &&
          m.some((s) => s.name === 'avahealth_alerts' && s.value > 0)
        );
      },
      30_000,
    );
    // at least two reads of the file, so "once" below means once per change, not once per read
    await waitFor('a second read of the file', async () => (sample(parseExposition(await metricsText(d.url)), 'avahealth_discovery_labels_dropped_total', { source: 'file_sd[0]', label: 'endpoint' }) ?? 0) >= 2, 10_000);
  }, 60_000);

  afterAll(async () => {
    await d?.stop();
    await sim?.close();
    for (const s of discovered ?? []) await s.close();
    dns?.server.close();
  });

  it('no exposition line repeats a label name, in either format; a target series carries only reserved and configured label names', async () => {
    const allowed = new Set([...RESERVED_LABEL_NAMES, 'env', 'role', 'team', 'origin']);
    for (const accept of [undefined, 'application/openmetrics-text;version=1.0.0']) {
      const lines = labelNamesPerLine(await metricsText(d.url, accept));
      expect(lines.length).toBeGreaterThan(300);
      for (const { line, names } of lines) {
        expect(new Set(names).size, line).toBe(names.length);
        if (names.includes('target')) expect(names.filter((n) => !allowed.has(n)), line).toEqual([]);
      }
    }
  });

  it('a discovered target keeps its own name and alerts; the reserved labels of its file are dropped, logged once and counted', async () => {
    const m = parseExposition(await metricsText(d.url));
    const own = m.find((s) => s.name === 'avahealth_node_healthy' && s.labels.target === fileSdTarget && s.labels.endpoint === 'health')!;
    expect(own.labels).toEqual({ target: fileSdTarget, endpoint: 'health', view: 'all', team: 'sd', origin: 'file' });
    expect(m.find((s) => s.name === 'avahealth_node_healthy' && s.labels.target === srvTarget && s.labels.endpoint === 'health')!.labels).toEqual({ target: srvTarget, endpoint: 'health', view: 'all', team: 'ops', origin: 'dns' });
    // v1's series are v1's alone: none came from the file's `target: v1`
    expect(m.filter((s) => s.name === 'avahealth_node_healthy' && s.labels.target === 'v1' && s.labels.endpoint === 'health').map((s) => s.labels.role)).toEqual(['validator']);
    for (const name of RESERVED_LABEL_NAMES) expect([name, sample(m, 'avahealth_discovery_labels_dropped_total', { source: 'file_sd[0]', label: name })! >= 2]).toEqual([name, true]);
    expect(sample(m, 'avahealth_discovery_labels_dropped_total', { source: 'file_sd[0]', label: 'invalid' })).toBeGreaterThanOrEqual(2);
    expect(m.some((s) => s.name === 'avahealth_discovery_labels_dropped_total' && s.labels.label === '__meta_zone')).toBe(false);
    expect(d.logs().split('\n').filter((l) => l.includes('discovered labels dropped'))).toHaveLength(1);

    const { alerts } = JSON.parse((await get(`${d.url}/api/v1/alerts`)).body) as { alerts: Array<{ alertname: string; target: string; labels: Record<string, string> }> };
    const ruleNames = RULES.map((r) => r.name);
    const mine = alerts.filter((a) => a.target === fileSdTarget);
    expect(mine.length).toBeGreaterThan(0);
    for (const a of mine) {
      expect(ruleNames).toContain(a.labels.alertname);
      expect(a.labels.alertname).toBe(a.alertname);
      expect(a.labels.target).toBe(fileSdTarget);
      expect(a.labels.team).toBe('sd');
    }
    expect(new Set(alerts.map((a) => JSON.stringify(a.labels))).size).toBe(alerts.length);
  });

  it.runIf(promtool)('promtool check metrics passes on the whole exposition', async () => {
    const text = await metricsText(d.url);
    const result = spawnSync(promtool!, ['check', 'metrics'], { input: text, encoding: 'utf8' });
    expect(result.stdout + result.stderr).toBe('');
    expect(result.status).toBe(0);
  });
});

describe('a discovered target and a configured one with the same name', () => {
  it('the configured one keeps it; the discovered one is left out, logged once and counted', async () => {
    const sim = await startSim([{ name: 'real', scenario: 'healthy' }]);
    let impostorRequests = 0;
    const impostor = await startFixtureServer((_req, res) => {
      impostorRequests++;
      res.writeHead(503).end();
    });
    const name = new URL(impostor.url).host;
    const dir = mkdtempSync(join(tmpdir(), 'avahealth-names-'));
    writeFileSync(join(dir, 'fleet.json'), JSON.stringify([{ targets: [name] }]));
    const d = await startDaemon(`
listen: 127.0.0.1:0
state_dir: ${join(dir, 'state')}
defaults: {interval: 1s, validator: false}
nodes:
  - {name: "${name}", url: "${sim.nodeUrl('real')}"}
discovery:
  file_sd:
    - {files: ["${join(dir, 'fleet.json')}"], refresh_interval: 1s}
`);
    try {
      await waitForRounds(d, name, 2);
      await waitFor('two reads of the file', async () => (sample(parseExposition(await metricsText(d.url)), 'avahealth_discovery_targets_dropped_total', { source: 'file_sd[0]', reason: 'configured_name' }) ?? 0) >= 2, 10_000);
      const m = parseExposition(await metricsText(d.url));
      expect(sample(m, 'avahealth_node_healthy', { target: name, endpoint: 'health', view: 'all' })).toBe(1);
      expect(impostorRequests).toBe(0);
      expect(sample(m, 'avahealth_discovery_targets_dropped_total', { source: 'file_sd[0]', reason: 'duplicate_name' })).toBe(0);
      const logged = d.logs().split('\n').filter((l) => l.includes('discovered targets left out'));
      expect(logged).toHaveLength(1);
      expect(logged[0]).toContain('"reason":"configured_name"');
    } finally {
      await d.stop();
      await sim.close();
      await impostor.close();
    }
  });
});
