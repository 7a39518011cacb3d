import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SimServer } from '../../src/sim/server.js';
import { startCapture } from '../helpers/capture.js';
import { get, sample, scrape, setScenario, startDaemon, startSim, waitFor, type RunningDaemon } from '../helpers/harness.js';

const SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';

type AmAlert = { status: string; labels: Record<string, string>; fingerprint: string };
type Webhook = { status: string; alerts: AmAlert[] };
const TG = '/tg/bot7012345678:AAHk3-tokenPART_0123456789ab/sendMessage';

describe('alerts reach every kind of receiver', () => {
  let sim: SimServer;
  let capture: Awaited<ReturnType<typeof startCapture>>;
  let d: RunningDaemon;

  beforeAll(async () => {
    sim = await startSim([{ name: 'validator-1', scenario: 'healthy' }]);
    capture = await startCapture((req, i) =>
      req.path.startsWith('/pd') ? { status: 202, body: '{"status":"success"}' } : req.path.startsWith('/tg') ? { status: 200, body: `{"ok":true,"result":{"message_id":${i}}}` } : { status: 200 },
    );
    process.env.WEBHOOK_SECRET = SECRET;
    d = await startDaemon(`
listen: 127.0.0.1:0
external_url: http://avahealth.test:9660
nodes:
  - {name: validator-1, url: "${sim.nodeUrl('validator-1')}", interval: 1s, labels: {env: mainnet}}
alerts:
  receivers:
    - name: oncall
      webhook: {url: ${capture.url}/hook, secret: \${WEBHOOK_SECRET}}
    - {name: chat, slack: {url: "${capture.url}/slack"}}
    - {name: discord, discord: {url: "${capture.url}/discord"}}
    - {name: pager, pagerduty: {routing_key: R0UT1NGKEY, url: "${capture.url}/pd"}, min_severity: warning, matchers: {alertname: AvalancheCheckFailing}}
    - {name: am, alertmanager: {url: "${capture.url}/am"}}
    - {name: tg, telegram: {bot_token: "7012345678:AAHk3-tokenPART_0123456789ab", chat_id: -100123, api_url: "${capture.url}/tg"}}
`);
  });
  afterAll(async () => {
    await d?.stop();
    await sim?.close();
    await capture?.close();
  });

  it('firing: one grouped message per chat receiver, signed webhook, one PagerDuty event per alert, Alertmanager alerts', async () => {
    await setScenario(sim, 'validator-1', 'network-down');
    await waitFor('the webhook', () => capture.on('/hook').length >= 1, 15_000);
    await waitFor('every receiver', () => ['/slack', '/discord', '/am/api/v2/alerts', TG].every((p) => capture.on(p).length > 0) && capture.on('/pd').length >= 4, 10_000);

    const hook = capture.on('/hook')[0]!;
    const payload = hook.json as Webhook;
    expect(payload.status).toBe('firing');
    expect(payload.alerts.map((a) => `${a.labels.alertname}${a.labels.check ? `/${a.labels.check}` : ''}`).sort()).toEqual(
      // one page per problem: the failing checks by name; "unhealthy" is held back (docs/alerting.md)
      ['AvalancheCheckFailing/C', 'AvalancheCheckFailing/P', 'AvalancheCheckFailing/X', 'AvalancheCheckFailing/network'].sort(),
    );
    expect(payload.alerts.every((a) => a.labels.env === 'mainnet' && a.labels.target === 'validator-1' && a.labels.severity === 'warning')).toBe(true);
    // Standard Webhooks signature, verified here from the headers alone
    const key = Buffer.from(SECRET.slice('whsec_'.length), 'base64');
    const expected = createHmac('sha256', key).update(`${hook.headers['webhook-id']}.${hook.headers['webhook-timestamp']}.${hook.body}`).digest('base64');
    expect(hook.headers['webhook-signature']).toBe(`v1,${expected}`);
    expect(Math.abs(Number(hook.headers['webhook-timestamp']) - Date.now() / 1000)).toBeLessThan(60);

    const slack = capture.on('/slack')[0]!.json as { text: string };
    expect(slack.text).toBe(':large_orange_circle: validator-1: C, P, X and network failing');
    const discord = capture.on('/discord')[0]!.json as { embeds: Array<{ title: string }>; allowed_mentions: unknown };
    expect(discord.embeds[0]!.title).toBe('validator-1: C, P, X and network failing');
    expect(discord.allowed_mentions).toEqual({ parse: [] });
    const telegram = capture.on(TG)[0]!.json as { chat_id: number; text: string; parse_mode: string };
    expect([telegram.chat_id, telegram.parse_mode, telegram.text.split('\n')[0]]).toEqual([-100123, 'HTML', '<b>🟠 validator-1: C, P, X and network failing</b>']);
    // pagerduty only takes CheckFailing (its matchers): one event per alert, deduplicated by fingerprint
    const events = capture.on('/pd').map((r) => r.json as { event_action: string; dedup_key: string; payload: { class: string } });
    expect(events.map((e) => e.event_action)).toEqual(['trigger', 'trigger', 'trigger', 'trigger']);
    expect(events.every((e) => e.payload.class === 'AvalancheCheckFailing')).toBe(true);
    const am = capture.on('/am/api/v2/alerts')[0]!.json as Array<{ labels: Record<string, string>; endsAt: string }>;
    expect(am).toHaveLength(4);
    expect(Date.parse(am[0]!.endsAt)).toBeGreaterThan(Date.now());

    // the counter moves once the receiver's answer is read, just after the request arrived
    const metrics = await waitFor('the delivery counted', async () => {
      const m = await scrape(d.url);
      return sample(m, 'avahealth_notifications_total', { receiver: 'pager' }) === 1 ? m : undefined;
    });
    expect(sample(metrics, 'avahealth_alerts', { alertname: 'AvalancheCheckFailing', severity: 'warning', state: 'firing' })).toBe(4);
    expect(sample(metrics, 'avahealth_notifications_total', { receiver: 'oncall' })).toBe(1);
    expect(sample(metrics, 'avahealth_notification_queue_length', { receiver: 'oncall' })).toBe(0);
    // each of the five receivers' journals wrote (and fsynced) its enqueue before sending
    expect(sample(metrics, 'avahealth_outbox_journal_records_total')).toBeGreaterThanOrEqual(5);
    expect(sample(metrics, 'avahealth_outbox_journal_syncs_total')).toBeGreaterThanOrEqual(5);
    const alerts = JSON.parse((await get(`${d.url}/api/v1/alerts`)).body);
    expect(alerts.alerts).toHaveLength(5);
    expect(alerts.alerts.every((a: { phase: string }) => a.phase === 'firing')).toBe(true);
    expect(alerts.alerts.find((a: { alertname: string }) => a.alertname === 'AvalancheNodeUnhealthy').inhibitedBy).toBe('AvalancheCheckFailing');
  });

  it('resolved: the same fingerprints come back resolved; PagerDuty resolves by dedup_key', async () => {
    const fired = (capture.on('/hook')[0]!.json as Webhook).alerts.map((a) => a.fingerprint).sort();
    await setScenario(sim, 'validator-1', 'healthy');
    await waitFor('the resolve', () => capture.on('/hook').some((r) => (r.json as Webhook).status === 'resolved'), 15_000);
    const resolved = capture.on('/hook').find((r) => (r.json as Webhook).status === 'resolved')!.json as Webhook;
    expect(resolved.alerts.map((a) => a.fingerprint).sort()).toEqual(fired);
    await waitFor('pagerduty resolves', () => capture.on('/pd').filter((r) => (r.json as { event_action: string }).event_action === 'resolve').length === 4, 10_000);
    await waitFor('slack recovery line', () => capture.on('/slack').some((r) => (r.json as { text: string }).text === ':large_green_circle: validator-1: C, P, X and network recovered'), 10_000);
    await waitFor('telegram recovery, a reply to the firing message', () =>
      capture.on(TG).some((r) => (r.json as { text: string; reply_parameters?: { message_id: number } }).text.startsWith('<b>🟢 validator-1: C, P, X and network recovered') && (r.json as { reply_parameters?: { message_id: number } }).reply_parameters?.message_id === capture.requests.indexOf(capture.on(TG)[0]!)),
    );
    expect(JSON.parse((await get(`${d.url}/api/v1/alerts`)).body).alerts).toEqual([]);
  });

  it('silences through the admin API', async () => {
    const res = await fetch(`${d.url}/api/v1/silences`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ matchers: { target: 'validator-1' }, endsAt: new Date(Date.now() + 3600_000).toISOString(), comment: 'upgrade' }) });
    expect(res.status).toBe(200);
    const { id } = (await res.json()) as { id: string };
    const before = capture.on('/hook').length;
    const telegramBefore = capture.on(TG).length;
    await setScenario(sim, 'validator-1', 'disk-low');
    await waitFor('the disk alert to fire (silenced)', () => d.daemon.alerts.list().some((a) => a.alertname === 'AvalancheDiskLow' && a.phase === 'firing'), 15_000);
    expect(capture.on('/hook').length).toBe(before);
    expect(capture.on(TG).length).toBe(telegramBefore);
    const listed = JSON.parse((await get(`${d.url}/api/v1/alerts`)).body);
    expect(listed.silences).toMatchObject([{ id, matchers: { target: 'validator-1' }, comment: 'upgrade', source: 'api' }]);
    expect((await fetch(`${d.url}/api/v1/silences/${id}`, { method: 'DELETE' })).status).toBe(200);
    await waitFor('the disk alert announced once the silence is gone', () => capture.on('/hook').length > before, 10_000);
    expect((capture.on('/hook').at(-1)!.json as Webhook).alerts.map((a) => a.labels.alertname).sort()).toEqual(['AvalancheDiskLow']);
    await waitFor('the disk alert on telegram too', () => capture.on(TG).length > telegramBefore, 10_000);
    const bad = await fetch(`${d.url}/api/v1/silences`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"matchers":{},"endsAt":"yesterday"}' });
    expect(bad.status).toBe(400);
  });
});

