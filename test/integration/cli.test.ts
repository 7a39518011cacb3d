import { execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_SIM_PORT, demoFleet, fleetConfigYaml } from '../../src/sim/fleet.js';
import { SimServer } from '../../src/sim/server.js';
import { startCapture } from '../helpers/capture.js';
import { CLI, ROOT, runCli, startCli } from '../helpers/cli.js';
import { closedPort, get, parseExposition, sample, series, startSim, writeConfig } from '../helpers/harness.js';

describe('avahealth --version, --help, schema', () => {
  it('prints the version and help', async () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
    expect(await runCli(['--version'])).toMatchObject({ code: 0, stdout: `avahealth ${pkg.version}\n` });
    const help = await runCli(['--help']);
    expect(help.code).toBe(0);
    for (const command of ['run', 'check', 'validate', 'schema', 'simulate', 'demo']) expect(help.stdout).toContain(`avahealth ${command === 'run' ? '[run]' : command}`);
  });

  it('schema prints the checked-in config/avahealth.schema.json', async () => {
    const result = await runCli(['schema']);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe(readFileSync(join(ROOT, 'config', 'avahealth.schema.json'), 'utf8'));
  });

  it('stops quietly when the reader of its output goes away (`avahealth schema | head`)', async () => {
    const child = spawn(process.execPath, [CLI, 'schema'], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout.destroy(); // the schema (80 KB) is more than a pipe holds: the write fails with EPIPE
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const [code] = (await once(child, 'exit')) as [number | null];
    expect(stderr).toBe('');
    expect(code).toBe(0);
  });

  it('rejects unknown commands and flags with usage', async () => {
    expect(await runCli(['frobnicate'])).toMatchObject({ code: 2, stderr: expect.stringContaining('unknown command "frobnicate"') });
    expect(await runCli(['check', '--nope'])).toMatchObject({ code: 2, stderr: expect.stringContaining('unknown option --nope') });
  });
});

