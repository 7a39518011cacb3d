import { readFileSync, writeFileSync } from 'node:fs';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SimServer } from '../../src/sim/server.js';
import { startCapture } from '../helpers/capture.js';
import { startCli } from '../helpers/cli.js';
import { get, parseExposition, sample, scrape, series, startDaemon, startSim, waitFor, waitForRounds, writeConfig } from '../helpers/harness.js';

describe('hot reload', () => {
  let sim: SimServer;
  let capture: Awaited<ReturnType<typeof startCapture>>;
  beforeAll(async () => {
    sim = await startSim([
      { name: 'keep', scenario: 'healthy' },
      { name: 'leaving', scenario: 'network-down' },
      { name: 'joining', scenario: 'healthy' },
    ]);
    capture = await startCapture(() => ({ status: 200 }));
  });
  afterAll(async () => {
    await sim.close();
    await capture.close();
  });

  const config = (names: string[], extra = '') =>
    `nodes:\n${names.map((n) => `  - {name: ${n}, url: "${sim.nodeUrl(n)}", interval: 1s, labels: {team: a}}`).join('\n')}\nalerts:\n  for_polls: 1\n  receivers:\n    - {name: hook, webhook: {url: "${capture.url}/hook"}}\n${extra}`;

  it('POST /-/reload adds and removes targets: removed series disappear, their alerts resolve, new ones are polled', async () => {
    const file = writeConfig('');
    const d = await startDaemon(config(['keep', 'leaving']), { file, lifecycle: true });
    try {
      await waitFor('the alert of "leaving" to fire', () => capture.requests.some((r) => (r.json as { status: string; groupLabels: { target: string } }).groupLabels.target === 'leaving'), 15_000);
      expect(sample(await scrape(d.url), 'avahealth_node_healthy', { target: 'leaving', endpoint: 'health', view: 'all' })).toBe(0);
      writeFileSync(file, config(['keep', 'joining']));
      const res = await request(`${d.url}/-/reload`, { method: 'POST' });
      expect([res.statusCode, await res.body.text()]).toEqual([200, 'config reloaded\n']);
      await waitForRounds(d, 'joining', 1);
      const m = await scrape(d.url);
      expect(series(m, 'avahealth_probe_success', { target: 'leaving' })).toEqual([]);
      expect(series(m, 'avahealth_node_check_passing', { target: 'leaving' })).toEqual([]);
      expect(sample(m, 'avahealth_node_healthy', { target: 'joining', endpoint: 'health', view: 'all' })).toBe(1);
      expect(sample(m, 'avahealth_config_last_reload_successful')).toBe(1);
      await waitFor('the resolve of "leaving"', () => capture.requests.some((r) => {
        const body = r.json as { status: string; groupLabels: { target: string } };
        return body.groupLabels.target === 'leaving' && body.status === 'resolved';
      }), 10_000);
      expect(JSON.parse((await get(`${d.url}/api/v1/status`)).body).targets.map((t: { name: string }) => t.name)).toEqual(['keep', 'joining']);
    } finally {
      await d.stop();
    }
  });

  it('a config that does not validate leaves the running one in place, says where, and sets the reload gauge to 0', async () => {
    const file = writeConfig('');
    const d = await startDaemon(config(['keep']), { file, lifecycle: true });
    try {
      await waitForRounds(d, 'keep', 1);
      writeFileSync(file, `${config(['keep'])}bogus_key: 1\n`);
      const res = await request(`${d.url}/-/reload`, { method: 'POST' });
      const body = await res.body.text();
      expect(res.statusCode).toBe(500);
      expect(body).toMatch(new RegExp(`reload failed:\\n${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:\\d+:1: unknown key "bogus_key"`));
      const m = await scrape(d.url);
      expect(sample(m, 'avahealth_config_last_reload_successful')).toBe(0);
      const rounds = d.daemon.store.get('keep')!.rounds;
      await waitForRounds(d, 'keep', rounds + 1); // still polling with the old config
      expect(d.logs()).toContain('config reload failed; keeping the running config');
    } finally {
      await d.stop();
    }
  });

  it('without --web.enable-lifecycle, POST /-/reload is refused', async () => {
    const d = await startDaemon('nodes: []\n', { lifecycle: false });
    try {
      const res = await request(`${d.url}/-/reload`, { method: 'POST' });
      expect([res.statusCode, await res.body.text()]).toEqual([403, 'lifecycle API is not enabled (--web.enable-lifecycle)\n']);
    } finally {
      await d.stop();
    }
  });

  it('--config.watch reloads when the file changes', async () => {
    const file = writeConfig('');
    const d = await startDaemon(config(['keep']), { file, watchConfig: true });
    try {
      await waitForRounds(d, 'keep', 1);
      writeFileSync(file, config(['keep', 'joining']));
      await waitForRounds(d, 'joining', 1);
      expect(d.logs()).toContain('config reloaded');
    } finally {
      await d.stop();
    }
  });

  it('SIGHUP reloads the running daemon', async () => {
    const file = writeConfig(`listen: 127.0.0.1:0\n${config(['keep'])}`);
    const daemon = startCli(['run', '--config', file]);
    try {
      const [, port] = await daemon.waitForOutput(/"address":"127\.0\.0\.1:(\d+)"/);
      writeFileSync(file, `listen: 127.0.0.1:0\n${config(['keep', 'joining'])}`);
      daemon.child.kill('SIGHUP');
      await daemon.waitForOutput(/config reloaded/);
      await waitFor('joining polled', async () => {
        const m = parseExposition((await get(`http://127.0.0.1:${port}/metrics`)).body);
        return sample(m, 'avahealth_node_healthy', { target: 'joining', endpoint: 'health', view: 'all' }) === 1;
      });
      expect(readFileSync(file, 'utf8')).toContain('joining');
    } finally {
      daemon.child.kill('SIGKILL');
    }
  });
});
