/**
 * deploy/alertmanager/alertmanager.yml: valid for amtool, and its inhibit rules do what
 * docs/alerting.md says in a real Alertmanager: a Prometheus critical twin silences its warning
 * rule, and an unreachable node silences that node's check alerts, while everything else stays
 * active (avahealth's own warning copy of an escalated alert is ended by the daemon, not inhibited).
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeFileSync } from 'node:fs';
import { request } from 'undici';
import { parse, stringify } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inhibitRules } from '../../deploy/alertmanager/inhibit-rules.js';
import { ruleGroups } from '../../deploy/prometheus/rules.js';
import { alertmanagerPayload } from '../../src/alerts/receivers/alertmanager/send.js';
import { RULES } from '../../src/alerts/rules/index.js';
import type { AlertNotice } from '../../src/alerts/types.js';
import { IDENTITY_LABELS } from '../../src/alerts/rules/rule.js';
import { ROOT } from '../helpers/cli.js';
import { startCapture } from '../helpers/capture.js';
import { closedPort, get, waitFor } from '../helpers/harness.js';
import { requireTool } from '../helpers/tools.js';

const CONFIG = join(ROOT, 'deploy/alertmanager/alertmanager.yml');
const amtool = requireTool('amtool', 'amtool check-config');
const alertmanagerBin = requireTool('prometheus-alertmanager', 'the inhibit-rule test against a real Alertmanager', ['prometheus-alertmanager', 'alertmanager']);

type Labels = Record<string, string>;
type AmAlert = { labels: Labels; status: { state: string; inhibitedBy: string[] }; fingerprint: string };

const alert = (alertname: string, severity: 'warning' | 'critical', labels: Labels = {}) => ({ alertname, severity, ...labels });

/** The Prometheus rules' warning/critical twins: `X` and `XCritical`, from the rule modules. */
const TWINS = RULES.flatMap((r) => r.prometheus.filter((p) => p.alert === `${r.name}Critical`).map(() => r.name));

/** Each case: the alerts to post, keyed by a name, and which of them must end up inhibited. */
const POSTED: Record<string, Labels> = {
  // Prometheus rules: every critical twin over its warning, for the same target only
  ...Object.fromEntries(
    TWINS.flatMap((name) => [
      [`${name}:critical`, alert(`${name}Critical`, 'critical', { target: `t-${name}`, chain: 'C' })],
      [`${name}:warning`, alert(name, 'warning', { target: `t-${name}`, chain: 'C' })],
      [`${name}:warningOtherNode`, alert(name, 'warning', { target: `u-${name}`, chain: 'C' })],
    ]),
  ),
  lagWarningOtherChain: alert('AvalancheNodeHeightLag', 'warning', { target: 't-AvalancheNodeHeightLag', chain: 'X' }),
  // avahealth's own alertmanager receiver: one incident escalated from warning to critical (its critical sibling besides its warning copy)
  checkCritical: alert('AvalancheCheckFailing', 'critical', { target: 'v3', check: 'network', env: 'mainnet' }),
  checkWarning: alert('AvalancheCheckFailing', 'warning', { target: 'v3', check: 'network', env: 'mainnet' }),
  checkWarningOtherCheck: alert('AvalancheCheckFailing', 'warning', { target: 'v3', check: 'C', env: 'mainnet' }),
  // one L1 validation escalated; the node's other validation is another alert
  l1Critical: alert('AvalancheL1ValidatorBalanceLow', 'critical', { target: 'v6', subnet_id: 's', validation_id: 'a' }),
  l1Warning: alert('AvalancheL1ValidatorBalanceLow', 'warning', { target: 'v6', subnet_id: 's', validation_id: 'a' }),
  l1WarningOtherValidation: alert('AvalancheL1ValidatorBalanceLow', 'warning', { target: 'v6', subnet_id: 's', validation_id: 'b' }),
  rewardCritical: alert('AvalancheValidatorRewardAtRisk', 'critical', { target: 'v7' }),
  rewardWarning: alert('AvalancheValidatorRewardAtRisk', 'warning', { target: 'v7' }),
  // an unreachable node and what it silences
  unreachable: alert('AvalancheNodeUnreachable', 'warning', { target: 'v4' }),
  unreachableCheck: alert('AvalancheCheckFailing', 'warning', { target: 'v4', check: 'P' }),
  unreachableUnhealthy: alert('AvalancheNodeUnhealthy', 'warning', { target: 'v4' }),
  unreachableDisk: alert('AvalancheDiskLowCritical', 'critical', { target: 'v4' }),
  otherNodeCheck: alert('AvalancheCheckFailing', 'warning', { target: 'v5', check: 'P' }),
};
/** Which case inhibits which. */
const INHIBITED_BY: Record<string, string> = {
  ...Object.fromEntries(TWINS.map((name) => [`${name}:warning`, `${name}:critical`])),
  // avahealth's own: an incident's critical sibling holds back its warning copy (the same alert only)
  checkWarning: 'checkCritical',
  l1Warning: 'l1Critical',
  rewardWarning: 'rewardCritical',
  unreachableCheck: 'unreachable',
  unreachableUnhealthy: 'unreachable',
  unreachableDisk: 'unreachable',
};

