/**
 * What a new shard owner takes from Alertmanager at its start (src/alerts/receivers/alertmanager/
 * adopt.ts), read from a local stand-in of Alertmanager's GET /api/v2/alerts through the daemon's own
 * HTTP client: only our alerts, for targets polled here, with a record signed by the fleet's key,
 * one per identity; an Alertmanager that cannot be read is said, not fatal.
 */
import type { IncomingMessage } from 'node:http';
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HANDOVER_ANNOTATION, signHandover } from '../../src/alerts/handover.js';
import { handedOver, signedAlerts, type AdoptFrom } from '../../src/alerts/receivers/alertmanager/adopt.js';
import { createLogger } from '../../src/log.js';
import { HttpClient } from '../../src/transport/client.js';
import { startFixtureServer } from '../helpers/harness.js';

const KEY = 'a-fleet-key-of-32-characters-0123';
const OTHER_KEY = 'another-key-of-32-characters-9876';
const NOW = Date.parse('2026-11-22T12:10:00.000Z');
const STARTS = '2026-11-22T12:00:00.000Z';

type Labels = Record<string, string>;
/** An alert as Alertmanager answers it, with a handover record signed with `key` (none: no record). */
function held(labels: Labels, options: { key?: string | null; untold?: true; carried?: Record<string, unknown>; startsAt?: string } = {}) {
  const key = options.key === undefined ? KEY : options.key;
  const record = { labels, startsAt: options.startsAt ?? STARTS, expiresAt: NOW + 60_000, ...(options.carried ? { carried: options.carried } : {}), ...(options.untold ? { untold: options.untold } : {}) };
  return { labels, annotations: { summary: 'words made elsewhere', ...(key ? { [HANDOVER_ANNOTATION]: signHandover(key, record) } : {}) } };
}

const check = (name: string, severity = 'warning', target = 'node-1'): Labels => ({ alertname: 'AvalancheCheckFailing', check: name, severity, target });
const FROM: AdoptFrom = { alertnames: new Set(['AvalancheCheckFailing', 'AvalancheNodeUpgradeRequired']), polled: (t) => t === 'node-1' || t === 'node-2', key: KEY };

