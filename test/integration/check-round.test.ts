/**
 * `check` alone runs one round of the daemon's own stages (issue 48): every target polled, then
 * the verdict and incident stages told it is the only round (alerts/round.ts). Through the real
 * CLI on the simulator:
 * - `--target` narrows what is printed, never what is evaluated: validator-5's version drift needs
 *   the Data API (chain data), which `--target validator-5` once left out of its round;
 * - what cannot be known is said: with the Data API rate limited, "version drift unknown: the Data
 *   API could not be read (…)", not a silent OK;
 * - `check` sends nothing, so it runs with a receiver's secret unset (its shape is still checked).
 */
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SimServer } from '../../src/sim/server.js';
import { runCli } from '../helpers/cli.js';
import { startSim, writeConfig } from '../helpers/harness.js';

type Target = { name: string; state: string; summary: string; incidents: Array<{ alertname: string }>; unknown?: string[] };
const checkJson = async (file: string, ...args: string[]) => {
  const run = await runCli(['check', '--config', file, '--format', 'json', ...args]);
  return { code: run.code, targets: (JSON.parse(run.stdout) as { targets: Target[] }).targets, stderr: run.stderr };
};

describe('check alone: one round of the pipeline over the whole config', () => {
  let sim: SimServer;
  let file: string;

  beforeAll(async () => {
    sim = await startSim([
      { name: 'validator-1', scenario: 'healthy' },
      { name: 'validator-5', scenario: 'version-behind' },
    ]);
    file = writeConfig(`
defaults: {endpoints: [health], validator: {interval: 10s}}
nodes:
  - {name: validator-1, url: "${sim.nodeUrl('validator-1')}"}
  - {name: validator-5, url: "${sim.nodeUrl('validator-5')}"}
services:
  - {name: data-api, kind: data-api, url: "${sim.serviceUrl('data-api')}"}
chain_data: {interval: 10s}
`);
  });
  afterAll(async () => {
    await sim?.close();
  });

  it('--target narrows what is printed, not what is judged: validator-5 keeps its version drift', async () => {
    const whole = await checkJson(file);
    const five = whole.targets.find((t) => t.name === 'validator-5')!;
    expect(five.incidents.map((i) => i.alertname)).toContain('AvalancheNodeVersionBehind');
    // a build behind in version that knows every activated upgrade: its chains are fine and it missed none
    expect(five.incidents.map((i) => i.alertname)).not.toContain('AvalancheNodeUpgradeRequired');
    expect(five.state).toBe('warning');
    const one = await checkJson(file, '--target', 'validator-5');
    expect(one.code).toBe(whole.code);
    expect(one.targets).toHaveLength(1);
    expect([one.targets[0]!.state, one.targets[0]!.summary]).toEqual([five.state, five.summary]);
    expect(one.targets[0]!.incidents.map((i) => i.alertname)).toEqual(five.incidents.map((i) => i.alertname));
  });

  it('with the Data API rate limited, what cannot be known is said: version drift unknown, and why', async () => {
    const res = await request(`${sim.baseUrl}/sim/services/data-api/scenario`, { method: 'POST', body: JSON.stringify({ scenario: 'rate-limited', retryAfterSeconds: 3600 }) });
    await res.body.dump();
    try {
      const one = await checkJson(file, '--target', 'validator-5');
      const five = one.targets[0]!;
      expect(five.unknown).toEqual([expect.stringMatching(/^version drift unknown: the Data API could not be read \((HTTP 429|rate limited)/)]);
      expect(five.summary).toMatch(/; version drift unknown: the Data API could not be read/);
      const text = await runCli(['check', '--config', file, '--target', 'validator-5']);
      // v1.15.0 knows Helicon (releases/v1.15.0-fuji version/constants.go, RELEASES.md): behind in version only, no missed upgrade.
      expect(text.stdout, text.stdout).toMatch(/^validator-5 +HEALTHY +.*version drift unknown: the Data API could not be read \(/m);
      // the service itself answered nothing in this round: one word for it, pending, on every line
      const api = await runCli(['check', '--config', file, '--target', 'data-api']);
      expect(api.stdout.split('\n')[0]).toBe('OK - 1 target pending | healthy=0;;;0;1 warning=0;;;0;1 unhealthy=0;;;0;1 unreachable=0;;;0;1 pending=1;;;0;1');
      expect(api.stdout).toMatch(/^data-api +PENDING +/m);
    } finally {
      const back = await request(`${sim.baseUrl}/sim/services/data-api/scenario`, { method: 'POST', body: JSON.stringify({ scenario: 'healthy' }) });
      await back.body.dump();
    }
  });

  it('runs with a receiver\'s secret unset (check sends nothing), and still checks receivers\' shapes', async () => {
    const receivers = (telegram: string) =>
      writeConfig(`
nodes:
  - {name: validator-1, url: "${sim.nodeUrl('validator-1')}", endpoints: [health], validator: false}
alerts:
  receivers:
    - {name: oncall, telegram: ${telegram}}
    - {name: hook, webhook: {url: "\${AVAHEALTH_TEST_UNSET_HOOK}"}}
`);
    const env = { AVAHEALTH_TEST_UNSET_TOKEN: undefined, AVAHEALTH_TEST_UNSET_HOOK: undefined };
    delete process.env.AVAHEALTH_TEST_UNSET_TOKEN;
    delete process.env.AVAHEALTH_TEST_UNSET_HOOK;
    const unset = await runCli(['check', '--config', receivers('{bot_token: "${AVAHEALTH_TEST_UNSET_TOKEN}", chat_id: -100123}')], env);
    expect([unset.code, unset.stdout.split('\n')[0]]).toEqual([0, expect.stringMatching(/^OK - 1 target healthy/)]);
    // the daemon needs it: `validate` and `run` still refuse the config
    expect((await runCli(['validate', '--config', receivers('{bot_token: "${AVAHEALTH_TEST_UNSET_TOKEN}", chat_id: -100123}')], env)).code).toBe(1);
    // a receiver's shape is still checked: no chat_id, an unknown key
    const noChat = await runCli(['check', '--config', receivers('{bot_token: "${AVAHEALTH_TEST_UNSET_TOKEN}"}')], env);
    expect([noChat.code, noChat.stderr]).toEqual([3, expect.stringContaining('telegram needs a chat_id')]);
    const unknownKey = await runCli(['check', '--config', receivers('{bot_token: "${AVAHEALTH_TEST_UNSET_TOKEN}", chat_id: -100123, chat: 1}')], env);
    expect([unknownKey.code, unknownKey.stderr]).toEqual([3, expect.stringContaining('unknown key "chat"')]);
  });
});