describe('the generated inhibit rules', () => {
  it('cover the twins the issue named, and every identity label a rule module gives', () => {
    expect(TWINS).toEqual(expect.arrayContaining(['AvalancheDiskLow', 'AvalancheNodeHeightLag', 'AvalancheValidatorRewardAtRisk', 'AvalancheValidatorDowntimeBudgetLow', 'AvalancheL1ValidatorBalanceLow']));
    const dir = join(ROOT, 'src/alerts/rules');
    for (const file of readdirSync(dir).filter((f) => /^Avalanche\w+\.ts$/.test(f))) {
      for (const [, body] of readFileSync(join(dir, file), 'utf8').matchAll(/identity: \{([^}]*)\}/g))
        for (const [, key] of body!.matchAll(/(\w+):/g)) expect(IDENTITY_LABELS, `${file}: ${key}`).toContain(key);
    }
  });
});

describe.skipIf(!amtool)('the example Alertmanager config', () => {
  it('passes amtool check-config, with the inhibit rules', () => {
    const out = execFileSync(amtool!, ['check-config', CONFIG], { encoding: 'utf8' });
    expect(out).toContain('SUCCESS');
    expect(out).toContain(` ${inhibitRules().length} inhibit rules`);
  });

  it('routes scope="network" to chat, never the pager, and a validator\'s own critical to the pager', () => {
    const route = (...labels: string[]) => execFileSync(amtool!, ['config', 'routes', 'test', `--config.file=${CONFIG}`, ...labels], { encoding: 'utf8' }).trim();
    expect(route('alertname=AvalancheValidatorRewardAtRisk', 'severity=critical', 'scope=network', 'target=v1')).toBe('chat');
    expect(route('alertname=AvalancheValidatorUnreachableByPeers', 'severity=warning', 'scope=network', 'target=v1')).toBe('chat');
    expect(route('alertname=AvalancheValidatorRewardAtRisk', 'severity=critical', 'scope=self', 'target=v1')).toBe('pager');
    expect(route('alertname=AvalancheValidatorRewardAtRisk', 'severity=warning', 'scope=self', 'target=v1')).toBe('chat');
  });

  it('names only alerts and severities that the Prometheus rules have', () => {
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

  it('inhibits a warning under its critical twin or sibling and the check alerts of an unreachable node, and nothing else', async () => {
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
        const settled = Object.entries(byCase).every(([name, a]) => a && (a.status.state === 'suppressed') === name in INHIBITED_BY);
        return settled ? byCase : undefined;
      },
      20_000,
    ).catch(async (err: Error) => {
      throw new Error(`${err.message}: ${(await get(`${url}/api/v2/alerts`)).body}`);
    });

    const fingerprint = (name: string) => states[name]!.fingerprint;
    // (an unreachable node's Unhealthy is also held back by its CheckFailing: one page per problem)
    for (const [name, by] of Object.entries(INHIBITED_BY)) expect(states[name]!.status.inhibitedBy, name).toContain(fingerprint(by));
    for (const name of Object.keys(POSTED).filter((n) => !(n in INHIBITED_BY))) expect(states[name]!.status, name).toEqual({ state: 'active', inhibitedBy: [], silencedBy: [] });
  });
});

