import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { outboxFile, replayJournal } from '../../src/alerts/outbox.js';
import { outboxOpSchema } from '../../src/alerts/persisted.js';
import { Journal } from '../../src/state/journal.js';
import { startCapture } from '../helpers/capture.js';
import { startCli } from '../helpers/cli.js';
import { setScenario, startSim, waitFor, writeConfig } from '../helpers/harness.js';

type Webhook = { status: string; alerts: Array<{ fingerprint: string; status: string }> };

describe('SIGKILL with notifications queued and an alert firing', () => {
  it('after a restart the queue is delivered, the firing alert is not re-announced, and its resolve arrives', { timeout: 60_000 }, async () => {
    const sim = await startSim([{ name: 'n', scenario: 'network-down' }]);
    const capture = await startCapture(() => ({ status: 503, body: 'receiver down' }));
    const file = writeConfig(`
listen: 127.0.0.1:0
state_dir: ./state
nodes:
  - {name: n, url: "${sim.nodeUrl('n')}", interval: 1s, endpoints: [health]}
alerts:
  for_polls: 1
  rules:
    AvalancheNodeUnhealthy: {disabled: true}
  receivers:
    - {name: oncall, webhook: {url: "${capture.url}/hook", secret: s3cret-signing-key}}
`);
    const stateDir = join(dirname(file), 'state');
    const journal = outboxFile(stateDir, 'oncall');
    const alertsFile = join(stateDir, 'alerts.json');
    const queued = () => (existsSync(journal) ? replayJournal(new Journal(journal, outboxOpSchema).read({ repair: false }).ops).items.length : 0);
    const firingTold = () => (existsSync(alertsFile) ? JSON.parse(readFileSync(alertsFile, 'utf8')).alerts.filter((a: { phase: string; notified?: unknown }) => a.phase === 'firing' && a.notified) : []);

    let daemon = startCli(['run', '--config', file]);
    try {
      // queued behind a down receiver, and the alert states saying so written
      await waitFor('a notification queued and the firing alerts saved', () => queued() >= 1 && capture.requests.length >= 1 && firingTold().length >= 4, 20_000);
      daemon.child.kill('SIGKILL');
      await daemon.exit;

      capture.respond(() => ({ status: 200 }));
      const attemptsBefore = capture.requests.length;
      daemon = startCli(['run', '--config', file]);
      await daemon.waitForOutput(/undelivered notifications restored/);
      await daemon.waitForOutput(/alert states restored/);
      await waitFor('the queued notification delivered', () => queued() === 0 && capture.requests.length > attemptsBefore, 20_000);
      // several more polls with the node still failing (counted where the node answers, however slow the machine): nothing new is announced
      const polled = sim.nodes.get('n')!.requests;
      await waitFor('three more polls of the failing node', () => sim.nodes.get('n')!.requests >= polled + 4, 30_000);
      const firingIds = new Set(capture.requests.filter((r) => (r.json as Webhook).status === 'firing').map((r) => r.headers['webhook-id']));
      expect(firingIds.size).toBe(1); // every firing request was an attempt of the one queued batch

      await setScenario(sim, 'n', 'healthy');
      await waitFor('the resolve', () => capture.requests.some((r) => (r.json as Webhook).status === 'resolved'), 20_000);
      const resolved = capture.requests.find((r) => (r.json as Webhook).status === 'resolved')!.json as Webhook;
      const fired = (capture.requests[0]!.json as Webhook).alerts.map((a) => a.fingerprint).sort();
      expect(resolved.alerts.map((a) => a.fingerprint).sort()).toEqual(fired);
    } finally {
      daemon.child.kill('SIGKILL');
      await sim.close();
      await capture.close();
    }
  });
});
