/**
 * Upgrading over an earlier version's mirror file (`silence-mirror-<receiver>.json`, the ids of the
 * Alertmanager silences it made): the ids are taken over through the receiver's outbox, so a
 * mirrored silence whose avahealth silence went while the daemon was down is expired at
 * Alertmanager, and the file is removed. Against a local server answering as Alertmanager's v2 API.
 */
import { existsSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SimServer } from '../../src/sim/server.js';
import { statePath } from '../../src/state/map.js';
import { startDaemon, startFixtureServer, startSim, waitFor, type RunningDaemon } from '../helpers/harness.js';

describe("an earlier version's silence mirror file", () => {
  let sim: SimServer;
  let am: Awaited<ReturnType<typeof startFixtureServer>>;
  let d: RunningDaemon;
  const requests: string[] = [];
  const stateDir = join(mkdtempSync(join(tmpdir(), 'avahealth-mirror-upgrade-')), 'state');
  const legacy = statePath.legacySilenceMirror(stateDir, 'am');
  // What the earlier version made at Alertmanager, for an avahealth silence removed while it was down.
  const silences = new Map([['am-old', { id: 'am-old', comment: 'disk swap (avahealth http://old:9660 silence gone-id 0123456789ab)', status: { state: 'active' } }]]);

  beforeAll(async () => {
    sim = await startSim([{ name: 'n1', scenario: 'network-down' }]);
    am = await startFixtureServer((req, res) => {
      req.resume();
      req.on('end', () => {
        requests.push(`${req.method} ${req.url}`);
        const one = /^\/api\/v2\/silence\/([^/?]+)$/.exec(req.url ?? '');
        const silence = one ? silences.get(decodeURIComponent(one[1]!)) : undefined;
        if (one && !silence) return res.writeHead(404).end('silence not found');
        if (silence && req.method === 'DELETE') silence.status.state = 'expired';
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(silence ? JSON.stringify(silence) : req.url?.startsWith('/api/v2/silences') ? '[]' : '{}');
      });
    });
    mkdirSync(stateDir, { recursive: true });
    writeFileSync(legacy, JSON.stringify({ version: 1, made: ['am-old'] }));
  }, 30_000);

  afterAll(async () => {
    await d?.stop();
    await sim?.close();
    await am?.close();
  });

  it('takes the ids over, expires the one whose silence went, and removes the file', { timeout: 60_000 }, async () => {
    d = await startDaemon(`
state_dir: ${stateDir}
nodes:
  - {name: n1, url: "${sim.nodeUrl('n1')}", interval: 1s}
alerts:
  for_polls: 1
  receivers:
    - {name: am, alertmanager: {url: "${am.url}", resend_interval: 1s}}
`);
    await waitFor('the silence whose avahealth silence went expired at Alertmanager', () => silences.get('am-old')!.status.state === 'expired', 20_000);
    await waitFor('the file removed', () => !existsSync(legacy), 20_000);
    expect(requests.filter((r) => r.includes('/api/v2/silence')).slice(0, 2)).toEqual(['GET /api/v2/silence/am-old', 'DELETE /api/v2/silence/am-old']);
    expect(requests.filter((r) => r.startsWith('POST /api/v2/silences'))).toEqual([]);
  });
});
