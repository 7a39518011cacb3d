/**
 * `check` beside a running daemon (issue 48): the daemon's open incidents are what on-call was
 * told, so `check` (whole and `--target`) reports the daemon's verdicts, says that it did, and
 * gives every target the same state word as /api/v1/status and the status page. Real daemons
 * (dist/cli.js run) on the simulator, the real `check` CLI beside them:
 * - a flapping check: the daemon pages it and keeps it open (resolve_polls), and `check` lands
 *   between two failures (the node passes now); its own round alone would say OK;
 * - a hosted API's outage that goes on behind HTTP 429: the daemon keeps the incident open (its
 *   rules cannot know, UNKNOWN), and a service that was healthy before its 429 stays healthy:
 *   check alone would say PENDING for both;
 * - the upgrade deadline said in the fleet page's summary and in check's text;
 * - a daemon whose API asks for a password: check runs its own round, adds the open incidents the
 *   daemon saved in state_dir, and says so.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import bcrypt from 'bcryptjs';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SimServer } from '../../src/sim/server.js';
import { runCli, runDaemon, stopCli, type RunningCli } from '../helpers/cli.js';
import { startFleet, type Fleet } from '../helpers/fleet.js';
import { get, setScenario, waitFor, writeConfig } from '../helpers/harness.js';

type Incident = { alertname: string; severity: string; state: string; heldBy?: string };
type Target = { name: string; state: string; summary: string; incidents: Incident[] };
type CheckJson = { state: string; exitCode: number; verdicts: { daemon?: { pid: number; url?: string; targets: string[] }; round: string[] }; targets: Target[] };

const statusOf = async (url: string) => (JSON.parse((await get(`${url}/api/v1/status`)).body) as { targets: Target[] }).targets;
const checkJson = async (file: string, ...args: string[]) => {
  const run = await runCli(['check', '--config', file, '--format', 'json', ...args]);
  return { code: run.code, report: JSON.parse(run.stdout) as CheckJson };
};
const checkText = async (file: string, ...args: string[]) => runCli(['check', '--config', file, ...args]);
/** The state word of a target's row on the fleet page (its badge's class). */
function pageState(page: string, name: string): string | undefined {
  const row = page.slice(page.indexOf(`href="/targets/${name}"`));
  return /<span class="badge (\w+)">/.exec(row.slice(0, row.indexOf('</tr>')))?.[1];
}
const postService = async (sim: SimServer, kind: 'data-api' | 'metrics-api', body: object) => {
  const res = await request(`${sim.baseUrl}/sim/services/${kind}/scenario`, { method: 'POST', body: JSON.stringify(body) });
  await res.body.dump();
};

/**
 * Every surface at one moment: the API, the fleet page, check (JSON and text) and check --target
 * each give the target the same state word. The daemon decides in polls, so the surfaces are
 * read until two reads of the API agree around them (a poll between is no disagreement).
 */
async function sameEverywhere(url: string, file: string, name: string): Promise<{ api: Target; check: CheckJson; text: string }> {
  return waitFor(
    `one state word for ${name} on every surface`,
    async () => {
      const before = (await statusOf(url)).find((t) => t.name === name)!;
      const page = (await get(`${url}/`)).body;
      const whole = await checkJson(file);
      const one = await checkJson(file, '--target', name);
      const text = await checkText(file, '--target', name);
      const after = (await statusOf(url)).find((t) => t.name === name)!;
      if (before.state !== after.state || before.summary !== after.summary) return undefined;
      const checked = whole.report.targets.find((t) => t.name === name)!;
      expect(checked.state).toBe(after.state);
      expect(one.report.targets.map((t) => t.state)).toEqual([after.state]);
      expect(pageState(page, name)).toBe(after.state);
      expect(text.stdout).toMatch(new RegExp(`^${name} +${after.state.toUpperCase()} `, 'm'));
      expect(one.report.targets[0]!.incidents.map((i) => i.alertname)).toEqual(after.incidents.map((i) => i.alertname));
      return { api: after, check: one.report, text: text.stdout };
    },
    60_000,
  );
}

