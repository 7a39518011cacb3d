/**
 * A silence's mirror leaves through the outbox (#48): the daemon (dist/cli.js) is SIGKILLed between
 * a silence being made in avahealth and its mirror reaching a real Alertmanager, and after the
 * restart Alertmanager holds exactly one matching silence, which mutes the alerts.
 *
 * A proxy in front of Alertmanager picks the moment. Once, it kills the daemon when the create
 * arrives, before Alertmanager sees it: the restarted daemon finds the create in its outbox and
 * makes the silence. Once, it passes the create on and kills the daemon when Alertmanager has
 * answered, before the daemon reads the answer: the silence exists but the daemon never learnt
 * its id, and the retried create finds it by the marker in its comment instead of making a second.
 * And a mirrored silence expired by hand in Alertmanager is made again while avahealth's lasts.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SimServer } from '../../src/sim/server.js';
import { runDaemon, type RunningCli } from '../helpers/cli.js';
import { closedPort, get, startSim, waitFor, writeConfig } from '../helpers/harness.js';
import { requireTool } from '../helpers/tools.js';

const alertmanagerBin = requireTool('prometheus-alertmanager', 'the silence mirror crash test against a real Alertmanager', ['prometheus-alertmanager', 'alertmanager']);

type AmAlert = { labels: Record<string, string>; status: { state: string; silencedBy: string[] } };
type AmSilence = { id: string; comment: string; status: { state: string } };

/** What the proxy does with the next POST /api/v2/silences. */
type OnCreate = 'pass' | 'kill-before' | 'kill-after';