describe('avahealth validate', () => {
  it('accepts the shipped configs', async () => {
    for (const file of ['config/avahealth.yaml', 'config/demo.yaml', 'config/full.yaml', 'test/fixtures/config/minimal.yaml']) {
      const result = await runCli(['validate', '--config', file], { DATA_API_KEY: 'k', WEBHOOK_SECRET: 's' });
      expect(result, file).toMatchObject({ code: 0, stdout: expect.stringMatching(/: valid \(\d+ nodes?(, \d+ services?)?\)\n$/) });
      // no example in them has gone stale (a silence that already ended, say)
      expect(result.stderr, file).not.toMatch(/silences\.\d+ ended at/);
      expect(result.stderr, file).not.toContain('would match nothing');
    }
  });

  it('warns, at its line, of a config silence or maintenance window that would match nothing', async () => {
    const file = join(tmpdir(), `avahealth-idle-silence-${process.pid}.yaml`);
    const silences = ['{matchers: {target: node-l}, ends_at: "2099-01-01T00:00:00Z"}', '{matchers: {tagret: node-1}, ends_at: "2099-01-01T00:00:00Z"}', '{matchers: {target: node-1, alertname: AvalancheNodeUnhealty}, ends_at: "2099-01-01T00:00:00Z"}', '{matchers: {target: node-1}, ends_at: "2099-01-01T00:00:00Z"}'];
    const nodes = 'nodes:\n  - {name: node-1, url: "http://127.0.0.1:1"}\n';
    writeFileSync(file, `${nodes}alerts:\n  silences:\n${silences.map((s) => `    - ${s}\n`).join('')}  maintenance:\n    - {matchers: {target: "~validator-.*"}, schedule: "0 3 * * 0", duration: 1h}\n`);
    const result = await runCli(['validate', '--config', file]);
    expect(result.code).toBe(0);
    expect(result.stderr.trim().split('\n')).toEqual([
      `${file}:5:7: alerts.silences.0: matchers.target: no target is named "node-l" (did you mean "node-1"?); the silence would match nothing (warning)`,
      expect.stringMatching(new RegExp(`^${file}:6:7: alerts\\.silences\\.1: matchers\\.tagret: no alert carries the label "tagret" \\(did you mean "target"\\?\\); the silence would match nothing`)),
      `${file}:7:7: alerts.silences.2: matchers.alertname: no alert is named "AvalancheNodeUnhealty" (did you mean "AvalancheNodeUnhealthy"?); the silence would match nothing (warning)`,
      `${file}:10:7: alerts.maintenance.0: matchers.target: "~validator-.*" matches no target today; the silence would match nothing (warning)`,
    ]);
    // with discovery the targets and their labels come later: only alert names are checked
    writeFileSync(file, `discovery: {file_sd: [{files: [nodes.json]}]}\nalerts:\n  silences:\n${silences.map((s) => `    - ${s}\n`).join('')}`);
    expect((await runCli(['validate', '--config', file])).stderr.trim().split('\n')).toEqual([expect.stringContaining('alerts.silences.2: matchers.alertname: no alert is named "AvalancheNodeUnhealty"')]);
  });

  it('the services example from the docs works as written, with and without DATA_API_KEY', async () => {
    const file = 'test/fixtures/config/services-example.yaml';
    expect(await runCli(['validate', '--config', file], { DATA_API_KEY: 'k-123' })).toMatchObject({ code: 0, stdout: `${file}: valid (0 nodes, 2 services)\n`, stderr: '' });
    expect(await runCli(['validate', '--config', file], { DATA_API_KEY: '' })).toMatchObject({
      code: 0,
      stderr: `${file}:5:14: environment variable DATA_API_KEY is not set; using an empty value (warning)\n`,
    });
  });

  it.each([
    ['wrong-type.yaml', 'test/fixtures/config/wrong-type.yaml:5:15: nodes.0.interval: must be a duration such as 15s: 10 has no unit (did you mean "10s"?)'],
    ['unknown-key.yaml', 'test/fixtures/config/unknown-key.yaml:5:5: unknown key "intervall" in nodes.0 (did you mean "interval"?)'],
    ['syntax-error.yaml', /^test\/fixtures\/config\/syntax-error\.yaml:\d+:\d+: YAML syntax error: .+$/],
  ])('%s → FILE:LINE:COL', async (file, expected) => {
    const result = await runCli(['validate', '--config', `test/fixtures/config/${file}`]);
    expect(result.code).toBe(1);
    expect(result.stderr.trim()).toMatch(typeof expected === 'string' ? new RegExp(`^${expected.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`) : expected);
  });

  it('a YAML alias bomb is a located config error, not a crash', async () => {
    const file = join(tmpdir(), `avahealth-alias-bomb-${process.pid}.yaml`);
    const level = (name: string, prev: string) => `${name}: &${name} [${Array(9).fill(`*${prev}`).join(', ')}]`;
    writeFileSync(file, ['a: &a ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]', level('b', 'a'), level('c', 'b'), level('d', 'c'), level('e', 'd'), level('f', 'e'), level('g', 'f'), level('h', 'g'), level('i', 'h'), ''].join('\n'));
    const result = await runCli(['validate', '--config', file]);
    expect(result).toMatchObject({ code: 1, stdout: '' });
    expect(result.stderr.trim()).toBe(`${file}:2:8: YAML aliases expand too much (limit 100; an alias bomb?)`);
  });

  it('an unset variable in a required field is an error that names it, at the field', async () => {
    const file = join(tmpdir(), `avahealth-unset-${process.pid}.yaml`);
    writeFileSync(file, 'alerts:\n  receivers:\n    - name: oncall\n      pagerduty: {routing_key: "${PAGERDUTY_ROUTING_KEY}"}\n');
    const result = await runCli(['validate', '--config', file], { PAGERDUTY_ROUTING_KEY: '' });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`${file}:4:32: receiver "oncall": pagerduty needs routing_key or routing_key_file (environment variable PAGERDUTY_ROUTING_KEY is not set)`);
    expect(await runCli(['validate', '--config', file], { PAGERDUTY_ROUTING_KEY: 'R0UT1NGKEY' })).toMatchObject({ code: 0 });
  });

  it('takes AVAHEALTH_CONFIG for --config, and says what is missing without it', async () => {
    expect(await runCli(['validate'], { AVAHEALTH_CONFIG: 'test/fixtures/config/minimal.yaml' })).toMatchObject({ code: 0 });
    expect(await runCli(['validate'], { AVAHEALTH_CONFIG: '' })).toMatchObject({ code: 2, stderr: expect.stringContaining('--config FILE is required') });
  });
});