describe('the admin API', () => {
  it('is off unless enabled', async () => {
    const d = await startDaemon('nodes: []\n', { adminApi: false });
    try {
      const res = await fetch(`${d.url}/api/v1/silences`, { method: 'POST', body: '{}' });
      expect([res.status, await res.json()]).toEqual([403, { error: 'the admin API is not enabled (--web.enable-admin-api)' }]);
      expect((await fetch(`${d.url}/api/v1/silences`)).status).toBe(200);
    } finally {
      await d.stop();
    }
  });
});

/** One node polled every second, alerts after one poll, one webhook receiver at `${url}/hook`. */
function oneNodeOneHook(sim: SimServer, url: string) {
  return startDaemon(`nodes:\n  - {name: n, url: "${sim.nodeUrl('n')}", interval: 1s}\nalerts:\n  for_polls: 1\n  receivers:\n    - {name: hook, webhook: {url: "${url}/hook"}}\n`);
}

describe('delivery when the receiver is down', () => {
  it('retries through 500s and a 429 with Retry-After: everything arrives, in order, duplicates only of the same id', { timeout: 60_000 }, async () => {
    const sim = await startSim([{ name: 'n', scenario: 'healthy' }]);
    const capture = await startCapture((_req, i) => {
      // down for three attempts: two 500s, then a 429 asking for 5 s (more than the backoff would wait)
      if (i < 2) return { status: 500, body: 'upstream down' };
      if (i === 2) return { status: 429, headers: { 'retry-after': '5' }, body: 'slow down' };
      return { status: 200 };
    });
    const d = await oneNodeOneHook(sim, capture.url);
    try {
      // three batches while the receiver is down: firing, resolved, firing again
      await setScenario(sim, 'n', 'network-down');
      await waitFor('first firing queued', () => d.daemon.alerts.list().some((a) => a.phase === 'firing'), 10_000);
      await setScenario(sim, 'n', 'healthy');
      await waitFor('resolved', () => d.daemon.alerts.list().length === 0, 10_000);
      await setScenario(sim, 'n', 'network-down');
      await waitFor('firing again', () => d.daemon.alerts.list().some((a) => a.phase === 'firing'), 10_000);
      await waitFor('all three delivered', () => capture.requests.length >= 6, 30_000);
      const delivered = capture.requests.slice(3);
      expect(delivered.map((r) => (r.json as Webhook).status)).toEqual(['firing', 'resolved', 'firing']);
      // every attempt of the first batch carried the same body (at-least-once, same dedup keys)
      expect(capture.requests.slice(0, 4).every((r) => r.body === capture.requests[0]!.body)).toBe(true);
      // nothing was lost or sent twice once delivered: three distinct batches, fingerprints matching
      const fingerprints = delivered.map((r) => (r.json as Webhook).alerts.map((a) => a.fingerprint).sort().join());
      expect(new Set(fingerprints).size).toBe(1);
      // the 429's Retry-After was honoured
      expect(capture.requests[3]!.at - capture.requests[2]!.at).toBeGreaterThanOrEqual(5000);
      const m = await waitFor('three deliveries counted', async () => {
        const samples = await scrape(d.url);
        return sample(samples, 'avahealth_notifications_total', { receiver: 'hook' }) === 3 ? samples : undefined;
      });
      expect(sample(m, 'avahealth_notifications_failed_total', { receiver: 'hook', reason: 'http_5xx' })).toBe(2);
      expect(sample(m, 'avahealth_notifications_failed_total', { receiver: 'hook', reason: 'rate_limited' })).toBe(1);
    } finally {
      await d.stop();
      await sim.close();
      await capture.close();
    }
  });

  it('a 4xx rejection is not retried, and is reported', async () => {
    const sim = await startSim([{ name: 'n', scenario: 'network-down' }]);
    const capture = await startCapture(() => ({ status: 400, body: '{"error":"bad payload"}' }));
    const d = await oneNodeOneHook(sim, capture.url);
    try {
      await waitFor('the rejection', async () => sample(await scrape(d.url), 'avahealth_notifications_failed_total', { receiver: 'hook', reason: 'http_4xx' }) === 1, 15_000);
      await waitFor('a second poll round', () => (d.daemon.store.get('n')?.rounds ?? 0) >= 3, 10_000);
      expect(capture.requests).toHaveLength(1);
      expect(d.logs()).toContain('notification rejected by the receiver; dropped');
      expect(sample(await scrape(d.url), 'avahealth_notification_queue_length', { receiver: 'hook' })).toBe(0);
    } finally {
      await d.stop();
      await sim.close();
      await capture.close();
    }
  });
});