/**
 * One page per problem (issue 34, point 1), with the shipped config (its routes and generated inhibit
 * rules; only the receivers pointed at a local webhook and group_wait cut to 1s): each problem's
 * alerts, root cause and symptoms as both paths send them, make exactly one notification.
 */
describe.skipIf(!alertmanagerBin)('the shipped Alertmanager config pages once per problem', () => {
  let alertmanager: ChildProcess;
  let url: string;
  let hook: Awaited<ReturnType<typeof startCapture>>;

  beforeAll(async () => {
    hook = await startCapture(() => ({ status: 200 }));
    const port = await closedPort();
    url = `http://127.0.0.1:${port}`;
    const dir = mkdtempSync(join(tmpdir(), 'avahealth-alertmanager-once-'));
    const config = parse(readFileSync(CONFIG, 'utf8')) as { route: Record<string, unknown>; receivers: Array<{ name: string }> };
    Object.assign(config.route, { group_wait: '1s', group_interval: '1s' });
    config.receivers = config.receivers.map((r) => ({ name: r.name, webhook_configs: [{ url: `${hook.url}/${r.name}` }] }));
    writeFileSync(join(dir, 'alertmanager.yml'), stringify(config));
    alertmanager = spawn(alertmanagerBin!, [`--config.file=${join(dir, 'alertmanager.yml')}`, `--storage.path=${dir}`, `--web.listen-address=127.0.0.1:${port}`, '--cluster.listen-address='], { stdio: 'ignore' });
    await waitFor('Alertmanager to be ready', async () => (await get(`${url}/-/ready`).catch(() => ({ status: 0 }))).status === 200, 30_000);
  }, 40_000);

  afterAll(async () => {
    alertmanager?.kill('SIGTERM');
    await hook?.close();
  });

  const post = async (alerts: Labels[]) => {
    const endsAt = new Date(Date.now() + 3_600_000).toISOString();
    const res = await request(`${url}/api/v2/alerts`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(alerts.map((labels) => ({ labels, annotations: { summary: labels.alertname }, startsAt: new Date().toISOString(), endsAt }))),
    });
    await res.body.dump();
    expect(res.statusCode).toBe(200);
  };
  type Notified = { alerts: Array<{ labels: Labels }> };
  const notified = (target: string) => hook.requests.filter((r) => (r.json as Notified).alerts.some((a) => a.labels.target === target)).map((r) => (r.json as Notified).alerts.map((a) => a.labels.alertname + (a.labels.check ? `/${a.labels.check}` : '')));

  it('a reward at risk, a service down, a chain failing and behind, a missed upgrade: one notification each, naming the root cause', async () => {
    await post([
      // one low-uptime validator: the reward at risk and its downtime budget (both paths' names)
      alert('AvalancheValidatorRewardAtRisk', 'warning', { target: 'reward', scope: 'self' }),
      alert('AvalancheValidatorDowntimeBudgetLow', 'warning', { target: 'reward', scope: 'self' }),
      alert('AvalancheValidatorDowntimeBudgetLowCritical', 'critical', { target: 'reward', scope: 'self' }),
      // a hosted API whose cache is down
      alert('AvalancheServiceUnhealthy', 'warning', { target: 'api' }),
      alert('AvalancheServiceComponentDown', 'warning', { target: 'api', component: 'cache' }),
      // C fails and falls behind; so does an L1 chain
      alert('AvalancheCheckFailing', 'warning', { target: 'lagging', check: 'C' }),
      alert('AvalancheNodeHeightLag', 'warning', { target: 'lagging', chain: 'C' }),
      alert('AvalancheNodeHeightLagCritical', 'critical', { target: 'lagging', chain: 'C' }),
      alert('AvalancheCheckFailing', 'warning', { target: 'l1lag', check: '2oYMBNV4eNHyqk2fjjV5nVQLDbtmNJzq5s3qs3Lo6ftnC6FByM' }),
      alert('AvalancheNodeHeightLag', 'warning', { target: 'l1lag', chain: '2oYMBNV4eNHyqk2fjjV5nVQLDbtmNJzq5s3qs3Lo6ftnC6FByM' }),
      // a missed upgrade: its chains fall behind
      alert('AvalancheNodeUpgradeRequired', 'critical', { target: 'missed' }),
      alert('AvalancheNodeHeightLag', 'warning', { target: 'missed', chain: 'P' }),
    ]);
    const targets = ['reward', 'api', 'lagging', 'l1lag', 'missed'];
    await waitFor('a notification per problem', () => targets.every((t) => notified(t).length > 0), 20_000);
    await post([alert('AvalancheNodeUnreachable', 'warning', { target: 'sentinel-2' })]);
    await waitFor('the sentinel', () => notified('sentinel-2').length > 0, 20_000);
    const names = (target: string) => hook.requests.filter((r) => (r.json as Notified).alerts.some((a) => a.labels.target === target)).map((r) => (r.json as Notified).alerts.map((a) => a.labels.alertname + (a.labels.check ? `/${a.labels.check.slice(0, 4)}` : '')));
    expect(names('reward')).toEqual([['AvalancheValidatorRewardAtRisk']]);
    expect(names('api')).toEqual([['AvalancheServiceUnhealthy']]);
    expect(names('lagging')).toEqual([['AvalancheCheckFailing/C']]);
    expect(names('l1lag')).toEqual([['AvalancheCheckFailing/2oYM']]);
    expect(names('missed')).toEqual([['AvalancheNodeUpgradeRequired']]);
  });

  it('a chain behind under another chain\'s failing check is its own problem', async () => {
    await post([alert('AvalancheCheckFailing', 'warning', { target: 'twochains', check: 'C' }), alert('AvalancheNodeHeightLag', 'warning', { target: 'twochains', chain: 'X' })]);
    await waitFor('both told', () => notified('twochains').flat().length === 2, 20_000);
    expect(notified('twochains').flat().sort()).toEqual(['AvalancheCheckFailing/C', 'AvalancheNodeHeightLag']);
  });

  it('low disk, an upgrade due, a failing check: one notification each, naming the root cause', async () => {
    await post([
      // low disk: the daemon's DiskLow, Prometheus' DiskLow, CheckFailing{diskspace} and Unhealthy
      alert('AvalancheDiskLow', 'warning', { target: 'disk' }),
      alert('AvalancheCheckFailing', 'warning', { target: 'disk', check: 'diskspace' }),
      alert('AvalancheNodeUnhealthy', 'warning', { target: 'disk' }),
      // an upgrade due within 3 days: the node's futureupgrade check fails too
      alert('AvalancheNodeUpgradeRequired', 'warning', { target: 'upgrade' }),
      alert('AvalancheCheckFailing', 'warning', { target: 'upgrade', check: 'futureupgrade' }),
      alert('AvalancheNodeUnhealthy', 'warning', { target: 'upgrade' }),
      // C failing
      alert('AvalancheCheckFailing', 'warning', { target: 'chain', check: 'C' }),
      alert('AvalancheNodeUnhealthy', 'warning', { target: 'chain' }),
    ]);
    await waitFor('a notification per problem', () => ['disk', 'upgrade', 'chain'].every((t) => notified(t).length > 0), 20_000);
    // A later alert of its own: once it is told, every group of the alerts above has had its turn.
    await post([alert('AvalancheNodeUnreachable', 'warning', { target: 'sentinel' })]);
    await waitFor('the sentinel', () => notified('sentinel').length > 0, 20_000);
    expect(notified('disk')).toEqual([['AvalancheDiskLow']]);
    expect(notified('upgrade')).toEqual([['AvalancheNodeUpgradeRequired']]);
    expect(notified('chain')).toEqual([['AvalancheCheckFailing/C']]);
  });

  it("an escalation is a critical sibling: the pager hears it, the warning is never told resolved while the problem grows, and both are heard to end", async () => {
    // The daemon's own requests (receivers/alertmanager/send.ts) for one incident: warning, escalated, resolved.
    const incident = (severity: 'warning' | 'critical', status: 'firing' | 'resolved', previous?: 'warning' | 'critical'): AlertNotice => ({
      status,
      kind: status === 'resolved' ? 'resolved' : previous ? 'severity_changed' : 'firing',
      labels: { alertname: 'AvalancheNodeUpgradeRequired', target: 'escalated', severity },
      annotations: { summary: 'escalated: upgrade AvalancheGo', description: 'd' },
      startsAt: new Date(Date.now() - 60_000).toISOString(),
      endsAt: status === 'resolved' ? new Date().toISOString() : '0001-01-01T00:00:00Z',
      fingerprint: 'f',
      generatorURL: 'http://avahealth/targets/escalated',
      ...(previous ? { previousLabels: { alertname: 'AvalancheNodeUpgradeRequired', target: 'escalated', severity: previous } } : {}),
    });
    const send = async (notice: AlertNotice) => {
      const body = alertmanagerPayload({ id: 'b', target: 'escalated', createdAt: Date.now(), alerts: [notice] }, Date.now(), 60_000);
      const res = await request(`${url}/api/v2/alerts`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
      await res.body.dump();
      expect(res.statusCode).toBe(200);
    };
    type Told = { status: string; alerts: Array<{ status: string; labels: Labels }> };
    const heard = (receiver: string) => hook.on(`/${receiver}`).map((r) => r.json as Told).flatMap((b) => b.alerts).filter((a) => a.labels.target === 'escalated').map((a) => `${a.status} ${a.labels.severity}`);
    const until = (what: string, done: () => boolean) =>
      waitFor(what, done, 20_000).catch((err: Error) => {
        throw new Error(`${err.message}: chat ${JSON.stringify(heard('chat'))}, pager ${JSON.stringify(heard('pager'))}`);
      });
    await send(incident('warning', 'firing'));
    await until('the warning at chat', () => heard('chat').includes('firing warning'));
    await send(incident('critical', 'firing', 'warning'));
    await until('the critical sibling at the pager', () => heard('pager').includes('firing critical'));
    // A later alert of its own at chat: once it is told, the warning's group has had its turn too.
    await post([alert('AvalancheNodeUnreachable', 'warning', { target: 'sentinel-3' })]);
    await waitFor('the sentinel', () => notified('sentinel-3').length > 0, 20_000);
    // held back, not resolved: the chat heard nothing more meanwhile
    expect(heard('chat')).toEqual(['firing warning']);
    await send(incident('critical', 'resolved'));
    await until('both ends heard where each was told', () => heard('chat').includes('resolved warning') && heard('pager').includes('resolved critical'));
    expect(heard('chat')).toEqual(['firing warning', 'resolved warning']);
    expect(heard('pager')).toEqual(['firing critical', 'resolved critical']);
  });

  it('an incident that starts critical and then is no longer: the pager hears its end, the chat hears the warning once', async () => {
    const labels = (severity: string) => ({ alertname: 'AvalancheL1ValidatorBalanceLow', target: 'receding', subnet_id: 's', validation_id: 'v', severity });
    const notice = (severity: 'warning' | 'critical', previous?: 'critical'): AlertNotice => ({
      status: 'firing',
      kind: previous ? 'severity_changed' : 'firing',
      labels: labels(severity),
      annotations: { summary: 'receding', description: 'd' },
      startsAt: new Date(Date.now() - 60_000).toISOString(),
      endsAt: '0001-01-01T00:00:00Z',
      fingerprint: 'g',
      generatorURL: 'http://avahealth/targets/receding',
      ...(previous ? { previousLabels: labels(previous) } : {}),
    });
    const send = async (n: AlertNotice) => {
      const res = await request(`${url}/api/v2/alerts`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(alertmanagerPayload({ id: 'b', target: 'receding', createdAt: Date.now(), alerts: [n] }, Date.now(), 60_000)) });
      await res.body.dump();
    };
    type Told = { alerts: Array<{ status: string; labels: Labels }> };
    const heard = (receiver: string) => hook.on(`/${receiver}`).map((r) => r.json as Told).flatMap((b) => b.alerts).filter((a) => a.labels.target === 'receding').map((a) => `${a.status} ${a.labels.severity}`);
    await send(notice('critical'));
    await waitFor('the critical at the pager', () => heard('pager').includes('firing critical'), 20_000);
    await send(notice('warning', 'critical'));
    await waitFor('its end at the pager, the warning at chat', () => heard('pager').includes('resolved critical') && heard('chat').includes('firing warning'), 20_000);
    expect(heard('chat')).toEqual(['firing warning']);
  });
});
