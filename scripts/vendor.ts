/**
 * The build's second step (after tsc): bundles the libraries listed in VENDORED into one module
 * each under dist/vendor/ and points dist's imports at those files.
 *
 * Why: a one-node sidecar's memory is mostly code (bench/RESULTS.md, "Sidecar"). zod 4 as installed
 * is 95 ES modules: its 57 locales load with it, and most of its files contain a character outside
 * Latin-1, so V8 keeps their source text at two bytes a character. One bundled file with only the
 * API `z` exposes, `en` its one locale and every non-ASCII character escaped (esbuild's `charset:
 * 'ascii'`, comments dropped) takes ≈ 2.5 MiB less RSS in the sidecar (62.7–63.4 → 60.4–60.6
 * MiB). yaml (72 CommonJS modules) and prom-client (32, and 51 of @opentelemetry/api) bundled
 * the same way: ≈ 0.5 MiB less again (59.8–60.1 MiB). Same versions, same behaviour: the bundles
 * are built from node_modules at each build; tests that run the sources (vitest, tsx) use the
 * packages themselves.
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative, sep } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build, type Plugin } from 'esbuild';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const DIST = join(ROOT, 'dist');
const VENDOR = join(DIST, 'vendor');
const require = createRequire(join(ROOT, 'package.json'));

interface Vendored {
  /** The bare specifier dist imports. */
  specifier: string;
  /** The bundle's entry module, given the names dist imports from the package ('default' included). */
  entry: (names: string[]) => { contents: string; resolveDir: string };
}

/** `z` as zod exports it, minus the namespaces the daemon never reads at run time: `z.core` (types only here) and `z.locales` (all 57). */
function zodApi(): { contents: string; resolveDir: string } {
  const classic = join(dirname(require.resolve('zod')), 'v4', 'classic');
  const external = readFileSync(join(classic, 'external.js'), 'utf8');
  const dropped = /^export \* as (core|locales) from .*$/gm;
  if ((external.match(dropped) ?? []).length !== 2) throw new Error(`vendor: zod's v4/classic/external.js no longer re-exports core and locales as expected; review scripts/vendor.ts`);
  return { contents: external.replace(dropped, ''), resolveDir: classic };
}

/** A CommonJS package: the names dist imports, re-exported (the bundle holds the whole package, as loaded today). */
const namedExports = (specifier: string) => (names: string[]) => ({ contents: `export { ${names.join(', ')} } from '${specifier}';`, resolveDir: ROOT });

const VENDORED: Vendored[] = [
  { specifier: 'zod', entry: () => ({ contents: `export * as z from 'vendor:zod-api';`, resolveDir: ROOT }) },
  { specifier: 'yaml', entry: namedExports('yaml') },
  { specifier: 'prom-client', entry: namedExports('prom-client') },
];

/** `vendor:zod-api`: zod's classic API module, read from the installed package (zodApi). */
const zodApiPlugin: Plugin = {
  name: 'zod-api',
  setup(pluginBuild) {
    pluginBuild.onResolve({ filter: /^vendor:zod-api$/ }, () => ({ path: 'zod-api', namespace: 'vendor' }));
    pluginBuild.onLoad({ filter: /.*/, namespace: 'vendor' }, () => ({ ...zodApi(), loader: 'js' }));
  },
};

/**
 * The names dist imports (or re-exports) from `specifier` (`default` for a default import);
 * type-only imports are gone after tsc. A dynamic import or an `export *` of it fails the build:
 * the bundle of a CommonJS package exports only the names listed here, so a name used through
 * either would be missing at run time, without an error until then.
 */
export function importedNames(sources: readonly string[], specifier: string): string[] {
  const names = new Set<string>();
  const statement = new RegExp(`\\b(?:import|export)\\s+([^'";]*?)\\s*from\\s*(['"])${escaped(specifier)}\\2`, 'g');
  const unlisted = new RegExp(`\\bimport\\s*\\(\\s*(['"])${escaped(specifier)}\\1|\\bexport\\s*\\*[^'";]*from\\s*(['"])${escaped(specifier)}\\2`);
  for (const source of sources) {
    if (unlisted.test(source)) throw new Error(`vendor: a dynamic import or \`export *\` of ${specifier}; import the names it uses statically instead`);
    for (const [, clause] of source.matchAll(statement)) {
      const braces = /\{([^}]*)\}/.exec(clause!);
      for (const name of braces?.[1]!.split(',') ?? []) if (name.trim()) names.add(name.trim().split(/\s+as\s+/)[0]!);
      const outside = clause!.replace(/\{[^}]*\}/, '').replace(/,/g, ' ').trim();
      if (outside.startsWith('* as')) throw new Error(`vendor: a namespace import of ${specifier}; list the names instead`);
      if (outside) names.add('default');
    }
  }
  return [...names].sort();
}

/** Whether `source` still loads `specifier` (or a file of it) from node_modules: an import, export, dynamic import or require of it (not any string that happens to equal its name). */
export function loadsPackage(source: string, specifier: string): boolean {
  return new RegExp(`(\\bfrom\\s*|\\bimport\\s*\\(\\s*|\\brequire\\s*\\(\\s*|\\bimport\\s*)(['"])${escaped(specifier)}(/[^'"]*)?\\2`).test(source);
}

const escaped = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

function builtModules(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.js'))
    .map((entry) => join(entry.parentPath, entry.name))
    .filter((file) => !file.startsWith(VENDOR + sep));
}

async function main(): Promise<void> {
  const files = builtModules(DIST);
  const sources = files.map((file) => readFileSync(file, 'utf8'));
  for (const vendored of VENDORED) {
    await build({
      stdin: { ...vendored.entry(importedNames(sources, vendored.specifier)), sourcefile: `${vendored.specifier}.entry.js`, loader: 'js' },
      outfile: join(VENDOR, `${vendored.specifier}.js`),
      bundle: true,
      format: 'esm',
      platform: 'node',
      target: 'node20',
      // non-ASCII characters escaped (esbuild's default, stated) and comments dropped (some are not
      // ASCII): V8 then stores the source at one byte a character. Identifiers stay as they are.
      charset: 'ascii',
      minifyWhitespace: true,
      // the CommonJS packages' require() of node's built-in modules
      banner: { js: `import { createRequire as vendorRequire } from 'node:module'; const require = vendorRequire(import.meta.url);` },
      plugins: [zodApiPlugin],
      logLevel: 'warning',
    });
  }
  for (const [i, file] of files.entries()) {
    const source = sources[i]!;
    let rewritten = source;
    for (const { specifier } of VENDORED) {
      let target = relative(dirname(file), join(VENDOR, `${specifier}.js`)).split(sep).join('/');
      if (!target.startsWith('.')) target = `./${target}`;
      rewritten = rewritten.replace(new RegExp(`(\\bfrom\\s*|\\bimport\\s*\\(\\s*)(['"])${specifier}\\2`, 'g'), `$1$2${target}$2`);
      if (loadsPackage(rewritten, specifier)) throw new Error(`vendor: ${relative(ROOT, file)} still imports ${specifier} from node_modules`);
    }
    if (rewritten !== source) writeFileSync(file, rewritten);
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) await main();
