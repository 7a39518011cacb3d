/**
 * A shard count change moves a target with an open incident to a shard that never knew it (each
 * shard has its own state_dir, as each pod of the StatefulSet has its own volume). With an
 * `alertmanager` receiver, the old owner hands the incident over in silence and the new owner adopts
 * it from Alertmanager's active alerts (src/alerts/receivers/alertmanager/adopt.ts): the webhook is
 * paged once, and the resolve comes from the new owner under the first page's startsAt. Real
 * daemons (dist/cli.js), a real Alertmanager, SIGTERM between the two splits.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { inShard } from '../../src/shard.js';
import { SimServer } from '../../src/sim/server.js';
import { startCapture } from '../helpers/capture.js';
import { runDaemon, type RunningCli } from '../helpers/cli.js';
import { closedPort, get, setScenario, waitFor } from '../helpers/harness.js';
import { requireTool } from '../helpers/tools.js';

const alertmanagerBin = requireTool('prometheus-alertmanager', 'the shard handover test against a real Alertmanager', ['prometheus-alertmanager', 'alertmanager']);

type HookAlert = { status: string; fingerprint: string; startsAt: string; labels: Record<string, string>; annotations: Record<string, string> };

describe.skipIf(!alertmanagerBin)('a shard count change hands an open incident over through Alertmanager', () => {
  // a node that is in shard 0 of 1 and moves to shard 1 of 2
  const moved = Array.from({ length: 100 }, (_, i) => `node-${i}`).find((n) => inShard(n, { index: 1, count: 2 }))!;
  const dir = mkdtempSync(join(tmpdir(), 'avahealth-handover-'));
  const stateDirs = [join(dir, 'state-0'), join(dir, 'state-1')];
  let sim: SimServer;
  let alertmanager: ChildProcess;
  let hook: Awaited<ReturnType<typeof startCapture>>;
  let config: string;
  let daemons: RunningCli[] = [];

  const start = (shard: string, stateDir: string) => runDaemon(config, { AVAHEALTH_STATE_DIR: stateDir }, ['--shard', shard]);
  const stopAll = async () => {
    for (const d of daemons) d.child.kill('SIGTERM');
    await Promise.all(daemons.map((d) => d.exit));
    daemons = [];
  };
  const lastPoll = async (url: string) => (JSON.parse((await get(`${url}/api/v1/status`)).body) as { targets: Array<{ name: string; lastPollAt?: number }> }).targets.find((t) => t.name === moved)?.lastPollAt ?? 0;
  const told = () => hook.on('/hook').flatMap((r) => (r.json as { alerts: HookAlert[] }).alerts).filter((a) => a.labels.target === moved && a.labels.alertname === 'AvalancheDiskLow');

  beforeAll(async () => {
    sim = new SimServer([{ name: moved, scenario: 'disk-low', periodMs: 1000 }]);
    await sim.listen(0);
    hook = await startCapture(() => ({ status: 200 }));
    const amPort = await closedPort();
    const amUrl = `http://127.0.0.1:${amPort}`;
    writeFileSync(join(dir, 'alertmanager.yml'), stringify({ route: { receiver: 'nowhere', group_wait: '1s' }, receivers: [{ name: 'nowhere' }] }));
    alertmanager = spawn(alertmanagerBin!, [`--config.file=${join(dir, 'alertmanager.yml')}`, `--storage.path=${join(dir, 'am')}`, `--web.listen-address=127.0.0.1:${amPort}`, '--cluster.listen-address='], { stdio: 'ignore' });
    await waitFor('Alertmanager to be ready', async () => (await get(`${amUrl}/-/ready`).catch(() => ({ status: 0 }))).status === 200, 60_000);
    config = join(dir, 'avahealth.yaml');
    writeFileSync(
      config,
      `listen: 127.0.0.1:0
state_dir: \${AVAHEALTH_STATE_DIR}
defaults: {interval: 1s, timeout: 1s, validator: false, endpoints: [health]}
nodes:
  - {name: ${moved}, url: "${sim.nodeUrl(moved)}", labels: {role: rpc}}
alerts:
  for_polls: 1
  resolve_polls: 1
  receivers:
    - {name: hook, webhook: {url: "${hook.url}/hook"}}
    - {name: am, alertmanager: {url: "${amUrl}", resend_interval: 5s}}
`,
    );
  }, 90_000);

  afterAll(async () => {
    await stopAll();
    alertmanager?.kill('SIGTERM');
    await hook?.close();
    await sim?.close();
  });

  it('pages once, and the new owner resolves it under the first page', { timeout: 120_000 }, async () => {
    daemons = [await start('0/1', stateDirs[0]!)];
    await waitFor('the page from the single shard', () => told().some((a) => a.status === 'firing'), 30_000);
    const [page] = told();
    await stopAll();

    // Two shards: shard 0 keeps the old state (the target moved away), shard 1 starts empty.
    daemons = [await start('0/2', stateDirs[0]!), await start('1/2', stateDirs[1]!)];
    await waitFor('shard 1 to adopt the incident', () => daemons[1]!.output().includes('adopted from Alertmanager'), 30_000).catch((err: Error) => {
      throw new Error(`${err.message}\n${daemons.map((d) => d.output().slice(-2000)).join('\n')}`);
    });
    // three polls of the still failing node by its new owner: nothing more is told
    const first = await lastPoll(daemons[1]!.url);
    await waitFor('three polls by the new owner', async () => (await lastPoll(daemons[1]!.url)) >= first + 3, 20_000);
    expect(told()).toEqual([page]);

    await setScenario(sim, moved, 'healthy');
    await waitFor('the resolve from the new owner', () => told().some((a) => a.status === 'resolved'), 30_000);
    const resolve = told().find((a) => a.status === 'resolved')!;
    expect(resolve).toMatchObject({ fingerprint: page!.fingerprint, startsAt: page!.startsAt });
    expect(resolve.annotations.description).not.toContain('moved to another shard');
    expect(told().filter((a) => a.status === 'firing')).toHaveLength(1);
  });
});
