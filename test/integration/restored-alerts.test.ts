import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inShard } from '../../src/shard.js';
import type { SimServer } from '../../src/sim/server.js';
import { startCapture } from '../helpers/capture.js';
import { closedPort, get, startDaemon, startSim, waitFor, waitForRounds } from '../helpers/harness.js';

type Hook = { status: string; alerts: { status: string; labels: Record<string, string>; annotations: Record<string, string> }[] };

/** Alerts restored at start for targets this daemon no longer watches: a real daemon, stopped and started again on one state_dir. */
describe('restored alerts of targets no longer watched', () => {
  let sim: SimServer;
  let capture: Awaited<ReturnType<typeof startCapture>>;
  let downUrl: string;

  beforeAll(async () => {
    sim = await startSim([{ name: 'healthy-1', scenario: 'healthy' }]);
    capture = await startCapture();
    downUrl = `http://127.0.0.1:${await closedPort()}`;
  });
  afterAll(async () => {
    await sim?.close();
    await capture?.close();
  });

  const config = (stateDir: string, withDown: boolean) => `
listen: 127.0.0.1:0
state_dir: ${stateDir}
nodes:
  - {name: healthy-1, url: "${sim.nodeUrl('healthy-1')}", interval: 1s, validator: false}
${withDown ? `  - {name: gone, url: "${downUrl}", interval: 1s, timeout: 500ms, validator: false}` : ''}
alerts:
  receivers:
    - {name: hook, webhook: {url: "${capture.url}/hook-${stateDir.slice(-6)}"}}
`;
  const hooks = (stateDir: string) => capture.on(`/hook-${stateDir.slice(-6)}`).map((r) => r.json as Hook);
  const about = (hook: Hook, target: string) => hook.alerts.filter((a) => a.labels.target === target);

  async function fireGone(stateDir: string): Promise<void> {
    const d = await startDaemon(config(stateDir, true));
    await waitFor('the page for the unreachable node', () => hooks(stateDir).some((h) => about(h, 'gone').some((a) => a.status === 'firing')), 20_000);
    await d.stop();
  }

  it('a target removed from the config while the daemon was down is resolved at the next start', async () => {
    const stateDir = mkdtempSync(join(tmpdir(), 'avahealth-restored-'));
    await fireGone(stateDir);
    const d = await startDaemon(config(stateDir, false));
    try {
      await waitFor('the resolve for the removed node', () => hooks(stateDir).some((h) => about(h, 'gone').some((a) => a.status === 'resolved')), 15_000);
      const alerts = JSON.parse((await get(`${d.url}/api/v1/alerts`)).body) as { alerts: { labels: Record<string, string> }[] };
      expect(alerts.alerts.filter((a) => a.labels.target === 'gone')).toEqual([]);
    } finally {
      await d.stop();
    }
  });

  it('a discovered target gone while the daemon was down is resolved at the next start once every discovery source answered', async () => {
    const stateDir = mkdtempSync(join(tmpdir(), 'avahealth-restored-'));
    const sdFile = join(stateDir, 'fleet.json');
    const gone = downUrl.replace('http://', '');
    const discovered = gone; // host:port is the discovered target's name
    const withSd = (targets: string[]) => {
      writeFileSync(sdFile, JSON.stringify([{ targets }]));
      return `listen: 127.0.0.1:0\nstate_dir: ${stateDir}\ndefaults: {interval: 1s, timeout: 500ms, validator: false}\ndiscovery:\n  file_sd:\n    - {files: ["${sdFile}"], refresh_interval: 1s}\n` +
        `alerts:\n  receivers:\n    - {name: hook, webhook: {url: "${capture.url}/hook-${stateDir.slice(-6)}"}}\n`;
    };
    const first = await startDaemon(withSd([gone]));
    await waitFor('the page for the unreachable discovered node', () => hooks(stateDir).some((h) => about(h, discovered).some((a) => a.status === 'firing')), 20_000);
    await first.stop();
    const d = await startDaemon(withSd([sim.nodeUrl('healthy-1').replace('http://', '').split('/')[0]!]));
    try {
      await waitFor('the resolve for the vanished node', () => hooks(stateDir).some((h) => about(h, discovered).some((a) => a.status === 'resolved')), 15_000);
      expect(d.daemon.alerts.list().filter((a) => a.target === discovered)).toEqual([]);
    } finally {
      await d.stop();
    }
  });

  it("a target now in another shard is resolved at the webhook once, saying why, and gone from the state file", async () => {
    const stateDir = mkdtempSync(join(tmpdir(), 'avahealth-restored-'));
    await fireGone(stateDir);
    const shard = [0, 1].map((index) => ({ index, count: 2 })).find((s) => !inShard('gone', s) && inShard('healthy-1', s));
    const fallback = [0, 1, 2].map((index) => ({ index, count: 3 })).find((s) => !inShard('gone', s) && inShard('healthy-1', s));
    const chosen = shard ?? fallback!;
    const sentBefore = hooks(stateDir).length;
    const d = await startDaemon(config(stateDir, true), { shard: chosen });
    try {
      await waitForRounds(d, 'healthy-1', 3);
      const told = hooks(stateDir).slice(sentBefore).flatMap((h) => about(h, 'gone'));
      expect(told.length).toBeGreaterThan(0);
      for (const alert of told) expect(alert).toMatchObject({ status: 'resolved', annotations: { description: expect.stringContaining('target moved to another shard') } });
      const alerts = JSON.parse((await get(`${d.url}/api/v1/alerts`)).body) as { alerts: { labels: Record<string, string> }[] };
      expect(alerts.alerts.filter((a) => a.labels.target === 'gone')).toEqual([]);
      expect(d.logs()).toContain('restored alerts of a target that moved to another shard handed over');
    } finally {
      await d.stop();
    }
    const saved = JSON.parse(readFileSync(join(stateDir, 'alerts.json'), 'utf8')) as { alerts: { target: string }[] };
    expect(saved.alerts.filter((a) => a.target === 'gone')).toEqual([]);
  });
});
