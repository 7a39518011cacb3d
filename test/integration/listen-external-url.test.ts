/**
 * `--listen` moves the default `external_url` (the base of the links in notifications) with it,
 * through reloads too; an `external_url:` the config sets stays as it is.
 */
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SimServer } from '../../src/sim/server.js';
import { startCapture } from '../helpers/capture.js';
import { startCli, type LongRunning } from '../helpers/cli.js';
import { closedPort, get, setScenario, startSim, waitFor, writeConfig } from '../helpers/harness.js';

type Hook = { status: string; externalURL: string; alerts: Array<{ generatorURL: string }> };

describe('--listen and the default external_url', () => {
  let sim: SimServer;
  let capture: Awaited<ReturnType<typeof startCapture>>;
  const running: LongRunning[] = [];

  beforeAll(async () => {
    sim = await startSim([
      { name: 'n1', scenario: 'network-down' },
      { name: 'n2', scenario: 'network-down' },
    ]);
    capture = await startCapture(() => ({ status: 200 }));
  });

  afterAll(async () => {
    for (const cli of running) cli.child.kill('SIGTERM');
    await Promise.all(running.map((cli) => cli.exit));
    await sim?.close();
    await capture?.close();
  });

  /** A daemon on `--listen 127.0.0.1:<port>` whose config says `listen: 127.0.0.1:9` and, maybe, an external_url. */
  async function start(node: string, externalUrl?: string): Promise<{ url: string; hooks: () => Hook[] }> {
    const port = await closedPort();
    const file = writeConfig(`
listen: 127.0.0.1:9
${externalUrl ? `external_url: ${externalUrl}` : ''}
nodes:
  - {name: ${node}, url: "${sim.nodeUrl(node)}", interval: 1s, validator: false}
alerts:
  for_polls: 1
  receivers:
    - {name: hook, webhook: {url: "${capture.url}/${node}"}}
`);
    const cli = startCli(['run', '--config', file, '--listen', `127.0.0.1:${port}`, '--web.enable-lifecycle']);
    running.push(cli);
    const url = `http://127.0.0.1:${port}`;
    await waitFor(`the daemon on ${url}`, async () => (await get(`${url}/-/ready`).catch(() => ({ status: 0 }))).status === 200, 30_000).catch((err: Error) => {
      throw new Error(`${err.message}\n${cli.output()}`);
    });
    return { url, hooks: () => capture.on(`/${node}`).map((r) => r.json as Hook) };
  }

  it('links notifications to the --listen address when the config sets no external_url, before and after a reload', async () => {
    const { url, hooks } = await start('n1');
    const firing = await waitFor('the firing notification', () => hooks().find((h) => h.status === 'firing'), 15_000);
    expect(firing.externalURL).toBe(url);
    expect(new URL(firing.alerts[0]!.generatorURL).origin).toBe(url);

    const reload = await request(`${url}/-/reload`, { method: 'POST' });
    expect([reload.statusCode, await reload.body.text()]).toEqual([200, 'config reloaded\n']);
    await setScenario(sim, 'n1', 'healthy');
    const resolved = await waitFor('the resolve', () => hooks().find((h) => h.status === 'resolved'), 15_000);
    expect(resolved.externalURL).toBe(url);
  });

  it('keeps the external_url the config sets', async () => {
    const { hooks } = await start('n2', 'https://avahealth.example/ops');
    const firing = await waitFor('the firing notification', () => hooks().find((h) => h.status === 'firing'), 15_000);
    expect(firing.externalURL).toBe('https://avahealth.example/ops');
  });
});
