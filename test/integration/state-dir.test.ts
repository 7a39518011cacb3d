/**
 * One state_dir, one owner, with real processes of the built daemon: a second daemon on the same
 * state_dir refuses to start before it reads or sends anything; the lock of a killed daemon is
 * taken over, and so is one naming a live process that is not its owner (a pid reused after a
 * reboot); a state_dir that cannot be written is a one-line start-up error.
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, renameSync, unlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { LOCK_FILE } from '../../src/state/lock.js';
import { runCli, startCli } from '../helpers/cli.js';
import { sample, scrape, startSim, waitFor, writeConfig } from '../helpers/harness.js';

/** The pid on the lock's first line (the second records its start time and boot). */
const lockPid = (lockFile: string) => readFileSync(lockFile, 'utf8').split('\n')[0];

describe('state_dir ownership', () => {
  it('a second daemon on the same state_dir exits 1 naming the owner; a killed owner’s lock is taken over', { timeout: 60_000 }, async () => {
    const sim = await startSim([{ name: 'n', scenario: 'healthy' }]);
    const file = writeConfig(`listen: 127.0.0.1:0\nstate_dir: ./state\nnodes:\n  - {name: n, url: "${sim.nodeUrl('n')}", interval: 1s, endpoints: [health]}\n`);
    const stateDir = join(dirname(file), 'state');
    const lockFile = join(stateDir, LOCK_FILE);
    const first = startCli(['run', '--config', file]);
    let third: ReturnType<typeof startCli> | undefined;
    try {
      await first.waitForOutput(/first poll round complete/);
      expect(lockPid(lockFile)).toBe(String(first.child.pid));

      const second = await runCli(['run', '--config', file]);
      expect(second.code).toBe(1);
      expect(second.stderr).toBe(`avahealth: ${file}:2:12: state_dir ${stateDir} is in use by pid ${first.child.pid} (lock file ${lockFile})\n`);
      expect(second.stdout).toBe(''); // not one log line: it read and sent nothing
      expect(lockPid(lockFile)).toBe(String(first.child.pid));

      first.child.kill('SIGKILL');
      await first.exit;
      expect(existsSync(lockFile)).toBe(true); // left behind by the killed process

      third = startCli(['run', '--config', file]);
      await third.waitForOutput(/first poll round complete/);
      expect(third.output()).toMatch(new RegExp(`"pid":${first.child.pid}.*state_dir lock of a process that is gone taken over`));
      expect(lockPid(lockFile)).toBe(String(third.child.pid));
      third.child.kill('SIGTERM');
      expect(await third.exit).toBe(0);
      expect(existsSync(lockFile)).toBe(false); // released on a clean stop
    } finally {
      first.child.kill('SIGKILL');
      third?.child.kill('SIGKILL');
      await sim.close();
    }
  });

  it('a stale lock whose pid now belongs to a live unrelated process (as after a reboot) is taken over; the live owner’s is not', { timeout: 60_000 }, async () => {
    const sim = await startSim([{ name: 'n', scenario: 'healthy' }]);
    const file = writeConfig(`listen: 127.0.0.1:0\nstate_dir: ./state\nnodes:\n  - {name: n, url: "${sim.nodeUrl('n')}", interval: 1s, endpoints: [health]}\n`);
    const stateDir = join(dirname(file), 'state');
    const lockFile = join(stateDir, LOCK_FILE);
    // a real live process that is not avahealth, holding the pid a lock names
    const other = spawn('sleep', ['600'], { stdio: 'ignore' });
    const otherPid = other.pid!;
    const started: ReturnType<typeof startCli>[] = [];
    const start = async () => {
      const daemon = startCli(['run', '--config', file]);
      started.push(daemon);
      await daemon.waitForOutput(/first poll round complete/);
      return daemon;
    };
    const stop = async (daemon: ReturnType<typeof startCli>) => {
      daemon.child.kill('SIGTERM');
      expect(await daemon.exit).toBe(0);
    };
    try {
      const first = await start(); // creates state_dir and its files
      const recorded = readFileSync(lockFile, 'utf8').split('\n')[1]!;
      expect(recorded).toMatch(/^started=\d+ boot=[0-9a-f-]+$/);
      await stop(first);

      // a lock as an older avahealth wrote it (pid only), naming the live `sleep`
      writeFileSync(lockFile, `${otherPid}\n`);
      const second = await start();
      expect(second.output()).toMatch(new RegExp(`"pid":${otherPid}.*state_dir lock taken over: pid ${otherPid} now belongs to another program \\(sleep\\)`));
      expect(lockPid(lockFile)).toBe(String(second.child.pid));
      await stop(second);

      // a lock recording a start time the live `sleep` does not have
      writeFileSync(lockFile, `${otherPid}\n${recorded.replace(/started=\d+/, 'started=1')}\n`);
      const third = await start();
      expect(third.output()).toMatch(new RegExp(`"pid":${otherPid}.*state_dir lock taken over: pid ${otherPid} now belongs to a process started at another time`));
      await stop(third);

      // a lock from another boot
      writeFileSync(lockFile, `${otherPid}\n${recorded.replace(/boot=\S+/, 'boot=00000000-0000-0000-0000-000000000000')}\n`);
      const fourth = await start();
      expect(fourth.output()).toMatch(/state_dir lock taken over: it was written before a reboot/);
      expect(other.exitCode).toBeNull(); // the unrelated process was left alone
      const refused = await runCli(['run', '--config', file]); // while the real owner lives, it is refused
      expect(refused.code).toBe(1);
      expect(refused.stderr).toBe(`avahealth: ${file}:2:12: state_dir ${stateDir} is in use by pid ${fourth.child.pid} (lock file ${lockFile})\n`);
      await stop(fourth);
    } finally {
      for (const daemon of started) daemon.child.kill('SIGKILL');
      other.kill('SIGKILL');
      await sim.close();
    }
  });

  it('a write failure later is logged at error once per file and change, counted in a metric, and its recovery logged', { timeout: 60_000 }, async () => {
    const sim = await startSim([{ name: 'n', scenario: 'flapping', periodMs: 400 }]);
    const file = writeConfig(`listen: 127.0.0.1:0\nstate_dir: ./state\nnodes:\n  - {name: n, url: "${sim.nodeUrl('n')}", interval: 1s, endpoints: [health]}\nalerts:\n  for_polls: 1\n  resolve_polls: 1\n  flap_threshold: 1000\n`);
    const stateDir = join(dirname(file), 'state');
    const daemon = startCli(['run', '--config', file]);
    try {
      const [, address] = await daemon.waitForOutput(/"address":"([^"]+)".*avahealth started/);
      await waitFor('alert states saved', () => existsSync(join(stateDir, 'alerts.json')));
      renameSync(stateDir, `${stateDir}.moved`);
      writeFileSync(stateDir, 'a file where state_dir was'); // every write below it fails now
      const failures = async () => sample(await scrape(`http://${address}`), 'avahealth_state_write_failures_total') ?? 0;
      await waitFor('several failed writes', async () => (await failures()) >= 3, 20_000);
      // once per file: alerts.json, and any probe ledger whose (once a second) write came after the move
      const errors = daemon.output().split('\n').filter((line) => line.includes('cannot write state')).map((line) => JSON.parse(line) as { file: string });
      const files = errors.map((e) => e.file);
      expect(files).toEqual([...new Set(files)]);
      expect(errors.find((e) => e.file === join(stateDir, 'alerts.json'))).toMatchObject({ level: 50, error: expect.stringMatching(/^E[A-Z]+ \(/) });

      unlinkSync(stateDir);
      renameSync(`${stateDir}.moved`, stateDir);
      await daemon.waitForOutput(/state written again/, 20_000);
      expect(daemon.output()).not.toMatch(/set aside|corrupt/);
    } finally {
      daemon.child.kill('SIGKILL');
      await sim.close();
    }
  });

  it('a state_dir that cannot be written is a one-line start-up error, exit 1', async () => {
    const file = writeConfig('listen: 127.0.0.1:0\nstate_dir: ./not-a-dir/state\nnodes:\n  - {name: n, url: "http://127.0.0.1:9", endpoints: [health]}\n');
    writeFileSync(join(dirname(file), 'not-a-dir'), 'a file where a directory should be');
    const result = await runCli(['run', '--config', file]);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(new RegExp(`^avahealth: ${file}:2:12: state_dir ${join(dirname(file), 'not-a-dir', 'state')} is not writable: ENOTDIR \\(mkdir .*\\)\\n$`));
    expect(result.stdout).toBe('');
  });
});