describe('alertmanager receiver', () => {
  it('re-sends firing alerts every resend_interval while they fire, then sends the resolve', { timeout: 30_000 }, async () => {
    const sim = await startSim([{ name: 'n', scenario: 'network-down' }]);
    const capture = await startCapture(() => ({ status: 200 }));
    const d = await startDaemon(`nodes:\n  - {name: n, url: "${sim.nodeUrl('n')}", interval: 1s}\nalerts:\n  for_polls: 1\n  receivers:\n    - {name: am, alertmanager: {url: "${capture.url}/am", resend_interval: 1s}}\n`);
    try {
      await waitFor('three posts while firing', () => capture.on('/am/api/v2/alerts').length >= 3, 15_000);
      const posts = capture.on('/am/api/v2/alerts').map((r) => r.json as Array<{ labels: Record<string, string>; endsAt: string }>);
      // every post carries the same alerts, each still active
      const identity = (alerts: Array<{ labels: Record<string, string> }>) => alerts.map((a) => `${a.labels.alertname}/${a.labels.check ?? ''}`).sort().join();
      expect(new Set(posts.map(identity)).size).toBe(1);
      expect(posts.every((alerts) => alerts.every((a) => Date.parse(a.endsAt) > Date.now()))).toBe(true);
      await setScenario(sim, 'n', 'healthy');
      await waitFor('a resolve', () => capture.on('/am/api/v2/alerts').some((r) => (r.json as Array<{ endsAt: string }>).every((a) => Date.parse(a.endsAt) <= Date.now())), 10_000);
    } finally {
      await d.stop();
      await sim.close();
      await capture.close();
    }
  });
});
