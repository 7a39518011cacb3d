/**
 * One verdict for every surface (#34.4): a target's state on the status page, in /api/v1/status,
 * in `check` (whole and `--target`) follows the incidents open for it, with their severity and
 * scope, as a webhook receiver sees them. Through the real daemon, its webhook, its API and page,
 * and the real `check` CLI:
 * - a node lagging 120 blocks (the height lag needs the fleet's heights and chain data): the
 *   daemon pages AvalancheNodeHeightLag, the page and the API say warning and why, and `check`
 *   says WARNING for it whole and with `--target` (which polled only that node and said OK);
 * - a network-wide dip (70 % of the stake cut off from every node): the reward alerts fire with
 *   scope="network", critical; that is a WARNING for the page, the API and `check`, not CRITICAL
 *   (it is not the operator's fault; the shipped Alertmanager config routes it to chat).
 */
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCapture } from '../helpers/capture.js';
import { runCli } from '../helpers/cli.js';
import { get, startDaemon, startSim, waitFor, writeConfig, type RunningDaemon } from '../helpers/harness.js';
import { SimServer } from '../../src/sim/server.js';

type Incident = { alertname: string; severity: string; scope?: string; state: string };
type Target = { name: string; state: string; summary: string; incidents: Incident[] };
type WebhookAlert = { status: string; fingerprint: string; labels: Record<string, string> };

/** The incidents a webhook has open, by target: the last word on each fingerprint is `firing`. */
function openAt(hook: Awaited<ReturnType<typeof startCapture>>): Map<string, WebhookAlert[]> {
  const last = new Map<string, WebhookAlert>();
  for (const r of hook.on('/hook')) for (const a of (r.json as { alerts: WebhookAlert[] }).alerts) last.set(a.fingerprint, a);
  const open = new Map<string, WebhookAlert[]>();
  for (const a of last.values()) if (a.status === 'firing') open.set(a.labels.target!, [...(open.get(a.labels.target!) ?? []), a]);
  return open;
}

const statusOf = async (url: string) => (JSON.parse((await get(`${url}/api/v1/status`)).body) as { targets: Target[] }).targets;
const checkJson = async (file: string, ...args: string[]) => {
  const run = await runCli(['check', '--config', file, '--format', 'json', ...args]);
  return { code: run.code, targets: (JSON.parse(run.stdout) as { targets: Target[] }).targets };
};

describe('the height lag: one verdict on the page, in the API, in check and --target, as paged', () => {
  let sim: SimServer;
  let hook: Awaited<ReturnType<typeof startCapture>>;
  let d: RunningDaemon;
  let file: string;

  beforeAll(async () => {
    // heights stand still (one block an hour): rpc-2 stays 120 blocks behind rpc-1
    sim = new SimServer(
      [
        { name: 'rpc-1', scenario: 'healthy', periodMs: 3_600_000 },
        { name: 'rpc-2', scenario: 'lagging', lagBlocks: 120, periodMs: 3_600_000 },
      ],
      { blockMs: 3_600_000 },
    );
    await sim.listen(0);
    hook = await startCapture(() => ({ status: 200 }));
    const yaml = `
defaults: {endpoints: [health], interval: 1s}
nodes:
  - {name: rpc-1, url: "${sim.nodeUrl('rpc-1')}"}
  - {name: rpc-2, url: "${sim.nodeUrl('rpc-2')}"}
services:
  - {name: data-api, kind: data-api, url: "${sim.serviceUrl('data-api')}"}
chain_data: {interval: 10s}
alerts:
  for_polls: 1
  receivers:
    - {name: hook, webhook: {url: "${hook.url}/hook"}}
`;
    file = writeConfig(yaml);
    d = await startDaemon(yaml);
  }, 30_000);

  afterAll(async () => {
    await d?.stop();
    await sim?.close();
    await hook?.close();
  });

  it('the daemon pages the lag; the API, the fleet page, check and check --target all say WARNING for rpc-2 and OK for rpc-1', { timeout: 60_000 }, async () => {
    await waitFor('AvalancheNodeHeightLag paged for rpc-2', () => openAt(hook).get('rpc-2')?.some((a) => a.labels.alertname === 'AvalancheNodeHeightLag'), 20_000);
    const open = openAt(hook);
    expect([...open.keys()]).toEqual(['rpc-2']);

    const api = await statusOf(d.url);
    const rpc2 = api.find((t) => t.name === 'rpc-2')!;
    expect(rpc2).toMatchObject({ state: 'warning', summary: 'C 120 blocks behind, P 120 blocks behind, X 120 blocks behind' });
    expect(rpc2.incidents.map((i) => `${i.alertname} ${i.severity} ${i.state}`)).toEqual(open.get('rpc-2')!.map((a) => `${a.labels.alertname} ${a.labels.severity} warning`));
    expect(api.filter((t) => t.state !== 'healthy').map((t) => t.name)).toEqual([...open.keys()]);

    // the fleet page: warning, and why (no failing health check says it)
    const page = (await get(`${d.url}/`)).body;
    const row = page.slice(page.indexOf('href="/targets/rpc-2"'));
    expect(row.slice(0, row.indexOf('</tr>'))).toMatch(/▲ warning<\/span><div class="why">C 120 blocks behind, P 120 blocks behind, X 120 blocks behind<\/div>/);

    const whole = await checkJson(file);
    expect(whole.code).toBe(1);
    expect(whole.targets.filter((t) => t.state !== 'healthy').map((t) => `${t.name} ${t.state}`)).toEqual(['rpc-2 warning']);
    const one = await checkJson(file, '--target', 'rpc-2');
    expect([one.code, one.targets.map((t) => `${t.name} ${t.state} ${t.summary}`)]).toEqual([1, ['rpc-2 warning C 120 blocks behind, P 120 blocks behind, X 120 blocks behind']]);
    expect(one.targets[0]!.incidents.map((i) => i.alertname)).toEqual(rpc2.incidents.map((i) => i.alertname));
    expect((await checkJson(file, '--target', 'rpc-1')).code).toBe(0);
  });
});

