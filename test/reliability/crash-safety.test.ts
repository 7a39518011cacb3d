/**
 * SIGKILL in the middle of writing state must leave a readable state: a writer process saves a
 * state file as fast as it can and is killed at random points, over and over; every time, the file
 * must read back whole (the old or the new content), never torn.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { outboxFile } from '../../src/alerts/outbox.js';
import { alertStateFileSchema, outboxOpSchema } from '../../src/alerts/persisted.js';
import { readJsonFile } from '../../src/state/atomic.js';
import { Journal } from '../../src/state/journal.js';
import { startCapture } from '../helpers/capture.js';
import { ROOT, startCli } from '../helpers/cli.js';
import { setScenario, startSim, waitFor, writeConfig } from '../helpers/harness.js';

const isState = z.object({ version: z.number(), sequence: z.number(), padding: z.string() });
type State = z.infer<typeof isState>;

describe('crash safety of state files', () => {
  it('a writer killed at random points always leaves a whole file behind', { timeout: 60_000 }, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'avahealth-crash-'));
    const file = join(dir, 'state.json');
    const writer = `
      const { writeJsonAtomic, readJsonFile } = await import(${JSON.stringify(join(ROOT, 'dist/state/atomic.js'))});
      const { z } = await import('zod');
      const prior = readJsonFile(${JSON.stringify(file)}, z.object({ sequence: z.number() }));
      let sequence = prior.status === 'ok' ? prior.value.sequence : 0;
      const save = () => writeJsonAtomic(${JSON.stringify(file)}, { version: 1, sequence: ++sequence, padding: 'x'.repeat(200000 + (sequence % 7) * 10000) });
      save(); // one whole save before 'ready': a kill before the first one would leave nothing to read
      process.stdout.write('ready\\n');
      for (;;) save();
    `;
    let lastSequence = 0;
    for (let round = 0; round < 20; round++) {
      const child = spawn(process.execPath, ['--input-type=module', '-e', writer], { stdio: ['ignore', 'pipe', 'inherit'] });
      await new Promise<void>((resolve) => child.stdout!.once('data', () => resolve()));
      await new Promise((resolve) => setTimeout(resolve, 20 + Math.random() * 150));
      child.kill('SIGKILL');
      await new Promise((resolve) => child.once('exit', resolve));
      const read = readJsonFile(file, isState);
      expect(read.status, `round ${round}`).toBe('ok');
      const state = (read as { value: State }).value;
      expect(state.padding.length).toBe(200000 + (state.sequence % 7) * 10000);
      expect(state.sequence).toBeGreaterThanOrEqual(lastSequence);
      lastSequence = state.sequence;
    }
    expect(lastSequence).toBeGreaterThan(20);
    expect(readdirSync(dir).filter((f) => f.includes('.corrupt-'))).toEqual([]);
  });

  it('the daemon killed at random points while alerts change restarts with readable state every time', { timeout: 90_000 }, async () => {
    const sim = await startSim([{ name: 'n', scenario: 'flapping', periodMs: 300 }]);
    const capture = await startCapture(() => ({ status: 503 })); // keeps the outbox busy and growing
    const file = writeConfig(`listen: 127.0.0.1:0\nstate_dir: ./state\nnodes:\n  - {name: n, url: "${sim.nodeUrl('n')}", interval: 1s, endpoints: [health]}\nalerts:\n  for_polls: 1\n  flap_threshold: 1000\n  receivers:\n    - {name: hook, webhook: {url: "${capture.url}/hook"}}\n`);
    const stateDir = join(file, '..', 'state');
    try {
      for (let round = 0; round < 6; round++) {
        const daemon = startCli(['run', '--config', file]);
        await daemon.waitForOutput(/first poll round complete/);
        await new Promise((resolve) => setTimeout(resolve, 300 + Math.random() * 1200));
        daemon.child.kill('SIGKILL');
        await daemon.exit;
        if (round === 2) await setScenario(sim, 'n', 'network-down');
        expect(daemon.output(), `round ${round}`).not.toContain('unreadable');
      }
      const last = startCli(['run', '--config', file]);
      await last.waitForOutput(/first poll round complete/);
      last.child.kill('SIGTERM');
      await last.exit;
      expect(last.output()).not.toContain('unreadable');
      await waitFor('the state to exist', () => existsSync(join(stateDir, 'alerts.json')));
      expect(readJsonFile(join(stateDir, 'alerts.json'), alertStateFileSchema).status).toBe('ok');
      expect(new Journal(outboxFile(stateDir, 'hook'), outboxOpSchema).read().skipped).toEqual([]);
      expect(readdirSync(stateDir).filter((f) => f.includes('.corrupt-'))).toEqual([]);
    } finally {
      await sim.close();
      await capture.close();
    }
  });
});
