/**
 * Issue 26's small things, each through the built CLI or the config loader: a mistyped option gets
 * a suggestion, duration thresholds take `14d`, a garbage answer is shown as what it is, `simulate`
 * writes the schema its config names and uses the chosen listen, `demo` leaves no temporary
 * directory behind, and the README counts the dashboards there are.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SCENARIOS } from '../../src/sim/scenarios.js';
import { SERVICE_SCENARIOS } from '../../src/sim/services.js';
import { ROOT, runCli, startCli } from '../helpers/cli.js';
import { get, startDaemon, startSim, waitFor, writeConfig } from '../helpers/harness.js';

describe('small things (issue 26)', () => {
  it('a mistyped option gets "did you mean"', async () => {
    expect(await runCli(['validate', '--confg', 'x.yaml'])).toMatchObject({ code: 2, stderr: expect.stringContaining('unknown option --confg (did you mean --config?)') });
    expect(await runCli(['check', '--fromat', 'json'])).toMatchObject({ code: 2, stderr: expect.stringContaining('(did you mean --format?)') });
    expect(await runCli(['check', '--zzzzzzzz'])).toMatchObject({ code: 2, stderr: expect.stringContaining('unknown option --zzzzzzzz\n') });
  });

  it('a node answering garbage shows as bad_json in check, not UNREACHABLE', async () => {
    const sim = await startSim([{ name: 'garbled', scenario: 'truncated' }, { name: 'gone', scenario: 'healthy' }]);
    try {
      const file = writeConfig(`nodes:\n  - {name: garbled, url: "${sim.nodeUrl('garbled')}"}\n  - {name: gone, url: "http://127.0.0.1:1"}\n`);
      const result = await runCli(['check', '--config', file]);
      expect(result.stdout).toMatch(/^garbled +BAD_JSON +no usable answer \(counted unreachable\): health: bad_json/m);
      expect(result.stdout).toMatch(/^gone +UNREACHABLE +health: connect/m);
      const json = JSON.parse((await runCli(['check', '--config', file, '--format', 'json'])).stdout) as { targets: Array<{ name: string; state: string; failure?: string }> };
      expect(json.targets.find((t) => t.name === 'garbled')).toMatchObject({ state: 'unreachable', failure: 'bad_json' });
      expect(json.targets.find((t) => t.name === 'gone')!.failure).toBeUndefined();
      // the status page says the same
      const d = await startDaemon(`listen: 127.0.0.1:0\nnodes:\n  - {name: garbled, url: "${sim.nodeUrl('garbled')}", interval: 1s}\n`);
      try {
        await waitFor('garbled polled', () => d.daemon.ready, 15_000);
        const row = /<tr class="unreachable">[\s\S]*?<\/tr>/.exec((await get(`${d.url}/`)).body)![0];
        expect(row).toContain('✖ bad json');
        expect(row).not.toContain('✖ unreachable');
      } finally {
        await d.stop();
      }
    } finally {
      await sim.close();
    }
  });

  it('simulate --config-out writes the schema its config names, with the chosen --listen', async () => {
    const out = join(mkdtempSync(join(tmpdir(), 'avahealth-simulate-')), 'sim.yaml');
    const sim = startCli(['simulate', '--nodes', '1', '--port', '0', '--listen', '127.0.0.1:9777', '--config-out', out]);
    try {
      await sim.waitForOutput(/config: /);
      const yaml = readFileSync(out, 'utf8');
      expect(yaml).toContain('$schema=./avahealth.schema.json');
      expect(yaml).toContain('listen: 127.0.0.1:9777');
      expect(readFileSync(join(dirname(out), 'avahealth.schema.json'), 'utf8')).toBe(readFileSync(join(ROOT, 'config/avahealth.schema.json'), 'utf8'));
      expect(sim.output()).toContain('/restart -d \'{"l1":true}\'');
    } finally {
      sim.child.kill('SIGTERM');
      await sim.exit;
    }
    const help = await runCli(['simulate', '--help']);
    expect(help.stdout).toContain('POST /sim/nodes/NAME/restart');
    expect(help.stdout).toContain('{"l1":true}');
    // A new user learns the scenario names from the help, not from an error message.
    for (const name of [...Object.keys(SCENARIOS), ...Object.keys(SERVICE_SCENARIOS)]) expect(help.stdout).toMatch(new RegExp(`^  ${name} +\\S`, 'm'));
  });

  it('demo --help says how to try a silence (the admin API is off by default)', async () => {
    const help = await runCli(['demo', '--help']);
    expect(help.stdout).toMatch(/--web\.enable-admin-api +allow POST \/api\/v1\/silences/);
  });

  it('demo removes its temporary directory when stopped', async () => {
    const tmp = mkdtempSync(join(tmpdir(), 'avahealth-demo-parent-'));
    const demo = startCli(['demo', '--port', '0', '--listen', '127.0.0.1:0'], { TMPDIR: tmp });
    try {
      await demo.waitForOutput(/config: +(\S+)/, 30_000);
      const [, config] = demo.output().match(/config: +(\S+)/)!;
      expect(existsSync(config!)).toBe(true);
      await demo.waitForOutput(/first poll round complete|"msg":"listening"|listening/, 30_000);
      // --listen 127.0.0.1:0: the printed URLs carry the port the daemon got, and answer
      const [, page] = demo.output().match(/status page: +(\S+)/)!;
      expect(page).not.toMatch(/:0\/$/);
      expect((await get(page!)).status).toBe(200);
      demo.child.kill('SIGINT');
      expect(await demo.exit).toBe(0);
      expect(readdirSync(tmp).filter((f) => f.startsWith('avahealth-demo-'))).toEqual([]);
    } finally {
      demo.child.kill('SIGKILL');
      rmSync(tmp, { recursive: true, force: true });
    }
  }, 60_000);

  it('README counts the dashboards there are', () => {
    const count = readdirSync(join(ROOT, 'dashboards')).filter((f) => f.endsWith('.json')).length;
    const words = ['zero', 'one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine'];
    expect(readFileSync(join(ROOT, 'README.md'), 'utf8')).toContain(`Import the ${words[count]} dashboards`);
  });
});
