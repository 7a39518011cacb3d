/**
 * The Alertmanager silence mirror's decisions, one pass at a time at a chosen clock
 * (src/alerts/receivers/alertmanager/mirror.ts): what it queues in the receiver's outbox for each
 * silence (made, checked again, replaced, expired, refused), which alerts it sends to be muted and
 * when, what it resolves, what it carries across a restart in the receiver's notes, and an earlier
 * version's file. The components are the daemon's own (buildComponents), driven by the store, with
 * Alertmanager's v2 API a local stand-in; the mirror's timer is never started: each pass is the
 * test's, at the clock it gives.
 */
import { existsSync, mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { buildComponents, type Components } from '../../src/app/components.js';
import type { NotificationBatch } from '../../src/alerts/types.js';
import { createLogger } from '../../src/log.js';
import { statePath } from '../../src/state/map.js';
import { waitFor } from '../helpers/harness.js';
import { alertmanagerStandIn, mirrorConfig, type StandInAnswers } from '../helpers/mirror.js';
import { failing, HEALTHY, nodeState } from '../helpers/states.js';

const HOUR = 3_600_000;

interface Rig {
  parts: Components;
  am: Awaited<ReturnType<typeof alertmanagerStandIn>>;
  dir: string;
  logs: Array<{ msg: string; silence?: string; alertmanagerSilence?: string }>;
  /** One pass of the mirror at `now`; returns what it queued. */
  pass(now?: number): NotificationBatch[];
  /** Until the outbox has delivered everything queued (silences made at the stand-in are noted then). */
  delivered(): Promise<void>;
  /** The config the components were built of, with other receiver settings (YAML flow entries, each with its leading comma). */
  configWith(settings: { receiver?: string; alertmanager?: string }): Components['config'];
  poll(checks: Record<string, number>, at?: number): void;
  stop(): Promise<void>;
}

const rigs: Rig[] = [];
afterEach(async () => {
  for (const r of rigs.splice(0)) await r.stop();
});

/** `alerts` is YAML under `alerts:` (indented two spaces); `dir` an earlier run's state directory (test/helpers/mirror.ts). */
async function rig(alerts = '', dir = mkdtempSync(join(tmpdir(), 'avahealth-mirror-unit-')), { receiver = '', ...answers }: StandInAnswers & { receiver?: string } = {}): Promise<Rig> {
  const am = await alertmanagerStandIn(answers);
  const configOf = (other: { receiver?: string; alertmanager?: string }) => mirrorConfig(dir, am.url, alerts, other);
  const config = configOf({ receiver });
  const logs: Rig['logs'] = [];
  const lines = new PassThrough();
  lines.on('data', (chunk: Buffer) => {
    for (const line of chunk.toString('utf8').split('\n').filter(Boolean)) logs.push(JSON.parse(line));
  });
  const parts = buildComponents(config, createLogger({ level: 'info', format: 'json', destination: lines }));
  parts.notifier.start();
  parts.alerts.start();
  const outlet = () => parts.notifier.outlet('am')!;
  const r: Rig = {
    parts,
    am,
    dir,
    logs,
    pass: (now = Date.now()) => {
      const before = new Set(outlet().queued().map((item) => item.batch.id));
      parts.silenceMirrors.mirror('am')!.pass(now);
      return outlet().queued().map((item) => item.batch).filter((b) => !before.has(b.id));
    },
    delivered: async () => void (await waitFor('the outbox delivered', () => outlet().queued().length === 0, 20_000)),
    configWith: configOf,
    poll: (checks, at = Date.now()) => parts.store.record({ ...nodeState('n1', failing(checks, HEALTHY())).observation, at: at / 1000 }),
    stop: async () => {
      if (rigs.includes(r)) rigs.splice(rigs.indexOf(r), 1);
      parts.silenceMirrors.stop();
      parts.alerts.stop();
      await parts.notifier.stop();
      await am.close();
    },
  };
  rigs.push(r);
  return r;
}

const opsOf = (batches: NotificationBatch[]) => batches.flatMap((b) => b.silences ?? []).map((op) => ('ensure' in op ? `ensure ${op.ensure.id}` : 'expire' in op ? `expire ${op.expire.id}` : `adopt ${op.adopt.amId}`));
const muted = (batches: NotificationBatch[]) => batches.filter((b) => b.muted);
const alertsOf = (batch: NotificationBatch) => batch.alerts.map((a) => `${a.labels.alertname}${a.labels.check ? `/${a.labels.check}` : ''} ${a.status}`).sort();

/** A config silence of n1 that ends `hours` from now (or at `endsAt`). */
const configSilence = (hours = 3, endsAt = Date.now() + hours * HOUR) => `  silences:
    - {matchers: {target: n1}, ends_at: "${new Date(endsAt).toISOString()}", comment: "disk swap"}
`;

describe('the silence mirror, pass by pass', () => {
  it('makes a silence once, checks it again once per resend interval, and never queues an op twice', async () => {
    const r = await rig(configSilence());
    const t0 = Date.now();
    expect(opsOf(r.pass(t0))).toEqual(['ensure config-0']);
    // still in the outbox: not queued again
    expect(r.pass(t0 + 1_000)).toEqual([]);
    await r.delivered();
    expect(r.am.requests.filter((q) => q.method === 'POST' && q.path === '/api/v2/silences')).toHaveLength(1);
    // made (the notes say so): nothing to do until the resend interval has passed, then checked again
    expect(r.pass(t0 + 2_000)).toEqual([]);
    expect(r.pass(t0 + HOUR - 1)).toEqual([]);
    expect(opsOf(r.pass(t0 + HOUR))).toEqual(['ensure config-0']);
    expect(r.logs.filter((l) => l.msg === 'silence mirrored to Alertmanager').map((l) => [l.silence, l.alertmanagerSilence])).toEqual([['config-0', 'am-1']]);
  });

  it('queues a second silence while the first one still waits in the outbox', async () => {
    const r = await rig(configSilence());
    const t0 = Date.now();
    expect(opsOf(r.pass(t0))).toEqual(['ensure config-0']);
    const second = r.parts.alerts.silences.add({ matchers: { target: 'n1', check: 'C' }, endsAt: t0 + HOUR, comment: 'resync' });
    expect(opsOf(r.pass(t0 + 1))).toEqual([`ensure ${second.id}`]);
  });

  it('sends what a silence holds only once Alertmanager has the silence, ending with it when no receiver was told', async () => {
    const r = await rig(configSilence(3));
    const silenceEnds = r.parts.alerts.silences.list()[0]!.endsAt;
    const t0 = Date.now();
    r.poll({ C: 1 }, t0);
    expect(muted(r.pass(t0))).toEqual([]);
    await r.delivered();
    const [first, ...more] = muted(r.pass(t0 + 1_000));
    expect(more).toEqual([]);
    expect(alertsOf(first!)).toContain('AvalancheCheckFailing/C firing');
    for (const alert of first!.alerts) expect(alert.endsAt).toBe(new Date(silenceEnds).toISOString());
    // the same set: not again until a resend interval has passed, then again
    expect(r.pass(t0 + 2_000)).toEqual([]);
    await r.delivered();
    expect(muted(r.pass(t0 + 1_000 + HOUR - 1))).toEqual([]);
    expect(alertsOf(muted(r.pass(t0 + 1_000 + HOUR))[0]!)).toEqual(alertsOf(first!));
    await r.delivered();
    // healed under the silence: what was sent is resolved there (no receiver was told, the pipeline has nothing to take back)
    r.poll({}, Date.now());
    const [healed] = muted(r.pass(t0 + 1_000 + HOUR + 1_000));
    expect(alertsOf(healed!)).toEqual(alertsOf(first!).map((a) => a.replace(/firing$/, 'resolved')));
    for (const alert of healed!.alerts) expect(alert.endsAt).toBe(new Date(t0 + 1_000 + HOUR + 1_000).toISOString());
    await r.delivered();
    // and nothing more after that, nor anything left in the notes for a restart to resolve
    expect(r.pass(t0 + 1_000 + 2 * HOUR + 2_000).filter((b) => b.muted)).toEqual([]);
    expect(r.parts.notifier.outlet('am')!.notes.get('mirror fed')).toBeUndefined();
  });

  it("keeps a told incident's usual end, and leaves its end to the pipeline when the silence goes", async () => {
    const r = await rig();
    r.poll({ diskspace: 1 });
    await waitFor('the low disk told to Alertmanager', () => r.parts.alerts.list().some((a) => a.alertname === 'AvalancheNodeUnhealthy' && a.notified?.phase === 'firing'));
    const silence = r.parts.alerts.silences.add({ matchers: { target: 'n1' }, endsAt: Date.now() + 10 * 60_000, comment: 'chain resync' });
    const t0 = Date.now();
    expect(opsOf(r.pass(t0))).toEqual([`ensure ${silence.id}`]);
    await r.delivered();
    const [sent] = muted(r.pass(t0 + 1_000));
    expect(alertsOf(sent!)).toEqual(['AvalancheNodeUnhealthy firing']);
    await r.delivered();
    // as Alertmanager got it (send.ts): four resend intervals ahead, past the silence's end
    const copies = r.am.requests.filter((q) => q.path === '/api/v2/alerts' && q.at >= t0).flatMap((q) => q.json as Array<{ labels: Record<string, string>; endsAt: string }>);
    const ends = copies.filter((a) => a.labels.alertname === 'AvalancheNodeUnhealthy').map((a) => Date.parse(a.endsAt));
    expect(ends.length).toBeGreaterThan(0);
    for (const end of ends) expect(end).toBeGreaterThan(silence.endsAt + HOUR);
    // lifted: the silence is expired at Alertmanager, and the told incident is not resolved by the mirror
    expect(r.parts.alerts.silences.expire(silence.id)).toBe(true);
    const lifted = r.pass(t0 + 2_000);
    expect(opsOf(lifted)).toEqual([`expire ${silence.id}`]);
    expect(muted(lifted)).toEqual([]);
    await r.delivered();
    expect(r.am.requests.filter((q) => q.method === 'DELETE' && q.path === '/api/v2/silence/am-1')).toHaveLength(1);
    r.pass(t0 + 3_000);
    expect(r.logs.filter((l) => l.msg === 'silence expired at Alertmanager').map((l) => l.silence)).toEqual([silence.id]);
  });

  it('tries a silence Alertmanager refused again only after a restart, and sends nothing it holds meanwhile', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'avahealth-mirror-unit-'));
    const endsAt = Date.now() + 3 * HOUR;
    const r = await rig(configSilence(3, endsAt), dir, { refuse: true });
    r.poll({ C: 1 });
    const t0 = Date.now();
    expect(opsOf(r.pass(t0))).toEqual(['ensure config-0']);
    await r.delivered();
    expect(r.pass(t0 + 1_000)).toEqual([]);
    expect(r.pass(t0 + HOUR + 1_000)).toEqual([]);
    // nothing made at Alertmanager, nothing said to be
    expect(r.logs.filter((l) => l.msg === 'silence mirrored to Alertmanager')).toEqual([]);
    await r.stop();
    // a new start over the same state directory: the first pass tries it once more
    const again = await rig(configSilence(3, endsAt), dir);
    expect(opsOf(again.pass(Date.now()))).toEqual(['ensure config-0']);
    expect(muted(again.pass(Date.now()))).toEqual([]);
  });

  it('resolves after a restart what an earlier run sent for a silence that ended while it was away', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'avahealth-mirror-unit-'));
    const r = await rig(configSilence(), dir);
    r.poll({ C: 1 });
    const t0 = Date.now();
    r.pass(t0);
    await r.delivered();
    const [sent] = muted(r.pass(t0 + 1_000));
    await r.delivered();
    await r.stop();
    // started again without the silence (it ended): the notes still say what was sent
    const again = await rig('', dir);
    const batches = again.pass(Date.now());
    expect(opsOf(batches)).toEqual(['expire config-0']);
    expect(alertsOf(muted(batches)[0]!)).toEqual(alertsOf(sent!).map((a) => a.replace(/firing$/, 'resolved')));
  });

  it("takes over the silences an earlier version's file lists once, then removes the file", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'avahealth-mirror-unit-'));
    const file = statePath.legacySilenceMirror(dir, 'am');
    writeFileSync(file, JSON.stringify({ made: ['old-1', 'old-2'] }));
    const r = await rig('', dir);
    expect(opsOf(r.pass())).toEqual(['adopt old-1', 'adopt old-2']);
    expect(existsSync(file)).toBe(true);
    expect(r.pass()).toEqual([]);
    expect(existsSync(file)).toBe(false);
    // a file that lists nothing is removed at once; one that does not parse is set aside, not taken over
    writeFileSync(file, JSON.stringify({ made: [] }));
    const empty = await rig('', dir);
    expect(empty.pass()).toEqual([]);
    expect(existsSync(file)).toBe(false);
    writeFileSync(file, '{not json');
    const broken = await rig('', dir);
    expect(broken.pass()).toEqual([]);
    expect(existsSync(file)).toBe(false);
    expect(readdirSync(dir).filter((f) => f.startsWith('silence-mirror-am.json.corrupt-'))).toHaveLength(1);
  });

  it('replaces a silence whose content changed while the daemon was away: the old one expired, the new one made', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'avahealth-mirror-unit-'));
    const endsAt = Date.now() + 3 * HOUR;
    const r = await rig(configSilence(3, endsAt), dir);
    const [made] = r.pass().flatMap((b) => b.silences ?? []);
    await r.delivered();
    await r.stop();
    const again = await rig(configSilence(3, endsAt).replace('disk swap', 'disk swap, then a resync'), dir);
    const ops = again.pass().flatMap((b) => b.silences ?? []);
    expect(ops.map((op) => Object.keys(op)[0])).toEqual(['expire', 'ensure']);
    const [expire, ensure] = ops as [{ expire: { id: string; hash: string } }, { ensure: { id: string; hash: string } }];
    expect(expire.expire).toEqual({ id: 'config-0', hash: (made as { ensure: { hash: string } }).ensure.hash });
    expect(ensure.ensure.hash).not.toBe(expire.expire.hash);
  });

  it("sends to be muted only what the receiver's routes take", async () => {
    const r = await rig(configSilence(), undefined, { receiver: ', min_severity: critical' });
    r.poll({ C: 1 });
    r.pass();
    await r.delivered();
    expect(muted(r.pass())).toEqual([]);
  });

  it('does not queue the same muted set again while the last one waits for a down Alertmanager', async () => {
    let down = false;
    const r = await rig(configSilence(), undefined, { down: () => down });
    r.poll({ C: 1 });
    const t0 = Date.now();
    r.pass(t0);
    await r.delivered();
    down = true;
    expect(muted(r.pass(t0 + 1_000))).toHaveLength(1);
    expect(muted(r.pass(t0 + 1_000 + HOUR))).toEqual([]);
  });

  it('reads a fed note that does not parse as nothing fed', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'avahealth-mirror-unit-'));
    const r = await rig('', dir);
    await r.parts.notifier.outlet('am')!.notes.update({ 'mirror fed': '{not json' });
    expect(r.pass()).toEqual([]);
    await r.parts.notifier.outlet('am')!.notes.update({ 'mirror fed': JSON.stringify([{ not: 'a notice' }]) });
    await r.stop();
    const again = await rig('', dir);
    expect(again.pass()).toEqual([]);
  });
});

