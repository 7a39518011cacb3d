/**
 * State left half-written or wrong by a crash or a hand edit, met by real restarts of the built
 * daemon: a torn outbox line must not cost the queue two restarts later, and a state file that is
 * JSON but not the right shape must be set aside with a message, not crash the start.
 */
import { appendFileSync, existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { outboxFile, replayJournal } from '../../src/alerts/outbox.js';
import { outboxOpSchema } from '../../src/alerts/persisted.js';
import { Journal } from '../../src/state/journal.js';
import { startCapture } from '../helpers/capture.js';
import { startCli } from '../helpers/cli.js';
import { startSim, waitFor, writeConfig } from '../helpers/harness.js';

describe('torn and wrong state across real restarts', () => {
  it('a torn outbox line is cut off at the next start, so the start after that still has the whole queue', { timeout: 90_000 }, async () => {
    const sim = await startSim([{ name: 'n', scenario: 'network-down' }]);
    const capture = await startCapture(() => ({ status: 503, body: 'receiver down' }));
    const file = writeConfig(`
listen: 127.0.0.1:0
state_dir: ./state
nodes:
  - {name: n, url: "${sim.nodeUrl('n')}", interval: 1s, endpoints: [health]}
alerts:
  for_polls: 1
  receivers:
    - {name: oncall, webhook: {url: "${capture.url}/hook"}}
`);
    const journal = outboxFile(join(dirname(file), 'state'), 'oncall');
    const peek = () => (existsSync(journal) ? new Journal(journal, outboxOpSchema).read({ repair: false }) : undefined);
    const queued = () => replayJournal(peek()?.ops ?? []).items.length;
    let daemon = startCli(['run', '--config', file]);
    try {
      await waitFor('a notification queued behind the down receiver', () => queued() >= 1 && capture.requests.length >= 1, 20_000);
      daemon.child.kill('SIGKILL');
      await daemon.exit;
      const queuedBefore = queued();
      appendFileSync(journal, '{"retry":{"id":"x","attem'); // the kill landed in the middle of an append

      daemon = startCli(['run', '--config', file]);
      await daemon.waitForOutput(/partial line .*cut off/);
      const attempts = capture.requests.length;
      await waitFor('a retry recorded after the repaired tail', () => capture.requests.length > attempts + 1, 20_000);
      daemon.child.kill('SIGKILL');
      await daemon.exit;
      expect(peek()?.skipped).toEqual([]);

      capture.respond(() => ({ status: 200 }));
      daemon = startCli(['run', '--config', file]);
      await daemon.waitForOutput(/undelivered notifications restored/);
      await waitFor('the whole queue delivered', () => queued() === 0, 20_000);
      expect(daemon.output()).not.toMatch(/unreadable|set aside/);
      expect(queuedBefore).toBeGreaterThanOrEqual(1);
      expect(capture.requests.filter((r) => r.path === '/hook').length).toBeGreaterThan(attempts);
      expect(readdirSync(dirname(journal)).filter((f) => f.includes('.corrupt-'))).toEqual([]);
    } finally {
      daemon.child.kill('SIGKILL');
      await sim.close();
      await capture.close();
    }
  });

  it('alert state and silences that are JSON of the wrong shape are set aside with a message; the daemon starts and alerts', { timeout: 60_000 }, async () => {
    const sim = await startSim([{ name: 'n', scenario: 'network-down' }]);
    const capture = await startCapture();
    const file = writeConfig(`
listen: 127.0.0.1:0
state_dir: ./state
nodes:
  - {name: n, url: "${sim.nodeUrl('n')}", interval: 1s, endpoints: [health]}
alerts:
  for_polls: 1
  receivers:
    - {name: oncall, webhook: {url: "${capture.url}/hook"}}
`);
    const stateDir = join(dirname(file), 'state');
    mkdirSync(stateDir);
    writeFileSync(join(stateDir, 'alerts.json'), '{"version":1,"alerts":[null]}');
    writeFileSync(join(stateDir, 'silences.json'), '{"version":1,"silences":[{"id":1}]}');
    const daemon = startCli(['run', '--config', file]);
    try {
      await daemon.waitForOutput(/first poll round complete/);
      expect(daemon.output()).toMatch(/alert state file unreadable; set aside, starting empty/);
      expect(daemon.output()).toMatch(/alerts\.0: /);
      expect(daemon.output()).toMatch(/silences file unreadable; set aside/);
      await waitFor('the firing notification', () => capture.on('/hook').length >= 1, 20_000);
      expect(readdirSync(stateDir).filter((f) => f.includes('.corrupt-')).sort()).toEqual([expect.stringMatching(/^alerts\.json\.corrupt-/), expect.stringMatching(/^silences\.json\.corrupt-/)]);
    } finally {
      daemon.child.kill('SIGKILL');
      await sim.close();
      await capture.close();
    }
  });
});
