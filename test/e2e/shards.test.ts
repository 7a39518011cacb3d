/**
 * Three real daemon processes on one config split a simulated fleet of 30 nodes the way the
 * sharded Kubernetes overlay runs them: shards 0/3 and 2/3 by number, shard 1 as `auto/3` taking its
 * index from HOSTNAME (a StatefulSet pod's name). Every node is polled by exactly one shard, and the
 * shards are balanced within 30 %.
 */
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inShard } from '../../src/shard.js';
import { fleetConfigYaml, uniformFleet } from '../../src/sim/fleet.js';
import { SimServer } from '../../src/sim/server.js';
import { startCapture } from '../helpers/capture.js';
import { startCli, type LongRunning } from '../helpers/cli.js';
import { closedPort, get, scrape, series, waitFor, writeConfig } from '../helpers/harness.js';

const FLEET = uniformFleet(30);
const SHARDS = [
  { shard: '0/3', env: {} },
  { shard: 'auto/3', env: { HOSTNAME: 'avahealth-shard-1' } },
  { shard: '2/3', env: {} },
];

describe('three shards on one config', () => {
  let sim: SimServer;
  const daemons: Array<{ process: LongRunning; url: string }> = [];

  beforeAll(async () => {
    sim = new SimServer(FLEET.map((n) => ({ ...n, periodMs: 3_600_000 })));
    await sim.listen(0);
    // One config for all three; each process keeps its state in its own directory, as each pod of
    // the StatefulSet has its own volume.
    const config = writeConfig(`${fleetConfigYaml(FLEET, { baseUrl: sim.baseUrl, interval: '1s', services: false })}state_dir: \${AVAHEALTH_STATE_DIR}\n`);
    for (const { shard, env } of SHARDS) {
      const port = await closedPort();
      const stateDir = mkdtempSync(join(tmpdir(), 'avahealth-shard-'));
      const child = startCli(['run', '--config', config, '--listen', `127.0.0.1:${port}`, '--shard', shard], { AVAHEALTH_STATE_DIR: stateDir, ...env });
      daemons.push({ process: child, url: `http://127.0.0.1:${port}` });
    }
    for (const { process, url } of daemons)
      await waitFor(`the shard at ${url} to finish its first round`, async () => (await get(`${url}/-/ready`).catch(() => ({ status: 0 }))).status === 200, 60_000).catch((err: Error) => {
        throw new Error(`${err.message}\n${process.output()}`);
      });
  }, 90_000);

  afterAll(async () => {
    for (const { process } of daemons) process.child.kill('SIGTERM');
    await Promise.all(daemons.map((d) => d.process.exit));
    await sim?.close();
  });

  it('poll every node exactly once between them, balanced within 30 %', async () => {
    const polled: string[][] = [];
    for (const { url } of daemons) {
      const status = JSON.parse((await get(`${url}/api/v1/status`)).body) as { targets: Array<{ name: string }> };
      const samples = await scrape(url);
      // What this shard actually polled: a recorded health probe of the node (the series exists once
      // a poll finished; on a loaded machine a poll may time out, which still counts as polled).
      const probed = series(samples, 'avahealth_probe_success', { endpoint: 'health', view: 'all' })
        .map((s) => s.labels.target!)
        .sort();
      expect(status.targets.map((t) => t.name).sort(), url).toEqual(probed);
      polled.push(probed);
    }
    const all = polled.flat();
    expect(all.sort()).toEqual(FLEET.map((n) => n.name).sort());
    expect(new Set(all).size).toBe(FLEET.length);
    const fair = FLEET.length / SHARDS.length;
    for (const [i, names] of polled.entries()) {
      expect(names.length, `shard ${i}: ${names.join(' ')}`).toBeGreaterThanOrEqual(Math.ceil(fair * 0.7));
      expect(names.length, `shard ${i}: ${names.join(' ')}`).toBeLessThanOrEqual(Math.floor(fair * 1.3));
    }
  });
});

describe('changing the number of shards', () => {
  it('a shard stops re-sending the alerts of a target that moved to another shard', { timeout: 90_000 }, async () => {
    const fleet = uniformFleet(6);
    const names = fleet.map((n) => n.name);
    // one failing node that leaves shard 0 when N goes from 1 to 3, one that stays in it
    const moved = names.find((n) => !inShard(n, { index: 0, count: 3 }))!;
    const stays = names.find((n) => inShard(n, { index: 0, count: 3 }))!;
    const sim = new SimServer(fleet.map((n) => ({ ...n, periodMs: 3_600_000, scenario: n.name === moved || n.name === stays ? 'network-down' : 'healthy' })));
    await sim.listen(0);
    const alertmanager = await startCapture(() => ({ status: 200 }));
    const config = writeConfig(
      `${fleetConfigYaml(fleet, { baseUrl: sim.baseUrl, interval: '1s', services: false })}state_dir: \${AVAHEALTH_STATE_DIR}\n` +
        `alerts:\n  for_polls: 1\n  receivers:\n    - {name: am, alertmanager: {url: "${alertmanager.url}", resend_interval: 1s}}\n`,
    );
    const stateDir = mkdtempSync(join(tmpdir(), 'avahealth-reshard-'));
    // the alerts POSTed (a shard of several also GETs the active alerts at start: receivers/alertmanager/adopt.ts)
    const posted = (from: number, target: string) => alertmanager.requests.slice(from).filter((r) => Array.isArray(r.json) && (r.json as Array<{ labels: { target: string } }>).some((a) => a.labels.target === target)).length;
    const run = async (shard: string) => {
      const port = await closedPort();
      return { child: startCli(['run', '--config', config, '--listen', `127.0.0.1:${port}`, '--shard', shard], { AVAHEALTH_STATE_DIR: stateDir }), url: `http://127.0.0.1:${port}` };
    };
    try {
      const one = await run('0/1');
      await waitFor(`alerts of ${moved} and ${stays} at Alertmanager`, () => posted(0, moved) > 0 && posted(0, stays) > 0, 30_000);
      one.child.child.kill('SIGTERM');
      await one.child.exit;
      expect(existsSync(join(stateDir, 'alerts.json'))).toBe(true);

      const from = alertmanager.requests.length;
      const three = await run('0/3');
      try {
        // the target that stayed keeps its restored alert and is re-sent; the one that moved is dropped without a word
        await waitFor(`${stays} re-sent three times by shard 0/3`, () => posted(from, stays) >= 3, 30_000);
        expect(posted(from, moved)).toBe(0);
        const active = JSON.parse((await get(`${three.url}/api/v1/alerts`)).body) as { alerts: Array<{ target: string }> };
        expect(active.alerts.map((a) => a.target)).not.toContain(moved);
        expect(active.alerts.map((a) => a.target)).toContain(stays);
      } finally {
        three.child.child.kill('SIGTERM');
        await three.child.exit;
      }
    } finally {
      await sim.close();
      await alertmanager.close();
    }
  });
});
