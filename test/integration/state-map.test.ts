/**
 * The map of state_dir is whole (issue 48): a daemon on the simulator is made to write everything it
 * can there — alert states, outbox journals of three receivers, the notes of a Telegram receiver and
 * of an Alertmanager one (the silence made through the API, mirrored there), a validator's periods,
 * a missed upgrade, a restarted validator's settling snapshot, a validator's public IP, a file set aside, an earlier
 * version's mirror file taken over and removed — and every file and folder it leaves must be named
 * by src/state/map.ts. A temporary file (`.<file>.<pid>.<random>.tmp`, left by a crash mid-write) is not
 * always seen; its pattern is checked on its own below.
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STATE_MAP, statePath, stateEntryOf, type StateFileName } from '../../src/state/map.js';
import { SimServer } from '../../src/sim/server.js';
import { startCapture } from '../helpers/capture.js';
import { startDaemon, waitFor, type RunningDaemon } from '../helpers/harness.js';
import { startBotApi } from '../helpers/telegram.js';

const TOKEN = '7012345678:AAHk3-SECRETtokenPART_0123456789ab';
const CHAT = '-1001234567890';

/** Every file and folder under `dir`, relative (folders end in `/`). */
function walk(dir: string, root = dir): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    return entry.isDirectory() ? [`${relative(root, path)}/`, ...walk(path, root)] : [relative(root, path)];
  });
}

describe('state_dir holds only what its map names', () => {
  let sim: SimServer;
  let d: RunningDaemon;
  let hook: Awaited<ReturnType<typeof startCapture>>;
  let am: Awaited<ReturnType<typeof startCapture>>;
  let bot: Awaited<ReturnType<typeof startBotApi>>;
  const stateDir = join(mkdtempSync(join(tmpdir(), 'avahealth-state-map-')), 'state');

  beforeAll(async () => {
    sim = new SimServer([
      { name: 'down', scenario: 'network-down', periodMs: 3_600_000 },
      { name: 'upg', scenario: 'upgrade-required', upgradeIn: 12 * 3600, periodMs: 3_600_000 },
      { name: 'val', scenario: 'healthy', periodMs: 3_600_000 },
    ]);
    await sim.listen(0);
    hook = await startCapture();
    bot = await startBotApi({ token: TOKEN, chats: [CHAT] });
    let made: unknown;
    am = await startCapture((req) => {
      if (req.path === '/api/v2/silences') {
        made = { ...(req.json as object), id: 'am-1', status: { state: 'active' } };
        return { status: 200, body: '{"silenceID":"am-1"}' };
      }
      if (req.path === '/api/v2/silence/am-1') return { status: 200, body: JSON.stringify(made) };
      if (req.path.startsWith('/api/v2/silences?')) return { status: 200, body: JSON.stringify(made ? [made] : []) };
      if (req.path.startsWith('/api/v2/silence/')) return { status: 404, body: 'silence not found' };
      return { status: 200 };
    });
    // A wrong-shaped alert state file: set aside at start.
    mkdirSync(stateDir, { recursive: true });
    writeFileSync(statePath.alerts(stateDir), '{"version":1,"alerts":[null]}');
    // What an earlier version kept of the silences it mirrored: taken over, then removed.
    writeFileSync(statePath.legacySilenceMirror(stateDir, 'am'), '{"version":1,"made":["am-gone"]}');
    d = await startDaemon(`
state_dir: ${stateDir}
defaults: {interval: 1s, timeout: 2s, endpoints: [health], validator: false}
nodes:
  - {name: down, url: "${sim.nodeUrl('down')}"}
  - {name: upg, url: "${sim.nodeUrl('upg')}"}
  - {name: val, url: "${sim.nodeUrl('val')}", validator: {interval: 1s, network: false}}
alerts:
  for_polls: 1
  receivers:
    - {name: oncall, webhook: {url: "${hook.url}/hook"}}
    - {name: tg, telegram: {bot_token: "${TOKEN}", chat_id: "${CHAT}", api_url: "${bot.url}"}}
    - {name: am, alertmanager: {url: "${am.url}", resend_interval: 1s}}
`);
  }, 60_000);

  afterAll(async () => {
    await d?.stop();
    await sim?.close();
    await hook?.close();
    await bot?.close();
    await am?.close();
  });

  it('a daemon that wrote all it can leaves no file the map does not name', { timeout: 90_000 }, async () => {
    await waitFor('a Telegram message about the node that is down', () => bot.sent.some((m) => m.text.includes('down')), 30_000);
    const res = await request(`${d.url}/api/v1/silences`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ matchers: { target: 'down' }, endsAt: new Date(Date.now() + 3600_000).toISOString(), comment: 'swap' }),
    });
    expect(res.statusCode).toBe(200);
    await res.body.dump();
    await waitFor('the silence mirrored', () => am.on('/api/v2/silences').length > 0, 30_000);
    // The validator restarts: info.uptime reads its own share of the stake while the snapshot settles
    // (answering at once, as before v1.15: no "still bootstrapping" first).
    const restart = await request(`${sim.baseUrl}/sim/nodes/val/restart`, { method: 'POST', body: JSON.stringify({ snapshotSeconds: 3600, bootstrapSeconds: 0 }) });
    expect(restart.statusCode).toBe(200);
    await restart.body.dump();

    const wanted = new Set<StateFileName>(['lock', 'reserve', 'alerts', 'silences', 'outboxes', 'outbox', 'receiverNotes', 'receiverNote', 'periods', 'missedUpgrades', 'uptimeSettling', 'publicIps', 'setAside']);
    const seen = new Set<StateFileName>();
    await waitFor(
      `a file of each kind (${[...wanted].join(', ')})`,
      async () => {
        for (const path of walk(stateDir)) {
          const entry = stateEntryOf(path);
          expect(entry, `${path} is written under state_dir but src/state/map.ts does not name it`).toBeDefined();
          seen.add(entry!);
        }
        return [...wanted].every((name) => seen.has(name));
      },
      60_000,
    );
    await waitFor('the earlier version\'s file removed', () => !existsSync(statePath.legacySilenceMirror(stateDir, 'am')), 20_000);
    await d.stop();
    for (const path of walk(stateDir)) expect(stateEntryOf(path), `${path} after stop`).toBeDefined();
    // A new entry of the map is made to be written here too (a temporary file only shows mid-write).
    expect(Object.keys(STATE_MAP).filter((name) => !wanted.has(name as StateFileName))).toEqual(['legacySilenceMirror', 'temporary']);
  });
});

