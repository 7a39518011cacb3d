/**
 * The default `external_url` of a daemon listening on an IPv6 address: the brackets stay, and an
 * unspecified address (`::`, like `0.0.0.0`) becomes loopback, so the link in a notification is
 * a URL that opens the target's page. Against the built CLI on a real [::] socket.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SimServer } from '../../src/sim/server.js';
import { startCapture } from '../helpers/capture.js';
import { startCli } from '../helpers/cli.js';
import { closedPort, get, startSim, waitFor, writeConfig } from '../helpers/harness.js';

type Hook = { status: string; externalURL: string; alerts: Array<{ generatorURL: string }> };

describe('external_url defaults from an IPv6 listen address', () => {
  let sim: SimServer;
  let capture: Awaited<ReturnType<typeof startCapture>>;
  beforeAll(async () => {
    sim = await startSim([{ name: 'n1', scenario: 'network-down' }]);
    capture = await startCapture(() => ({ status: 200 }));
  });
  afterAll(async () => {
    await sim?.close();
    await capture?.close();
  });

  it('listen "[::]:PORT" links notifications to http://[::1]:PORT, which serves the target page', { timeout: 60_000 }, async () => {
    const port = await closedPort();
    const file = writeConfig(`
listen: "[::]:${port}"
nodes:
  - {name: n1, url: "${sim.nodeUrl('n1')}", interval: 1s, validator: false}
alerts:
  for_polls: 1
  receivers:
    - {name: hook, webhook: {url: "${capture.url}/hook"}}
`);
    const daemon = startCli(['run', '--config', file]);
    try {
      await daemon.waitForOutput(/avahealth started/);
      const hook = await waitFor('the firing notification', () => capture.on('/hook').map((r) => r.json as Hook).find((h) => h.status === 'firing'), 20_000);
      expect(hook.externalURL).toBe(`http://[::1]:${port}`);
      const link = hook.alerts[0]!.generatorURL;
      expect(link).toBe(`http://[::1]:${port}/targets/n1`);
      const page = await get(link);
      expect(page.status).toBe(200);
      expect(page.body).toContain('n1');
    } finally {
      daemon.child.kill('SIGTERM');
      await daemon.exit;
    }
  });
});
