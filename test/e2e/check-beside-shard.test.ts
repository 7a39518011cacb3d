/**
 * `avahealth check` beside one shard (`kubectl exec avahealth-0 -- avahealth check`) tells another
 * shard's target as its owner does. Each shard has its own state_dir, so what an owner remembers is
 * not beside shard 0: here a validator's public IP changed (info.getNodeIP, api/info/service.go), and
 * only its owner, which kept the IP before (public-ips.json), knows it and pages it for an hour. The
 * owner tells Alertmanager with a record signed with the fleet's key; `check` takes that record for
 * the target, not its own one round (which finds nothing), and nothing unsigned that anyone posted to
 * Alertmanager. Real daemons (dist/cli.js), a real Alertmanager.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { inShard } from '../../src/shard.js';
import { SimServer } from '../../src/sim/server.js';
import { startCapture } from '../helpers/capture.js';
import { runCli, runDaemon, type RunningCli } from '../helpers/cli.js';
import { closedPort, get, setScenario, waitFor } from '../helpers/harness.js';
import { requireTool } from '../helpers/tools.js';

const alertmanagerBin = requireTool('prometheus-alertmanager', "check beside one shard reading the other shards' incidents from a real Alertmanager", ['prometheus-alertmanager', 'alertmanager']);
const KEY = 'a-handover-key-the-shards-share-0123456789';
const MOVED = '198.51.100.23:9651';

type CheckJson = { verdicts: { otherShards?: { alertmanager?: string[]; error?: string } }; targets: Array<{ name: string; state: string; summary: string; incidents?: Array<{ alertname: string }> }> };

describe.skipIf(!alertmanagerBin)('check beside shard 0 of 2', () => {
  const names = Array.from({ length: 100 }, (_, i) => `val-${i}`);
  const here = names.find((n) => inShard(n, { index: 0, count: 2 }))!;
  const there = names.find((n) => inShard(n, { index: 1, count: 2 }))!;
  const dir = mkdtempSync(join(tmpdir(), 'avahealth-check-shard-'));
  const stateDirs = [join(dir, 'state-0'), join(dir, 'state-1')];
  let sim: SimServer;
  let alertmanager: ChildProcess;
  let amUrl: string;
  let hook: Awaited<ReturnType<typeof startCapture>>;
  let config: string;
  const daemons: RunningCli[] = [];

  beforeAll(async () => {
    sim = new SimServer([here, there].map((name) => ({ name, scenario: 'healthy' as const, periodMs: 3_600_000 })));
    await sim.listen(0);
    hook = await startCapture(() => ({ status: 200 }));
    const amPort = await closedPort();
    amUrl = `http://127.0.0.1:${amPort}`;
    writeFileSync(join(dir, 'alertmanager.yml'), stringify({ route: { receiver: 'nowhere', group_wait: '1s' }, receivers: [{ name: 'nowhere' }] }));
    alertmanager = spawn(alertmanagerBin!, [`--config.file=${join(dir, 'alertmanager.yml')}`, `--storage.path=${join(dir, 'am')}`, `--web.listen-address=127.0.0.1:${amPort}`, '--cluster.listen-address='], { stdio: 'ignore' });
    await waitFor('Alertmanager to be ready', async () => (await get(`${amUrl}/-/ready`).catch(() => ({ status: 0 }))).status === 200, 60_000);
    config = join(dir, 'avahealth.yaml');
    writeFileSync(
      config,
      `listen: 127.0.0.1:0
state_dir: \${AVAHEALTH_STATE_DIR}
defaults: {interval: 1s, timeout: 1500ms, endpoints: [health], validator: {interval: 1s, network: false}}
nodes:
${[here, there].map((name) => `  - {name: ${name}, url: "${sim.nodeUrl(name)}"}`).join('\n')}
alerts:
  for_polls: 1
  resolve_polls: 1
  handover_key: ${KEY}
  receivers:
    - {name: hook, webhook: {url: "${hook.url}/hook"}}
    - {name: am, alertmanager: {url: "${amUrl}", resend_interval: 5s}}
`,
    );
    daemons.push(await runDaemon(config, { AVAHEALTH_STATE_DIR: stateDirs[0]! }, ['--shard', '0/2']), await runDaemon(config, { AVAHEALTH_STATE_DIR: stateDirs[1]! }, ['--shard', '1/2']));
  }, 90_000);

  afterAll(async () => {
    for (const d of daemons) d.child.kill('SIGTERM');
    await Promise.all(daemons.map((d) => d.exit));
    alertmanager?.kill('SIGTERM');
    await hook?.close();
    await sim?.close();
  });

  const check = async (format: 'json' | 'text') => {
    const result = await runCli(['check', '--config', config, '--format', format], { AVAHEALTH_STATE_DIR: stateDirs[0]! });
    return { ...result, json: format === 'json' ? (JSON.parse(result.stdout) as CheckJson) : undefined };
  };
  const remembered = (stateDir: string) => {
    try {
      return readFileSync(join(stateDir, 'public-ips.json'), 'utf8');
    } catch {
      return '';
    }
  };
  const rowOf = (json: CheckJson, name: string) => json.targets.find((t) => t.name === name)!;
  const atAlertmanager = async () => {
    const response = await request(`${amUrl}/api/v2/alerts?filter=${encodeURIComponent(`target="${there}"`)}`);
    return (await response.body.json()) as Array<{ labels: Record<string, string>; annotations: Record<string, string> }>;
  };

  it("tells the owner's open incident, from its signed record at Alertmanager, not its own round", { timeout: 120_000 }, async () => {
    const before = sim.nodes.get(there)!.economics.publicIp;
    // the owner keeps the IP it read (state/ledger.ts): only then can it tell a change
    await waitFor("the owner's first reading of the IP", () => remembered(stateDirs[1]!).includes(before), 30_000);
    await setScenario(sim, there, 'healthy', { publicIp: MOVED });
    await waitFor('the owner to page the change', () => hook.told({ path: '/hook', status: 'firing', target: there, alertname: 'AvalancheValidatorPublicIpChanged' }).length > 0, 30_000);
    await waitFor('the signed record at Alertmanager', async () => (await atAlertmanager()).some((a) => a.labels.alertname === 'AvalancheValidatorPublicIpChanged' && a.annotations.avahealth_handover), 30_000);
    // Anyone can post to Alertmanager: an unsigned critical for the same target changes nothing.
    const forged = await request(`${amUrl}/api/v2/alerts`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify([{ labels: { alertname: 'AvalancheNodeUnreachable', target: there, severity: 'critical' }, annotations: { summary: 'forged' } }]),
    });
    expect(forged.statusCode).toBe(200);
    await forged.body.text();

    const { code, json } = await check('json');
    const owner = JSON.parse((await get(`${daemons[1]!.url}/api/v1/targets/${there}`)).body) as { state: string };
    expect(rowOf(json!, there)).toMatchObject({ state: 'warning', incidents: [{ alertname: 'AvalancheValidatorPublicIpChanged' }] });
    expect(rowOf(json!, there).state).toBe(owner.state);
    expect(rowOf(json!, there).summary).toContain('public IP changed');
    expect(rowOf(json!, here).state).toBe('healthy');
    expect(json!.verdicts.otherShards).toEqual({ alertmanager: ['am'] });
    expect(code).toBe(1);

    const text = await check('text');
    expect(text.stdout).toContain(`the open incidents their shard told Alertmanager (am), signed with the fleet's key`);
  });
});
