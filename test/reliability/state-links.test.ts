/**
 * The state directory stays ours (issue 45.5), with real links, a real FIFO and the built daemon:
 * a symbolic link planted where a state file goes (an outbox journal, the reserve, alerts.json) or a
 * FIFO in place of alerts.json or a journal is refused at start with a clear error (exit 1, never a
 * hang, nothing written through a link); temporary files have names no one can guess ahead, so links
 * planted at the names they used to have catch nothing while the daemon writes; a state_dir every
 * user may write in is warned of.
 */
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { SimServer } from '../../src/sim/server.js';
import { startCapture } from '../helpers/capture.js';
import { runDaemon, startCli, stopCli, type LongRunning, type RunningCli } from '../helpers/cli.js';
import { setScenario, startSim, waitFor, writeConfig } from '../helpers/harness.js';

const VICTIM_TEXT = 'precious: not to be overwritten, appended to or padded\n';

/** A file outside state_dir that a planted link points at. */
function victim(): string {
  const file = join(mkdtempSync(join(tmpdir(), 'avahealth-victim-')), 'victim.txt');
  writeFileSync(file, VICTIM_TEXT);
  return file;
}

describe('state_dir: links and FIFOs', () => {
  let sim: SimServer;
  let capture: Awaited<ReturnType<typeof startCapture>>;

  beforeAll(async () => {
    sim = await startSim([{ name: 'n1', scenario: 'healthy' }]);
    capture = await startCapture();
  });

  afterAll(async () => {
    await sim?.close();
    await capture?.close();
  });

  const config = (stateDir: string) =>
    writeConfig(`
listen: 127.0.0.1:0
state_dir: ${stateDir}
nodes:
  - {name: n1, url: "${sim.nodeUrl('n1')}", interval: 1s, endpoints: [health]}
alerts:
  for_polls: 1
  resolve_polls: 1
  receivers:
    - {name: oncall, webhook: {url: "${capture.url}/hook"}}
`);

  const started: LongRunning[] = [];
  afterEach(async () => {
    // A daemon that did not refuse (or hangs on a FIFO) is stopped here, whatever the test said.
    for (const daemon of started.splice(0)) {
      if (daemon.child.exitCode === null) daemon.child.kill('SIGKILL');
      await daemon.exit;
    }
  });

  /** Starts the built daemon on `stateDir`, expecting it to refuse: its exit code and output (`started` when it did not refuse). */
  async function refusedStart(stateDir: string): Promise<{ code: number | null | 'started'; output: string }> {
    const daemon = startCli(['run', '--config', config(stateDir)]);
    started.push(daemon);
    const code = await Promise.race([daemon.exit, daemon.waitForOutput(/avahealth started/, 120_000).then(() => 'started' as const, () => new Promise<never>(() => undefined))]);
    return { code, output: daemon.output() };
  }

  for (const planted of ['outbox/oncall.jsonl', '.avahealth-reserve', 'alerts.json']) {
    it(`a link at ${planted} is refused at start; the linked file is untouched`, async () => {
      const stateDir = mkdtempSync(join(tmpdir(), 'avahealth-links-'));
      mkdirSync(join(stateDir, 'outbox'));
      const target = victim();
      symlinkSync(target, join(stateDir, planted));
      const { code, output } = await refusedStart(stateDir);
      expect(code).toBe(1);
      expect(output).toContain(`avahealth: `);
      expect(output).toContain(`state_dir ${stateDir} holds what avahealth did not write: ${planted} is a symbolic link`);
      expect(readFileSync(target, 'utf8')).toBe(VICTIM_TEXT);
    }, 60_000);
  }

  for (const planted of ['alerts.json', 'outbox/oncall.jsonl']) {
    it(`a FIFO at ${planted} is refused at start with a clear error, not a hang`, async () => {
      const stateDir = mkdtempSync(join(tmpdir(), 'avahealth-fifo-'));
      mkdirSync(join(stateDir, 'outbox'));
      execFileSync('mkfifo', [join(stateDir, planted)]);
      const { code, output } = await refusedStart(stateDir);
      expect(code).toBe(1);
      expect(output).toContain(`${planted} is a FIFO`);
    }, 60_000);
  }

  it('an outbox folder that is a link to another folder is refused', async () => {
    const stateDir = mkdtempSync(join(tmpdir(), 'avahealth-links-'));
    const elsewhere = mkdtempSync(join(tmpdir(), 'avahealth-elsewhere-'));
    symlinkSync(elsewhere, join(stateDir, 'outbox'));
    const { code, output } = await refusedStart(stateDir);
    expect(code).toBe(1);
    expect(output).toContain('outbox is a symbolic link');
    expect(readdirSync(elsewhere)).toEqual([]);
  }, 60_000);

  describe('while running', () => {
    let daemon: RunningCli;
    let stateDir: string;
    const victims: string[] = [];

    beforeAll(async () => {
      stateDir = mkdtempSync(join(tmpdir(), 'avahealth-running-'));
      chmodSync(stateDir, 0o777);
      // A crash's half-written file, left from an earlier life: removed at start, never read.
      writeFileSync(join(stateDir, '.alerts.json.99999.0123456789abcdef.tmp'), '{"half":');
      daemon = await runDaemon(config(stateDir), { KUBERNETES_SERVICE_HOST: '' });
    }, 60_000);

    afterAll(async () => {
      await stopCli(daemon);
    });

    it('links at the temporary names writes used to take catch nothing: every write lands in state_dir', async () => {
      const pid = daemon.child.pid!;
      for (const name of [`.alerts.json.${pid}.tmp`, `.avahealth.lock.${pid}.tmp`, `receivers/.oncall.json.${pid}.tmp`, `outbox/.oncall.jsonl.${pid}.tmp`]) {
        mkdirSync(join(stateDir, name, '..'), { recursive: true });
        const target = victim();
        victims.push(target);
        symlinkSync(target, join(stateDir, name));
      }
      // Writes of every kind: an alert fires and resolves (outbox journal, alerts.json).
      await setScenario(sim, 'n1', 'reset');
      await waitFor('a firing at the webhook', () => capture.on('/hook').some((r) => (r.json as { status?: string }).status === 'firing'), 30_000);
      await setScenario(sim, 'n1', 'healthy');
      await waitFor('a resolve at the webhook', () => capture.on('/hook').some((r) => (r.json as { status?: string }).status === 'resolved'), 30_000);
      await waitFor('alerts.json written', () => existsSync(join(stateDir, 'alerts.json')) && readFileSync(join(stateDir, 'alerts.json'), 'utf8').includes('AvalancheNodeUnreachable'), 30_000);
      for (const target of victims) expect(readFileSync(target, 'utf8')).toBe(VICTIM_TEXT);
      expect(existsSync(join(stateDir, '.alerts.json.99999.0123456789abcdef.tmp'))).toBe(false);
      expect(daemon.output()).toMatch(/"mode":"0777".*state_dir is writable by every user/);
    }, 90_000);
  });
});
