/**
 * What a daemon loads at start (RSS of a one-node sidecar, bench/RESULTS.md "Memory"): the
 * libraries only some deployments use are loaded on first use.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const DIST = fileURLToPath(new URL('../../dist/', import.meta.url));

/** Every file: module (ES or CommonJS) the built CLI loads while running `args`, through a module hook. */
function modulesLoadedByCli(args: string[]): Promise<{ code: number; loaded: string[] }> {
  const dir = mkdtempSync(join(tmpdir(), 'avahealth-modules-'));
  const list = join(dir, 'loaded.txt');
  writeFileSync(list, '');
  const hooks = `import { appendFileSync } from 'node:fs';
    export async function load(url, context, next) { if (url.startsWith('file:')) appendFileSync(${JSON.stringify(list)}, url + '\\n'); return next(url, context); }`;
  const register = `import { register } from 'node:module'; register(${JSON.stringify(`data:text/javascript,${encodeURIComponent(hooks)}`)});`;
  const importFlag = `--import=data:text/javascript,${encodeURIComponent(register)}`;
  return new Promise((resolve) =>
    execFile(process.execPath, [importFlag, join(DIST, 'cli.js'), ...args], { cwd: dir }, (err) =>
      resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, loaded: readFileSync(list, 'utf8').split('\n').filter(Boolean) }),
    ),
  );
}

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

  it('a daemon loads yaml and prom-client (with @opentelemetry/api) bundled in dist/vendor/, not from node_modules', async () => {
    const loaded = await loadedPackages(['app/daemon.js', 'metrics/registry.js'], `m1.createMetricFamilies({ defaultMetrics: true });`);
    expect(loaded.filter((f) => /^(yaml|prom-client|@opentelemetry\/api)\//.test(f))).toEqual([]);
    for (const vendored of ['yaml', 'prom-client']) expect(readFileSync(join(DIST, 'vendor', `${vendored}.js`), 'utf8')).not.toMatch(/[^\x00-\x7f]/);
  });

  it('re2js is loaded by the first regex matcher, which still matches in full', async () => {
    const loaded = await loadedPackages(['alerts/silences.js'], `
      const test = m0.compileLabelMatcher('~node-[0-9]+');
      if (!test('node-12') || test('node-12x') || test('x-node-1')) throw new Error('regex matcher wrong');`);
    expect(loaded.some((f) => f.startsWith('re2js/'))).toBe(true);
  });

  it('the built CLI loads zod as one bundled ASCII module (dist/vendor/zod.js), not the package’s 95 modules and 57 locales', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'avahealth-zod-'));
    const config = join(dir, 'config.yaml');
    writeFileSync(config, 'nodes:\n  - {name: a, url: "http://127.0.0.1:9650"}\n');
    const { code, loaded } = await modulesLoadedByCli(['validate', '--config', config]);
    expect(code).toBe(0);
    expect(loaded.filter((url) => url.endsWith('/dist/config/schema.js'))).toHaveLength(1);
    expect(loaded.filter((url) => url.endsWith('/dist/vendor/zod.js'))).toHaveLength(1);
    expect(loaded.filter((url) => url.includes('/node_modules/zod/'))).toEqual([]);
    expect(loaded.filter((url) => url.endsWith('/dist/vendor/yaml.js'))).toHaveLength(1);
    expect(loaded.filter((url) => url.includes('/node_modules/yaml/'))).toEqual([]);
    // one byte a character in V8: a non-ASCII character anywhere would make it store the whole source at two
    expect(readFileSync(join(DIST, 'vendor', 'zod.js'), 'utf8')).not.toMatch(/[^\x00-\x7f]/);
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