describe('avahealth check', () => {
  let sim: SimServer;
  beforeAll(async () => {
    sim = await startSim([
      { name: 'ok-1', scenario: 'healthy' },
      { name: 'ok-2', scenario: 'healthy' },
      { name: 'disk', scenario: 'disk-low' },
      { name: 'down', scenario: 'network-down' },
    ]);
  });
  afterAll(() => sim.close());

  const config = (...names: string[]) => writeConfig(`nodes:\n${names.map((n) => `  - {name: ${n}, url: "${sim.nodeUrl(n)}"}`).join('\n')}\n`);

  it('exit 0 and an OK plugin line when every node is healthy', async () => {
    const result = await runCli(['check', '--config', config('ok-1', 'ok-2')]);
    expect(result.code).toBe(0);
    const [first, ...rest] = result.stdout.trim().split('\n');
    expect(first).toBe('OK - 2 targets healthy | healthy=2;;;0;2 warning=0;;;0;2 unhealthy=0;;;0;2 unreachable=0;;;0;2 pending=0;;;0;2');
    expect(rest).toHaveLength(3);
    expect(rest[0]).toMatch(/^ok-1 +HEALTHY +healthy +\[C=\d+ P=\d+ X=\d+\] +NodeID-/);
    // no daemon runs on its state_dir: the verdicts are check's own round, and it says so
    expect(rest[2]).toMatch(/^verdicts: this check's own round \(no avahealth daemon runs on .+\)$/);
    expect(result.stdout).not.toContain('\u001b['); // no colour when not a TTY
  });

  it('exit 2 for a disk at 9 % free: AvalancheDiskLow pages at 11 %, though the node\'s own diskspace check only warns', async () => {
    const result = await runCli(['check', '--config', config('ok-1', 'disk')]);
    expect(result.code).toBe(2);
    const [first, , disk] = result.stdout.split('\n');
    expect(first).toBe('CRITICAL - disk unhealthy (diskspace, AvalancheDiskLow) | healthy=1;;;0;2 warning=0;;;0;2 unhealthy=1;;;0;2 unreachable=0;;;0;2 pending=0;;;0;2');
    // the root cause first (the status page's order): the disk, then the check it fails
    expect(disk).toMatch(/^disk +UNHEALTHY +disk: disk 9% free; failing: diskspace /);
  });

  it('exit 1 for a warning only: the node\'s diskspace check with AvalancheDiskLow tuned to warn', async () => {
    const file = writeConfig(`nodes:\n  - {name: ok-1, url: "${sim.nodeUrl('ok-1')}"}\n  - {name: disk, url: "${sim.nodeUrl('disk')}"}\nalerts:\n  rules:\n    AvalancheDiskLow: {critical_threshold: 0.05}\n`);
    const result = await runCli(['check', '--config', file]);
    expect(result.code).toBe(1);
    expect(result.stdout.split('\n')[0]).toBe('WARNING - disk warning (diskspace, AvalancheDiskLow) | healthy=1;;;0;2 warning=1;;;0;2 unhealthy=0;;;0;2 unreachable=0;;;0;2 pending=0;;;0;2');
  });

  it('exit 2 when a node is unhealthy or unreachable', async () => {
    const port = await closedPort();
    const file = writeConfig(`nodes:\n  - {name: down, url: "${sim.nodeUrl('down')}"}\n  - {name: gone, url: "http://127.0.0.1:${port}", endpoints: [health]}\n`);
    const result = await runCli(['check', '--config', file]);
    expect(result.code).toBe(2);
    const first = result.stdout.split('\n')[0]!;
    expect(first).toMatch(/^CRITICAL - down unhealthy \(C, P, X, network\); gone unreachable \| /);
    expect(result.stdout).toMatch(/gone +UNREACHABLE +health: connect \(connection refused \(ECONNREFUSED\)\)/);
  });

  it('user:password@ in a node URL is sent as basic auth, and the password is shown nowhere', async () => {
    const seen: Array<string | undefined> = [];
    const guard = createServer((req, res) => {
      seen.push(req.headers.authorization);
      if (req.headers.authorization !== `Basic ${Buffer.from('ops:p@ss-w0rd:x').toString('base64')}`) {
        res.writeHead(401).end('who are you');
        return;
      }
      fetch(`${sim.nodeUrl('ok-1')}${req.url}`, { method: req.method, headers: { 'content-type': 'application/json' } }).then(async (upstream) => {
        res.writeHead(upstream.status, { 'content-type': 'application/json', 'node-id': upstream.headers.get('node-id') ?? '' }).end(await upstream.text());
      });
    });
    await new Promise<void>((resolve) => guard.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = guard.address() as AddressInfo;
      const file = writeConfig(`nodes:\n  - {name: guarded, url: "http://ops:p%40ss-w0rd%3Ax@127.0.0.1:${port}"}\n`);
      const result = await runCli(['check', '--config', file, '--format', 'json']);
      expect(result.code, result.stderr).toBe(0);
      expect(JSON.parse(result.stdout).targets.map((t: { name: string; state: string }) => [t.name, t.state])).toEqual([['guarded', 'healthy']]);
      expect(seen.length).toBeGreaterThan(0);
      expect(new Set(seen)).toEqual(new Set([`Basic ${Buffer.from('ops:p@ss-w0rd:x').toString('base64')}`]));
      expect(result.stdout + result.stderr).not.toMatch(/p@ss-w0rd|p%40ss-w0rd/);
    } finally {
      guard.close();
    }
  });

  it('exit 3 for an invalid config, with FILE:LINE:COL on stderr', async () => {
    const result = await runCli(['check', '--config', 'test/fixtures/config/unknown-key.yaml']);
    expect(result.code).toBe(3);
    expect(result.stdout).toBe('UNKNOWN - invalid config\n');
    expect(result.stderr).toContain('unknown-key.yaml:5:5: unknown key "intervall"');
  });

  it('--format json with an invalid config still writes a JSON document: state UNKNOWN, and the error', async () => {
    const result = await runCli(['check', '--config', 'test/fixtures/config/unknown-key.yaml', '--format', 'json']);
    expect(result.code).toBe(3);
    const report = JSON.parse(result.stdout) as { state: string; exitCode: number; error: string; targets: unknown[] };
    expect(report).toMatchObject({ state: 'UNKNOWN', exitCode: 3, targets: [] });
    expect(report.error).toContain('unknown-key.yaml:5:5: unknown key "intervall"');
    // and a missing target is a JSON document too
    const none = await runCli(['check', '--config', config('ok-1'), '--format', 'json', '--target', 'nope']);
    expect(none.code).toBe(3);
    expect(JSON.parse(none.stdout)).toMatchObject({ state: 'UNKNOWN', error: expect.stringContaining('no target named "nope"') });
  });

  it('--format json carries the same verdict and per-check detail', async () => {
    const result = await runCli(['check', '--config', config('ok-1', 'down'), '--format', 'json']);
    expect(result.code).toBe(2);
    const report = JSON.parse(result.stdout);
    expect(report.state).toBe('CRITICAL');
    expect(report.targets.map((t: { name: string; state: string }) => [t.name, t.state])).toEqual([
      ['ok-1', 'healthy'],
      ['down', 'unhealthy'],
    ]);
    const health = report.targets[1].endpoints.find((e: { endpoint: string }) => e.endpoint === 'health');
    expect(health.checks.find((c: { name: string }) => c.name === 'network')).toMatchObject({ passing: false, contiguousFailures: 1, error: expect.stringContaining('network layer is unhealthy') });
  });

  it('--format prometheus prints the metric families; --target limits what is printed', async () => {
    const result = await runCli(['check', '--config', config('ok-1', 'down'), '--format', 'prometheus', '--target', 'down']);
    expect(result.code).toBe(2);
    const m = parseExposition(result.stdout);
    expect(new Set(m.map((s) => s.labels.target).filter(Boolean))).toEqual(new Set(['down']));
    // a textfile collector's usual alert on a failed reload must not fire on check's output
    expect(sample(m, 'avahealth_config_last_reload_successful')).toBe(1);
    // a source build says its commit (this checkout's HEAD), never "unknown"
    const revision = series(m, 'avahealth_build_info')[0]!.labels.revision;
    expect(revision).not.toBe('unknown');
    expect(revision).toMatch(/^([0-9a-f]{40}|)$/);
    if (existsSync(join(ROOT, '.git'))) expect(revision).toBe(execFileSync('git', ['rev-parse', 'HEAD'], { cwd: ROOT, encoding: 'utf8' }).trim());
    expect(sample(m, 'avahealth_node_healthy', { target: 'down', endpoint: 'health' })).toBe(0);
    expect(sample(m, 'avahealth_node_check_passing', { target: 'down', endpoint: 'health', check: 'network' })).toBe(0);
    expect(result.stdout).not.toContain('process_cpu'); // no default metrics from a one-shot command
    expect(await runCli(['check', '--config', config('ok-1'), '--target', 'nope'])).toMatchObject({ code: 3, stdout: expect.stringContaining('no target named "nope"') });
  });
});

describe('the demo config', () => {
  it('config/demo.yaml is exactly what `simulate --fleet demo --config-out` writes', () => {
    const generated = fleetConfigYaml(demoFleet(), { baseUrl: `http://127.0.0.1:${DEMO_SIM_PORT}` });
    expect(readFileSync(join(ROOT, 'config', 'demo.yaml'), 'utf8')).toBe(generated);
  });

  it('check --config config/demo.yaml --format prometheus against the simulated demo fleet', async () => {
    const demo = new SimServer(demoFleet());
    await demo.listen(DEMO_SIM_PORT);
    try {
      const result = await runCli(['check', '--config', 'config/demo.yaml', '--format', 'prometheus']);
      expect(result.code).toBe(2); // rpc-1 is bootstrapping
      const m = parseExposition(result.stdout);
      const families = new Set(m.map((s) => s.name));
      for (const family of [
        'avahealth_probe_success', 'avahealth_probe_duration_seconds', 'avahealth_probe_http_status_code', 'avahealth_probe_last_success_timestamp_seconds',
        'avahealth_node_healthy', 'avahealth_node_info', 'avahealth_node_check_passing', 'avahealth_node_check_contiguous_failures',
        'avahealth_node_check_duration_seconds', 'avahealth_node_check_last_run_timestamp_seconds', 'avahealth_node_check_failing_since_timestamp_seconds',
        'avahealth_node_chain_connected_stake_ratio', 'avahealth_node_chain_last_accepted_height', 'avahealth_node_chain_processing_blocks',
        'avahealth_node_chain_longest_processing_block_seconds', 'avahealth_node_chain_disconnected_validators', 'avahealth_node_chain_bootstrapping',
        'avahealth_node_network_connected_peers', 'avahealth_node_network_send_fail_ratio', 'avahealth_node_network_last_message_received_age_seconds',
        'avahealth_node_network_last_message_sent_age_seconds', 'avahealth_node_network_ingress_connections', 'avahealth_node_router_outstanding_requests',
        'avahealth_node_router_longest_running_request_seconds', 'avahealth_node_disk_available_bytes', 'avahealth_node_disk_available_ratio',
        'avahealth_node_bootstrapping_subnets', 'avahealth_node_upgrade_mode_weight_ratio', 'avahealth_build_info',
      ]) {
        expect(families, family).toContain(family);
      }
      expect(sample(m, 'avahealth_node_healthy', { target: 'validator-1', endpoint: 'health' })).toBe(1);
      expect(sample(m, 'avahealth_node_check_passing', { target: 'validator-2', endpoint: 'health', check: 'diskspace' })).toBe(0);
      expect(sample(m, 'avahealth_node_disk_available_ratio', { target: 'validator-2' })).toBe(0.09);
      expect(sample(m, 'avahealth_node_healthy', { target: 'rpc-1', endpoint: 'readiness' })).toBe(0);
      expect(sample(m, 'avahealth_node_healthy', { target: 'l1-node', endpoint: 'health', view: 'my-l1' })).toBe(1);
      expect(sample(m, 'avahealth_probe_success', { target: 'l1-node', endpoint: 'health', view: 'my-l1', env: 'fuji' })).toBe(1);
    } finally {
      await demo.close();
    }
  });
});

describe('avahealth run and simulate', () => {
  it('serves metrics, reports ready, and stops cleanly on SIGTERM', async () => {
    const sim = await startSim([{ name: 'n', scenario: 'healthy' }]);
    const file = writeConfig(`listen: 127.0.0.1:0\nnodes:\n  - {name: n, url: "${sim.nodeUrl('n')}", interval: 1s}\n`);
    const daemon = startCli(['run', '--config', file]);
    try {
      const [, port] = await daemon.waitForOutput(/"address":"127\.0\.0\.1:(\d+)"/);
      await daemon.waitForOutput(/first poll round complete/);
      expect((await get(`http://127.0.0.1:${port}/-/ready`)).status).toBe(200);
      const m = parseExposition((await get(`http://127.0.0.1:${port}/metrics`)).body);
      expect(sample(m, 'avahealth_node_healthy', { target: 'n', endpoint: 'health' })).toBe(1);
      daemon.child.kill('SIGTERM');
      expect(await daemon.exit).toBe(0);
      expect(daemon.output()).toContain('"msg":"stopped"');
    } finally {
      daemon.child.kill('SIGKILL');
      await sim.close();
    }
  });

  it('a config error stops `run` at start with FILE:LINE:COL and exit 1', async () => {
    expect(await runCli(['run', '--config', 'test/fixtures/config/wrong-type.yaml'])).toMatchObject({ code: 1, stderr: expect.stringContaining('wrong-type.yaml:5:15:') });
  });

  it('simulate --config-out writes a config that validates and points at live nodes', async () => {
    const out = writeConfig('');
    const sim = startCli(['simulate', '--nodes', '3', '--port', '0', '--scenario', 'disk-low', '--config-out', out]);
    try {
      await sim.waitForOutput(/config: /);
      expect(await runCli(['validate', '--config', out])).toMatchObject({ code: 0, stdout: expect.stringContaining('valid (3 nodes, 2 services)') });
      const result = await runCli(['check', '--config', out]);
      expect(result.code).toBe(2);
      expect(result.stdout).toMatch(/^CRITICAL - node-1 unhealthy \(diskspace, AvalancheDiskLow\); node-2 unhealthy \(diskspace, AvalancheDiskLow\); node-3 unhealthy \(diskspace, AvalancheDiskLow\) \|/);
      sim.child.kill('SIGTERM');
      expect(await sim.exit).toBe(0);
    } finally {
      sim.child.kill('SIGKILL');
    }
  });
});

describe('avahealth notify-test', () => {
  it('sends one test notification to the named receiver', async () => {
    const capture = await startCapture(() => ({ status: 200 }));
    try {
      const file = writeConfig(`alerts:\n  receivers:\n    - {name: chat, slack: {url: "${capture.url}/slack/T000/B000/secretpart"}}\n`);
      expect(await runCli(['notify-test', '--config', file, '--receiver', 'chat'])).toMatchObject({ code: 0, stdout: 'test notification delivered to chat (slack)\n' });
      expect((capture.requests[0]!.json as { text: string }).text).toBe(':large_orange_circle: avahealth: avahealth test notification');
      expect(await runCli(['notify-test', '--config', file, '--receiver', 'nope'])).toMatchObject({ code: 2, stderr: expect.stringContaining('--receiver must name a receiver of') });
      capture.respond(() => ({ status: 404, body: 'no_service' }));
      const failed = await runCli(['notify-test', '--config', file, '--receiver', 'chat']);
      expect(failed).toMatchObject({ code: 1, stderr: 'test notification to chat failed: HTTP 404: no_service\n' });
    } finally {
      await capture.close();
    }
  });
});

describe('start-up errors, help per command, restart-only settings', () => {
  let busy: import('node:http').Server;
  let busyPort: number;

  beforeAll(async () => {
    busy = createServer((_req, res) => res.end());
    await new Promise<void>((resolve) => busy.listen(0, '127.0.0.1', resolve));
    busyPort = (busy.address() as AddressInfo).port;
  });
  afterAll(async () => {
    await new Promise((resolve) => busy.close(resolve));
  });

  const noStack = (text: string) => expect(text).not.toMatch(/^\s+at /m);

  it('a port in use is one line naming the address, exit 1', async () => {
    const file = writeConfig(`listen: 127.0.0.1:${busyPort}\nstate_dir: ${join(tmpdir(), `avahealth-busy-${process.pid}`)}\nnodes:\n  - {name: n, url: "http://127.0.0.1:${await closedPort()}"}\n`);
    const result = await runCli(['run', '--config', file]);
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(`avahealth: cannot listen on 127.0.0.1:${busyPort}: address already in use (another avahealth, or another program, listens there)\n`);
    noStack(result.stderr + result.stdout);
  });

  it('a bad --log.level is a usage error, exit 2', async () => {
    const result = await runCli(['run', '--config', 'config/demo.yaml', '--log.level', 'loud']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('--log.level must be one of trace, debug, info, warn, error, fatal, silent (got "loud")');
    noStack(result.stderr);
  });

  it('an unexpected error is one line; --log.level debug adds the stack', async () => {
    // (a taken port is no longer one: it says so in words, above) a config written where no directory is
    const nowhere = ['simulate', '--port', '0', '--config-out', join(tmpdir(), `avahealth-no-such-dir-${process.pid}`, 'sim.yaml')];
    const plain = await runCli(nowhere);
    expect(plain.code).toBe(3);
    expect(plain.stderr.trim().split('\n')).toHaveLength(1);
    expect(plain.stderr).toContain('ENOENT');
    noStack(plain.stderr);
    const debug = await runCli([...nowhere, '--log.level', 'debug']);
    expect(debug.code).toBe(3);
    expect(debug.stderr).toMatch(/^\s+at /m);
  });

  it('each subcommand has its own --help', async () => {
    for (const command of ['run', 'check', 'validate', 'schema', 'simulate', 'demo', 'notify-test']) {
      const result = await runCli([command, '--help']);
      expect(result.code, command).toBe(0);
      expect(result.stdout, command).toMatch(new RegExp(`^Usage: avahealth ${command === 'run' ? '\\[run\\]' : command}`));
    }
    const checkHelp = (await runCli(['check', '--help'])).stdout;
    expect(checkHelp).toContain('--format FORMAT');
    expect(checkHelp).not.toContain('--scenario');
    // --target narrows what is printed, not what is polled and judged
    expect(checkHelp).toMatch(/--target NAME +print only this target; every target is still polled and judged/);
    expect(checkHelp).toContain('When an avahealth daemon runs on the config\'s state_dir, its verdicts are printed');
    expect((await runCli(['run', '--help'])).stdout).toContain('--web.listen-address');
  }, 120_000); // ten CLI processes one after another: the 30 s default is not enough on a loaded machine

  it('the help texts line their descriptions up, list every option value, and an unknown command gets a hint', async () => {
    const overview = (await runCli(['--help'])).stdout;
    for (const command of ['run', 'demo', 'check']) {
      const text = (await runCli([command, '--help'])).stdout;
      // every option line of one text starts its description in one column
      const columns = new Set(text.split('\n').filter((line) => /^  --\S/.test(line)).map((line) => /^ {2}--.*?\S {2,}/.exec(line)![0].length));
      expect(columns.size, command).toBe(1);
      expect(text, command).toContain('trace|debug|info|warn|error|fatal|silent');
    }
    expect(overview).toContain('--shard I/N|auto/N|auto');
    expect(overview).toMatch(/avahealth demo \[--port P\] \[--listen HOST:PORT\] \[--period DURATION\]/);
    expect(overview).toMatch(/\[--listen HOST:PORT\] \[--period DURATION\]\n\s+serve simulated/);
    const simulate = (await runCli(['simulate', '--help'])).stdout;
    expect(simulate).toContain('POST /sim/network');
    expect(simulate).toContain('validationEndsIn');
    // the control API's sentences end where they should (one lost its ending once)
    expect(simulate.replace(/\s+/g, ' ')).toContain("null: the scenario's build again. Unknown fields are refused");
    // the port it serves on: 9651 with the demo fleet, as the README's curl commands say
    expect(simulate).toMatch(/--port P +port \(default 9650, 9651 with --fleet demo/);
    // demo's and simulate's options all in their usage line and in the overview, --port with its default
    for (const command of ['demo', 'simulate']) {
      const text = (await runCli([command, '--help'])).stdout;
      const usage = text.split('\n\n')[0]!;
      const summary = /\n {2}avahealth (demo|simulate) [\s\S]*?\n {39}\S/.exec(overview.slice(overview.indexOf(`avahealth ${command} [`) - 3))![0];
      const options = [...text.matchAll(/^ {2}(--[\w.-]+)/gm)].map((m) => m[1]!).filter((o) => !o.startsWith('--log.') && o !== '--web.listen-address');
      for (const option of options) {
        expect(usage, `${command} usage`).toContain(`[${option}`);
        expect(summary, `${command} in the overview`).toContain(`[${option}`);
      }
      expect(text, command).toMatch(/--port P +(port|the simulator's port) \(default 9650, 9651|the simulator's port \(default 9651/);
    }
    expect(await runCli(['chek', '--config', 'config/demo.yaml'])).toMatchObject({ code: 2, stderr: expect.stringContaining('unknown command "chek" (did you mean check?)') });
  }, 120_000);

  it('the simulator\'s port taken (a demo still running) is one line, as the daemon\'s is', async () => {
    const held = createServer();
    await new Promise<void>((resolve) => held.listen(0, '127.0.0.1', resolve));
    const port = (held.address() as AddressInfo).port;
    try {
      for (const command of [['simulate', '--fleet', 'demo'], ['demo']]) {
        const result = await runCli([...command, '--port', String(port), '--listen', '127.0.0.1:0']);
        expect(result, command[0]).toMatchObject({ code: 1, stderr: `avahealth: cannot listen on 127.0.0.1:${port}: address already in use (another avahealth, or another program, listens there)\n` });
      }
    } finally {
      held.close();
    }
  });

  it('a listen port out of range is a usage error; a state_dir that cannot be used says where it is set', async () => {
    const node = `nodes:\n  - {name: n, url: "http://127.0.0.1:${await closedPort()}"}\n`;
    const file = writeConfig(node);
    const result = await runCli(['run', '--config', file, '--listen', '127.0.0.1:99999']);
    expect(result).toMatchObject({ code: 2, stderr: expect.stringContaining('--listen port 99999 is out of range: a port is 0 to 65535') });
    noStack(result.stderr);
    expect((await runCli(['validate', '--config', writeConfig(`listen: 127.0.0.1:70000\n${node}`)])).stderr).toMatch(/:1:9: listen: port 70000 is out of range/);
    // A state_dir inside a file: the path cannot be a directory.
    const stateDir = writeConfig(`listen: 127.0.0.1:0\n${node}state_dir: ${file}/state\n`);
    const unusable = await runCli(['run', '--config', stateDir]);
    expect(unusable.code).toBe(1);
    expect(unusable.stderr).toMatch(new RegExp(`^avahealth: ${stateDir.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:4:12: state_dir .* is not writable: ENOTDIR`));
    noStack(unusable.stderr);
  });

  it('a --port of simulate or demo out of range, or not a number, is a usage error in words', async () => {
    for (const [command, port] of [['simulate', '99999'], ['demo', '99999'], ['simulate', 'abc'], ['demo', '80.5']] as const) {
      const result = await runCli([command, '--port', port, '--listen', '127.0.0.1:0']);
      expect(result, `${command} --port ${port}`).toMatchObject({ code: 2, stderr: expect.stringContaining(`--port must be a port number from 0 to 65535 (0 picks a free one) (got "${port}")`) });
      // no Node.js internals ("options.port should be >= 0 and < 65536")
      expect(result.stderr).not.toContain('options.port');
      noStack(result.stderr);
    }
  });

  it('--web.listen-address stands for --listen; giving both with different values is a usage error', async () => {
    const sim = await startSim([{ name: 'n', scenario: 'healthy' }]);
    const file = writeConfig(`listen: 127.0.0.1:${busyPort}\nstate_dir: ${join(tmpdir(), `avahealth-alias-${process.pid}`)}\nnodes:\n  - {name: n, url: "${sim.nodeUrl('n')}"}\n`);
    const daemon = startCli(['run', '--config', file, '--web.listen-address', '127.0.0.1:0']);
    try {
      const [, port] = await daemon.waitForOutput(/"address":"127\.0\.0\.1:(\d+)"/);
      expect(Number(port)).not.toBe(busyPort);
      expect((await get(`http://127.0.0.1:${port}/-/healthy`)).status).toBe(200);
    } finally {
      daemon.child.kill('SIGTERM');
      await daemon.exit;
      await sim.close();
    }
    const both = await runCli(['run', '--config', file, '--listen', '127.0.0.1:0', '--web.listen-address', '127.0.0.1:1']);
    expect(both).toMatchObject({ code: 2, stderr: expect.stringContaining('--listen and --web.listen-address name the same setting') });
  });

  it('a reload that changes listen: says a restart is needed, in the log and in the answer, and keeps serving', async () => {
    const sim = await startSim([{ name: 'n', scenario: 'healthy' }]);
    const yaml = (listen: string) => `listen: ${listen}\nstate_dir: ${join(tmpdir(), `avahealth-restart-${process.pid}`)}\nnodes:\n  - {name: n, url: "${sim.nodeUrl('n')}"}\n`;
    const file = writeConfig(yaml('127.0.0.1:0'));
    const daemon = startCli(['run', '--config', file, '--web.enable-lifecycle']);
    try {
      const [, port] = await daemon.waitForOutput(/"address":"127\.0\.0\.1:(\d+)"/);
      writeFileSync(file, yaml(`127.0.0.1:${busyPort}`));
      const res = await fetch(`http://127.0.0.1:${port}/-/reload`, { method: 'POST' });
      expect(res.status).toBe(200);
      expect(await res.text()).toBe('config reloaded\nrestart avahealth to apply: listen (the running value stays until then)\n');
      await daemon.waitForOutput(/listen changed: restart avahealth to apply/);
      expect((await get(`http://127.0.0.1:${port}/-/healthy`)).status).toBe(200);
    } finally {
      daemon.child.kill('SIGTERM');
      await daemon.exit;
      await sim.close();
    }
  });
});
