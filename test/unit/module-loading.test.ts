/**
 * What a daemon loads at start (RSS of a one-node sidecar, bench/RESULTS.md "Memory"): the
 * libraries only some deployments use are loaded on first use.
 */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const DIST = fileURLToPath(new URL('../../dist/', import.meta.url));

/** Imports the given dist modules in a fresh node, runs `then`, and lists the CommonJS packages loaded. */
function loadedPackages(modules: string[], then = ''): Promise<string[]> {
  const script = `
    import { createRequire } from 'node:module';
    ${modules.map((m, i) => `const m${i} = await import(${JSON.stringify(DIST + m)});`).join('\n')}
    ${then}
    const loaded = Object.keys(createRequire(import.meta.url).cache).map((f) => f.replace(/.*node_modules\\//, ''));
    process.stdout.write(JSON.stringify(loaded));`;
  return new Promise((resolve, reject) =>
    execFile(process.execPath, ['--input-type=module', '-e', script], { cwd: DIST }, (err, stdout) => (err ? reject(err) : resolve(JSON.parse(stdout)))),
  );
}

describe('module loading', () => {
  it('a daemon loads undici’s Agent, not its fetch, WebSocket or index; nor re2js, bcryptjs, ajv or pino-pretty', async () => {
    const loaded = await loadedPackages(['app/daemon.js', 'transport/client.js'], `new m1.HttpClient({ maxResponseBytes: 1024 });`);
    expect(loaded).toContain('undici/lib/dispatcher/agent.js');
    expect(loaded.filter((f) => f === 'undici/index.js' || f.startsWith('undici/lib/web/'))).toEqual([]);
    expect(loaded.filter((f) => /^(re2js|bcryptjs|ajv|pino-pretty)\//.test(f))).toEqual([]);
  });

  it('re2js is loaded by the first regex matcher, which still matches in full', async () => {
    const loaded = await loadedPackages(['alerts/silences.js'], `
      const test = m0.compileLabelMatcher('~node-[0-9]+');
      if (!test('node-12') || test('node-12x') || test('x-node-1')) throw new Error('regex matcher wrong');`);
    expect(loaded.some((f) => f.startsWith('re2js/'))).toBe(true);
  });

});

describe('the daemon\'s modules', () => {
  it('load neither fetch nor WebSocket (Node.js 22 and later bring their own undici for them through `import … from \'node:http\'`)', async () => {
    const daemon = join(DIST, 'app/daemon.js');
    const loaded = await new Promise<string>((resolve, reject) =>
      execFile(process.execPath, ['--input-type=module', '-e', `await import(${JSON.stringify(daemon)}); process.stdout.write(process.moduleLoadList.join('\\n'))`], { env: { ...process.env, NODE_OPTIONS: '' } }, (err, stdout) => (err ? reject(err) : resolve(stdout))),
    );
    expect(loaded).toContain('NativeModule http');
    expect(loaded).not.toContain('internal/deps/undici/undici');
  });
});