describe('the map', () => {
  it('names each path its writers are given, and nothing else', () => {
    const dir = join(tmpdir(), 'x');
    const rel = (path: string) => relative(dir, path);
    const paths: Array<[string, StateFileName | undefined]> = [
      [rel(statePath.lock(dir)), 'lock'],
      [rel(statePath.reserve(dir)), 'reserve'],
      [rel(statePath.alerts(dir)), 'alerts'],
      [rel(statePath.silences(dir)), 'silences'],
      [rel(statePath.outbox(dir, 'on-call.team:1')), 'outbox'],
      ['outbox/', 'outboxes'],
      [rel(statePath.receiverNote(dir, 'tg')), 'receiverNote'],
      ['receivers/', 'receiverNotes'],
      [rel(statePath.legacySilenceMirror(dir, 'am:eu')), 'legacySilenceMirror'],
      [rel(statePath.periods(dir)), 'periods'],
      [rel(statePath.missedUpgrades(dir)), 'missedUpgrades'],
      [rel(statePath.uptimeSettling(dir)), 'uptimeSettling'],
      [rel(statePath.publicIps(dir)), 'publicIps'],
      [rel(statePath.temporary(statePath.alerts(dir), 4242)), 'temporary'],
      [rel(statePath.temporary(statePath.outbox(dir, 'oncall'), 7)), 'temporary'],
      [rel(statePath.temporary(statePath.lock(dir), 7)), 'temporary'],
      [rel(statePath.setAside(statePath.outbox(dir, 'oncall'))), 'setAside'],
      [rel(statePath.setAside(statePath.periods(dir))), 'setAside'],
      ['notes.txt', undefined],
      ['outbox/oncall.json', undefined],
      ['.notes.txt.12.tmp', undefined],
      ['notes.txt.corrupt-2026-01-01T00-00-00-000Z', undefined],
      ['receivers/sub/tg.json', undefined],
    ];
    expect(paths.map(([path]) => [path, stateEntryOf(path)])).toEqual(paths);
  });
});