describe('adopting from Alertmanager', () => {
  /** What each stand-in answers, by its path's first segment (/a/..., /b/...). */
  const answers = new Map<string, { status: number; body: string }>();
  const asked: string[] = [];
  let server: Awaited<ReturnType<typeof startFixtureServer>>;
  const http = new HttpClient({ maxResponseBytes: 1 << 20 });
  const receiver = (name: string) => ({ name, kind: 'alertmanager', settings: { url: `${server.url}/${name}` } }) as unknown as Parameters<typeof signedAlerts>[0][number];
  const answer = (name: string, body: unknown, status = 200) => answers.set(name, { status, body: typeof body === 'string' ? body : JSON.stringify(body) });

  beforeAll(async () => {
    server = await startFixtureServer((req: IncomingMessage, res) => {
      asked.push(req.url ?? '');
      const found = answers.get((req.url ?? '').split('/')[1] ?? '');
      res.statusCode = found?.status ?? 404;
      res.end(found?.body ?? 'no such stand-in');
    });
  });
  afterAll(async () => {
    await http.close();
    await server.close();
  });

  it("asks for every active alert of ours, silenced, inhibited and unprocessed included", async () => {
    answer('a', []);
    asked.length = 0;
    await signedAlerts([receiver('a')], http, FROM, NOW);
    const url = new URL(asked[0]!, server.url);
    expect(url.pathname).toBe('/a/api/v2/alerts');
    expect(Object.fromEntries(url.searchParams)).toEqual({ active: 'true', silenced: 'true', inhibited: 'true', unprocessed: 'true', filter: 'alertname=~"Avalanche.+"' });
  });

  it('takes only our alerts for targets polled here, signed with the fleet key; the others are counted, not used', async () => {
    answer('a', [
      held(check('C'), { carried: { missedUpgrades: { deadline: 1_795_000_000 } } }),
      held(check('P', 'warning', 'node-3')), // not polled here
      held({ alertname: 'SomeoneElsesAlert', severity: 'warning', target: 'node-1' }),
      held({ alertname: 'AvalancheCheckFailing', severity: 'warning', check: 'X' }), // no target
      held({ target: 'node-1', severity: 'warning' }), // no alertname
      held(check('X'), { key: null }), // a Prometheus rule's copy: no record
      held(check('X', 'critical'), { key: OTHER_KEY }), // another fleet's, or a forger's
    ]);
    const read = await signedAlerts([receiver('a')], http, FROM, NOW);
    expect(read.alerts).toEqual([{ labels: check('C'), startsAt: STARTS, carried: { missedUpgrades: { deadline: 1_795_000_000 } } }]);
    expect(read.unsigned).toBe(2);
    expect(read.unread).toEqual([]);
  });

  it('keeps one copy per identity: a told one over one only a silence posted, then critical over warning, in any order', async () => {
    const c = (severity: string, untold?: true) => held(check('C', severity), { ...(untold ? { untold } : {}), startsAt: `2026-11-22T12:0${severity === 'critical' ? 1 : 2}:00.000Z` });
    for (const order of [
      [c('warning'), c('critical')],
      [c('critical'), c('warning')],
    ]) {
      answer('a', order);
      const read = await signedAlerts([receiver('a')], http, FROM, NOW);
      expect(read.alerts.map((a) => [a.labels.severity, a.startsAt])).toEqual([['critical', '2026-11-22T12:01:00.000Z']]);
    }
    for (const order of [
      [c('warning'), c('critical', true)],
      [c('critical', true), c('warning')],
    ]) {
      answer('a', order);
      const read = await signedAlerts([receiver('a')], http, FROM, NOW);
      expect(read.alerts).toEqual([{ labels: check('C', 'warning'), startsAt: '2026-11-22T12:02:00.000Z' }]);
    }
    // two identities stay two
    answer('a', [held(check('C')), held(check('P'))]);
    expect((await signedAlerts([receiver('a')], http, FROM, NOW)).alerts.map((a) => a.labels.check)).toEqual(['C', 'P']);
  });

  it("an Alertmanager that answers an error, not JSON or another shape is named with why; the others are still read", async () => {
    answer('a', 'overloaded', 503);
    answer('b', '{"not": "a list"');
    answer('c', [{ labels: 'not labels' }]);
    answer('d', [held(check('C'))]);
    const read = await signedAlerts(['a', 'b', 'c', 'd'].map(receiver), http, FROM, NOW);
    expect(read.alerts.map((a) => a.labels.check)).toEqual(['C']);
    expect(read.unread.map((u) => u.receiver)).toEqual(['a', 'b', 'c']);
    expect(read.unread[0]!.error).toBe('HTTP 503: overloaded');
    expect(read.unread[1]!.error).toMatch(/^its active alerts in a shape not understood: /);
    expect(read.unread[2]!.error).toMatch(/^its active alerts in a shape not understood: .*labels/s);
  });

  it('hands over only what receivers were told, and logs what it did not take and why', async () => {
    answer('a', [held(check('C')), held(check('P'), { untold: true }), held(check('X'), { key: null }), held(check('Y'), { key: null })]);
    answer('b', 'down', 502);
    const logged: Array<Record<string, unknown>> = [];
    const destination = new PassThrough();
    destination.on('data', (chunk: Buffer) => {
      for (const line of chunk.toString('utf8').split('\n')) if (line) logged.push(JSON.parse(line) as Record<string, unknown>);
    });
    const log = createLogger({ level: 'info', format: 'json', destination });
    const adopted = await handedOver([receiver('a'), receiver('b')], http, FROM, log, NOW);
    expect(adopted).toEqual([{ labels: check('C'), startsAt: STARTS }]);
    await new Promise((resolve) => setImmediate(resolve));
    const said = logged.map(({ level, msg, receiver: r, error, alerts }) => ({ level, msg, ...(r ? { receiver: r, error } : {}), ...(alerts !== undefined ? { alerts } : {}) }));
    expect(said).toEqual([
      { level: 40, msg: 'incidents handed over by other shards not read from Alertmanager: what still holds is announced afresh', receiver: 'b', error: 'HTTP 502: down' },
      { level: 30, msg: 'alerts at Alertmanager only under a silence, never told to a receiver: not adopted, announced afresh if they still hold', alerts: 1 },
      { level: 30, msg: 'alerts at Alertmanager for targets polled here without a valid handover record of this fleet (Prometheus rules, or posted by anyone else): not adopted', alerts: 2 },
    ]);

    // Nothing to say when everything was read, signed and told.
    logged.length = 0;
    answer('a', [held(check('C'))]);
    expect(await handedOver([receiver('a')], http, FROM, log, NOW)).toHaveLength(1);
    await new Promise((resolve) => setImmediate(resolve));
    expect(logged).toEqual([]);
  });
});
