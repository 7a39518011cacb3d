/**
 * A real SMTP server (test/helpers/smtp-server.py: aiosmtpd, Debian's python3-aiosmtpd) for the
 * email receiver's tests, with a throwaway certificate. Without aiosmtpd its tests skip with a
 * printed reason; with CI=true they fail instead (`.ci/run` installs it).
 */
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { waitFor } from './harness.js';

const SCRIPT = join(dirname(fileURLToPath(import.meta.url)), 'smtp-server.py');

/** A python3 that can import aiosmtpd (Debian's own first: a pyenv or venv python on PATH may not see it). */
function findPython(): string | undefined {
  for (const python of ['python3', '/usr/bin/python3']) {
    try {
      execFileSync(python, ['-c', 'import aiosmtpd'], { stdio: 'ignore' });
      return python;
    } catch {
      // not this one
    }
  }
  return undefined;
}

/** The python3 to run the server with; undefined (with a printed reason) when absent outside CI; throws in CI. */
export function requireAiosmtpd(why: string): string | undefined {
  const python = findPython();
  if (python) return python;
  const reason = `python3 with aiosmtpd is not installed: skipping ${why} (apt-get install python3-aiosmtpd)`;
  if (process.env.CI === 'true') throw new Error(`CI=true but ${reason.replace('skipping', 'cannot run')}`);
  process.stderr.write(`[skip] ${reason}\n`);
  return undefined;
}

export interface ReceivedMail {
  headers: Record<string, string>;
  text: string | null;
  html: string | null;
  contentType: string;
  mailFrom: string;
  rcptTos: string[];
  tls: boolean;
  login: string | null;
}

/** A throwaway CA-less certificate for 127.0.0.1 and localhost: `cert` is also the CA to trust. */
export function makeCertificate(): { cert: string; key: string } {
  const dir = mkdtempSync(join(tmpdir(), 'avahealth-smtp-cert-'));
  const cert = join(dir, 'cert.pem');
  const key = join(dir, 'key.pem');
  execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '2', '-subj', '/CN=smtp.test', '-addext', 'subjectAltName=IP:127.0.0.1,DNS:localhost', '-keyout', key, '-out', cert], { stdio: 'ignore' });
  return { cert, key };
}

export async function startSmtp(python: string, options: { mode: 'starttls' | 'implicit' | 'plain'; cert?: { cert: string; key: string }; user?: string; password?: string }) {
  const out = mkdtempSync(join(tmpdir(), 'avahealth-smtp-'));
  const args = [SCRIPT, out, '--mode', options.mode];
  if (options.cert) args.push('--cert', options.cert.cert, '--key', options.cert.key);
  if (options.user) args.push('--user', options.user, '--password', options.password ?? '');
  const child = spawn(python, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr.on('data', (d: Buffer) => (output += d.toString()));
  const port = await waitFor(`the SMTP server to listen (${output})`, () => /PORT (\d+)/.exec(output)?.[1], 15_000);
  const received = (): ReceivedMail[] =>
    readdirSync(out)
      .filter((f) => f.endsWith('.json'))
      .sort((a, b) => parseInt(a) - parseInt(b))
      .map((f) => JSON.parse(readFileSync(join(out, f), 'utf8')) as ReceivedMail);
  return {
    port: Number(port),
    smarthost: `127.0.0.1:${port}`,
    received,
    raw: (n: number) => (existsSync(join(out, `${n}.eml`)) ? readFileSync(join(out, `${n}.eml`), 'utf8') : undefined),
    output: () => output,
    close: async () => {
      if (child.exitCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    },
  };
}
