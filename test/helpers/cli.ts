import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const CLI = fileURLToPath(new URL('../../dist/cli.js', import.meta.url));

function ensureBuilt(): void {
  if (!existsSync(CLI)) throw new Error('dist/cli.js is missing: run `npm run build` (npm test does) before the CLI tests');
}

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs the built CLI to completion. */
export function runCli(args: string[], env: NodeJS.ProcessEnv = {}): Promise<CliResult> {
  ensureBuilt();
  return new Promise((resolve) => {
    execFile(process.execPath, [CLI, ...args], { cwd: ROOT, env: { ...process.env, NO_COLOR: '1', ...env }, timeout: 30_000 }, (err, stdout, stderr) => {
      const code = err ? ((err as { code?: number }).code ?? 1) : 0;
      resolve({ code: typeof code === 'number' ? code : 1, stdout, stderr });
    });
  });
}

export interface LongRunning {
  child: ChildProcess;
  output: () => string;
  waitForOutput: (pattern: RegExp, timeoutMs?: number) => Promise<RegExpMatchArray>;
  exit: Promise<number | null>;
}

/** Starts a long-running CLI command (run, simulate, demo); `nodeFlags` go on node's command line before the CLI. */
export function startCli(args: string[], env: NodeJS.ProcessEnv = {}, nodeFlags: readonly string[] = []): LongRunning {
  ensureBuilt();
  const child = spawn(process.execPath, [...nodeFlags, CLI, ...args], { cwd: ROOT, env: { ...process.env, NO_COLOR: '1', ...env } });
  let text = '';
  child.stdout!.on('data', (c: Buffer) => (text += c.toString()));
  child.stderr!.on('data', (c: Buffer) => (text += c.toString()));
  const exit = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return {
    child,
    output: () => text,
    exit,
    waitForOutput: async (pattern, timeoutMs = 15_000) => {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const m = text.match(pattern);
        if (m) return m;
        if (Date.now() > deadline || child.exitCode !== null) throw new Error(`no ${pattern} in output:\n${text}`);
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
    },
  };
}

/** A daemon started by runDaemon: the process and its URL. */
export type RunningCli = LongRunning & { url: string };

/** `avahealth run` (dist/cli.js) with a config, once it says it started: the process and its URL. */
export async function runDaemon(config: string, env: NodeJS.ProcessEnv = {}, args: string[] = []): Promise<RunningCli> {
  const daemon = startCli(['run', '--config', config, ...args], env);
  const [, address] = await daemon.waitForOutput(/"address":"([^"]+)".*avahealth started/, 30_000);
  return Object.assign(daemon, { url: `http://${address}` });
}

/** SIGTERM, then its exit (nothing when it never started). */
export async function stopCli(daemon: LongRunning | undefined): Promise<void> {
  daemon?.child.kill('SIGTERM');
  await daemon?.exit;
}