describe('check beside a running daemon: the daemon\'s verdicts, one state word on every surface', () => {
  let fleet: Fleet;

  beforeAll(async () => {
    fleet = await startFleet({
      nodes: [
        { name: 'flappy', scenario: 'flapping', periodMs: 1500 },
        { name: 'steady', scenario: 'healthy', periodMs: 3_600_000 },
        { name: 'due', scenario: 'upgrade-required', upgradeIn: 2 * 86_400, periodMs: 3_600_000 },
      ],
      config: ({ sim, hook, node }) => `
defaults: {endpoints: [health], interval: 1s, timeout: 2s, validator: false}
nodes:
${node('flappy')}
${node('steady')}
${node('due')}
services:
  - {name: data-api, kind: data-api, url: "${sim.serviceUrl('data-api')}", interval: 1s, timeout: 2s}
  - {name: metrics-api, kind: metrics-api, url: "${sim.serviceUrl('metrics-api')}", interval: 1s, timeout: 2s}
alerts:
  for_polls: 1
  # an incident stays open through many good polls: a check that flaps is one incident
  resolve_polls: 1000
  receivers:
    - {name: hook, webhook: {url: "${hook}"}}
`,
    });
  }, 60_000);

  afterAll(() => fleet?.stop());

  const paged = (target: string, alertname: string) => fleet.told({ path: '/hook', status: 'firing', target, alertname }).length > 0;

  it('a flapping check: check lands between two failures and still reports the open incident, as the daemon\'s', { timeout: 120_000 }, async () => {
    await waitFor('the flapping C check paged', () => paged('flappy', 'AvalancheCheckFailing'), 30_000);
    // between two failures: the check passes now (and stays so), the incident stays open
    await setScenario(fleet.sim, 'flappy', 'healthy');
    await waitFor('the daemon polled flappy passing', async () => (await statusOf(fleet.url)).find((t) => t.name === 'flappy')!.summary !== 'failing: C', 20_000);
    const { api, check, text } = await sameEverywhere(fleet.url, fleet.file, 'flappy');
    expect(api.state).not.toBe('healthy');
    expect(api.incidents.map((i) => i.alertname)).toContain('AvalancheCheckFailing');
    // the reply passes: the incident says why
    expect(api.summary).not.toBe('healthy');
    expect(check.verdicts.daemon).toMatchObject({ pid: fleet.daemon.child.pid, targets: ['flappy'] });
    expect(text).toMatch(/^verdicts: the running daemon's \(pid \d+ at http:\/\/127\.0\.0\.1:\d+\): its open incidents are what on-call was told$/m);
    const whole = await checkJson(fleet.file);
    expect(whole.code).toBeGreaterThan(0);
    expect(whole.report.verdicts.round).toEqual([]);
  });

  it('a hosted API\'s outage that goes on behind HTTP 429 stays open in check, as in the daemon; a service healthy before its 429 stays healthy', { timeout: 120_000 }, async () => {
    await postService(fleet.sim, 'data-api', { scenario: 'down' });
    await waitFor('the Data API outage paged', () => paged('data-api', 'AvalancheServiceUnhealthy'), 30_000);
    await postService(fleet.sim, 'data-api', { scenario: 'rate-limited', retryAfterSeconds: 3600 });
    await postService(fleet.sim, 'metrics-api', { scenario: 'rate-limited', retryAfterSeconds: 3600 });
    await waitFor('the daemon rate limited on both', async () => (await statusOf(fleet.url)).filter((t) => /HTTP 429|rate limited/.test(t.summary)).length === 2, 20_000);

    const outage = await sameEverywhere(fleet.url, fleet.file, 'data-api');
    expect(outage.api.state).toBe('warning');
    expect(outage.api.incidents.map((i) => i.alertname)).toContain('AvalancheServiceUnhealthy');
    expect(outage.api.summary).toMatch(/(HTTP 429|rate limited).*its health is not known meanwhile; data-api is unhealthy/);
    expect(outage.text.split('\n')[0]).toMatch(/^WARNING - data-api warning \(AvalancheServiceUnhealthy\) \| .* warning=1;;;0;1 /);

    const quota = await sameEverywhere(fleet.url, fleet.file, 'metrics-api');
    expect(quota.api.state).toBe('healthy');
    // one word for one service: the plugin line counts it as the target line says it
    expect(quota.text.split('\n')[0]).toBe('OK - 1 target healthy | healthy=1;;;0;1 warning=0;;;0;1 unhealthy=0;;;0;1 unreachable=0;;;0;1 pending=0;;;0;1');
  });

  it('the upgrade deadline is in the fleet page\'s summary and in check\'s text, not only "failing: futureupgrade"', { timeout: 60_000 }, async () => {
    await waitFor('the upgrade paged', () => paged('due', 'AvalancheNodeUpgradeRequired'), 30_000);
    const { api, text } = await sameEverywhere(fleet.url, fleet.file, 'due');
    // the deadline first, as the page leads with it; the failing check after
    expect(api.summary).toMatch(/^due: upgrade AvalancheGo before \d{4}-\d\d-\d\d \d\d:\d\d UTC \(in .*; failing: futureupgrade$/);
    expect(text).toMatch(/^due +UNHEALTHY +due: upgrade AvalancheGo before \d{4}-\d\d-\d\d \d\d:\d\d UTC \(in .*; failing: futureupgrade/m);
    const page = (await get(`${fleet.url}/`)).body;
    const row = page.slice(page.indexOf('href="/targets/due"'));
    expect(row.slice(0, row.indexOf('</tr>'))).toMatch(/<div class="why">due: upgrade AvalancheGo before \d{4}-\d\d-\d\d \d\d:\d\d UTC \(in /);
  });

  it('alone, a config whose daemon is not running: check says its verdicts are its own round', async () => {
    const alone = writeConfig(`nodes:\n  - {name: steady, url: "${fleet.sim.nodeUrl('steady')}", endpoints: [health], validator: false}\n`);
    const text = await checkText(alone);
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(/^verdicts: this check's own round \(no avahealth daemon runs on .+\)$/m);
    expect((await checkJson(alone)).report.verdicts).toEqual({ round: ['steady'] });
  });
});

describe('check beside a daemon whose API it cannot ask (basic auth): the incidents it saved in state_dir', () => {
  let sim: SimServer;
  let daemon: RunningCli;
  let file: string;

  beforeAll(async () => {
    sim = new SimServer([{ name: 'flappy', scenario: 'flapping', periodMs: 1500 }]);
    await sim.listen(0);
    file = writeConfig(`
listen: 127.0.0.1:0
defaults: {endpoints: [health], interval: 1s, timeout: 2s, validator: false}
nodes:
  - {name: flappy, url: "${sim.nodeUrl('flappy')}"}
alerts: {for_polls: 1, resolve_polls: 1000}
`);
    const web = join(dirname(file), 'web.yml');
    writeFileSync(web, `basic_auth_users:\n  ops: ${bcrypt.hashSync('correct horse', 4).replace(/^\$2b\$/, '$2y$')}\n`);
    daemon = await runDaemon(file, {}, ['--web.config.file', web]);
  }, 60_000);

  afterAll(async () => {
    await stopCli(daemon);
    await sim?.close();
  });

  it('the check passes now, but the incident the daemon saved is open: not OK, and it says where the verdict came from', { timeout: 90_000 }, async () => {
    const savedFiring = () => {
      try {
        const book = JSON.parse(readFileSync(join(dirname(file), 'data', 'alerts.json'), 'utf8')) as { alerts: Array<{ alertname: string; phase: string }> };
        return book.alerts.some((a) => a.alertname === 'AvalancheCheckFailing' && a.phase === 'firing');
      } catch {
        return false; // not written yet
      }
    };
    await waitFor('the flapping C check saved open by the daemon', savedFiring, 40_000);
    await setScenario(sim, 'flappy', 'healthy');
    const text = await checkText(file);
    expect(text.code).toBeGreaterThan(0);
    expect(text.stdout).toMatch(/^flappy +(WARNING|UNHEALTHY) /m);
    expect(text.stdout).toMatch(/^verdicts: this check's own round, with the open incidents the daemon \(pid \d+ at http:\/\/127\.0\.0\.1:\d+\) saved in .+: its API could not be asked \(GET \/api\/v1\/status answered HTTP 401\)$/m);
    const json = await checkJson(file);
    expect(json.report.verdicts).toMatchObject({ daemon: { pid: daemon.child.pid, targets: [] }, round: ['flappy'] });
  });
});