describe('a network-wide dip: scope="network" incidents are a WARNING everywhere, not CRITICAL', () => {
  let sim: SimServer;
  let hook: Awaited<ReturnType<typeof startCapture>>;
  let d: RunningDaemon;
  let file: string;

  beforeAll(async () => {
    sim = await startSim(['v1', 'v2', 'v3'].map((name) => ({ name, scenario: 'healthy' as const })));
    hook = await startCapture(() => ({ status: 200 }));
    const yaml = `
defaults: {interval: 2s, timeout: 1500ms, endpoints: [health], validator: {interval: 2s, network: {interval: 2s, observers: 2}}}
nodes:
${['v1', 'v2', 'v3'].map((n) => `  - {name: ${n}, url: "${sim.nodeUrl(n)}"}`).join('\n')}
alerts:
  for_polls: 1
  rules:
    AvalancheValidatorRewardAtRisk: {for_polls: 3}
    AvalancheValidatorDowntimeBudgetLow: {disabled: true}
  receivers:
    - {name: hook, webhook: {url: "${hook.url}/hook"}}
`;
    file = writeConfig(yaml);
    const dip = await request(`${sim.baseUrl}/sim/network`, { method: 'POST', body: JSON.stringify({ dip: { connectedPercent: 30 } }) });
    await dip.body.dump();
    d = await startDaemon(yaml);
  }, 30_000);

  afterAll(async () => {
    await d?.stop();
    await sim?.close();
    await hook?.close();
  });

  it('the daemon tells the network\'s alert once, v3\'s critical scope="network" verdict held under it; the API and check say WARNING (exit 1)', { timeout: 90_000 }, async () => {
    const told = await waitFor('AvalancheNetworkDegraded told', () => openAt(hook).get('mainnet network')?.find((a) => a.labels.alertname === 'AvalancheNetworkDegraded'), 60_000);
    expect(told.labels).toMatchObject({ scope: 'network', severity: 'warning' });
    await waitFor('v3\'s verdict critical', async () => (await statusOf(d.url)).find((t) => t.name === 'v3')?.incidents.some((i) => i.alertname === 'AvalancheValidatorRewardAtRisk' && i.severity === 'critical'), 60_000);
    expect(openAt(hook).get('v3')).toBeUndefined(); // held back by the network's alert
    const api = await statusOf(d.url);
    const v3 = api.find((t) => t.name === 'v3')!;
    expect(v3.state).toBe('warning');
    expect(v3.incidents).toContainEqual(expect.objectContaining({ alertname: 'AvalancheValidatorRewardAtRisk', severity: 'critical', scope: 'network', state: 'warning' }));
    expect(v3.summary).toMatch(/the network looks cut off from here|every validator looks down from here/);

    const whole = await checkJson(file);
    expect(whole.code).toBe(1);
    const checked = whole.targets.find((t) => t.name === 'v3')!;
    expect(checked.state).toBe('warning');
    expect(checked.incidents).toContainEqual(expect.objectContaining({ alertname: 'AvalancheValidatorRewardAtRisk', severity: 'critical', scope: 'network', state: 'warning' }));
    expect((await checkJson(file, '--target', 'v3')).code).toBe(1);
  });
});