describe('the silence mirrors of a daemon', () => {
  /** Until the next turn of the timers: a pass the mirror scheduled at once has run by then. */
  const nextTimers = () => new Promise((resolve) => setTimeout(resolve, 0));

  it('pass at once when started and when nudged, and not once stopped', async () => {
    const r = await rig(configSilence());
    const outlet = r.parts.notifier.outlet('am')!;
    r.parts.silenceMirrors.start();
    await waitFor('the first pass', () => outlet.queued().some((item) => item.batch.silences?.length) || r.am.requests.some((q) => q.path.startsWith('/api/v2/silence')));
    await r.delivered();
    const before = r.am.requests.length;
    // an incident changed: the mirror passes at the next timer turn, not at its next pass (a timer set now fires after it)
    r.poll({ C: 1 });
    await nextTimers();
    expect(outlet.queued().some((item) => item.batch.muted) || r.am.requests.slice(before).some((q) => q.path === '/api/v2/alerts')).toBe(true);
    r.parts.silenceMirrors.stop();
    await r.delivered();
    const after = r.am.requests.length;
    r.poll({});
    r.parts.silenceMirrors.nudge();
    await nextTimers();
    await nextTimers();
    expect(outlet.queued()).toEqual([]);
    expect(r.am.requests.length).toBe(after);
  });

  it('pass every few seconds, not once per resend interval: a silence added meanwhile reaches Alertmanager without a nudge', async () => {
    const r = await rig(configSilence());
    r.parts.silenceMirrors.start();
    await waitFor('the first silence made', () => r.am.requests.some((q) => q.method === 'POST' && q.path === '/api/v2/silences'));
    await r.delivered();
    // a silence is no incident change: nothing nudges the mirror; its next pass (5 s at most) makes it
    r.parts.alerts.silences.add({ matchers: { target: 'n1', check: 'C' }, endsAt: Date.now() + HOUR, comment: 'resync' });
    await waitFor('the second silence made', () => r.am.requests.filter((q) => q.method === 'POST' && q.path === '/api/v2/silences').length === 2, 20_000);
  });

  it('keep a mirror across a reload that keeps its receiver, and make a new one for a changed receiver', async () => {
    const r = await rig(configSilence());
    const mirrors = r.parts.silenceMirrors;
    const first = mirrors.mirror('am');
    expect(first).toBeDefined();
    const silenceCalls = () => r.parts.notifier.outlet('am')!.queued().some((item) => item.batch.silences?.length) || r.am.requests.some((q) => q.path.startsWith('/api/v2/silence'));
    // not started: neither the mirror built with the components nor one a reload brings passes, nudged or not
    mirrors.nudge();
    await nextTimers();
    expect(silenceCalls()).toBe(false);
    mirrors.setConfig(r.configWith({}));
    expect(mirrors.mirror('am')).toBe(first);
    mirrors.setConfig(r.configWith({ receiver: ', min_severity: critical' }));
    const second = mirrors.mirror('am');
    expect(second).toBeDefined();
    expect(second).not.toBe(first);
    await nextTimers();
    expect(silenceCalls()).toBe(false);
    mirrors.setConfig(r.configWith({ alertmanager: ', mirror_silences: false' }));
    expect(mirrors.mirror('am')).toBeUndefined();
    // started, a receiver that comes with a reload is mirrored at once
    mirrors.start();
    mirrors.setConfig(r.configWith({}));
    await waitFor('the new mirror passed', silenceCalls);
    await r.delivered();
    // stopped: a receiver that comes with a reload is not
    mirrors.stop();
    const after = r.am.requests.length;
    mirrors.setConfig(r.configWith({ receiver: ', min_severity: critical' }));
    await nextTimers();
    expect(r.parts.notifier.outlet('am')!.queued()).toEqual([]);
    expect(r.am.requests.length).toBe(after);
  });
});
