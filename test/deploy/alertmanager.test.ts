/**
 * deploy/alertmanager/alertmanager.yml: valid for amtool, and its inhibit rules do what
 * docs/alerting.md says in a real Alertmanager: a critical silences its own warning, and an
 * unreachable node silences that node's check alerts, while everything else stays active.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ruleGroups } from '../../deploy/prometheus/rules.js';
import { ROOT } from '../helpers/cli.js';
import { closedPort, get, waitFor } from '../helpers/harness.js';
import { requireTool } from '../helpers/tools.js';

const CONFIG = join(ROOT, 'deploy/alertmanager/alertmanager.yml');
const amtool = requireTool('amtool', 'amtool check-config');
const alertmanagerBin = requireTool('prometheus-alertmanager', 'the inhibit-rule test against a real Alertmanager', ['prometheus-alertmanager', 'alertmanager']);

type Labels = Record<string, string>;
type AmAlert = { labels: Labels; status: { state: string; inhibitedBy: string[] }; fingerprint: string };

const alert = (alertname: string, severity: 'warning' | 'critical', labels: Labels = {}) => ({ alertname, severity, ...labels });

/** Each case: the alerts to post, keyed by a name, and which of them must end up inhibited. */
const POSTED: Record<string, Labels> = {
  // Prometheus rules: a critical twin
  diskCritical: alert('AvalancheDiskLowCritical', 'critical', { target: 'v1' }),
  diskWarning: alert('AvalancheDiskLow', 'warning', { target: 'v1' }),
  diskWarningOtherNode: alert('AvalancheDiskLow', 'warning', { target: 'v2' }),
  lagCritical: alert('AvalancheNodeHeightLagCritical', 'critical', { target: 'v1', chain: 'C' }),
  lagWarning: alert('AvalancheNodeHeightLag', 'warning', { target: 'v1', chain: 'C' }),
  lagWarningOtherChain: alert('AvalancheNodeHeightLag', 'warning', { target: 'v1', chain: 'X' }),
  // avahealth's own alertmanager receiver: one alert escalated from warning to critical
  checkCritical: alert('AvalancheCheckFailing', 'critical', { target: 'v3', check: 'network', network: 'mainnet' }),
  checkWarning: alert('AvalancheCheckFailing', 'warning', { target: 'v3', check: 'network', network: 'mainnet' }),
  checkWarningOtherCheck: alert('AvalancheCheckFailing', 'warning', { target: 'v3', check: 'C', network: 'mainnet' }),
  // an unreachable node and what it silences
  unreachable: alert('AvalancheNodeUnreachable', 'warning', { target: 'v4' }),
  unreachableCheck: alert('AvalancheCheckFailing', 'warning', { target: 'v4', check: 'P' }),
  unreachableUnhealthy: alert('AvalancheNodeUnhealthy', 'warning', { target: 'v4' }),
  unreachableDisk: alert('AvalancheDiskLowCritical', 'critical', { target: 'v4' }),
  otherNodeCheck: alert('AvalancheCheckFailing', 'warning', { target: 'v5', check: 'P' }),
};
const INHIBITED = new Set(['diskWarning', 'lagWarning', 'checkWarning', 'unreachableCheck', 'unreachableUnhealthy', 'unreachableDisk']);

describe.skipIf(!amtool)('the example Alertmanager config', () => {
  it('passes amtool check-config, with the inhibit rules', () => {
    const out = execFileSync(amtool!, ['check-config', CONFIG], { encoding: 'utf8' });
    expect(out).toContain('SUCCESS');
    expect(out).toMatch(/ 4 inhibit rules/);
  });

  it('names only alerts and severities that the Prometheus rules have', async () => {
    const { readFileSync } = await import('node:fs');
    const text = readFileSync(CONFIG, 'utf8');
    const rules = ruleGroups.flatMap((g) => g.rules).filter((r) => r.alert);
    const names = new Set(rules.map((r) => r.alert!));
    for (const [, name] of text.matchAll(/alertname="(\w+)"/g)) expect(names, name).toContain(name);
    for (const [, alternatives] of text.matchAll(/alertname=~"([^"]+)"/g))
      for (const name of alternatives!.replace(/\(Critical\)\?/g, '').split('|')) expect(names, name).toContain(name);
    expect(rules.find((r) => r.alert === 'AvalancheDiskLowCritical')!.labels!.severity).toBe('critical');
    expect(rules.find((r) => r.alert === 'AvalancheNodeHeightLagCritical')!.labels!.severity).toBe('critical');
  });
});

describe.skipIf(!alertmanagerBin)('the example Alertmanager config in a real Alertmanager', () => {
  let alertmanager: ChildProcess;
  let url: string;

  beforeAll(async () => {
    const port = await closedPort();
    url = `http://127.0.0.1:${port}`;
    const dir = mkdtempSync(join(tmpdir(), 'avahealth-alertmanager-'));
    alertmanager = spawn(
      alertmanagerBin!,
      [`--config.file=${CONFIG}`, `--storage.path=${dir}`, `--web.listen-address=127.0.0.1:${port}`, '--cluster.listen-address='],
      { stdio: 'ignore' },
    );
    await waitFor('Alertmanager to be ready', async () => (await get(`${url}/-/ready`).catch(() => ({ status: 0 }))).status === 200, 30_000);
  }, 40_000);

  afterAll(() => {
    alertmanager?.kill('SIGTERM');
  });

  it('inhibits a warning under its critical and the check alerts of an unreachable node, and nothing else', async () => {
    const endsAt = new Date(Date.now() + 3_600_000).toISOString();
    const res = await request(`${url}/api/v2/alerts`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(Object.values(POSTED).map((labels) => ({ labels, annotations: { summary: labels.alertname }, startsAt: new Date().toISOString(), endsAt }))),
    });
    await res.body.dump();
    expect(res.statusCode).toBe(200);

    const same = (a: Labels, b: Labels) => Object.keys(a).length === Object.keys(b).length && Object.entries(a).every(([k, v]) => b[k] === v);
    const states = await waitFor(
      'every posted alert with its final state',
      async () => {
        const alerts = JSON.parse((await get(`${url}/api/v2/alerts`)).body) as AmAlert[];
        const byCase = Object.fromEntries(Object.entries(POSTED).map(([name, labels]) => [name, alerts.find((a) => same(a.labels, labels))]));
        const settled = Object.entries(byCase).every(([name, a]) => a && (a.status.state === 'suppressed') === INHIBITED.has(name));
        return settled ? byCase : undefined;
      },
      20_000,
    ).catch(async (err: Error) => {
      throw new Error(`${err.message}: ${(await get(`${url}/api/v2/alerts`)).body}`);
    });

    const fingerprint = (name: string) => states[name]!.fingerprint;
    expect(states.diskWarning!.status.inhibitedBy).toEqual([fingerprint('diskCritical')]);
    expect(states.lagWarning!.status.inhibitedBy).toEqual([fingerprint('lagCritical')]);
    expect(states.checkWarning!.status.inhibitedBy).toEqual([fingerprint('checkCritical')]);
    for (const name of ['unreachableCheck', 'unreachableUnhealthy', 'unreachableDisk']) expect(states[name]!.status.inhibitedBy, name).toEqual([fingerprint('unreachable')]);
    for (const name of Object.keys(POSTED).filter((n) => !INHIBITED.has(n))) expect(states[name]!.status, name).toEqual({ state: 'active', inhibitedBy: [], silencedBy: [] });
  });
});