describe.skipIf(!alertmanagerBin)('SIGKILL between a silence and its mirror at Alertmanager; a mirror expired by hand', () => {
  let sim: SimServer;
  let alertmanager: ChildProcess;
  let amUrl: string;
  let proxy: Server;
  let proxyUrl: string;
  let onCreate: OnCreate = 'pass';
  let creates = 0;
  let daemon: RunningCli | undefined;
  let configFile: string;

  const matching = async (id: string) => (JSON.parse((await get(`${amUrl}/api/v2/silences`)).body) as AmSilence[]).filter((s) => s.comment.includes(` silence ${id} `));
  const muted = async (amId: string) => {
    const alerts = (JSON.parse((await get(`${amUrl}/api/v2/alerts`)).body) as AmAlert[]).filter((a) => a.labels.target === 'n1');
    return alerts.length > 0 && alerts.every((a) => a.status.state === 'suppressed' && a.status.silencedBy.includes(amId));
  };
  const silence = async (comment: string) => {
    const res = await request(`${daemon!.url}/api/v1/silences`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ matchers: { target: 'n1' }, endsAt: new Date(Date.now() + 3600_000).toISOString(), comment, createdBy: 'ops' }),
    });
    expect(res.statusCode).toBe(200);
    return ((await res.body.json()) as { id: string }).id;
  };
  const start = async () => {
    daemon = await runDaemon(configFile, {}, ['--web.enable-admin-api']);
  };
  /** The daemon killed by the proxy, and started again on the same state_dir. */
  const restartAfterKill = async () => {
    expect(await daemon!.exit).toBeNull(); // killed by a signal
    onCreate = 'pass';
    await start();
  };

  beforeAll(async () => {
    const dir = mkdtempSync(join(tmpdir(), 'avahealth-mirror-crash-'));
    writeFileSync(join(dir, 'alertmanager.yml'), 'route: {receiver: none}\nreceivers: [{name: none}]\n');
    const port = await closedPort();
    amUrl = `http://127.0.0.1:${port}`;
    alertmanager = spawn(alertmanagerBin!, [`--config.file=${join(dir, 'alertmanager.yml')}`, `--storage.path=${join(dir, 'data')}`, `--web.listen-address=127.0.0.1:${port}`, '--cluster.listen-address='], { stdio: 'ignore' });
    await waitFor('Alertmanager to be ready', async () => (await get(`${amUrl}/-/ready`).catch(() => ({ status: 0 }))).status === 200, 20_000);

    proxy = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', async () => {
        const create = req.method === 'POST' && req.url === '/api/v2/silences';
        const action = create ? onCreate : 'pass';
        if (create) creates++;
        if (action === 'kill-before') {
          daemon!.child.kill('SIGKILL');
          res.socket?.destroy();
          return;
        }
        const body = Buffer.concat(chunks);
        const answer = await request(`${amUrl}${req.url}`, { method: req.method as 'GET', headers: { 'content-type': 'application/json' }, ...(body.length > 0 ? { body } : {}) });
        const text = await answer.body.text();
        if (action === 'kill-after') {
          daemon!.child.kill('SIGKILL');
          res.socket?.destroy();
          return;
        }
        res.writeHead(answer.statusCode, { 'content-type': 'application/json' });
        res.end(text);
      });
    });
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;

    sim = await startSim([{ name: 'n1', scenario: 'network-down' }]);
    configFile = writeConfig(`
listen: 127.0.0.1:0
state_dir: ./state
nodes:
  - {name: n1, url: "${sim.nodeUrl('n1')}", interval: 1s, endpoints: [health]}
alerts:
  for_polls: 1
  receivers:
    - {name: am, alertmanager: {url: "${proxyUrl}", resend_interval: 1s}}
`);
    await start();
    await waitFor('n1 firing at Alertmanager', async () => (JSON.parse((await get(`${amUrl}/api/v2/alerts`)).body) as AmAlert[]).some((a) => a.labels.target === 'n1'), 30_000);
  }, 60_000);

  afterAll(async () => {
    daemon?.child.kill('SIGKILL');
    await daemon?.exit;
    await sim?.close();
    await new Promise((resolve) => proxy?.close(resolve));
    alertmanager?.kill('SIGTERM');
  });

  it('killed before the create reached Alertmanager: after the restart the queued create makes the one silence', { timeout: 90_000 }, async () => {
    onCreate = 'kill-before';
    const before = creates;
    const id = await silence('killed before');
    await restartAfterKill();
    await daemon!.waitForOutput(new RegExp(`"silence":"${id}".*silence mirrored to Alertmanager`), 30_000);
    const [made] = await matching(id);
    await waitFor('the alerts muted by it', () => muted(made!.id), 30_000);
    expect((await matching(id)).map((s) => s.status.state)).toEqual(['active']);
    expect(creates - before).toBe(2); // the one killed on the way, and the retry
  });

  it('killed after Alertmanager made it, before the daemon read its id: the retried create finds it, and makes no second', { timeout: 90_000 }, async () => {
    onCreate = 'kill-after';
    const before = creates;
    const id = await silence('killed after');
    await restartAfterKill();
    await daemon!.waitForOutput(new RegExp(`"silence":"${id}".*silence mirrored to Alertmanager`), 30_000);
    const [made] = await matching(id);
    await waitFor('the alerts muted by it', () => muted(made!.id), 30_000);
    // the daemon has taken it for its own: expiring the avahealth silence expires it there
    expect(await matching(id)).toHaveLength(1);
    expect(creates - before).toBe(1);
    const res = await request(`${daemon!.url}/api/v1/silences/${id}`, { method: 'DELETE' });
    await res.body.dump();
    await waitFor('the silence expired at Alertmanager', async () => (await matching(id)).every((s) => s.status.state === 'expired'), 30_000);
    expect(await matching(id)).toHaveLength(1);
  });

  it('a mirrored silence expired by hand at Alertmanager is made again, once', { timeout: 90_000 }, async () => {
    const id = await silence('expired by hand');
    await daemon!.waitForOutput(new RegExp(`"silence":"${id}".*silence mirrored to Alertmanager`), 30_000);
    const [first] = await matching(id);
    const res = await request(`${amUrl}/api/v2/silence/${first!.id}`, { method: 'DELETE' });
    await res.body.dump();
    expect(res.statusCode).toBe(200);
    const again = await waitFor('a new silence made for it', async () => (await matching(id)).find((s) => s.status.state === 'active' && s.id !== first!.id), 30_000);
    await waitFor('the alerts muted by it', () => muted(again.id), 30_000);
    expect((await matching(id)).filter((s) => s.status.state === 'active')).toHaveLength(1);
  });
});
