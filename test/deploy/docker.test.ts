import { execFile, execFileSync } from 'node:child_process';
import { promisify } from 'node:util';
import { cpSync, existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sidecarNodeOptions } from '../../bench/lib.js';
import { ROOT } from '../helpers/cli.js';
import { startSim, writeConfig } from '../helpers/harness.js';

/** The Dockerfile's instructions, continuation lines joined. */
function instructions(): Array<{ op: string; args: string }> {
  return readFileSync(join(ROOT, 'Dockerfile'), 'utf8')
    .replace(/\\\n/g, ' ')
    .split('\n')
    .filter((line) => line.trim() && !line.trim().startsWith('#'))
    .map((line) => {
      const [op, ...rest] = line.trim().split(/\s+/);
      return { op: op!.toUpperCase(), args: rest.join(' ') };
    });
}

describe('Dockerfile (checked without a Docker engine)', () => {
  const steps = instructions();

  it('is multi-stage, non-root, with OCI labels, a node-based HEALTHCHECK and no curl', () => {
    expect(steps.filter((s) => s.op === 'FROM')).toHaveLength(2);
    expect(steps.find((s) => s.op === 'USER')?.args).toBe('node');
    expect(steps.find((s) => s.op === 'LABEL')?.args).toContain('org.opencontainers.image.revision');
    const health = steps.find((s) => s.op === 'HEALTHCHECK')!.args;
    expect(health).toContain('"node", "-e"');
    expect(health).toContain('/-/healthy');
    expect(readFileSync(join(ROOT, 'Dockerfile'), 'utf8')).not.toMatch(/\b(curl|wget)\b/);
    expect(readFileSync(join(ROOT, '.dockerignore'), 'utf8')).toContain('node_modules');
  });

  it('copies only paths that exist after npm run build', () => {
    for (const step of steps.filter((s) => s.op === 'COPY' && !s.args.startsWith('--from'))) {
      const sources = step.args.split(/\s+/).slice(0, -1);
      for (const source of sources) expect(existsSync(join(ROOT, source)), source).toBe(true);
    }
    for (const step of steps.filter((s) => s.op === 'COPY' && s.args.startsWith('--from'))) {
      const source = step.args.split(/\s+/)[1]!.replace(/^\/app\//, '');
      expect(existsSync(join(ROOT, source)), source).toBe(true);
    }
  });

  it('its entrypoint is the one node command (npm start, README): no flags on it, its NODE_OPTIONS accepted by this runtime', () => {
    const entrypoint = JSON.parse(steps.find((s) => s.op === 'ENTRYPOINT')!.args) as string[];
    expect(entrypoint).toEqual(['node', 'dist/cli.js']);
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { bin: { avahealth: string }; scripts: { start: string } };
    expect(pkg.scripts.start).toBe(`${entrypoint.join(' ')} run`);
    expect(pkg.bin.avahealth).toBe(entrypoint[1]);
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    expect(readme).not.toMatch(/\bnode (--\S+ )+dist\/cli\.js/); // no command with flags of its own
    // what a pod may change is in NODE_OPTIONS, which node refuses at start when it does not take a flag there
    const nodeOptions = steps.filter((s) => s.op === 'ENV' && s.args.startsWith('NODE_OPTIONS=')).map((s) => s.args.slice('NODE_OPTIONS='.length));
    expect(nodeOptions).toEqual(['--max-semi-space-size=16']);
    for (const options of [...nodeOptions, sidecarNodeOptions()]) {
      const out = execFileSync(process.execPath, [join(ROOT, entrypoint[1]!), '--version'], { encoding: 'utf8', env: { ...process.env, NODE_OPTIONS: options } });
      expect(out, options).toMatch(/^avahealth \d+\.\d+\.\d+\n$/);
    }
  });

  it('the production dependency set is enough to run avahealth check', { timeout: 120_000 }, async () => {
    const app = mkdtempSync(join(tmpdir(), 'avahealth-image-'));
    for (const path of ['package.json', 'package-lock.json', 'dist', 'specs', 'config']) cpSync(join(ROOT, path), join(app, path), { recursive: true });
    execFileSync('npm', ['ci', '--omit=dev', '--no-audit', '--no-fund', '--ignore-scripts', '--prefer-offline'], { cwd: app, stdio: 'ignore' });
    expect(existsSync(join(app, 'node_modules', 'vitest'))).toBe(false);
    const sim = await startSim([{ name: 'n', scenario: 'healthy' }]);
    try {
      const file = writeConfig(`nodes:\n  - {name: n, url: "${sim.nodeUrl('n')}"}\nservices:\n  - {name: d, kind: data-api, url: "${sim.serviceUrl('data-api')}", probes: [{name: blocks, path: /v1/chains/43114/blocks}]}\n`);
      // async: the simulator answers from this very process
      const { stdout } = await promisify(execFile)(process.execPath, ['dist/cli.js', 'check', '--config', file], { cwd: app, encoding: 'utf8' });
      expect(stdout.split('\n')[0]).toMatch(/^OK - 2 targets healthy \|/);
    } finally {
      await sim.close();
    }
  });
});
